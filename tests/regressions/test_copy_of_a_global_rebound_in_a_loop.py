"""s = G (a module array, or a closure's) and then s rebound in a loop too long to write out:
the generated gradient raised UnboundLocalError ("cannot access local variable 'G'"). The
copies pass lets the source of a top-level copy that is bound no more go on under the copy's
name (s = bA; s = s + e -> bA = bA + e) and renamed s to G, so the derivative bound G and
Python took G for a local from the function's start. The source must now be bound in the
function itself (optimize/copies.py). Found through a helper written into its caller
(simulate(vx, vy, smoke, n) called with a global image, its loop rebinding smoke)."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient

G = np.linspace(0.1, 0.9, 3)


def rebound_in_a_loop(w):
    s = G
    for t in range(40):
        s = np.tanh(s * w)
    return np.sum(s ** 2)


def step(w, s, n):
    for t in range(n):
        s = np.tanh(s * w) + 0.1
    return s


def through_a_helper(w):
    return np.sum(step(w, G, 30) ** 2)


def closure_of(c):
    def rebound_closure(w):
        s = c
        for t in range(25):
            s = np.sin(s + w)
        return np.sum(s)
    return rebound_closure


rebound_closure = closure_of(np.array([0.3, -0.2, 0.5]))

W = np.array([0.5, -1.2, 0.8])


@pytest.mark.parametrize("f", [rebound_in_a_loop, through_a_helper, rebound_closure])
def test_copy_of_a_free_name_rebound_in_a_loop(f):
    got = srcad.grad(f)(W)
    np.testing.assert_allclose(got, central_gradient(f, (W,)), rtol=1e-6, atol=1e-9)
    value, again = srcad.value_and_grad(f)(W)
    assert value == f(W)
    np.testing.assert_allclose(again, got, rtol=1e-13)
    v = np.array([0.2, -0.4, 0.9])
    np.testing.assert_allclose(srcad.jvp(f)(W, v), got @ v, rtol=1e-10)
