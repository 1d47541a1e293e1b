"""numpy reduces a 0-d array along axis 0 (np.prod(np.float64(2.0), axis=0) is 2.0); the
product's adjoint helpers took axis % ndim and divided by zero (fuzz seed 43171: a helper's
parameter rebound to an item of an array in a loop, then a.prod(axis=0))."""
import numpy as np

import srcad


def helper(a, b, c):
    for a, b in zip(c, c):
        pass
    return a.prod(axis=0) * np.sum(c)


def f(x, B):
    return helper(B, x, x)


def test_reduction_of_a_scalar_along_axis_0():
    x = np.array([1.34, -0.75, -0.45])
    B = np.ones((3, 3))
    srcad.check_grads(f, (x, B), wrt=(0, 1), order=2)
