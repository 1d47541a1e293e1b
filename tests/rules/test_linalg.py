"""Products and numpy.linalg beyond one-expression spec rows: unpacked tuple results (slogdet,
eigh, svd), functions of eigen- and singular vectors that do not depend on their signs, norms at
0, einsum's implicit outputs, and the errors for what srcad does not differentiate."""
import numpy as np
import pytest

import srcad
from srcad.runtime import HELPERS

try:
    import scipy.special
except ImportError:
    scipy = None
needs_scipy = pytest.mark.skipif(scipy is None, reason="scipy is not installed")

RNG = np.random.default_rng(7)
A33 = RNG.uniform(-1, 1, (3, 3))
A43 = RNG.uniform(-1, 1, (4, 3))
C33 = RNG.uniform(-1, 1, (3, 3))
SPD = A33 @ A33.T + 3 * np.eye(3)


def slogdet_product(a):
    sign, logdet = np.linalg.slogdet(a + 3 * np.eye(3))
    return sign * logdet


def eigh_reconstruct(a):
    # V diag(f(w)) V^T is invariant to the signs of the eigenvectors
    w, v = np.linalg.eigh(a @ a.T + 3 * np.eye(3))
    m = (v * np.sin(w)) @ v.T
    return np.sum(m * m) + np.sum(w ** 2)


def eigh_squares(a, c):
    w, v = np.linalg.eigh(a @ a.T + 3 * np.eye(3))
    return np.sum(v * v * c)


def svd_weighted(a, c):
    # the columns u_i and rows vh_i change sign together, so u diag(c) vh is well defined
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum(((u * c) @ vh) ** 2) + np.sum(np.sqrt(s))


