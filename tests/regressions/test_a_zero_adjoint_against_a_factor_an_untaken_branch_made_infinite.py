"""A zero adjoint (the untaken branch of an np.where) met a factor that branch made inf or
nan (np.log(0), 0 / 0, np.sqrt of a negative) in a plain product, and the gradient was nan
where the derivative is 0: the entropy term np.where(p > 0, p * np.log(p), 0.0) at p = 0.
The adjoint of `*` multiplied the zero by log(0) = -inf; so did every template's product of an
adjoint by a function of such a value (sin's `d[z] * np.cos(x)` of x = log(0), a power's
`d[z] * 2 * x`). The reverse builder now writes such products through strong_mul (a zero
adjoint wins against inf and nan) wherever analysis/ranges.py cannot show the factor finite,
and plain products wherever it can (modes/strong_zeros.py); in a helper's derivative too,
whose parameters are its caller's values. JAX and autograd give nan here (the double-where
form works for them); srcad gives the derivative of the branch taken."""
import warnings

import numpy as np
import pytest

import srcad


def entropy(p):
    return np.sum(np.where(p > 0, p * np.log(p), 0.0))


def masked_log(x, y, keep):
    return np.sum(np.where(keep, x * np.log(y), 0.0))


def sine_of_log(x):
    return np.sum(np.where(x > 0, np.sin(np.log(x)), 0.0))


def square_of_log(x):
    return np.sum(np.where(x > 0, np.log(x) ** 2, 0.0))


def _square(u):
    return u * u + np.sin(u)


def through_a_helper(x):
    return np.sum(np.where(x > 0, _square(np.sqrt(x)), 0.0))


def entropy_nansum(p):  # (every way a user leaves an entry out gives it a zero adjoint)
    return np.nansum(p * np.log(p))


def entropy_nanmean(p):
    return 2.0 * np.nanmean(p * np.log(p))  # (two entries of P are kept: the sum)


def entropy_nan_to_num(p):
    return np.sum(np.nan_to_num(p * np.log(p)))


def entropy_by_mask(p):
    t = p * np.log(p)
    return np.sum(t[p > 0])


def entropy_by_store(p):
    t = p * np.log(p)
    t[p == 0] = 0.0
    return np.sum(t)


