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


# A gradient has its parameter's dtype (as in JAX and PyTorch), however f promoted on the way:
# the adjoint of a conversion is cast back to the dtype converted from (cast_back), and the
# gradient returned is in the parameter's dtype (in_dtype_of). Found by the fuzzer (seeds
# 20240680 and 20240748 of the CI batch): an in-place multiply by a float64 numpy scalar, and a
# generic build (a list argument is not specialized on) where nothing knew the dtypes.

def in_place_times_a_numpy_float64(x):
    y = x
    y *= np.maximum(1.0, 0.0)
    return np.sum(y)


def explicit_promotion(x):
    return np.sum(np.asarray(x, dtype=np.float64) ** 2)


def generic_build_in_place_plus(x, s, log):
    s *= np.sin(s)
    t = np.tanh(x)
    t += s
    return np.sum(x * t)


@pytest.mark.parametrize("func, args", [
    (in_place_times_a_numpy_float64, (X32,)),
    (explicit_promotion, (X32,)),
    (generic_build_in_place_plus, (X32, -1.2, [])),
])
@pytest.mark.parametrize("disable", [None, "all"])
def test_a_gradient_has_its_parameters_dtype(func, args, disable):
    grad = srcad.grad(func, disable=disable)(*args)
    assert grad.dtype == np.float32
    want = srcad.grad(func)(*(np.asarray(a, dtype=np.float64) if isinstance(a, np.ndarray)
                               else a for a in args))
    np.testing.assert_allclose(grad, want, rtol=1e-5)


def times_a_numpy_float64(x):
    return x * np.float64(2.0)


def test_a_vjp_has_its_parameters_dtype_where_the_output_is_promoted():
    (vjp,) = srcad.vjp(times_a_numpy_float64, wrt=(0,))(X32, np.ones(2))
    assert vjp.dtype == np.float32
    np.testing.assert_array_equal(vjp, [2.0, 2.0])


# A parameter bound again in f: the shape probe's dtype for its name is its last value's
# (float64 after `A = A + np.tanh(0.95)`, or after `A = 1.0` in a branch), so specialized builds
# took a float32 parameter for a float64 one and returned its gradient as float64 (fuzz seeds
# 501124, 501181). Such a parameter's gradient is cast to the argument's dtype at run time.

def rebound_in_a_loop(x, A):
    for i, row in enumerate(A):
        A = A + np.tanh(0.95)
    return np.sum(x * x)


def rebound_in_a_branch_never_taken(x, A):
    t = np.where(x > 0.5, np.tanh(0.1), np.mean(A))
    if 1.0 < 0.3:
        A = 1.0
        s = t
    else:
        s = x
    return np.sum(s * t)


@pytest.mark.parametrize("func", [rebound_in_a_loop, rebound_in_a_branch_never_taken])
def test_a_parameter_bound_again_keeps_its_gradients_dtype(func):
    A = np.array([[0.2, -0.4], [0.3, 0.1]], dtype=np.float32)
    gx, gA = srcad.grad(func, wrt=(0, 1))(X32, A)
    assert gx.dtype == gA.dtype == np.float32
    want = srcad.grad(func, wrt=(0, 1))(X32.astype(np.float64), A.astype(np.float64))
    np.testing.assert_allclose(gA, want[1], rtol=1e-5)
