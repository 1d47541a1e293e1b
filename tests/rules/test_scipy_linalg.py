"""scipy.linalg's templates (templates/scipy_linalg.py): solve_triangular (trans, lower,
unit_diagonal), cholesky, cho_factor and cho_solve (a GP's marginal likelihood), lu_factor and
lu_solve (rows interchanged, both trans), logm and sqrtm (Higham's block form), solve (general,
transposed, symmetric), inv, det and expm. Each program's gradient is checked against central
differences in float64, its Jacobian-vector product against differences along a random
direction and against the gradient (the dot-product test), its Hessian against differences of
the gradient; an emitted module runs by itself. The symmetric functions are read through
K = a a^T + 3 I, so that differences of a's entries test them along symmetric directions,
the ones their gradients are for."""
import importlib.util

import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient

scipy_linalg = pytest.importorskip("scipy.linalg", reason="scipy is not installed")
from scipy.linalg import cho_factor, cho_solve, solve_triangular  # noqa: E402

sl = scipy_linalg
W = np.arange(9.0).reshape(3, 3) / 7 - 0.4
RNG = np.random.default_rng(11)
A = RNG.uniform(-1, 1, (3, 3))
T = A + 3 * np.eye(3)  # (well conditioned in either triangle)
B = RNG.uniform(-1, 1, (3, 2))
V = RNG.uniform(-1, 1, 3)
PIVOTED = A + np.diag([-A[0, 0] + 0.05, 1.0, 1.0])  # (lu_factor interchanges its rows)


def spd(a):
    return a @ a.T + 3 * np.eye(3)


def triangular_lower(t, b):
    x = solve_triangular(t, b, lower=True)
    return np.sum(x ** 2) + np.sum(np.sin(x))


def triangular_transposed_unit(t, b):
    x = solve_triangular(t, b, trans="T", unit_diagonal=True)  # (upper: the default)
    return np.sum(x * W[:, :2])


def triangular_trans_1_lower(t, b):
    x = sl.solve_triangular(t, b, trans=1, lower=True)
    return np.sum(np.tanh(x))


def cholesky_upper(a):
    u = sl.cholesky(spd(a))
    return np.sum(u * W) + np.sum(np.log(np.diag(u)))


def cholesky_lower(a):
    low = sl.cholesky(spd(a), lower=True)
    return np.sum(low * W) + np.sum(np.log(np.diag(low)))


def gp_marginal_likelihood(a, y):
    c, low = cho_factor(spd(a))
    alpha = cho_solve((c, low), y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(c)))


def gp_lower_columns(a, y):
    c, low = cho_factor(spd(a), lower=True)
    alpha = cho_solve((c, low), y)
    return np.sum(alpha * W[:, :2]) + 2.0 * np.sum(np.log(np.diag(c)))


def gp_factor_passed_whole(a, y):
    factor = cho_factor(spd(a), lower=True)  # (the pair passed whole, its factor read too)
    alpha = cho_solve(factor, y)
    return np.sum(alpha * W[:, :2]) + 2.0 * np.sum(np.log(np.diag(factor[0])))


def cho_factor_whole(a):
    c, low = cho_factor(spd(a))  # (the lower triangle holds K's own entries)
    return np.sum(c * W)


def lu_factors_read(a):
    lu, piv = sl.lu_factor(a)  # (a's first entry small: rows are interchanged)
    return np.sum(lu * W) + np.sum(np.log(np.abs(np.diag(lu))))


def lu_solved_both_ways(a, b):
    factors = sl.lu_factor(a)
    x = sl.lu_solve(factors, b)
    y = sl.lu_solve(factors, b, trans=1)
    return np.sum(x ** 2) + np.sum(np.tanh(y)) + np.sum(factors[0] * W)


def solve_general(a, b):
    x = sl.solve(a + 3 * np.eye(3), b)
    y = sl.solve(a + 3 * np.eye(3), b, transposed=True)
    return np.sum(x ** 2) + np.sum(x * y)


def solve_positive(a, y):
    x = sl.solve(spd(a), y, assume_a="pos")
    z = sl.solve(spd(a), y, assume_a="sym", lower=True)
    return np.sum(x ** 2) + np.sum(z * y)


def inv_and_det(a):
    return np.sum(sl.inv(a + 3 * np.eye(3)) ** 2) + sl.det(a + 3 * np.eye(3))


def logm_weighted(a):
    return np.sum(sl.logm(spd(a)) * W)


