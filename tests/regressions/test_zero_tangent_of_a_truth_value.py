"""The zero tangent of a name that holds a truth value (a mask `m = m > 0.2`, bound again in a
loop where it held a float array) was np.zeros_like(m): a bool array, which a tangent's
negation (the tangent of np.cos, -du * np.sin(u)) cannot take, so the derivative raised
TypeError in its generated code. Forward over reverse (hvp) met it in every gradient whose
loop rebinds a float name to a mask. The zero is now float zeros: forward mode writes
np.zeros_like only for names the probe saw hold floats, else zero_tangent, which gives float
zeros for truth values (runtime.py)."""
import numpy as np
import pytest

import srcad


def mask_in_a_loop(A, k):
    m = A * 1.0
    b = A
    for i in range(k):
        b = m
        m = m > 0.2
    return np.sum(np.sin(np.reshape(b, (-1,))))


def mask_read_by_cos(A, k):
    m = A * 1.0
    for i in range(k):
        m = m > 0.2
    return np.sum(np.cos(m * A))


def mask_then_index(A, k):
    m = A * 1.0
    b = A
    for i in range(k):
        b = m
        m = m > 0.2
    return np.sum(np.sin(b[0]))


@pytest.mark.parametrize("f", [mask_in_a_loop, mask_read_by_cos, mask_then_index])
@pytest.mark.parametrize("disable", [None, "all"])
@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_hessian_vector_product_and_jvp(f, disable, k):
    A = np.array([[1.08, 0.82, 0.27], [0.3, -0.5, 0.9]])
    V = np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]])
    grad = srcad.grad(f, disable=disable)
    got = srcad.hvp(f, disable=disable)(A, k, V)
    h = 1e-5
    numeric = (grad(A + h * V, k) - grad(A - h * V, k)) / (2 * h)
    np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcad.jvp(f, disable=disable)(A, k, V), np.sum(grad(A, k) * V),
                               rtol=1e-10, atol=1e-14)


def test_zero_tangent_of_truth_values_is_float():
    from srcad.runtime import zero_tangent
    for value in (np.array([True, False]), np.True_, True):
        zero = zero_tangent(value)
        assert np.shape(zero) == np.shape(value) and np.result_type(zero) == np.float64
        assert not np.any(-zero)
