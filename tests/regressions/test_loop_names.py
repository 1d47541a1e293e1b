"""Names in loops. `x = x` in a branch of a loop that stays a loop added x's adjoint to itself
and then zeroed it (the gradient was 0); `for row in X:` with X bound again in the body iterated
over the new X, where Python iterates over the object the loop started with."""
import numpy as np
import pytest

import srcad

from .numeric import central

X = np.array([0.7, -1.3, 2.1])


def self_assignment_in_a_kept_loop(x):
    s = 0.0
    for i in range(30):
        if i % 3 == 0:
            x = x
        s = s + np.sum(x * x) * 0.01
        x = x * 1.01
    return s


def iterated_name_rebound(x):
    A = np.outer(x, x)
    s = 0.0
    for row in A:
        A = A * 2.0
        s = s + np.sum(row * row)
    return s


def zipped_name_rebound(x):
    a, b = x * 1.0, x * 2.0
    s = 0.0
    for u, v in zip(a, b):
        a = a * 3.0
        s = s + u * v
    return s + np.sum(a)


@pytest.mark.parametrize("func", [self_assignment_in_a_kept_loop, iterated_name_rebound,
                                  zipped_name_rebound])
@pytest.mark.parametrize("disable", [None, "all"])
def test_loops(func, disable):
    assert srcad.value_and_grad(func, disable=disable)(X)[0] == pytest.approx(func(X))
    np.testing.assert_allclose(srcad.grad(func, disable=disable)(X), central(func, X),
                               rtol=1e-7)
    v = np.array([0.3, -0.2, 0.5])
    np.testing.assert_allclose(srcad.jvp(func, disable=disable)(X, v),
                               central(func, X) @ v, rtol=1e-7)
