"""A store of a float into an int or bool array rounds it (numpy casts the value to the
array's dtype): what is stored is a piecewise-constant function of the value, with no
derivative. The store's adjoint passed the stored entries' adjoint on to the value, and its
tangent was stored into an int tangent: y = np.zeros(3, dtype=int); y[0] = 2.5 * x[0] gave the
gradient 2.5 (true: 0) and the tangent 2.0. The share that reaches the value is now zero where
the array's dtype is an integer or a bool (runtime.stored_share; left out where the shape probe
saw a float array)."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central


def into_ints(x):
    y = np.zeros(3, dtype=int)
    y[0] = x[0] * 2.5
    return np.sum(y * 1.0) + x[1]


def into_a_slice_of_int32(x):
    y = np.zeros(3, dtype=np.int32)
    y[1:] = x[:2] * 3.7
    return np.sum(y * x)


def into_bools(x):
    y = np.zeros(3, dtype=bool)
    y[:] = x * 4.4
    return np.sum(y * x)


def into_an_argument_copy(x, y):
    y = y.copy()
    y[0] = x[0] * 2.5
    return np.sum(y * 1.0) + x[1]


def in_a_loop(x):
    y = np.zeros(3, dtype=int)
    for i in range(3):
        y[i] = x[i] * 10.0
    return np.sum(y * x)


X = np.array([0.33, -0.71, 1.23])  # (no product near an integer: rounding jumps there)
CASES = [(into_ints, ()), (into_a_slice_of_int32, ()), (into_bools, ()), (in_a_loop, ()),
         (into_an_argument_copy, (np.zeros(3, dtype=int),)),
         (into_an_argument_copy, (np.zeros(3),))]  # (a float array: the stored value's slope)


@pytest.mark.parametrize("disable", [None, "specialize"])
@pytest.mark.parametrize("func, extra", CASES)
def test_gradient_and_tangent_of_a_rounded_store(func, extra, disable):
    right = central(lambda x: func(x, *extra), X)
    np.testing.assert_allclose(srcad.grad(func, disable=disable)(X, *extra), right, atol=1e-6)
    tangent = srcad.jvp(func, disable=disable)(X, *extra, np.ones(3))
    tangent = tangent[1] if isinstance(tangent, tuple) else tangent
    np.testing.assert_allclose(tangent, right.sum(), atol=1e-6)


def test_a_float_arrays_store_in_a_specialized_build_has_no_helper():
    def into_floats(x):
        y = np.zeros(3)
        y[0] = x[0] * 2.5
        return np.sum(y)
    assert "stored_share" not in srcad.source(into_floats, args=(X,))
    assert "stored_share" in srcad.source(into_ints, args=(X,))
