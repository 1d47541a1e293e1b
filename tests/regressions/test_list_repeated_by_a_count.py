"""A list or tuple repeated by `*` ([h0] * T, (a, b) * k, 2 * [y]): the adjoint sweep took it
for numpy's product, d[items] = d[z] * k, which repeated the list of adjoints instead of
adding them, and the gradient read only the first copy: half the gradient of
np.sum(np.stack([y] * 2) ** 2), with no error (found while shrinking a fuzz finding). Each
item's adjoint is now the sum of its copies' (runtime.unrepeat_items); forward mode repeated
the tangents already. With numpy arithmetic on a list (`[y] + a`, a an array) the tangent was
the list itself: a store into the sum wrote into it (a Jacobian-vector product of 0), and
`* 3` repeated it; it is now np.asarray'd, as for a ufunc (modes/forward.py)."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient, numeric_hvp


def doubled(y, k):
    return np.sum(np.stack([y] * 2) ** 2)


def repeated_by_an_argument(y, k):
    z = [y, y * 3.0] * k
    return np.sum(np.stack(z) ** 2 * np.arange(2 * k)[:, None])


def count_first(y, k):
    z = k * (np.sin(y), y)
    return np.sum(np.stack(z) * np.arange(2 * k)[:, None] ** 2)


def initial_trajectory(y, k):
    hs = [y * 0.5] * (k + 2)
    for t in range(1, k + 2):
        hs[t] = np.tanh(hs[t - 1] * 1.3 + y)
    return np.sum(hs[-1] ** 2) + np.sum(hs[0])


def list_plus_array_stored_into(y, k):
    t1 = [y]
    b1 = t1 + np.zeros_like(y)
    b1[0] = 2.0
    return np.sum(np.sin(t1) * 3) + np.sum(b1 ** 2)


def a_display_repeated(y, k):
    """(3 * [y], the display not named: a sequence all the same, for every build)"""
    reps = 3 * [y]
    return np.sum(reps[-1] * reps[0] + sum(reps) * 0.5)


def tuples_joined(y, k):
    """(+ of a tuple and a display joins them: its tangent must not be np.asarray'd)"""
    pair = (y, y * 2.0)
    return np.sum(np.stack([*pair, y]) ** 2) + np.sum(np.stack(pair + (y,)))


PROGRAMS = [doubled, repeated_by_an_argument, count_first, a_display_repeated,
            initial_trajectory, list_plus_array_stored_into, tuples_joined]
Y = np.array([0.2, -0.5, 0.7])
V = np.array([0.3, -0.7, 0.1])


@pytest.mark.parametrize("f", PROGRAMS)
@pytest.mark.parametrize("disable", [None, "all"])
@pytest.mark.parametrize("k", [1, 3])
def test_gradient_and_forward_mode(f, disable, k):
    got = srcad.grad(f, disable=disable)(Y, k)
    np.testing.assert_allclose(got, central_gradient(f, (Y, k)), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(srcad.jvp(f, disable=disable)(Y, k, V), got @ V, rtol=1e-10)


@pytest.mark.parametrize("f", PROGRAMS)
def test_hessian_vector_products(f):
    numeric = numeric_hvp(lambda y: f(y, 2), Y, V)
    np.testing.assert_allclose(srcad.hvp(f)(Y, 2, V), numeric, rtol=1e-5, atol=1e-6)


def test_a_jacobian_through_a_list_plus_an_array():
    def f(y):
        t1 = [y]
        b1 = t1 + np.zeros_like(y)
        b1[0] = 2.0
        return np.sin(t1)
    np.testing.assert_allclose(srcad.jacobian(f, mode="forward")(Y), [np.diag(np.cos(Y))],
                               rtol=1e-12)


@pytest.mark.parametrize("f", [doubled, repeated_by_an_argument, count_first,
                               a_display_repeated])
def test_reverse_over_reverse(f):
    """(unrepeat_items and repeat_items are each other's adjoint: templates/runtime.py)"""
    hvp = srcad.vjp(srcad.grad(f), wrt=0)
    numeric = numeric_hvp(lambda y: f(y, 2), Y, V)
    np.testing.assert_allclose(hvp(Y, 2, V), numeric, rtol=1e-5, atol=1e-6)
