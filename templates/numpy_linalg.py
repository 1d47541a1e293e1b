"""numpy.linalg's matrix functions: inv, det, slogdet, solve, cholesky, eigh, eigvalsh, svd,
pinv, lstsq, matrix_power and norm (the products are in numpy_products.py).

Real arrays; matrices are the last two axes and leading axes are stacks (batched). Each function
is differentiated by the identities written beside it; cholesky, eigh and eigvalsh take A
symmetric: they are differentiated along symmetric directions, with symmetric gradients.
"""
import numpy as np

from srcad.rules.registry import adjoint, d, non_differentiable, tangent
from srcad.runtime import helper, on_host, unreduce


# ---------------------------------------------------------------------------------------------
# inverses and solves

@helper(tangent="linear")
def solve_column(v, b):
    """v as a stack of columns when b is a vector (solve treats 1-D b as a vector). v may be a
    list, as solve takes b (the tangent of b = [1.0, 2.0] is [0.0, 0.0])."""
    if isinstance(v, (list, tuple)):
        v = np.asarray(v)
    return v[..., None] if np.ndim(b) == 1 else v


@helper(tangent="linear")
def solve_uncolumn(v, b):
    """The inverse of solve_column."""
    if isinstance(v, (list, tuple)):
        v = np.asarray(v)
    return v[..., 0] if np.ndim(b) == 1 else v


@helper(linear=False)
def triangular_solve(t, b, lower):
    """t^-1 b for a triangular t (its lower or upper triangle is read) and a matrix b: SciPy's
    triangular solve where SciPy is installed and t is one matrix (a tenth of a general
    solve's work), else np.linalg.solve, the same for a triangular t."""
    if np.ndim(t) == 2 and np.ndim(b) == 2 and type(b) is np.ndarray:
        try:
            from scipy.linalg import solve_triangular
        except ImportError:
            pass
        else:
            return solve_triangular(t, b, lower=lower, check_finite=False)
    return np.linalg.solve(t, b)


@helper(linear=False)
def lower_sandwich(t, m, inner):
    """t^-T m t^-1 for a lower triangular t (only its lower triangle is read), or with
    inner=True t^-1 m t^-T: two triangular solves, one from each side. With SciPy, for one
    float64 matrix: two BLAS trsm calls, one solving from the left, one from the right (a
    tenth of the time of two solves of transposes; the same LAPACK kernels). BLAS reads
    matrices by columns: a C-ordered matrix's transpose is one, read without a copy, so the
    solves run on the transposes (u = t^T is upper triangular), and the result's transpose,
    C-ordered, is returned: Y^T = u^-1 m^T u^-T (inner: u^-T m^T u^-1)."""
    if (np.ndim(t) == 2 and np.ndim(m) == 2 and type(t) is np.ndarray and type(m) is np.ndarray
            and t.dtype == np.float64 and m.dtype == np.float64):
        try:
            from scipy.linalg import blas
        except ImportError:
            pass
        else:  # side=0: u x = b (or u^T x = b); side=1: x u^T = b (or x u = b)
            u = t.T
            z = blas.dtrsm(1.0, u, m.T, side=0, lower=0, trans_a=int(inner))
            return blas.dtrsm(1.0, u, z, side=1, lower=0, trans_a=int(not inner),
                              overwrite_b=1).T
    if inner:
        return triangular_solve(t, np.swapaxes(triangular_solve(t, np.swapaxes(
            m, -1, -2), True), -1, -2), True)
    tt = np.swapaxes(t, -1, -2)
    return triangular_solve(tt, np.swapaxes(triangular_solve(tt, np.swapaxes(
        m, -1, -2), False), -1, -2), False)


