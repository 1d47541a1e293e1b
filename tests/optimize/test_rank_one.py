"""optimize/rank_one.py: an adjoint that is an outer product, read once in matrix products,
stays an outer product of matrix-vector products (n^2, not n^3): the adjoint of inv(K) under a
quadratic form. The numbers against central differences; the pass leaves the code alone where
a vector of the product is bound again before the product is read."""
import numpy as np

import srcad
from srcad.optimize.rank_one import keep_rank_one

from before_after import check_rewrite, check_unchanged
from regressions.numeric import central_gradient


def quadratic_through_inv(K, y):
    Ki = np.linalg.inv(K)
    return y @ (Ki @ y)


def test_the_adjoint_of_an_inverse_under_a_quadratic_form_stays_rank_one():
    rng = np.random.default_rng(0)
    M = rng.normal(size=(6, 6))
    K, y = M @ M.T + 6 * np.eye(6), rng.normal(size=6)
    text = srcad.source(quadratic_through_inv, args=(K, y))
    assert "np.outer(bt_1 @ bt1, bt_1.T @ y)" in text and "bKi" not in text
    np.testing.assert_allclose(srcad.grad(quadratic_through_inv)(K, y),
                               central_gradient(quadratic_through_inv, (K, y)), rtol=1e-6,
                               atol=1e-9)
    srcad.check_grads(quadratic_through_inv, (K, y), wrt=(0, 1), order=2)


RNG = np.random.default_rng(3)
ARGS = (RNG.normal(size=(4, 4)), RNG.normal(size=(4, 4)), RNG.normal(size=4), RNG.normal(size=4))
SHAPES = {"A": (4, 4), "B": (4, 4), "u": (4,), "v": (4,), "t": (4, 4)}


def test_both_sides_of_the_product_are_carried():
    check_rewrite(keep_rank_one, """
        def f(A, B, u, v):
            t = np.outer(u, v)
            g = A @ t @ B
            return g
        """, """
        def f(A, B, u, v):
            g = np.outer(A @ u, B.T @ v)
            return g
        """, ARGS, shape_of=SHAPES.get)


def test_a_vector_bound_again_before_the_product_keeps_the_outer_product():
    check_unchanged(keep_rank_one, """
        def f(A, B, u, v):
            t = np.outer(u, v)
            u = u * 2.0
            g = A @ t @ B
            return g + u
        """, ARGS, shape_of=SHAPES.get)


def test_a_product_with_a_vector_keeps_the_outer_product():
    check_unchanged(keep_rank_one, """
        def f(A, B, u, v):
            t = np.outer(u, v)
            g = u @ t
            return g
        """, ARGS, shape_of=SHAPES.get)
