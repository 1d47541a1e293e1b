"""optimize/factorizations.py: a matrix the gradient factors more than once (solve in the primal,
solve with its transpose in the adjoint, inv for slogdet's adjoint) is factored once, and the
helpers give numpy's numbers: against central differences, against the gradient without the
pass, for a singular matrix (the same LinAlgError, slogdet's (0, -inf)), and without SciPy."""
import numpy as np
import pytest

import srcad
from srcad.optimize.factorizations import share_factorizations
from srcad.runtime import HELPERS

from before_after import check_rewrite, check_unchanged
from regressions.numeric import central_gradient


def gp_evidence(theta, X, y):
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=2)
    K = np.exp(theta[0]) * np.exp(-0.5 * d2 / np.exp(theta[1])) + np.exp(theta[2]) * np.eye(
        X.shape[0])
    alpha = np.linalg.solve(K, y)
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * np.dot(y, alpha) + 0.5 * logdet


RNG = np.random.default_rng(5)
GP_ARGS = (np.array([0.1, -0.3, -1.0]), RNG.uniform(-2, 2, size=(12, 2)), RNG.normal(size=12))


def test_a_gaussian_process_factors_its_kernel_once():
    text = srcad.source(gp_evidence, args=GP_ARGS)
    text = "\n".join(line for line in text[text.index("def gp_evidence_grad"):].splitlines()
                     if not line.lstrip().startswith("#"))  # (the code: not helpers, comments)
    assert text.count("lu_factors(K)") == 1 and "np.linalg.solve" not in text and (
        "np.linalg.inv" not in text)
    got = srcad.grad(gp_evidence)(*GP_ARGS)
    np.testing.assert_allclose(got, central_gradient(gp_evidence, GP_ARGS), rtol=1e-6)
    np.testing.assert_allclose(got, srcad.grad(gp_evidence, disable="factorizations")(*GP_ARGS),
                               rtol=1e-10)
    srcad.check_grads(gp_evidence, GP_ARGS, order=2)


def solve_twice(A, b):
    return np.sum(np.linalg.solve(A, b) * np.linalg.solve(A, 2.0 * b))


def test_a_singular_matrix_raises_as_numpy_does():
    A, b = np.ones((3, 3)), np.ones(3)
    with pytest.raises(np.linalg.LinAlgError):
        solve_twice(A, b)
    with pytest.raises(np.linalg.LinAlgError):
        srcad.grad(solve_twice, verify=False)(A, b)
    factors = HELPERS["lu_factors"](A)
    assert HELPERS["lu_slogdet"](factors, A) == tuple(np.linalg.slogdet(A))


def test_without_scipy_the_helpers_call_numpy():
    rng = np.random.default_rng(2)
    A, B = rng.normal(size=(4, 4)), rng.normal(size=(4, 2))
    factors = None  # (what lu_factors returns where SciPy is missing)
    np.testing.assert_array_equal(HELPERS["lu_solve"](factors, A, B, True),
                                  np.linalg.solve(A.T, B))
    np.testing.assert_array_equal(HELPERS["lu_inverse"](factors, A), np.linalg.inv(A))
    assert HELPERS["lu_slogdet"](factors, A) == tuple(np.linalg.slogdet(A))


def test_the_helpers_give_numpys_numbers():
    rng = np.random.default_rng(3)
    A, b, B = rng.normal(size=(6, 6)), rng.normal(size=6), rng.normal(size=(6, 3))
    factors = HELPERS["lu_factors"](A)
    np.testing.assert_allclose(HELPERS["lu_solve"](factors, A, b, False), np.linalg.solve(A, b),
                               rtol=1e-13)
    np.testing.assert_allclose(HELPERS["lu_solve"](factors, A, B, True),
                               np.linalg.solve(A.T, B), rtol=1e-12)
    np.testing.assert_allclose(HELPERS["lu_inverse"](factors, A), np.linalg.inv(A), rtol=1e-12)
    np.testing.assert_allclose(HELPERS["lu_slogdet"](factors, A), np.linalg.slogdet(A),
                               rtol=1e-13)
    complex_b = b + 1j * b  # (not a real right-hand side: numpy's solve, not getrs)
    np.testing.assert_allclose(HELPERS["lu_solve"](factors, A, complex_b, False),
                               np.linalg.solve(A, complex_b))


