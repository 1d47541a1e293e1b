"""An adjoint spread over an array's shape (np.full(S, bt)) was dropped where it met an array of
that shape (optimize/broadcasts.py: bt * t for np.full(S, bt) * t). A Python number is weak in
numpy's promotion, np.full(S, 1.0) is a float64 array: for a float16 or float32 t the product
became float16 or float32, the adjoint was accumulated in place in that dtype (bx += ...), and
the float64 gradient was rounded to it. A mask's np.tanh is float16 (np.tanh(True)): the
gradient of a float64 program was 4e-4 off with no error (found by a focused fuzzer of names
that change dtype in loops). A broadcast is now dropped only where the other operand is
float64 or wider, a Python number, or of the spread value's own dtype (analysis/shapes.py
result_char)."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient


def mask_in_a_loop(x, k):
    m = x * 1.0
    for j in range(2):
        m = m > -0.573
    return np.sum(np.sin(x)) + np.sum(np.tanh(m) * x)


def float16_features(x, k):
    h = np.tanh(x > 0.1)
    return np.sum(np.cos(x)) + np.sum(h * x * 0.3) + np.sum(h * np.sin(x))


def float32_features(x, k):
    y = np.sin(x).astype(np.float32)
    return np.sum(y * x) * 0.3 + np.sum(np.cos(x) * 1.7)


def mask_in_a_branch(x, k):
    """(float_chars took np.tanh(m1) for float64 from m1 = x, though a branch binds m1 to a
    mask: cancel then read np.full(S, 1.0) * t4 as t4, a float16 adjoint, accumulated in place:
    fuzz seed 150326. Names bound again in a block get no dtype of their first binding.)"""
    m1 = x
    if k >= 0:
        m1 = x > 0.3
    return np.sum(np.sin(x) + np.tanh(m1) * x)


X = np.array([[0.03208769, 0.8278256, 0.9860747], [-0.19776483, 0.84942287, 0.97692189]])


@pytest.mark.parametrize("f", [mask_in_a_loop, float16_features, mask_in_a_branch])
def test_gradient_against_central_differences(f):
    """(The float16 values are constant near X: central differences see only float64.)"""
    np.testing.assert_allclose(srcad.grad(f)(X, 0), central_gradient(f, (X, 0)), rtol=1e-6,
                               atol=1e-9)


@pytest.mark.parametrize("f", [mask_in_a_loop, float16_features, float32_features,
                               mask_in_a_branch])
def test_optimized_as_unoptimized(f):
    """(float32_features rounds sin(x) to float32, a step function: central differences of it
    mean nothing; the unoptimized gradient, float64 throughout, is the reference.)"""
    got = srcad.grad(f)(X, 0)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, srcad.grad(f, disable="all")(X, 0), rtol=1e-13, atol=0)