# Q = T^-T M T^-1:  dQ = S(dM) - T^-T dT^T Q - Q dT T^-1,  M_bar = T^-1 Q_bar T^-T,
#                   T_bar = the lower triangle of -(Q Q_bar^T + Q^T Q_bar) T^-T;
# Q = T^-1 M T^-T (inner):  dQ = S(dM) - T^-1 dT Q - Q dT^T T^-T,  M_bar = T^-T Q_bar T^-1,
#                   T_bar = the lower triangle of -T^-T (Q_bar Q^T + Q_bar^T Q)
@tangent(lower_sandwich)
def lower_sandwich_tangent(q, t, m, inner):
    dt = triangle(d[t], True)
    if inner:
        left = triangular_solve(t, dt @ q, True)
    else:
        left = triangular_solve(np.swapaxes(t, -1, -2), np.swapaxes(dt, -1, -2) @ q, False)
    if inner:
        right = np.swapaxes(triangular_solve(t, dt @ np.swapaxes(q, -1, -2), True), -1, -2)
    else:
        right = np.swapaxes(triangular_solve(np.swapaxes(t, -1, -2), np.swapaxes(
            q @ dt, -1, -2), False), -1, -2)
    d[q] = lower_sandwich(t, d[m], inner) - left - right


@adjoint(lower_sandwich)
def lower_sandwich_adjoint(q, t, m, inner):
    qt = np.swapaxes(q, -1, -2)
    gt = np.swapaxes(d[q], -1, -2)
    if inner:
        d[t] = triangle(-triangular_solve(np.swapaxes(t, -1, -2), d[q] @ qt + gt @ q, False),
                        True)
    else:
        d[t] = triangle(-np.swapaxes(triangular_solve(t, np.swapaxes(
            q @ gt + qt @ d[q], -1, -2), True), -1, -2), True)
    d[m] = lower_sandwich(t, d[q], not inner)


# One LU factorization of a matrix for its solves (with it and its transpose), inverse and
# log-determinant: what optimize/factorizations.py writes where a gradient factors one matrix
# more than once (numpy's solve, inv and slogdet each factor it again). SciPy's LAPACK getrf and
# getrs where SciPy is installed; else numpy's functions on the matrix. Each use takes the
# matrix too: derivatives flow through it (the factors are a cache of it), as through numpy's.

@helper(linear=False)
def lu_factors(a):
    """(lu, pivots) of a float64 matrix a; None where SciPy is missing or a is another kind of
    array (its uses then call numpy's functions on a)."""
    if type(a) is not np.ndarray or a.dtype != np.float64 or np.ndim(a) != 2:
        return None
    try:
        from scipy.linalg import lapack
    except ImportError:
        return None
    lu, pivots, _ = lapack.dgetrf(a)  # (a singular a is reported where a solve needs it)
    return lu, pivots


non_differentiable(lu_factors)


@helper(linear=False)
def lu_solve(factors, a, b, transposed):
    """np.linalg.solve(a, b), or with a's transpose, from factors = lu_factors(a)."""
    if factors is None or type(b) is not np.ndarray or np.ndim(b) > 2 or (
            b.dtype.kind not in "fiu"):
        return np.linalg.solve(np.swapaxes(a, -1, -2) if transposed else a, b)
    lu, pivots = factors
    if not np.all(np.diagonal(lu)):
        raise np.linalg.LinAlgError("Singular matrix")  # (as np.linalg.solve)
    from scipy.linalg import lapack
    x, _ = lapack.dgetrs(lu, pivots, b, trans=int(transposed))
    return x


@helper(linear=False)
def lu_inverse(factors, a):
    """np.linalg.inv(a) from factors = lu_factors(a)."""
    if factors is None:
        return np.linalg.inv(a)
    return lu_solve(factors, a, np.eye(np.shape(a)[0]), False)


@helper(linear=False)
def lu_slogdet(factors, a):
    """np.linalg.slogdet(a), (sign, log|det a|), from factors = lu_factors(a)."""
    if factors is None:
        return tuple(np.linalg.slogdet(a))
    lu, pivots = factors
    u = np.diagonal(lu)
    if not np.all(u):
        return 0.0 * u[0], -np.inf + 0.0 * u[0]  # (np.float64 0.0 and -inf, as numpy's)
    swaps = np.count_nonzero(pivots != np.arange(len(pivots)))
    sign = (-1.0) ** swaps * np.prod(np.sign(u))
    return sign, np.sum(np.log(np.abs(u)))