def sqrtm_weighted(a):
    root = sl.sqrtm(a @ a.T + 0.5 * np.eye(3) + 0.2 * a)  # (not symmetric)
    return np.sum(root * W) + np.sum(root ** 2)


def expm_weighted(a):
    return np.sum(sl.expm(0.3 * a) * W)


CASES = [
    (triangular_lower, (T, V)),
    (triangular_transposed_unit, (T, B)),
    (triangular_trans_1_lower, (T, B)),
    (cholesky_upper, (A,)),
    (cholesky_lower, (A,)),
    (gp_marginal_likelihood, (A, V)),
    (gp_lower_columns, (A, B)),
    (gp_factor_passed_whole, (A, B)),
    (cho_factor_whole, (A,)),
    (lu_factors_read, (PIVOTED,)),
    (lu_solved_both_ways, (PIVOTED, B)),
    (solve_general, (A, B)),
    (solve_positive, (A, V)),
    (inv_and_det, (A,)),
    (expm_weighted, (A,)),
    (logm_weighted, (A,)),
    (sqrtm_weighted, (A,)),
]
IDS = [f.__name__ for f, _ in CASES]


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_gradient_matches_central_differences(f, args):
    wrt = tuple(range(len(args)))
    grads = srcad.grad(f, wrt=wrt)(*args)
    for i in wrt:
        np.testing.assert_allclose(grads[i], central_gradient(f, args, i), rtol=1e-6,
                                   atol=1e-8)


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_forward_mode_matches_differences_and_the_gradient(f, args):
    wrt = tuple(range(len(args)))
    directions = [np.random.default_rng(5).normal(size=np.shape(a)) for a in args]
    h = 1e-6
    numeric = (f(*[a + h * v for a, v in zip(args, directions)])
               - f(*[a - h * v for a, v in zip(args, directions)])) / (2 * h)
    tangent = srcad.jvp(f, wrt=wrt)(*args, *directions)
    np.testing.assert_allclose(tangent, numeric, rtol=1e-6, atol=1e-8)
    grads = srcad.grad(f, wrt=wrt)(*args)
    np.testing.assert_allclose(tangent, sum(np.sum(g * v) for g, v in zip(grads, directions)),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("f, args", [CASES[i] for i in (0, 3, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)],
                         ids=lambda c: getattr(c, "__name__", ""))
def test_hessian_matches_differences_of_the_gradient(f, args):
    x, rest = args[0], args[1:]
    hessian = srcad.hessian(f)(*args)
    gradient = srcad.grad(f)
    numeric = np.zeros(x.shape + x.shape)
    for j in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[j] = 1e-5
        numeric[(Ellipsis,) + j] = (gradient(x + e, *rest) - gradient(x - e, *rest)) / 2e-5
    np.testing.assert_allclose(hessian, numeric, rtol=1e-5, atol=1e-7)


def test_an_emitted_module_imports_scipy_linalg_and_runs_by_itself(tmp_path):
    path = tmp_path / "gp_grad.py"
    srcad.emit(gp_marginal_likelihood, str(path), wrt=(0, 1))
    text = path.read_text()
    assert "import scipy.linalg" in text.splitlines()
    spec = importlib.util.spec_from_file_location("gp_grad", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    emitted = module.gp_marginal_likelihood_grad(A, V)
    for got, want in zip(emitted, srcad.grad(gp_marginal_likelihood, wrt=(0, 1))(A, V)):
        np.testing.assert_array_equal(got, want)


def test_the_generated_adjoint_reads_the_tuple_items_by_name_and_constant_flags_as_numpy():
    text = srcad.source(gp_marginal_likelihood, wrt=(0, 1))
    assert "(c, low)[0]" not in text and "not False" not in text
    assert "scipy.linalg.cho_solve((c, low), solve_column(balpha, y))" in text
    assert "oriented(triangle(c, low), not low)" in text  # (low: known when it runs)
    assert "oriented(" not in text.split("cho_factor(spd(a))  (")[-1]  # (lower=False, a literal:
    assert "np.swapaxes(np.triu(" in text  # numpy's own calls)


def overwrites_a(a, b):
    return np.sum(sl.solve(a + 3 * np.eye(3), b, overwrite_a=True) ** 2)


def banded(a, b):
    return np.sum(sl.solve(a + 3 * np.eye(3), b, assume_a="banded") ** 2)


def logm_of_a_negative_eigenvalue(a, b):
    return np.sum(np.real(sl.logm(a - 3 * np.eye(3))) * b[:, :1])


@pytest.mark.filterwarnings("ignore:logm result may be inaccurate")
def test_a_complex_logarithm_is_refused():
    """logm of a matrix with negative eigenvalues is complex: refused when the build probes the
    arguments, and by the derivative itself in the code for any shapes (real_result)."""
    for derivative in (srcad.grad(logm_of_a_negative_eigenvalue),
                       lambda a, b: srcad.jvp(logm_of_a_negative_eigenvalue)(a, b, A)):
        with pytest.raises(srcad.SrcadError, match="complex"):
            derivative(A, B)
    generic = srcad.grad(logm_of_a_negative_eigenvalue, disable="specialize")
    with pytest.raises(ValueError, match="where its value is one real matrix"):
        generic(A, B)


@pytest.mark.parametrize("f, message", [
    (overwrites_a, "overwrite_a=True"),
    (banded, "assume_a None, 'gen', 'sym', 'pos' or 'her', not 'banded'"),
])
def test_what_the_derivative_cannot_read_is_refused_at_the_call(f, message):
    for derivative in (srcad.grad(f), lambda a, b: srcad.jvp(f)(a, b, np.ones_like(a))):
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            derivative(A, B)


def solve_symmetric_given(k, y):
    return np.sum(sl.solve(k, y, assume_a="pos") ** 2)


def gp_given(k, y):
    c, low = cho_factor(k, lower=True)
    return y @ cho_solve((c, low), y) + np.sum(np.log(np.diag(c)))


def cholesky_given(k):
    return np.sum(sl.cholesky(k) * W)


def inv_symmetric_given(k):
    return np.sum(sl.inv(k, assume_a="pos") * W)


@pytest.mark.parametrize("f, args", [
    (solve_symmetric_given, (spd(A), V)), (gp_given, (spd(A), V)), (cholesky_given, (spd(A),)),
    (inv_symmetric_given, (spd(A),))], ids=lambda c: getattr(c, "__name__", ""))
def test_a_symmetric_matrix_read_by_one_triangle_gets_a_symmetric_gradient(f, args):
    """Along symmetric directions (the matrices these functions are for), as cholesky's."""
    k, rest = args[0], args[1:]
    gradient = srcad.grad(f)(*args)
    np.testing.assert_array_equal(gradient, gradient.T)
    e = np.random.default_rng(2).normal(size=k.shape)
    e = e + e.T
    numeric = (f(k + 1e-6 * e, *rest) - f(k - 1e-6 * e, *rest)) / 2e-6
    np.testing.assert_allclose(np.sum(gradient * e), numeric, rtol=1e-6)
    np.testing.assert_allclose(srcad.jvp(f)(*args, e), numeric, rtol=1e-6)


def test_expm_of_a_stack_of_matrices():
    stack = np.stack([A, 0.5 * A.T])
    f = expm_weighted
    np.testing.assert_allclose(srcad.grad(f)(stack), central_gradient(f, (stack,)), rtol=1e-6,
                               atol=1e-8)
    direction = np.random.default_rng(4).normal(size=stack.shape)
    np.testing.assert_allclose(srcad.jvp(f)(stack, direction),
                               np.sum(srcad.grad(f)(stack) * direction), rtol=1e-12)
    hessian_vector = srcad.jvp(srcad.grad(f))(stack, direction)  # (the Frechet derivative's
    gradient = srcad.grad(f)  # own derivative, on stacks)
    numeric = (gradient(stack + 1e-5 * direction) - gradient(stack - 1e-5 * direction)) / 2e-5
    np.testing.assert_allclose(hessian_vector, numeric, rtol=1e-5, atol=1e-7)


expm_gradient = srcad.grad(expm_weighted)


def expm_gradient_weighted(a):
    return np.sum(expm_gradient(a) * W.T)


def test_reverse_mode_through_the_frechet_derivative():
    """The gradient of a function of expm's gradient: reverse mode over reverse mode, through
    the adjoint of the Frechet derivative (its block form)."""
    np.testing.assert_allclose(srcad.grad(expm_gradient_weighted)(A),
                               central_gradient(expm_gradient_weighted, (A,)), rtol=1e-6,
                               atol=1e-8)


def test_the_pivots_interchange_rows():
    """The LU programs above pivot (else their permutation would go untested)."""
    assert list(sl.lu_factor(PIVOTED)[1]) != list(range(3))
