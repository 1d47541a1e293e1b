"""optimize/diagonal.py: a diagonal matrix made from a vector (np.diag(v), the adjoint of
np.diag of a vector: undiag(g, a, 0)) and read once as a factor of a matrix product becomes a
scaling of the other factor (n^2, not n^3). The numbers against central differences and the
unoptimized gradient; the pass leaves the code alone where the matrix is not diagonal, the
vector changes before the product, or f's own values must stay f's to the bit."""
import numpy as np
import pytest

import srcad
from srcad.optimize.diagonal import scale_by_diagonals

from before_after import check_rewrite, check_unchanged
from regressions.numeric import central_gradient

RNG = np.random.default_rng(11)
A, B, v, w = RNG.normal(size=(4, 4)), RNG.normal(size=(4, 3)), RNG.normal(size=4), RNG.normal(
    size=4)
SHAPES = {"A": (4, 4), "B": (4, 3), "v": (4,), "w": (4,), "x": (2, 5, 4)}
FACTS = dict(shape_of=SHAPES.get, derived={"D", "g"}, returns_values=False,
             arrays={"A", "B", "v", "w", "x"}, inexact={"A", "B", "v", "w", "x"})


def test_a_diagonal_on_the_right_scales_columns():
    check_rewrite(scale_by_diagonals, """
        def f(A, B, v, w):
            D = np.diag(v)
            g = A @ D
            return g
        """, """
        def f(A, B, v, w):
            g = A * v
            return g
        """, (A, B, v, w), **FACTS)


def test_a_diagonal_on_the_left_scales_rows_of_a_matrix_and_items_of_a_vector():
    check_rewrite(scale_by_diagonals, """
        def f(A, B, v, w):
            D = np.diag(v)
            g = (D @ B).sum() + 1.0
            return g
        """, """
        def f(A, B, v, w):
            g = (v[:, None] * B).sum() + 1.0
            return g
        """, (A, B, v, w), **FACTS)
    check_rewrite(scale_by_diagonals, """
        def f(A, B, v, w):
            D = np.diag(v)
            g = D @ w
            return g
        """, """
        def f(A, B, v, w):
            g = v * w
            return g
        """, (A, B, v, w), **FACTS)


def test_the_adjoint_of_a_diagonal_read_through_as_lower_factor_scales_columns():
    check_rewrite(scale_by_diagonals, """
        def f(A, B, v, w):
            D = undiag(v, A, 0)
            g = np.swapaxes(A, -1, -2) @ as_lower_factor(D, A)
            return g
        """, """
        def f(A, B, v, w):
            g = np.swapaxes(A, -1, -2) * v
            return g
        """, (A, B, v, w), **FACTS)


def test_a_stack_of_rows_times_a_diagonal_scales_its_last_axis():
    x = RNG.normal(size=(2, 5, 4))
    check_rewrite(scale_by_diagonals, """
        def f(x, v):
            D = np.diag(v)
            g = x @ D
            return g
        """, """
        def f(x, v):
            g = x * v
            return g
        """, (x, v), **FACTS)


def test_what_is_not_a_diagonal_matrix_of_a_vector_stays_a_product():
    check_unchanged(scale_by_diagonals, """
        def f(A, B, v, w):
            D = np.diag(v, 1)
            g = A[:4, :4] @ D[:4, :4]
            return g
        """, (A, B, v, w), **FACTS)
    check_unchanged(scale_by_diagonals, """
        def f(A, B, v, w):
            d = np.diag(A)
            g = A @ np.diag(d)
            return g
        """, (A, B, v, w), shape_of={"A": (4, 4)}.get, derived=set(), returns_values=False,
        arrays={"A", "d"}, inexact={"A", "d"})
    check_unchanged(scale_by_diagonals, """
        def f(A, B, v, w):
            D = undiag(A, v, 0)
            g = D * 2.0
            return g
        """, (A, B, v, w), **FACTS)


def test_the_adjoint_of_the_diagonal_of_ints_stays_a_matrix_of_floats():
    check_unchanged(scale_by_diagonals, """
        def f(A, B, v, w):
            D = undiag(v, A, 0)
            g = A @ D
            return g
        """, (A, B, np.arange(4), w), **dict(FACTS, inexact={"A", "B", "w"}))


def test_the_diagonal_of_a_list_stays_a_matrix():
    check_unchanged(scale_by_diagonals, """
        def f(A, B, v, w):
            D = np.diag(v)
            g = D @ B
            return g
        """, (A, B, list(v), w), **dict(FACTS, arrays={"A", "B"}))


def test_a_vector_stored_into_before_the_product_keeps_the_matrix():
    check_unchanged(scale_by_diagonals, """
        def f(A, B, v, w):
            D = np.diag(v)
            v[0] = 2.0
            g = A @ D
            return g
        """, (A, B, v, w), **FACTS)