# as solve's, inv's and slogdet's below, with op(A) = A^T where transposed (A_bar = M_bar^T)
@adjoint(lu_solve)
def lu_solve_adjoint(x, factors, a, b, transposed):
    gb = lu_solve(factors, a, solve_column(d[x], b), not transposed)
    ga = -(gb @ np.swapaxes(solve_column(x, b), -1, -2))
    if transposed:
        d[a] = np.swapaxes(ga, -1, -2)
    else:
        d[a] = ga
    d[b] = solve_uncolumn(gb, b)


@tangent(lu_solve)
def lu_solve_tangent(x, factors, a, b, transposed):
    if transposed:
        da = np.swapaxes(d[a], -1, -2)
    else:
        da = d[a]
    d[x] = solve_uncolumn(lu_solve(factors, a, solve_column(d[b], b) - da @ solve_column(x, b),
                                   transposed), b)


@adjoint(lu_inverse)
def lu_inverse_adjoint(b, factors, a):
    bt = np.swapaxes(b, -1, -2)
    d[a] = -(bt @ d[b] @ bt)


@tangent(lu_inverse)
def lu_inverse_tangent(b, factors, a):
    d[b] = -(b @ d[a] @ b)


@adjoint(lu_slogdet, tuple_result=True)
def lu_slogdet_adjoint(y, factors, a):
    d[a] = np.expand_dims(d[y][1], (-2, -1)) * np.swapaxes(lu_inverse(factors, a), -1, -2)


@tangent(lu_slogdet)
def lu_slogdet_tangent(y, factors, a):
    d[y] = (np.zeros_like(y[0]), np.trace(lu_solve(factors, a, d[a], False), axis1=-2,
                                          axis2=-1))


# x = T^-1 b with T triangular: dx = T^-1 (db - dT x); b_bar = T^-T x_bar and T_bar the
# triangle of -b_bar x^T (the other triangle is not read)
@adjoint(triangular_solve)
def triangular_solve_adjoint(x, t, b, lower):
    gb = triangular_solve(np.swapaxes(t, -1, -2), d[x], not lower)
    d[b] = gb
    d[t] = triangle(-(gb @ np.swapaxes(x, -1, -2)), lower)


@tangent(triangular_solve)
def triangular_solve_tangent(x, t, b, lower):
    d[x] = triangular_solve(t, d[b] - triangle(d[t], lower) @ x, lower)


@helper(tangent="linear")
def triangle(m, lower):
    """The lower (or upper) triangle of m, zeros elsewhere (linear: its own adjoint)."""
    return np.tril(m) if lower else np.triu(m)


@adjoint(triangle)
def triangle_adjoint(z, m, lower):
    d[m] = triangle(d[z], lower)


# B = A^-1:  dB = -B dA B,  A_bar = -B^T B_bar B^T
@adjoint(np.linalg.inv)
def inv(b, a):
    bt = np.swapaxes(b, -1, -2)
    d[a] = -(bt @ d[b] @ bt)


@tangent(np.linalg.inv)
def inv(b, a):
    d[b] = -(b @ d[a] @ b)


# y = det(A):  dy = y tr(A^-1 dA),  A_bar = y_bar y A^-T
@adjoint(np.linalg.det)
def det(y, a):
    d[a] = np.expand_dims(d[y] * y, (-2, -1)) * np.swapaxes(np.linalg.inv(a), -1, -2)


@tangent(np.linalg.det)
def det(y, a):
    d[y] = y * np.trace(np.linalg.solve(a, d[a]), axis1=-2, axis2=-1)


# (sign, log|det A|):  d log|det A| = tr(A^-1 dA); the sign is piecewise constant
@adjoint(np.linalg.slogdet, tuple_result=True)
def slogdet(y, a):
    d[a] = np.expand_dims(d[y][1], (-2, -1)) * np.swapaxes(np.linalg.inv(a), -1, -2)


@tangent(np.linalg.slogdet)
def slogdet(y, a):
    d[y] = (np.zeros_like(y[0]), np.trace(np.linalg.solve(a, d[a]), axis1=-2, axis2=-1))


