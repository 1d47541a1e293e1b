"""A helper's statements run once per derivative call, as in the function. The adjoint of a call
re-ran the callee's primal, so a helper drawing random numbers (rs.randn on a RandomState passed
in, or numpy's global generator) gave a gradient for other noise than the value (relative error
0.4-0.6 on variational objectives), and prints and draws happened twice. Reverse mode now splits
a callee's adjoint: its forward half records a tape in the primal sweep, its backward half runs
from that tape; forward mode returns the callee's value with its tangent."""
import numpy as np
import pytest

import srcad

W = np.array([0.5, -1.0, 2.0])
V = np.array([0.3, 0.2, -0.1])


def noisy(w, rs):
    eps = rs.randn(3)
    return w + eps * 0.5


def objective(w, rs):
    return np.sum(noisy(w, rs) ** 2)


def global_noise(w):
    return w * np.random.randn(3)


def nested(w):
    return np.sum(np.sin(global_noise(w)) * global_noise(w * 2.0))


def in_a_loop(w, rs):
    s = 0.0
    for i in range(25):
        s = s + np.sum(noisy(w, rs) * w) * 0.1
    return s


def expected_gradient(w, seed):
    eps = np.random.RandomState(seed).randn(3)
    return 2 * (w + eps * 0.5)


@pytest.mark.parametrize("disable", [None, "all"])
def test_random_draws_in_a_helper_happen_once(disable):
    value, grad = srcad.value_and_grad(objective, disable=disable)(W, np.random.RandomState(7))
    assert value == objective(W, np.random.RandomState(7))
    np.testing.assert_allclose(grad, expected_gradient(W, 7), rtol=1e-14)
    rs = np.random.RandomState(7)
    tangent = srcad.jvp(objective, disable=disable)(W, rs, V)
    np.testing.assert_allclose(tangent, expected_gradient(W, 7) @ V, rtol=1e-14)
    assert rs.randn() == np.random.RandomState(7).randn(4)[3]  # one draw of 3, not two


@pytest.mark.parametrize("transform", ["grad", "jvp", "vjp"])
def test_the_global_generator_advances_as_the_function_does(transform):
    np.random.seed(3)
    nested(W)
    after_f = np.random.randn()
    np.random.seed(3)
    if transform == "grad":
        srcad.grad(nested)(W)
    elif transform == "jvp":
        srcad.jvp(nested)(W, V)
    else:
        srcad.vjp(nested)(W, 1.0)
    assert np.random.randn() == after_f


def test_loops_of_noisy_helpers_against_central_differences():
    h = 1e-6
    want = np.array([(in_a_loop(W + h * e, np.random.RandomState(1))
                      - in_a_loop(W - h * e, np.random.RandomState(1))) / (2 * h)
                     for e in np.eye(3)])
    for disable in (None, "all"):
        got = srcad.grad(in_a_loop, disable=disable)(W, np.random.RandomState(1))
        np.testing.assert_allclose(got, want, rtol=1e-6)
