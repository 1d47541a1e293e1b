"""Gradient hooks: srcad.grad_hook(x, fn) is x, and in reverse mode x's adjoint is fn(the adjoint
of that value): clip, scale, log or replace a gradient where it flows, at the user's line; the
hook call shows in the generated code. Forward mode passes tangents through unchanged (a hook
acts on adjoints, as PyTorch's register_hook does). A straight-through estimator needs no hook:
x + srcad.stop_gradient(np.round(x) - x)."""
import numpy as np

import srcad

SEEN = []


def clip(g):
    return np.clip(g, -1.0, 1.0)


def record_norm(g):
    SEEN.append(float(np.sqrt(np.sum(g * g))))
    return g


def clipped(x):
    h = srcad.grad_hook(x * 3.0, clip)
    return np.sum(h ** 2)


def logged(x):
    h = srcad.grad_hook(np.tanh(x), record_norm)
    return np.sum(h * x)


def rounded_straight_through(x):
    q = x + srcad.stop_gradient(np.round(x) - x)
    return np.sum(q ** 2)


X = np.array([0.1, 0.5, -2.0])


def test_a_hook_replaces_the_adjoint_where_it_flows():
    h = 3.0 * X
    expected = 3.0 * np.clip(2.0 * h, -1.0, 1.0)
    np.testing.assert_allclose(srcad.grad(clipped)(X), expected, rtol=1e-15)
    assert "clip(" in srcad.source(clipped)  # (at the line of the hook)


def test_forward_mode_passes_tangents_through_a_hook():
    v = np.array([1.0, -1.0, 0.5])
    np.testing.assert_allclose(srcad.jvp(clipped)(X, v), np.sum(2 * (3.0 * X) * 3.0 * v),
                               rtol=1e-15)


def test_a_hook_that_observes_runs_once_per_gradient_and_changes_nothing():
    SEEN.clear()
    g = srcad.grad(logged, verify=False)(X)  # (verify mode would run it twice)
    assert len(SEEN) == 1 and SEEN[0] == np.sqrt(np.sum(X * X))  # the adjoint of tanh(x) is x
    expected = np.tanh(X) + X * (1.0 - np.tanh(X) ** 2)
    np.testing.assert_allclose(g, expected, rtol=1e-14)


def test_straight_through_estimator_by_stop_gradient():
    x = np.array([0.4, 1.6, -2.2])
    np.testing.assert_allclose(srcad.grad(rounded_straight_through)(x), 2.0 * np.round(x))


def test_a_hook_is_differentiated_again():
    """Forward over reverse: the hook function is differentiated as a user function (clip is
    piecewise linear: 18 where it passes its argument, 0 where it clips). A reverse sweep over
    the generated gradient meets the hook's line again and applies it to that sweep's adjoint
    too, as PyTorch's hooks fire in a double backward."""
    H = srcad.hessian(clipped)(X)
    inside = np.abs(2.0 * 3.0 * X) < 1.0  # where clip passes its argument through
    np.testing.assert_allclose(H, np.diag(np.where(inside, 18.0, 0.0)), atol=1e-12)
