"""A gradient has its parameter's dtype. Code specialized to a float64 parameter left out the
cast (runtime.in_dtype_of), taking the gradient to be float64 already. But the seed is the weak
Python float 1.0, so a float32 number in f carries into the adjoints: 1.0 * np.float32(2.0) is
np.float32(2.0). The gradient of np.sum(v) * np.float32(2.0) came out float32 for a float64 v.
Where the probe sees a float narrower than float64 in f, the cast stays."""
import numpy as np

import srcad


def scaled_by_a_float32(v):
    return np.sum(v) * np.float32(2.0)


def with_a_float32_argument(v, w):
    return np.sum(v * 3.0) + np.sum(w)


def test_a_float32_number_in_f():
    v = np.array([0.3, 0.8])
    gradient = srcad.grad(scaled_by_a_float32)(v)
    assert gradient.dtype == np.float64
    np.testing.assert_array_equal(gradient, [2.0, 2.0])


def test_a_float32_argument_beside_a_float64_one():
    v, w = np.array([0.3, 0.8]), np.array([1.0, 2.0], dtype=np.float32)
    gv, gw = srcad.grad(with_a_float32_argument, wrt=(0, 1))(v, w)
    assert gv.dtype == np.float64 and gw.dtype == np.float32
    np.testing.assert_array_equal(gv, [3.0, 3.0])
    np.testing.assert_array_equal(gw, [1.0, 1.0])
