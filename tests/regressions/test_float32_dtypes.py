"""float32 programs keep float32. A template's arithmetic on numbers (np.log(1.5) for 1.5 ** x)
was a numpy float64 scalar, which makes a float32 adjoint float64 (NumPy 2 promotes by it, not by
a Python float): numbers are now Python floats, numpy's own bits. And `x -= np.sin(s)` on a
float32 array runs in place in Python, keeping float32, where srcad's `x = x - e` promoted: where
the shape probe sees that, the result is cast back, so f's value and its gradient keep the
dtype f computes in."""
import numpy as np
import pytest

import srcad

X32 = np.array([-1.3, 0.4], dtype=np.float32)


def power_of_a_number(x):
    return np.sum(1.5 ** x)


def in_place_minus_a_float64(x, s):
    x = 0.5 * x
    x -= np.sin(s)
    return np.sum(x * x)


@pytest.mark.parametrize("func, args", [(power_of_a_number, (X32,)),
                                        (in_place_minus_a_float64, (X32, 0.7))])
def test_float32_stays_float32(func, args):
    value, grad = srcad.value_and_grad(func)(*args)
    assert np.asarray(value).dtype == np.asarray(func(*args)).dtype == np.float32
    assert value == func(*args)
    assert grad.dtype == np.float32
    want = srcad.grad(func)(*(np.asarray(a, dtype=np.float64) if isinstance(a, np.ndarray)
                               else a for a in args))
    np.testing.assert_allclose(grad, want, rtol=1e-5)