# x = A^-1 b:  dx = A^-1 (db - dA x),  b_bar = A^-T x_bar,  A_bar = -b_bar x^T
# (b a vector or a stack of matrices; batch axes broadcast)
@adjoint(np.linalg.solve, broadcasts=True)
def solve(x, a, b):
    gb = np.linalg.solve(np.swapaxes(a, -1, -2), solve_column(d[x], b))
    d[a] = -(gb @ np.swapaxes(solve_column(x, b), -1, -2))
    d[b] = solve_uncolumn(gb, b)


@tangent(np.linalg.solve)
def solve(x, a, b):
    d[x] = solve_uncolumn(np.linalg.solve(a, solve_column(d[b], b)
                                          - d[a] @ solve_column(x, b)), b)


@helper(tangent="linear")
def lower_half(s):
    """Phi(S): the lower triangle of s with its diagonal halved (linear and self-adjoint)."""
    if not on_host(s):  # (no stores into a dask or CuPy array)
        return np.tril(s) - 0.5 * s * np.eye(np.shape(s)[-1])
    out = np.tril(s)
    k = np.arange(np.shape(s)[-1])
    out[..., k, k] *= 0.5
    return out


@adjoint(lower_half)
def lower_half_adjoint(z, s):
    d[s] = lower_half(d[z])


@helper(tangent="linear")
def as_lower_factor(m, l):
    """m (a Cholesky factor l, or its tangent or adjoint) as seen from the lower factor L: m
    itself where l is lower triangular (NumPy's np.linalg.cholesky, CuPy's), its transpose
    where l is upper. np.linalg.cholesky of a dask array returns the upper factor U = L^T
    (da.linalg.cholesky's default): told by np.where on l's triangles, without computing them."""
    if on_host(l):
        return m
    lower = np.all(np.triu(l, 1) == 0, axis=(-2, -1), keepdims=True)
    return np.where(lower, m, np.swapaxes(m, -1, -2))


@adjoint(as_lower_factor)  # (a transpose or not: its own adjoint)
def as_lower_factor_adjoint(z, m, l):
    d[m] = as_lower_factor(d[z], l)


# A = L L^T (A symmetric: derivatives along symmetric directions, gradients symmetric).
# L^-1 dA L^-T = X + X^T with X = L^-1 dL lower triangular, so
#   dL = L Phi(L^-1 dA L^-T),  A_bar = sym(L^-T Phi(L^T L_bar) L^-1),
# Phi(S) = the lower triangle of S with its diagonal halved (self-adjoint).
@adjoint(np.linalg.cholesky)
def cholesky(l, a, upper=False):
    if upper:
        low = np.swapaxes(l, -1, -2)
        p = l @ np.swapaxes(d[l], -1, -2)  # L^T L_bar with L = U^T, L_bar = U_bar^T
    else:
        low = as_lower_factor(l, l)  # (l itself but for dask's factor: as_lower_factor)
        p = np.swapaxes(low, -1, -2) @ as_lower_factor(d[l], l)
    q = lower_sandwich(low, lower_half(p), False)
    d[a] = 0.5 * (q + np.swapaxes(q, -1, -2))


@tangent(np.linalg.cholesky)
def cholesky(l, a, upper=False):
    if upper:
        low = np.swapaxes(l, -1, -2)
    else:
        low = as_lower_factor(l, l)
    s = lower_sandwich(low, 0.5 * (d[a] + np.swapaxes(d[a], -1, -2)), True)
    dl = low @ lower_half(s)
    if upper:
        d[l] = np.swapaxes(dl, -1, -2)
    else:
        d[l] = as_lower_factor(dl, l)


@helper(linear=False)
def inverse_gaps(w):
    """F[..., i, j] = 1 / (w_j - w_i), and 0 where w_j == w_i (the diagonal, degenerate pairs:
    there the eigenvectors are not differentiable and the gap terms are left out)."""
    gap = np.expand_dims(w, -2) - np.expand_dims(w, -1)
    return np.where(gap == 0, 0.0, 1.0 / np.where(gap == 0, 1.0, gap))