P = np.array([0.5, 0.0, 0.25])
X = np.array([0.0, 2.0, 0.5])
CASES = {
    "entropy": (entropy, (P,), 0, np.where(P > 0, np.log(np.where(P > 0, P, 1.0)) + 1.0, 0.0)),
    **{f.__name__: (f, (P,), 0, np.where(P > 0, np.log(np.where(P > 0, P, 1.0)) + 1.0, 0.0))
       for f in (entropy_nansum, entropy_nanmean, entropy_nan_to_num, entropy_by_mask,
                 entropy_by_store)},
    "masked_log_x": (masked_log, (np.ones(3), np.array([1.0, 0.0, 2.0]),
                                  np.array([True, False, True])), 0,
                     np.array([0.0, 0.0, np.log(2.0)])),
    "masked_log_y": (masked_log, (np.ones(3), np.array([1.0, 0.0, 2.0]),
                                  np.array([True, False, True])), 1, np.array([1.0, 0.0, 0.5])),
    "sine_of_log": (sine_of_log, (X,), 0,
                    np.where(X > 0, np.cos(np.log(np.where(X > 0, X, 1.0))) / np.where(
                        X > 0, X, 1.0), 0.0)),
    "square_of_log": (square_of_log, (X,), 0,
                      np.where(X > 0, 2 * np.log(np.where(X > 0, X, 1.0)) / np.where(
                          X > 0, X, 1.0), 0.0)),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("kind", ["grad", "value_and_grad", "unoptimized"])
def test_the_untaken_branch_gives_zero_not_nan(name, kind):
    f, args, wrt, expected = CASES[name]
    options = {"disable": "all"} if kind == "unoptimized" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (log(0) in the forward sweep)
        out = getattr(srcad, "grad" if kind == "unoptimized" else kind)(f, wrt=wrt, **options)(
            *args)
    gradient = out[1] if kind == "value_and_grad" else out
    assert np.all(np.isfinite(gradient)), gradient
    np.testing.assert_allclose(gradient, expected, rtol=1e-13, atol=0)


@pytest.mark.parametrize("disabled", [(), ("inline",)], ids=["written-in", "callee"])
def test_a_helper_given_a_nan_by_its_caller(disabled):
    x = np.array([1.0, -1.0, 4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (sqrt(-1) in the forward sweep)
        gradient = srcad.grad(through_a_helper, disable=disabled)(x)
    s = np.sqrt(np.abs(x))
    expected = np.where(x > 0, (2 * s + np.cos(s)) * 0.5 / s, 0.0)
    np.testing.assert_allclose(gradient, expected, rtol=1e-13, atol=0)


@pytest.mark.parametrize("kind", ["grad", "unoptimized", "jvp"])
def test_scipy_entr_at_zero_is_the_entropy_term(kind):
    # scipy.special.entr(p) = -p log(p), 0 at p = 0: its template's slope is 0 there too
    special = pytest.importorskip("scipy.special")
    p = np.array([0.5, 0.0, 0.25, 2.0])

    def negative_entropy(p):
        return -np.sum(special.entr(p))
    want = np.where(p > 0, np.log(np.where(p > 0, p, 1.0)) + 1.0, 0.0)
    if kind == "jvp":
        got = srcad.jvp(negative_entropy)(p, np.ones(4))
        np.testing.assert_allclose(got, want.sum(), rtol=1e-13)
        return
    got = srcad.grad(negative_entropy, **({"disable": "all"} if kind == "unoptimized" else {}))(p)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


def worked_example(x1, x2):
    return np.log(x1) + x1 * x2 - np.sin(x2)


def test_products_of_finite_values_stay_plain():
    # the worked example reads as the textbook writes it: no guard where nothing is inf or nan
    assert "strong_mul" not in srcad.source(worked_example)
    text = srcad.source(entropy, args=(P,))
    body = text[text.index("def entropy_grad"):]
    assert body.count("strong_mul(") == 1, body  # (by log(p) only; p itself is finite)


# matrix products: an inf in L[i, k] reaches the whole row i of L @ W; with that row untaken,
# W's adjoint L.T @ G summed -inf * 0 (nan) where the derivative is L's other rows'
W = np.array([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]])
PM = np.array([[0.5, 0.0, 0.2], [0.1, 0.3, 0.6]])
ROWS = np.array([[False], [True]])


def matmul_of_log(W, p):
    return np.sum(np.where(ROWS, np.log(p) @ W, 0.0))


def dot_of_log(W, p):
    return np.sum(np.where(ROWS, np.dot(np.log(p), W), 0.0))


def einsum_of_log(W, p):
    return np.sum(np.where(ROWS, np.einsum("ij,jk->ik", np.log(p), W), 0.0))


def vector_of_log(W, p):  # (every entry of log(p[0]) @ W is -inf: all untaken)
    return np.sum(np.where(np.array([False, False]), np.dot(np.log(p[0]), W), 0.0)) + np.sum(W)


def _layer(L, W):  # (a closure would do too: a helper that is not written in)
    return L @ W


def helper_matmul_of_log(W, p):
    return np.sum(np.where(ROWS, _layer(np.log(p), W), 0.0))


@pytest.mark.parametrize("f", [matmul_of_log, dot_of_log, einsum_of_log, helper_matmul_of_log])
@pytest.mark.parametrize("options", [{}, {"disable": "all"},
                                     {"disable": ("inline", "callees")}],
                         ids=["optimized", "unoptimized", "generic-callee"])
def test_a_matrix_product_with_an_untaken_infinite_row(f, options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        gradient = srcad.grad(f, **options)(W, PM)
    expected = np.repeat(np.log(PM[1])[:, None], 2, axis=1)  # (row 1 of log(p), each column)
    np.testing.assert_allclose(gradient, expected, rtol=1e-13, atol=0)


@pytest.mark.parametrize("options", [{}, {"disable": "all"}], ids=["optimized", "unoptimized"])
def test_an_outer_product_with_an_untaken_infinite_entry(options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        gradient = srcad.grad(vector_of_log, **options)(W, PM)
    np.testing.assert_array_equal(gradient, np.ones_like(W))