ARGS = (RNG.normal(size=(4, 4)) + 4 * np.eye(4), RNG.normal(size=4))
FACTS = dict(shape_of={"K": (4, 4), "y": (4,)}.get, probed={"K": "d", "y": "d"}.get,
             fresh_name=lambda prefix: prefix + "_1", derived=set(), returns_values=False)


def test_solves_with_a_matrix_and_its_transpose_share_its_factors():
    check_rewrite(share_factorizations, """
        def f(K, y):
            a = np.linalg.solve(K, y)
            g = np.linalg.solve(np.swapaxes(K, -1, -2), a)
            return g + np.linalg.slogdet(K)[1]
        """, """
        def f(K, y):
            lu_1 = lu_factors(K)
            a = lu_solve(lu_1, K, y, False)
            g = lu_solve(lu_1, K, a, True)
            return g + lu_slogdet(lu_1, K)[1]
        """, ARGS, **FACTS)


def test_where_values_are_returned_the_primals_calls_stay_numpys():
    """value_and_grad returns f's value to the bit: the statements that bind no derived name
    (the primal's) keep numpy's slogdet and solve; the adjoint's calls share the factors."""
    facts = dict(FACTS, derived={"gb", "bK"}, returns_values=True)
    check_rewrite(share_factorizations, """
        def f(K, y):
            t1 = np.linalg.slogdet(K)
            a = np.linalg.solve(K, y)
            gb = np.linalg.solve(np.swapaxes(K, -1, -2), a)
            bK = np.linalg.inv(K) + gb[0]
            bK += np.linalg.inv(K)
            return t1[1] + a[0], bK
        """, """
        def f(K, y):
            t1 = np.linalg.slogdet(K)
            a = np.linalg.solve(K, y)
            lu_1 = lu_factors(K)
            gb = lu_solve(lu_1, K, a, True)
            bK = lu_inverse(lu_1, K) + gb[0]
            bK += lu_inverse(lu_1, K)
            return t1[1] + a[0], bK
        """, ARGS, **facts)


@pytest.mark.parametrize("source", [
    """
    def f(K, y):
        a = np.linalg.solve(K, y)
        return a
    """,  # one factoring call
    """
    def f(K, y):
        a = np.linalg.solve(K, y)
        K[0, 0] = 2.0
        g = np.linalg.solve(K, a)
        return g
    """,  # a matrix stored into
    """
    def f(K, y):
        a = np.linalg.solve(K, y)
        for i in range(2):
            a = np.linalg.solve(K, a)
        return a
    """,  # a matrix factored in a loop
])
def test_what_is_left_as_it_is(source):
    check_unchanged(share_factorizations, source, ARGS, **FACTS)


lu_factors, lu_solve = HELPERS["lu_factors"], HELPERS["lu_solve"]
lu_inverse, lu_slogdet = HELPERS["lu_inverse"], HELPERS["lu_slogdet"]


def through_the_helpers(A, b):
    factors = lu_factors(A)
    x = lu_solve(factors, A, b, False)
    y = lu_solve(factors, A, b * x, True)
    return np.sum(x * y) + lu_slogdet(factors, A)[1] + np.sum(lu_inverse(factors, A) ** 2)


def test_the_helpers_templates_agree_with_differences_in_both_modes():
    """What the pass writes stays differentiable (a Hessian differentiates gradients again):
    each helper has its numpy function's templates, through the matrix it takes."""
    rng = np.random.default_rng(4)
    args = (rng.normal(size=(4, 4)) + 4 * np.eye(4), rng.normal(size=4))
    srcad.check_grads(through_the_helpers, args, wrt=(0, 1), order=2)