# dF = -F o dGap o F (where F is not 0), dGap_ij = dw_j - dw_i
@tangent(inverse_gaps)
def inverse_gaps_tangent(f, w):
    d[f] = -f * f * (np.expand_dims(d[w], -2) - np.expand_dims(d[w], -1))


# A = V diag(w) V^T (A symmetric), S = V^T dA V, F = inverse_gaps(w):
#   dw = diag(S),  dV = V (F o S),  A_bar = sym(V (diag(w_bar) + F o (V^T V_bar)) V^T)
@adjoint(np.linalg.eigh, tuple_result=True)
def eigh(y, a, UPLO="L"):
    v = y[1]
    vt = np.swapaxes(v, -1, -2)
    core = np.eye(np.shape(v)[-1]) * np.expand_dims(d[y][0], -2) + inverse_gaps(y[0]) * (
        vt @ d[y][1])
    m = v @ core @ vt
    d[a] = 0.5 * (m + np.swapaxes(m, -1, -2))


@tangent(np.linalg.eigh)
def eigh(y, a, UPLO="L"):
    v = y[1]
    s = np.swapaxes(v, -1, -2) @ (0.5 * (d[a] + np.swapaxes(d[a], -1, -2))) @ v
    d[y] = (np.diagonal(s, 0, -2, -1), v @ (inverse_gaps(y[0]) * s))


# eigenvalues only: dw_i = v_i^T dA v_i,  A_bar = V diag(w_bar) V^T
@adjoint(np.linalg.eigvalsh)
def eigvalsh(w, a, UPLO="L"):
    v = np.linalg.eigh(a)[1]
    d[a] = (v * np.expand_dims(d[w], -2)) @ np.swapaxes(v, -1, -2)


@tangent(np.linalg.eigvalsh)
def eigvalsh(w, a, UPLO="L"):
    v = np.linalg.eigh(a)[1]
    d[w] = np.sum(v * ((0.5 * (d[a] + np.swapaxes(d[a], -1, -2))) @ v), axis=-2)


@helper
def safe_divide(x, s):
    """x / s with s taken as 1 where it is 0 (the terms it divides are undefined there)."""
    return x / np.where(s == 0, 1.0, s)


@tangent(safe_divide)
def safe_divide_tangent(z, x, s):
    d[z] = safe_divide(d[x], s) - safe_divide(z * d[s], s)


# Thin SVD A = U S V^T (distinct nonzero singular values; full_matrices=True for square A
# only). With P = U^T dA V, F = inverse_gaps(s^2):
#   ds = diag(P)
#   dU = U (F o (P S + S P^T)) + (I - U U^T) dA V S^-1
#   dV = V (F o (S P + P^T S)) + (I - V V^T) dA^T U S^-1
# and the adjoint, term by term (J = F o U^T U_bar, K = F o V^T V_bar):
#   A_bar = U (diag(s_bar) + (J + J^T) S + S (K + K^T)) V^T
#           + (I - U U^T) U_bar S^-1 V^T + U S^-1 V_bar^T (I - V V^T)
@adjoint(np.linalg.svd, tuple_result=True)
def svd(y, a, full_matrices=True, compute_uv=True, hermitian=False):
    if compute_uv:
        u = y[0]
        vh = y[2]
        ut = np.swapaxes(u, -1, -2)
        v = np.swapaxes(vh, -1, -2)
        row = np.expand_dims(y[1], -2)
        col = np.expand_dims(y[1], -1)
        f = inverse_gaps(y[1] * y[1])
        j = f * (ut @ d[y][0])
        k = f * (vh @ np.swapaxes(d[y][2], -1, -2))
        core = (np.eye(np.shape(row)[-1]) * np.expand_dims(d[y][1], -2)
                + (j + np.swapaxes(j, -1, -2)) * row + col * (k + np.swapaxes(k, -1, -2)))
        d[a] = (u @ core @ vh + safe_divide(d[y][0] - u @ (ut @ d[y][0]), row) @ vh
                + u @ safe_divide(d[y][2] - (d[y][2] @ v) @ vh, col))
    else:
        usv = np.linalg.svd(a, full_matrices=False)
        d[a] = (usv[0] * np.expand_dims(d[y], -2)) @ usv[2]


