"""A runtime helper that returns a list (einsum_sums: one sum per einsum operand; join_lists;
unjoin) was not declared so. In a gradient's code differentiated again (reverse over reverse),
the adjoints of two reads of its result, t1[0] and t1[1], were added with +, which joined the
two lists of adjoints: the second read's was lost. The Hessian-vector product of
np.einsum('i,i->', x, x) was half the right one in the code for any shapes (fuzz seeds 95026,
95033, 95071, 95199, with einsum in the generator; the specialized code happened to be right).
Helpers now declare it: @helper(container=True)."""
import numpy as np
import pytest

import srcad
from srcad.runtime import CONTAINER_RESULTS


def square_norm(x):
    return np.einsum('i,i->', x, x)


def stacked(x, y):
    return np.sum(np.hstack([x * y, np.sin(x)]) ** 2)


@pytest.mark.parametrize("disable", ["all", None])
def test_hessian_vector_products_through_list_helpers(disable):
    x, v = np.array([0.5, 1.5]), np.array([1.0, -2.0])
    hvp = srcad.vjp(srcad.grad(square_norm, disable=disable), disable=disable)
    np.testing.assert_allclose(hvp(x, v), 2 * v, rtol=1e-12)
    y = np.array([0.3, -0.7])
    h = srcad.hessian(stacked, disable=disable)(x, y)
    eps = 1e-6
    g = srcad.grad(stacked, disable=disable)
    want = np.array([(g(x + eps * e, y) - g(x - eps * e, y)) / (2 * eps) for e in np.eye(2)])
    np.testing.assert_allclose(h, want.T, rtol=1e-6, atol=1e-8)


def test_the_list_helpers_are_declared():
    assert {"einsum_sums", "join_lists", "unjoin"} <= CONTAINER_RESULTS
