"""A template that reads an item of a tuple operand's tangent (cho_solve's d[c_and_lower][0])
where that tangent is zero (the factor does not depend on the direction): the zero of the item
was written as np.zeros_like of the whole tuple, and np.zeros_like((c, True)) raises (items of
other shapes). Now the zeros of the item, zero_tangent(pair[0]). Unoptimized builds keep the
template's local statements as written, so they reached it; the optimized ones folded it."""
import numpy as np
import pytest

import srcad

scipy_linalg = pytest.importorskip("scipy.linalg", reason="scipy is not installed")

K = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])


def solve_with_a_constant_factor(k, b):
    return np.sum(scipy_linalg.cho_solve(scipy_linalg.cho_factor(k), b) ** 2)


@pytest.mark.parametrize("disable", [None, "all"])
def test_tangent_along_b_only(disable):
    b = np.array([1.0, -2.0, 0.5])
    v = np.array([0.3, 0.1, -0.7])
    tangent = srcad.jvp(solve_with_a_constant_factor, wrt=1, disable=disable)(K, b, v)
    x = np.linalg.solve(K, b)
    np.testing.assert_allclose(tangent, 2 * x @ np.linalg.solve(K, v), rtol=1e-12)