@tangent(np.linalg.svd)
def svd(y, a, full_matrices=True, compute_uv=True, hermitian=False):
    if compute_uv:
        u = y[0]
        vh = y[2]
        v = np.swapaxes(vh, -1, -2)
        row = np.expand_dims(y[1], -2)
        col = np.expand_dims(y[1], -1)
        f = inverse_gaps(y[1] * y[1])
        dav = d[a] @ v
        p = np.swapaxes(u, -1, -2) @ dav
        pt = np.swapaxes(p, -1, -2)
        du = u @ (f * (p * row + col * pt)) + safe_divide(dav - u @ p, row)
        dv = v @ (f * (col * p + pt * row)) + safe_divide(
            np.swapaxes(d[a], -1, -2) @ u - v @ pt, row)
        d[y] = (du, np.diagonal(p, 0, -2, -1), np.swapaxes(dv, -1, -2))
    else:
        usv = np.linalg.svd(a, full_matrices=False)
        d[y] = np.diagonal(np.swapaxes(usv[0], -1, -2) @ d[a] @ np.swapaxes(usv[2], -1, -2),
                           0, -2, -1)


# X = A^+ (full rank: A^+ A = I or A A^+ = I):
#   dX = -X dA X + X X^T dA^T (I - A X) + (I - X A) dA^T X^T X
#   A_bar = -X^T X_bar X^T + (I - A X) X_bar^T X X^T + X^T X X_bar^T (I - X A)
@adjoint(np.linalg.pinv)
def pinv(x, a, rcond=None, hermitian=False, rtol=None):
    xt = np.swapaxes(x, -1, -2)
    gt = np.swapaxes(d[x], -1, -2)
    d[a] = (-(xt @ d[x] @ xt) + (gt - a @ (x @ gt)) @ (x @ xt)
            + (xt @ x) @ (gt - (gt @ x) @ a))


@tangent(np.linalg.pinv)
def pinv(x, a, rcond=None, hermitian=False, rtol=None):
    xt = np.swapaxes(x, -1, -2)
    dat = np.swapaxes(d[a], -1, -2)
    d[x] = (-(x @ d[a] @ x) + (x @ xt) @ (dat - (dat @ a) @ x)
            + (dat - x @ (a @ dat)) @ (xt @ x))


# lstsq(A, b) -> (x, residuals, rank, s), A of full rank (rank min(m, n)), where x = A^+ b:
#   x:          the pinv identities above with X = A^+:  dx = dX b + X db;  b_bar = X^T x_bar and
#               A_bar = pinv's A_bar for X_bar = x_bar b^T
#   residuals:  r2 = |b - A x|^2 per column (m > n); at the minimum A^T (b - A x) = 0, so
#               d r2 = 2 r^T (db - dA x) with r = b - A x:  b_bar = 2 r r2_bar, A_bar = -b_bar x^T
#   s:          A's singular values (svd's):  ds = diag(U^T dA V),  A_bar = U diag(s_bar) V^T
# A rank-deficient A is refused when the derivative runs (x jumps where the rank changes).
@helper(tangent="linear")
def full_rank(a, rank):
    """a, if its rank (lstsq's) is full: min(m, n); else a clear error."""
    if rank < min(np.shape(a)[-2:]):
        raise ValueError(f"srcad differentiates np.linalg.lstsq where the matrix has full rank "
                         f"({min(np.shape(a)[-2:])} here); this one has rank {rank}, where the "
                         f"least-squares solution is not differentiable")
    return a


@adjoint(full_rank)
def full_rank_adjoint(z, a, rank):
    d[a] = full_rank(d[z], rank)


@helper(tangent="linear")
def residual_sums(v, like):
    """The sums of v (a column per right-hand side) over its rows, shaped like lstsq's
    residuals `like`: (k,), (1,) for a vector b, and empty where lstsq gives none."""
    if np.size(like) == 0:
        return np.zeros(np.shape(like))
    return np.reshape(np.sum(v, axis=0), np.shape(like))