def svd_projector(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum((u @ u.T) * (np.arange(1.0, 1.0 + np.shape(u)[0]))) + np.sum(s ** 3)


def svd_vectors_only(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum((vh.T @ vh) ** 2 * np.arange(np.shape(vh)[1]))


def einsum_chain(a, b, c):
    t = np.einsum("ij,jk,kl->il", a, b, c)
    return np.sum(np.einsum("ii->i", t) ** 2) + np.einsum("ij,ij", t, t)


def cholesky_solve(a, b):
    low = np.linalg.cholesky(a @ a.T + 3 * np.eye(3))
    y = np.linalg.solve(low, b)
    return np.sum(y ** 2) + np.sum(np.log(np.diagonal(low)))


def products_mix(a, b):
    c = np.tensordot(a, b, axes=([1], [0]))
    k = np.kron(a, b[:2, :2])
    return np.vdot(c, c) + np.sum(np.inner(k, k)) + np.sum(np.cross(a[:, :3], b[:3]) ** 2)


CASES = [
    (slogdet_product, (A33,), (0,)),
    (eigh_reconstruct, (A33,), (0,)),
    (eigh_squares, (A33, C33), (0,)),
    (svd_weighted, (A43, np.array([1.0, -2.0, 0.5])), (0,)),
    (svd_weighted, (A43.T, np.array([1.0, -2.0, 0.5])), (0,)),
    (svd_projector, (A43,), (0,)),
    (svd_vectors_only, (A43.T,), (0,)),
    (einsum_chain, (A43.T, A43, A33), (0, 1, 2)),
    (cholesky_solve, (A33, A43.T), (0, 1)),
    (products_mix, (A43.T, RNG.uniform(-1, 1, (4, 3))), (0, 1)),
]


@pytest.mark.parametrize("func, args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_unpacked_and_composed(func, args, wrt):
    srcad.check_grads(func, args, wrt=wrt, order=2)


def test_svd_batched():
    a = RNG.uniform(-1, 1, (2, 4, 3))
    c = np.array([1.0, -2.0, 0.5])

    def f(a):
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        return np.sum(((u * c[None, None, :]) @ vh) ** 2) + np.sum(s)

    srcad.check_grads(f, (a,), order=2)


def test_eigh_jacobian_of_eigenvalues_is_symmetric_part():
    """dw_i/dA = v_i v_i^T for a symmetric A."""
    w, v = np.linalg.eigh(SPD)
    def eigenvalues(a):
        return np.linalg.eigvalsh(a)

    jac = srcad.jacobian(eigenvalues)(SPD)
    assert np.allclose(jac, np.einsum("ji,ki->ijk", v, v), atol=1e-12)


# ---------------------------------------------------------------------------------------------
# norms at 0: the gradient is 0 (the smallest subgradient), never NaN

def norm_default(x):
    return np.linalg.norm(x)


def norm_fro(x):
    return np.linalg.norm(x, "fro")


def norm_one(x):
    return np.linalg.norm(x, 1)


def norm_inf(x):
    return np.linalg.norm(x, np.inf)


def norm_minus_inf(x):
    return np.linalg.norm(x, -np.inf)


def norm_three(x):
    return np.linalg.norm(x, 3)


def norm_half(x):
    return np.linalg.norm(x, 0.5)


def norm_rows(x):
    return np.sum(np.linalg.norm(x, axis=1))


@pytest.mark.parametrize("func, shape", [
    (norm_default, (4,)), (norm_default, (2, 3)), (norm_fro, (2, 3)), (norm_one, (4,)),
    (norm_inf, (4,)), (norm_minus_inf, (4,)), (norm_three, (4,)), (norm_half, (4,)),
    (norm_rows, (2, 3)),
])
def test_norm_gradient_at_zero_is_zero(func, shape):
    zero = np.zeros(shape)
    gradient = srcad.grad(func)(zero)
    assert np.shape(gradient) == shape
    assert np.all(gradient == 0.0)
    tangent = srcad.jvp(func)(zero, np.ones(shape))
    assert np.all(np.asarray(tangent) == 0.0)


def test_norm_gradient_with_a_zero_row():
    x = np.array([[0.0, 0.0, 0.0], [3.0, 4.0, 0.0]])
    gradient = srcad.grad(norm_rows)(x)
    assert np.array_equal(gradient, [[0.0, 0.0, 0.0], [0.6, 0.8, 0.0]])


def test_norm_inf_ties_share_evenly():
    x = np.array([3.0, -3.0, 1.0])
    assert np.allclose(srcad.grad(norm_inf)(x), [0.5, -0.5, 0.0])


def test_matrix_two_norm_is_refused():
    def spectral(x):
        return np.linalg.norm(x, 2)

    with pytest.raises(ValueError, match="matrix norm 'fro' only"):
        srcad.grad(spectral)(A33)


# ---------------------------------------------------------------------------------------------
# einsum

def least_squares_fit(a, b):
    x, residuals, rank, s = np.linalg.lstsq(a, b, rcond=None)
    return np.sum(x ** 2) + np.sum(residuals)


def test_lstsq_of_a_rank_deficient_matrix_is_refused_when_it_runs():
    """Where the rank drops, the least-squares solution jumps: no derivative to give. A full
    rank one is differentiated (both modes, against central differences)."""
    a, b = np.ones((4, 2)), np.arange(4.0)
    with pytest.raises(ValueError, match="full rank .* this one has rank 1"):
        srcad.grad(least_squares_fit)(a, b)
    with pytest.raises(ValueError, match="full rank"):
        srcad.jvp(least_squares_fit)(a, b, np.ones((4, 2)))
    # (the residuals are empty at rank 1 and of shape (1,) here: the values decide a shape,
    # so the code the calls above built is not the one this call runs)
    a = np.array([[1.0, 0.3], [0.2, 1.5], [0.7, -0.4], [1.1, 0.9]])
    srcad.check_grads(least_squares_fit, (a, b), wrt=(0, 1), order=2)


@pytest.mark.parametrize("subscripts, shapes", [
    ("ij,jk", [(2, 3), (3, 4)]), ("ba,bc", [(3, 2), (3, 4)]), ("Ba,bA", [(2, 3), (4, 5)]),
    ("ii", [(3, 3)]), ("iij", [(3, 3, 2)]), ("...i,...i", [(1, 3), (2, 3)]),
    ("i...", [(3, 2, 4)]), ("ij,jk->", [(2, 3), (3, 4)]), ("...ij,jk", [(5, 2, 3), (3, 4)]),
])
def test_einsum_canonical_matches_numpy(subscripts, shapes):
    einsum_canonical = HELPERS["einsum_canonical"]
    terms, out, sizes = einsum_canonical(subscripts, shapes)
    operands = [RNG.uniform(-1, 1, s) for s in shapes]
    want = np.einsum(subscripts, *operands)
    got = np.einsum(",".join(terms) + "->" + out, *operands)
    assert np.allclose(got, want, atol=1e-14)


def test_einsum_sublists_are_refused():
    def f(a):
        return np.sum(np.einsum(a, [0, 1], [1]))

    with pytest.raises(ValueError, match="subscripts string"):
        srcad.grad(f)(A33)
    with pytest.raises(ValueError, match="subscripts string"):
        srcad.jvp(f)(A33, A33)


def test_einsum_jvp_with_a_constant_operand():
    """The constant operand has a zero tangent: J v = v @ b."""
    def f(a, b):
        return np.einsum("ij,jk->ik", a, b)

    jv = srcad.jvp(f, wrt=0)(A33, C33, np.eye(3))
    assert np.allclose(jv, C33)


def test_matrix_power_with_variable_exponent():
    def f(a, n):
        return np.sum(np.linalg.matrix_power(a, n) ** 2)

    for n in (0, 1, 2, 5, -1, -3):
        srcad.check_grads(f, (A33 + 3 * np.eye(3), n), wrt=0, order=2)


def test_dot_of_stacks_matches_tensordot():
    a = RNG.uniform(-1, 1, (2, 3, 4))
    b = RNG.uniform(-1, 1, (5, 4, 2))
    g = RNG.uniform(-1, 1, (2, 3, 5, 2))

    def f(a, b):
        return np.dot(a, b)

    ga, gb = srcad.vjp(f, wrt=(0, 1))(a, b, g)
    assert np.allclose(ga, np.einsum("ijmn,mkn->ijk", g, b))
    assert np.allclose(gb, np.einsum("ijmn,ijk->mkn", g, a))


# ---------------------------------------------------------------------------------------------
# scipy.special (registered only when scipy imports)

def test_srcad_imports_and_registers_no_scipy_op_without_scipy():
    import subprocess
    import sys
    code = ("import sys; sys.modules['scipy'] = None; import srcad; "
            "names = [r['name'] for r in srcad.coverage()]; "
            "assert not [n for n in names if n.startswith('scipy')], names; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def lse_rows(x):
    return np.sum(scipy.special.logsumexp(x, axis=1) * np.array([1.0, 2.0, 3.0]))


@needs_scipy
def test_logsumexp_gradient_is_stable():
    x = np.array([[0.0, -np.inf, 1.0], [-np.inf, -np.inf, -np.inf], [1000.0, 1e300, -np.inf]])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        gradient = srcad.grad(lse_rows)(x)
    e = np.exp(1.0)
    assert np.allclose(gradient[0], [1 / (1 + e), 0.0, e / (1 + e)])
    assert np.array_equal(gradient[1], [0.0, 0.0, 0.0])  # an all -inf row: 0, not NaN
    assert np.array_equal(gradient[2], [0.0, 3.0, 0.0])
    tangent = srcad.jvp(lse_rows)(x, np.ones_like(x))
    assert np.isfinite(tangent)


def lse_signed(x, b):
    value, sign = scipy.special.logsumexp(x, b=b, return_sign=True)
    return value * sign


@needs_scipy
def test_logsumexp_with_sign_unpacked():
    x = np.array([0.3, -0.2, 1.1])
    b = np.array([1.0, -0.5, 0.25])
    srcad.check_grads(lse_signed, (x, b), wrt=(0, 1), order=2)


def softmax_loss(x, y):
    p = scipy.special.softmax(x, axis=-1)
    return -np.sum(y * scipy.special.log_softmax(x, axis=-1)) + np.sum(p ** 2)


@needs_scipy
def test_softmax_and_log_softmax_in_a_loss():
    x = RNG.uniform(-2, 2, (3, 4))
    y = np.eye(4)[[0, 2, 3]]
    srcad.check_grads(softmax_loss, (x, y), wrt=0, order=2)
    # the softmax cross-entropy gradient: softmax(x) - y (plus the p**2 term's)
    p = scipy.special.softmax(x, axis=-1)
    quadratic = 2 * p * (p - np.sum(p * p, axis=-1, keepdims=True))
    assert np.allclose(srcad.grad(softmax_loss)(x, y), p - y + quadratic)


# lower_sandwich: t^-T m t^-1 (or t^-1 m t^-T) for a lower triangular t, the core of cholesky's
# adjoint and tangent; BLAS trsm from both sides with SciPy, two triangular solves without
LOWER = np.tril(RNG.uniform(-1, 1, (4, 4))) + 3 * np.eye(4)
M44 = RNG.uniform(-1, 1, (4, 4))
W44 = RNG.uniform(-1, 1, (4, 4))
lower_sandwich = HELPERS["lower_sandwich"]


def sandwich_outer(t, m):
    return np.sum(lower_sandwich(t, m, False) * W44)


def sandwich_inner(t, m):
    q = lower_sandwich(t, m, True)
    return np.sum(q * q * W44)


@pytest.mark.parametrize("inner", [False, True])
def test_lower_sandwich_is_its_formula_with_and_without_blas(inner):
    inv = np.linalg.inv(LOWER)
    want = inv @ M44 @ inv.T if inner else inv.T @ M44 @ inv
    sandwich = lower_sandwich
    np.testing.assert_allclose(sandwich(LOWER, M44, inner), want, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(sandwich(LOWER + np.triu(M44, 1), M44, inner), want, rtol=1e-12,
                               atol=1e-14)  # (the upper triangle is not read)
    stacked = sandwich(np.stack([LOWER, LOWER]), np.stack([M44, M44]), inner)  # (no BLAS path)
    np.testing.assert_allclose(stacked, np.stack([want, want]), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("func", [sandwich_outer, sandwich_inner])
def test_lower_sandwich_derivatives(func):
    lower_only = lambda t, m: func(np.tril(t), m)  # noqa: E731 (t's upper triangle: unread)
    srcad.check_grads(func, (LOWER, M44), wrt=(0, 1), order=2)
    srcad.check_grads(lower_only, (LOWER, M44), wrt=(0, 1), order=1)
