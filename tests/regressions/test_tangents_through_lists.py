"""Forward mode through lists: `b = lst.pop()` got a tangent only if b already had one, so the
tangent of what was appended was lost (jvp of s.append(a); b = s.pop() dropped it). Hessians
differentiate the generated gradient in forward mode, whose stack is such a list: the tangent
of a slice the adjoint sweep restores from the stack was zero (hvp of y[1:] = np.prod(y)).
What is appended without a tangent is a zero tangent, never None."""
import numpy as np
import pytest

import srcad

X = np.array([0.7, -1.3, 2.1])
V = np.array([0.3, 0.2, -0.1])


def through_a_list(x):
    s = []
    s.append(x * 2.0)
    s.append(np.ones(3))
    c = s.pop()
    b = s.pop()
    return b * x + c


def store_of_a_product(x):
    y = x.copy()
    y[1:] = np.prod(y)
    return np.sum(y * y * x)


def test_the_tangent_of_a_popped_item():
    for disable in (None, "all"):
        np.testing.assert_allclose(srcad.jvp(through_a_list, disable=disable)(X, V),
                                   4 * X * V, rtol=1e-14)


@pytest.mark.parametrize("disable", [None, "all"])
def test_hessian_vector_product_through_restored_slices(disable):
    gradient = srcad.grad(store_of_a_product, disable="all")
    h = 1e-6
    want = (gradient(X + h * V) - gradient(X - h * V)) / (2 * h)
    np.testing.assert_allclose(srcad.hvp(store_of_a_product, disable=disable)(X, V), want,
                               rtol=1e-6)


def rows_of_the_same_array(A, k):
    rows = []
    for i in range(3):
        rows.append(A)
    return np.sum(rows) + k


def test_hessian_through_a_list_whose_tangents_fold_to_zero():
    """The gradient's brows = list(bt) holds zero tangents only (bt's folds away, so list(d[bt])
    does too), yet `t = brows.pop()` in its loop must give t a tangent: a zero one (fuzz CI seed
    20240715: NameError in hvp)."""
    A = np.array([[-0.2, -0.8, 0.7], [0.3, 0.1, -0.9]])
    for disable in (None, "all"):
        np.testing.assert_array_equal(
            srcad.hvp(rows_of_the_same_array, disable=disable)(A, 1, np.ones_like(A)),
            np.zeros_like(A))