@helper(tangent="linear")
def residual_spread(g, like, b):
    """The transpose of residual_sums: g (shaped like the residuals) as one weight per column
    of the rows of a column matrix of b's (zero where there are no residuals)."""
    columns = 1 if np.ndim(b) == 1 else np.shape(b)[-1]
    if np.size(like) == 0:
        return np.zeros((1, columns))
    return np.reshape(g, (1, columns))


@adjoint(residual_sums)
def residual_sums_adjoint(z, v, like):
    d[v] = residual_spread(d[z], like, v) * np.ones_like(v)


@adjoint(residual_spread)
def residual_spread_adjoint(z, g, like, b):
    d[g] = residual_sums(d[z], like)


@adjoint(np.linalg.lstsq, tuple_result=True)
def lstsq(y, a, b, rcond=None):
    x = np.linalg.pinv(full_rank(a, y[2]))
    xt = np.swapaxes(x, -1, -2)
    bc = solve_column(b, b)
    gx = solve_column(d[y][0], b)
    gt = bc @ np.swapaxes(gx, -1, -2)
    r = bc - a @ solve_column(y[0], b)
    gr = 2.0 * r * residual_spread(d[y][1], y[1], b)
    usv = np.linalg.svd(a, full_matrices=False)
    d[a] = (-(xt @ (gx @ np.swapaxes(bc, -1, -2)) @ xt) + (gt - a @ (x @ gt)) @ (x @ xt)
            + (xt @ x) @ (gt - (gt @ x) @ a) - gr @ np.swapaxes(solve_column(y[0], b), -1, -2)
            + (usv[0] * np.expand_dims(d[y][3], -2)) @ usv[2])
    d[b] = solve_uncolumn(xt @ gx + gr, b)


@tangent(np.linalg.lstsq)
def lstsq(y, a, b, rcond=None):
    x = np.linalg.pinv(full_rank(a, y[2]))
    xt = np.swapaxes(x, -1, -2)
    dat = np.swapaxes(d[a], -1, -2)
    dx = (-(x @ d[a] @ x) + (x @ xt) @ (dat - (dat @ a) @ x)
          + (dat - x @ (a @ dat)) @ (xt @ x))
    bc = solve_column(b, b)
    xc = solve_column(y[0], b)
    dr = solve_column(d[b], b) - d[a] @ xc
    usv = np.linalg.svd(a, full_matrices=False)
    d[y] = (solve_uncolumn(dx @ bc + x @ solve_column(d[b], b), b),
            residual_sums(2.0 * (bc - a @ xc) * dr, y[1]), np.zeros_like(y[2]),
            np.diagonal(np.swapaxes(usv[0], -1, -2) @ d[a] @ np.swapaxes(usv[2], -1, -2),
                        0, -2, -1))


# B = A^n (integer n, negative: powers of A^-1). The derivative of a matrix power is the upper
# right block of the power of [[A, E], [0, A]]:  dB = L(A, dA),  A_bar = L(A^T, B_bar).
@adjoint(np.linalg.matrix_power)
def matrix_power(b, a, n):
    at = np.swapaxes(a, -1, -2)
    top = np.concatenate([at, d[b]], axis=-1)
    bottom = np.concatenate([np.zeros_like(at), at], axis=-1)
    m = np.shape(a)[-1]
    d[a] = np.linalg.matrix_power(np.concatenate([top, bottom], axis=-2), n)[..., :m, m:]


@tangent(np.linalg.matrix_power)
def matrix_power(b, a, n):
    top = np.concatenate([a, d[a]], axis=-1)
    bottom = np.concatenate([np.zeros_like(a), a], axis=-1)
    m = np.shape(a)[-1]
    d[b] = np.linalg.matrix_power(np.concatenate([top, bottom], axis=-2), n)[..., :m, m:]