def test_a_matrix_also_read_otherwise_stays_and_its_products_scale():
    check_rewrite(scale_by_diagonals, """
        def f(A, B, v, w):
            D = np.diag(v)
            g = A @ D + D
            return g
        """, """
        def f(A, B, v, w):
            D = np.diag(v)
            g = A * v + D
            return g
        """, (A, B, v, w), **FACTS)
    check_unchanged(scale_by_diagonals, """
        def f(A, B, v, w):
            D = np.diag(v)
            g = A
            for i in range(2):
                g = g @ D
            return g
        """, (A, B, v, w), **FACTS)


def test_every_product_read_goes_and_with_them_the_matrix():
    """The primal's U @ diag(s) and the adjoint's strong-zero product with its transpose."""
    check_rewrite(scale_by_diagonals, """
        def f(A, B, v, w):
            D = np.diag(v)
            t = A @ D
            g = safe_matmul(t, D.T) + np.transpose(D) @ t + safe_matmul(D, w)
            return g
        """, """
        def f(A, B, v, w):
            t = A * v
            g = safe_mul(t, v) + v[:, None] * t + safe_mul(v, w)
            return g
        """, (A, B, v, w), **dict(FACTS, shape_of={**SHAPES, "t": (4, 4)}.get))


def test_reads_after_a_store_into_the_vector_keep_the_matrix():
    check_rewrite(scale_by_diagonals, """
        def f(A, B, v, w):
            D = np.diag(v)
            t = A @ D
            v = v * 2.0
            g = t @ D + v
            return g
        """, """
        def f(A, B, v, w):
            D = np.diag(v)
            t = A * v
            v = v * 2.0
            g = t @ D + v
            return g
        """, (A, B, v, w), **FACTS)


def test_the_diagonal_of_a_product_is_the_sum_of_its_terms():
    check_rewrite(scale_by_diagonals, """
        def f(A, B, v, w):
            M = A.T @ np.transpose(A)
            g = undiag(M, v, 0)
            return g
        """, """
        def f(A, B, v, w):
            g = np.einsum('ij,ji->i', A.T, np.transpose(A))
            return g
        """, (A, B, v, w), **dict(FACTS, shape_of={**SHAPES, "M": (4, 4)}.get))
    check_rewrite(scale_by_diagonals, """
        def f(A, B, v, w):
            M = safe_matmul(A, A.T)
            g = np.diag(M) * 2.0
            return g
        """, """
        def f(A, B, v, w):
            g = safe_mul(A, A).sum(axis=-1) * 2.0
            return g
        """, (A, B, v, w), **dict(FACTS, shape_of={**SHAPES, "M": (4, 4)}.get))


def test_a_product_read_otherwise_or_not_square_keeps_its_diagonal():
    shapes = {**SHAPES, "M": (4, 4), "N": (4, 3)}.get
    check_unchanged(scale_by_diagonals, """
        def f(A, B, v, w):
            M = A @ A
            g = undiag(M, v, 0) + M[0]
            return g
        """, (A, B, v, w), **dict(FACTS, shape_of=shapes))
    check_unchanged(scale_by_diagonals, """
        def f(A, B, v, w):
            N = A @ B
            g = np.diagonal(N)
            return g
        """, (A, B, v, w), **dict(FACTS, shape_of=shapes))


def test_f_values_stay_f_values_where_the_derivative_returns_them():
    check_unchanged(scale_by_diagonals, """
        def f(A, B, v, w):
            S = np.diag(v)
            g = A @ S
            return g
        """, (A, B, v, w), shape_of=SHAPES.get, derived={"D"}, returns_values=True,
        arrays=FACTS["arrays"], inexact=FACTS["inexact"])


def svd_like(U, s, Vt):
    return np.sum(np.tanh(U @ np.diag(s) @ Vt))


def weighted_gram(X, w):
    return np.sum((X.T @ np.diag(w) @ X) ** 2)


def log_det_from_cholesky(theta, M):
    K = M @ M.T + np.exp(theta) * np.eye(M.shape[0])
    return np.sum(np.log(np.diag(np.linalg.cholesky(K)))) + np.sum(np.diag(K) ** 2)


CASES = [
    (svd_like, (RNG.normal(size=(5, 4)), RNG.uniform(0.5, 2, size=4), RNG.normal(size=(4, 3))),
     (0, 1, 2)),
    (weighted_gram, (RNG.normal(size=(6, 3)), RNG.uniform(0.5, 2, size=6)), (0, 1)),
    (log_det_from_cholesky, (0.3, RNG.normal(size=(5, 5))), (0, 1)),
]


@pytest.mark.parametrize("func,args,wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradients_through_diagonal_products_against_differences_and_unoptimized(func, args,
                                                                                 wrt):
    grads = srcad.grad(func, wrt=wrt)(*args)
    plain = srcad.grad(func, wrt=wrt, disable="diagonal")(*args)
    expected = [central_gradient(func, args, i) for i in wrt]
    for got, unoptimized, numeric in zip(grads, plain, expected):
        np.testing.assert_allclose(got, unoptimized, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-8)