# norm: vector norms (ord None, 2, 1, inf, -inf, 0, any p; along axis) and the Frobenius norm.
# dy = sum(w dx) over the reduced axes with the weights w = dy/dx:
#   p-norm (ord None and 'fro': p = 2)  w = sign(x) |x / y|^(p-1)   (x / y for p = 2)
#   ord = inf, -inf                    w = sign(x) at the entries attaining y, shared evenly
#   ord = 0 (a count)                  w = 0
# w is 0 where x = 0 and y = 0, so the gradient of a norm at 0 is 0.
@helper(tangent="linear")
def norm_spread(g, x, ord=None, axis=None, keepdims=False):
    """g (shaped like norm(x, ord, axis, keepdims)) broadcast back over x; refuses the matrix
    norms srcad does not differentiate (all but 'fro')."""
    matrix = (axis is None and ord is not None and np.ndim(x) == 2) or (
        axis is not None and np.ndim(axis) == 1 and len(axis) == 2)
    if matrix and not (ord is None or (isinstance(ord, str) and ord == "fro")):
        raise ValueError(f"srcad differentiates the matrix norm 'fro' only, not ord={ord!r}")
    return unreduce(g, x, axis, keepdims)


@helper(linear=False)
def norm_coefficients(ord):
    """(q, c_power, c_extremum): the weights of norm(x, ord) are
    c_power sign(x) |x / y|^q + c_extremum (the entries attaining y, shared evenly)."""
    if ord is None or (isinstance(ord, str) and ord == "fro"):
        return 1.0, 1.0, 0.0
    if isinstance(ord, str):
        raise ValueError(f"srcad does not differentiate np.linalg.norm with ord={ord!r}")
    if ord == 0:
        return 0.0, 0.0, 0.0
    if np.isinf(ord):
        return 0.0, 0.0, 1.0
    return ord - 1.0, 1.0, 0.0


@helper(linear=False)
def norm_extremum_weights(x, yb, axis=None):
    """sign(x) where |x| attains yb (max or min |x|), divided by the number of such entries."""
    mask = np.abs(x) == yb
    return np.sign(x) * mask / np.maximum(np.sum(mask, axis=axis, keepdims=True), 1)


@helper(linear=False)
def signed_power(x, q):
    """sign(x) |x|^q, and 0 where x = 0 (for every q)."""
    ax = np.abs(x)
    return np.sign(x) * np.where(ax > 0, ax, 1.0) ** q


@helper(linear=False)
def abs_power(x, q):
    """|x|^q; where x = 0: 1 for q = 0, else 0 (the limit for q > 0; q < 0 has none)."""
    ax = np.abs(x)
    return np.where(ax > 0, np.where(ax > 0, ax, 1.0) ** q, 1.0 if q == 0 else 0.0)


non_differentiable(norm_coefficients, norm_extremum_weights)


# d sign(x)|x|^q = q |x|^(q-1) dx,  d |x|^q = q sign(x)|x|^(q-1) dx
@tangent(signed_power)
def signed_power_tangent(z, x, q):
    d[z] = q * abs_power(x, q - 1) * d[x]


@tangent(abs_power)
def abs_power_tangent(z, x, q):
    d[z] = q * signed_power(x, q - 1) * d[x]


@adjoint(np.linalg.norm)
def norm(y, x, ord=None, axis=None, keepdims=False):
    coef = norm_coefficients(ord)
    yb = norm_spread(y, x, ord, axis, keepdims)
    w = (coef[1] * signed_power(x / np.where(yb > 0, yb, 1.0), coef[0])
         + coef[2] * norm_extremum_weights(x, yb, axis))
    d[x] = norm_spread(d[y], x, ord, axis, keepdims) * w


@tangent(np.linalg.norm)
def norm(y, x, ord=None, axis=None, keepdims=False):
    coef = norm_coefficients(ord)
    yb = norm_spread(y, x, ord, axis, keepdims)
    w = (coef[1] * signed_power(x / np.where(yb > 0, yb, 1.0), coef[0])
         + coef[2] * norm_extremum_weights(x, yb, axis))
    d[y] = np.sum(w * d[x], axis=axis, keepdims=keepdims)