def test_the_cholesky_log_determinant_gradient_scales_instead_of_multiplying():
    args = CASES[2][1]
    text = srcad.source(log_det_from_cholesky, wrt=1, args=args)
    assert "np.swapaxes(low_1, -1, -2) * bt9" in text and "bt8 = undiag" not in text, text
    off = srcad.source(log_det_from_cholesky, wrt=1, args=args, disable="diagonal")
    assert "bt8 = undiag(bt9, t8, 0)" in off and "@ as_lower_factor(bt8, t8)" in off


def chained_diagonals(A, v, w):
    D = np.diag(v)
    E = np.diag(w)
    return np.sum(np.sin(A @ D @ A.T @ E) + (D @ E) @ w)


def stacked_rows(X, v):
    return np.sum(np.tanh(X @ np.diag(v)) ** 2)


@pytest.mark.parametrize("func,args", [
    (chained_diagonals, (RNG.normal(size=(3, 3)), RNG.normal(size=3), RNG.normal(size=3))),
    (stacked_rows, (RNG.normal(size=(2, 4, 3)), RNG.normal(size=3))),
], ids=["chained_diagonals", "stacked_rows"])
def test_diagonal_products_in_every_mode_and_order(func, args):
    """Reverse against forward (the dot-product test), both against the unoptimized gradient,
    and the Hessian-vector product (a gradient with the pass, differentiated again)."""
    grads = srcad.grad(func, wrt=tuple(range(len(args))))(*args)
    plain = srcad.grad(func, wrt=tuple(range(len(args))), disable="all")(*args)
    for got, unoptimized, numeric in zip(grads, plain, [central_gradient(func, args, i)
                                                          for i in range(len(args))]):
        np.testing.assert_allclose(got, unoptimized, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-8)
    directions = tuple(RNG.normal(size=np.shape(a)) for a in args)
    for i, direction in enumerate(directions):
        tangent = srcad.jvp(func, wrt=i)(*args, direction)
        tangent = tangent[1] if isinstance(tangent, tuple) else tangent
        np.testing.assert_allclose(tangent, np.sum(grads[i] * direction), rtol=1e-10)
    hvp = srcad.hvp(func, wrt=len(args) - 1)(*args, directions[-1])
    step = 1e-5
    up, down = list(args), list(args)
    up[-1] = args[-1] + step * directions[-1]
    down[-1] = args[-1] - step * directions[-1]
    g = srcad.grad(func, wrt=len(args) - 1)
    np.testing.assert_allclose(hvp, (g(*up) - g(*down)) / (2 * step), rtol=1e-5, atol=1e-7)


def traces_and_diagonals(A, B):
    return np.trace(A @ B) + np.sum(np.diagonal(A @ A) ** 2) + np.trace(A) * np.sum(B)


def test_the_adjoints_of_trace_and_diagonal_scale_and_the_products_go():
    """undiagonal(np.expand_dims(by, -1), t, 0, 0, 1), the adjoint of np.trace(t), is the
    number by on the whole diagonal; np.diagonal's, the vector on it: every product with
    them is a scaling, and the primal's A @ B and A @ A, then read by nothing, are not made."""
    args = (RNG.normal(size=(5, 5)), RNG.normal(size=(5, 5)))
    text = srcad.source(traces_and_diagonals, wrt=(0, 1), args=args)
    body = text.split("def traces_and_diagonals_grad")[1]
    code = "\n".join(line for line in body.splitlines() if not line.lstrip().startswith("#"))
    assert "@" not in code and "np.einsum('ij,ji->i', A, A)" in code, body
    grads = srcad.grad(traces_and_diagonals, wrt=(0, 1))(*args)
    plain = srcad.grad(traces_and_diagonals, wrt=(0, 1), disable="diagonal")(*args)
    for i, (got, unoptimized) in enumerate(zip(grads, plain)):
        np.testing.assert_allclose(got, unoptimized, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(got, central_gradient(traces_and_diagonals, args, i),
                                   rtol=1e-6, atol=1e-8)


def test_the_trace_of_a_product_read_once_is_the_sum_of_its_terms():
    check_rewrite(scale_by_diagonals, """
        def f(A, B, v, w):
            M = A @ A.T
            g = np.trace(M) * w
            return g
        """, """
        def f(A, B, v, w):
            g = np.einsum('ij,ji->', A, A.T) * w
            return g
        """, (A, B, v, w), **dict(FACTS, shape_of={**SHAPES, "M": (4, 4)}.get))


def test_its_transposes_are_the_matrix():
    check_rewrite(scale_by_diagonals, """
        def f(A, B, v, w):
            D = np.diag(v)
            g = np.swapaxes(D, -1, -2) @ w + A @ np.swapaxes(D, 0, 1) + A @ D.T
            return g
        """, """
        def f(A, B, v, w):
            g = v * w + A * v + A * v
            return g
        """, (A, B, v, w), **FACTS)
