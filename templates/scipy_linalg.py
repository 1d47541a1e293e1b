"""scipy.linalg: solve_triangular, cholesky, cho_factor, cho_solve, lu_factor, lu_solve, solve,
inv, det, expm, logm and sqrtm.
Registered only when the program imports scipy.linalg (srcad itself does not need SciPy).

Real arrays, as numpy.linalg's templates (numpy_linalg.py, whose helpers these reuse). The
matrix functions that read one triangle of a symmetric matrix (cholesky, cho_factor, and solve
with assume_a 'sym', 'pos' or 'her') are differentiated along symmetric directions, with
symmetric gradients, as np.linalg.cholesky is; solve_triangular reads one triangle of a
triangular matrix, and its gradient is that triangle's.

The derivatives read the matrix after the call, so a call that lets SciPy overwrite it
(solve's and det's overwrite_a=True) raises a ValueError in the derivative rather than read
whatever SciPy left there. (overwrite_b never matters: no derivative here reads b.)
"""
import numpy as np

from srcad.rules.registry import adjoint, by_name, d, non_differentiable, tangent
from srcad.runtime import helper

from .numpy_linalg import lower_half, lower_sandwich, solve_column, solve_uncolumn, triangle

try:
    import scipy.linalg
except ImportError:  # pragma: no cover - without scipy nothing here is registered
    scipy = None


adjoint_of = by_name(adjoint, scipy.linalg if scipy else None)
tangent_of = by_name(tangent, scipy.linalg if scipy else None)


# ---------------------------------------------------------------------------------------------
# the flags of the calls, read as the derivatives need them

@helper(linear=False)
def transposes(trans):
    """Whether solve_triangular's trans (0, 1, 2 or 'N', 'T', 'C') solves with the transpose
    (for real matrices 'C', the conjugate transpose, is the transpose)."""
    if isinstance(trans, str):
        trans = {"N": 0, "T": 1, "C": 2}.get(trans.upper(), trans)
    if trans in (0, 1, 2) and not isinstance(trans, bool):
        return trans != 0
    raise ValueError(f"trans must be 0, 1, 2, 'N', 'T' or 'C', not {trans!r}")


@helper(linear=False)
def other_trans(trans):
    """solve_triangular's trans for the transposed system: 0 for 1 and 1 for 0."""
    return 0 if transposes(trans) else 1


@helper(linear=False)
def symmetric_solve(assume_a):
    """Whether scipy.linalg.solve's assume_a reads one triangle of a symmetric matrix (True:
    'sym', 'pos', 'her', spelled short or long) or the whole matrix (False: None, 'gen');
    the other structures (banded, diagonal, triangular) are not differentiated here."""
    if assume_a in (None, "gen", "general"):
        return False
    if assume_a in ("sym", "symmetric", "pos", "positive definite", "her", "hermitian"):
        return True
    raise ValueError(f"srcad differentiates scipy.linalg.solve for assume_a None, 'gen', 'sym', "
                     f"'pos' or 'her', not {assume_a!r}")


@helper(tangent="linear")
def not_overwritten(a, overwrite_a):
    """a, which a derivative reads after the call; refused where the call let SciPy overwrite
    it (the derivative would read what SciPy left there)."""
    if overwrite_a:
        raise ValueError("srcad cannot differentiate a scipy.linalg call with overwrite_a=True: "
                         "the derivative reads the matrix after the call, which may have "
                         "overwritten it; pass overwrite_a=False")
    return a


for _flag in (transposes, other_trans, symmetric_solve):
    non_differentiable(_flag)


@adjoint(not_overwritten)
def not_overwritten_adjoint(z, a, overwrite_a):
    d[a] = d[z]


# the linear maps between a matrix and the part of it a call reads (each its own adjoint)

@helper(tangent="linear")
def oriented(m, transposed):
    """m, or its transpose (the last two axes) where transposed."""
    return np.swapaxes(m, -1, -2) if transposed else m


@adjoint(oriented)
def oriented_adjoint(z, m, transposed):
    d[m] = oriented(d[z], transposed)


@helper(tangent="linear")
def triangular_part(m, lower, unit_diagonal):
    """The entries of m that solve_triangular reads: its lower (or upper) triangle, without the
    diagonal where unit_diagonal (the diagonal is then taken as ones)."""
    offset = 0 if not unit_diagonal else (-1 if lower else 1)
    return np.tril(m, offset) if lower else np.triu(m, offset)


@adjoint(triangular_part)
def triangular_part_adjoint(z, m, lower, unit_diagonal):
    d[m] = triangular_part(d[z], lower, unit_diagonal)


@helper(tangent="linear")
def off_triangle(m, lower):
    """The entries of m outside the triangle (with its diagonal) a factor is in: the strict
    upper triangle for a lower factor, the strict lower one for an upper factor. cho_factor
    leaves the matrix's own entries there."""
    return np.triu(m, 1) if lower else np.tril(m, -1)


@adjoint(off_triangle)
def off_triangle_adjoint(z, m, lower):
    d[m] = off_triangle(d[z], lower)


@helper(tangent="linear")
def solved_part(m, assume_a):
    """m as the gradient of the matrix scipy.linalg.solve reads: all of it for a general matrix;
    for a symmetric one (one triangle read) its symmetric part, the gradient along symmetric
    directions."""
    return 0.5 * (m + np.swapaxes(m, -1, -2)) if symmetric_solve(assume_a) else m


@adjoint(solved_part)
def solved_part_adjoint(z, m, assume_a):
    d[m] = solved_part(d[z], assume_a)


# ---------------------------------------------------------------------------------------------
# triangular solves: x = op(T)^-1 b, T the triangle of a that is read, op(T) = T or T^T:
#   dx = op(T)^-1 (db - op(dT) x),  b_bar = op(T)^-T x_bar,  op(T)_bar = -b_bar x^T,
#   a_bar = the read part of T_bar

@adjoint_of("solve_triangular")
def solve_triangular(x, a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     check_finite=True):
    gb = scipy.linalg.solve_triangular(a, solve_column(d[x], b), trans=other_trans(trans),
                                       lower=lower, unit_diagonal=unit_diagonal)
    d[a] = triangular_part(oriented(-(gb @ np.swapaxes(solve_column(x, b), -1, -2)),
                                    transposes(trans)), lower, unit_diagonal)
    d[b] = solve_uncolumn(gb, b)


@tangent_of("solve_triangular")
def solve_triangular(x, a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     check_finite=True):
    dt = oriented(triangular_part(d[a], lower, unit_diagonal), transposes(trans))
    d[x] = solve_uncolumn(scipy.linalg.solve_triangular(
        a, solve_column(d[b], b) - dt @ solve_column(x, b), trans=trans, lower=lower,
        unit_diagonal=unit_diagonal), b)


# ---------------------------------------------------------------------------------------------
# Cholesky factors: A = L L^T, the factor L (lower=True) or U = L^T; as np.linalg.cholesky's
# (numpy_linalg.py): A_bar = sym(L^-T Phi(L^T L_bar) L^-1), dL = L Phi(L^-1 sym(dA) L^-T)

@adjoint_of("cholesky")
def cholesky(c, a, lower=False, overwrite_a=False, check_finite=True):
    low = oriented(c, not lower)
    q = lower_sandwich(low, lower_half(np.swapaxes(low, -1, -2) @ oriented(d[c], not lower)),
                       False)
    d[a] = 0.5 * (q + np.swapaxes(q, -1, -2))


@tangent_of("cholesky")
def cholesky(c, a, lower=False, overwrite_a=False, check_finite=True):
    low = oriented(c, not lower)
    s = lower_sandwich(low, 0.5 * (d[a] + np.swapaxes(d[a], -1, -2)), True)
    d[c] = oriented(low @ lower_half(s), not lower)


# cho_factor: (c, lower), c the factor in one triangle and a's own entries in the other (SciPy
# calls LAPACK's potrf without clearing them): the factor's derivative as cholesky's, and the
# other entries' derivative the identity

@adjoint_of("cho_factor", tuple_result=True)
def cho_factor(y, a, lower=False, overwrite_a=False, check_finite=True):
    low = oriented(triangle(y[0], lower), not lower)
    q = lower_sandwich(low, lower_half(np.swapaxes(low, -1, -2) @ oriented(
        triangle(d[y][0], lower), not lower)), False)
    d[a] = 0.5 * (q + np.swapaxes(q, -1, -2)) + off_triangle(d[y][0], lower)


@tangent_of("cho_factor")
def cho_factor(y, a, lower=False, overwrite_a=False, check_finite=True):
    low = oriented(triangle(y[0], lower), not lower)
    s = lower_sandwich(low, 0.5 * (d[a] + np.swapaxes(d[a], -1, -2)), True)
    d[y] = (oriented(low @ lower_half(s), not lower) + off_triangle(d[a], lower),
            np.zeros_like(y[0]))


# cho_solve((c, lower), b): x = A^-1 b with A = L L^T from c's triangle (the other is not read):
#   dx = A^-1 (db - dA x), dA = dL L^T + L dL^T;  b_bar = A^-1 x_bar, A_bar = -b_bar x^T,
#   L_bar = (A_bar + A_bar^T) L (for an upper c: U_bar = L_bar^T), c_bar = its triangle

@adjoint_of("cho_solve")
def cho_solve(x, c_and_lower, b, overwrite_b=False, check_finite=True):
    gb = scipy.linalg.cho_solve(c_and_lower, solve_column(d[x], b))
    ga = -(gb @ np.swapaxes(solve_column(x, b), -1, -2))
    low = oriented(triangle(c_and_lower[0], c_and_lower[1]), not c_and_lower[1])
    d[c_and_lower] = (triangle(oriented((ga + np.swapaxes(ga, -1, -2)) @ low,
                                        not c_and_lower[1]), c_and_lower[1]), None)
    d[b] = solve_uncolumn(gb, b)


@tangent_of("cho_solve")
def cho_solve(x, c_and_lower, b, overwrite_b=False, check_finite=True):
    low = oriented(triangle(c_and_lower[0], c_and_lower[1]), not c_and_lower[1])
    dlow = oriented(triangle(d[c_and_lower][0], c_and_lower[1]), not c_and_lower[1])
    da = dlow @ np.swapaxes(low, -1, -2) + low @ np.swapaxes(dlow, -1, -2)
    d[x] = solve_uncolumn(scipy.linalg.cho_solve(
        c_and_lower, solve_column(d[b], b) - da @ solve_column(x, b)), b)


# ---------------------------------------------------------------------------------------------
# solve: x = op(A)^-1 b (op(A) = A^T where transposed), as np.linalg.solve's:
#   b_bar = op(A)^-T x_bar,  op(A)_bar = -b_bar x^T;  for a symmetric A (assume_a 'sym', 'pos',
#   'her') the symmetric part of A_bar (solved_part)

@adjoint_of("solve")
def solve(x, a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True,
          assume_a=None, transposed=False):
    gb = scipy.linalg.solve(not_overwritten(a, overwrite_a), solve_column(d[x], b), lower=lower,
                            assume_a=assume_a, transposed=not transposed)
    d[a] = solved_part(oriented(-(gb @ np.swapaxes(solve_column(x, b), -1, -2)), transposed),
                       assume_a)
    d[b] = solve_uncolumn(gb, b)


@tangent_of("solve")
def solve(x, a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True,
          assume_a=None, transposed=False):
    da = oriented(solved_part(d[a], assume_a), transposed)
    d[x] = solve_uncolumn(scipy.linalg.solve(
        not_overwritten(a, overwrite_a), solve_column(d[b], b) - da @ solve_column(x, b),
        lower=lower, assume_a=assume_a, transposed=transposed), b)


# inv and det, as numpy's: dB = -B dA B (B = A^-1);  d det A = det A tr(A^-1 dA)

@adjoint_of("inv")
def inv(b, a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False):
    bt = np.swapaxes(b, -1, -2)
    d[a] = solved_part(-(bt @ d[b] @ bt), assume_a)


@tangent_of("inv")
def inv(b, a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False):
    d[b] = -(b @ solved_part(d[a], assume_a) @ b)


@adjoint_of("det")
def det(y, a, overwrite_a=False, check_finite=True):
    d[a] = np.expand_dims(d[y] * y, (-2, -1)) * np.swapaxes(
        np.linalg.inv(not_overwritten(a, overwrite_a)), -1, -2)


@tangent_of("det")
def det(y, a, overwrite_a=False, check_finite=True):
    d[y] = y * np.trace(np.linalg.solve(not_overwritten(a, overwrite_a), d[a]), axis1=-2,
                        axis2=-1)


# ---------------------------------------------------------------------------------------------
# LU factors: lu_factor(A) = (lu, piv) with A[perm] = L U (perm: the row interchanges piv made
# one by one; L unit lower and U upper, both in lu). With F = L^-1 dA[perm] U^-1:
#   dL = L tril(F, -1), dU = triu(F) U, d lu = dL + dU;
#   A_bar[perm] = L^-T (tril(L^T L_bar, -1) + triu(U_bar U^T)) U^-T, L_bar, U_bar lu_bar's parts.
# lu_solve((lu, piv), b) is op(A)^-1 b with A = A(lu): its adjoint in A, as solve's, taken back
# to lu through dA[perm] = dL U + L dU:  lu_bar = tril(A_bar[perm] U^T, -1) + triu(L^T A_bar[perm])

@helper(linear=False)
def lu_rows(piv):
    """perm, with A[perm] = L U: the row interchanges of LAPACK's pivots (row i with row
    piv[i]), made one by one."""
    if np.ndim(piv) != 1:
        raise ValueError("srcad differentiates scipy.linalg.lu_factor and lu_solve of one "
                         "matrix, not of a stack")
    perm = np.arange(len(piv))
    for i, p in enumerate(piv):
        perm[i], perm[p] = perm[p], perm[i]
    return perm


non_differentiable(lu_rows)


@helper(tangent="linear")
def permuted_rows(m, piv):
    """m[perm] (perm = lu_rows(piv))."""
    return m[lu_rows(piv)]


@helper(tangent="linear")
def unpermuted_rows(m, piv):
    """The m' with m'[perm] = m (the transpose of permuted_rows)."""
    return m[np.argsort(lu_rows(piv))]


@adjoint(permuted_rows)
def permuted_rows_adjoint(z, m, piv):
    d[m] = unpermuted_rows(d[z], piv)


@adjoint(unpermuted_rows)
def unpermuted_rows_adjoint(z, m, piv):
    d[m] = permuted_rows(d[z], piv)


@adjoint_of("lu_factor", tuple_result=True)
def lu_factor(y, a, overwrite_a=False, check_finite=True):
    low = np.tril(y[0], -1) + np.eye(np.shape(y[0])[-1])
    up = np.triu(y[0])
    g = np.tril(np.swapaxes(low, -1, -2) @ np.tril(d[y][0], -1), -1) + np.triu(
        np.triu(d[y][0]) @ np.swapaxes(up, -1, -2))
    m = scipy.linalg.solve_triangular(low, g, trans=1, lower=True, unit_diagonal=True)
    d[a] = unpermuted_rows(np.swapaxes(scipy.linalg.solve_triangular(
        up, np.swapaxes(m, -1, -2)), -1, -2), y[1])


@tangent_of("lu_factor")
def lu_factor(y, a, overwrite_a=False, check_finite=True):
    low = np.tril(y[0], -1) + np.eye(np.shape(y[0])[-1])
    up = np.triu(y[0])
    f = scipy.linalg.solve_triangular(low, permuted_rows(d[a], y[1]), lower=True,
                                      unit_diagonal=True)
    f = np.swapaxes(scipy.linalg.solve_triangular(up, np.swapaxes(f, -1, -2), trans=1), -1, -2)
    d[y] = (low @ np.tril(f, -1) + np.triu(f) @ up, np.zeros(np.shape(y[1])))


@adjoint_of("lu_solve")
def lu_solve(x, lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    gb = scipy.linalg.lu_solve(lu_and_piv, solve_column(d[x], b), trans=other_trans(trans))
    r = permuted_rows(oriented(-(gb @ np.swapaxes(solve_column(x, b), -1, -2)),
                               transposes(trans)), lu_and_piv[1])
    low = np.tril(lu_and_piv[0], -1) + np.eye(np.shape(lu_and_piv[0])[-1])
    d[lu_and_piv] = (np.tril(r @ np.swapaxes(np.triu(lu_and_piv[0]), -1, -2), -1)
                     + np.triu(np.swapaxes(low, -1, -2) @ r), None)
    d[b] = solve_uncolumn(gb, b)


@tangent_of("lu_solve")
def lu_solve(x, lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    low = np.tril(lu_and_piv[0], -1) + np.eye(np.shape(lu_and_piv[0])[-1])
    da = unpermuted_rows(np.tril(d[lu_and_piv][0], -1) @ np.triu(lu_and_piv[0])
                         + low @ np.triu(d[lu_and_piv][0]), lu_and_piv[1])
    d[x] = solve_uncolumn(scipy.linalg.lu_solve(
        lu_and_piv, solve_column(d[b], b) - oriented(da, transposes(trans)) @ solve_column(x, b),
        trans=trans), b)


# ---------------------------------------------------------------------------------------------
# expm: dE = L(A, dA), the Frechet derivative (scipy.linalg.expm_frechet); for real A its
# adjoint is L(A^T, .): A_bar = L(A^T, E_bar). L itself is differentiated through
# L(A, E) = the upper right block of expm([[A, E], [0, A]]) (Higham's block form), so
#   dL = the upper right block of L([[A, E], [0, A]], [[dA, dE], [0, dA]])   (Hessians, and on)

@adjoint_of("expm")
def expm(y, a):
    d[a] = expm_derivative(np.swapaxes(a, -1, -2), d[y])


@tangent_of("expm")
def expm(y, a):
    d[y] = expm_derivative(a, d[a])


@helper(linear=False)
def expm_derivative(a, e):
    """The Frechet derivative of the matrix exponential at a in the direction e (a stack of
    matrices: each one's)."""
    from scipy.linalg import expm_frechet
    if np.ndim(a) == 2 and np.ndim(e) == 2:
        return expm_frechet(a, e, compute_expm=False)
    out = np.empty(np.broadcast_shapes(np.shape(a), np.shape(e)),
                   np.result_type(a, e, 1.0))
    a, e = np.broadcast_to(a, out.shape), np.broadcast_to(e, out.shape)
    for index in np.ndindex(out.shape[:-2]):
        out[index] = expm_frechet(a[index], e[index], compute_expm=False)
    return out


@helper(linear=False)
def frechet_block(a, e):
    """The block matrix [[a, e], [0, a]] (of the last two axes; a and e of one shape)."""
    return np.concatenate([np.concatenate([a, e], -1),
                           np.concatenate([np.zeros_like(a), a], -1)], -2)


@helper(tangent="linear")
def upper_right_block(m):
    """The upper right quarter of m (the last two axes)."""
    n = np.shape(m)[-1] // 2
    return m[..., :n, n:]


@helper(tangent="linear")
def diagonal_blocks(m):
    """The sum of m's upper left and lower right quarters (the last two axes)."""
    n = np.shape(m)[-1] // 2
    return m[..., :n, :n] + m[..., n:, n:]


@tangent(frechet_block)
def frechet_block_tangent(z, a, e):
    d[z] = frechet_block(d[a], d[e])


@adjoint(frechet_block)
def frechet_block_adjoint(z, a, e):
    d[a] = diagonal_blocks(d[z])
    d[e] = upper_right_block(d[z])


@adjoint(upper_right_block)
def upper_right_block_adjoint(z, m):
    d[m] = frechet_block(np.zeros_like(d[z]), d[z])


@adjoint(diagonal_blocks)
def diagonal_blocks_adjoint(z, m):
    d[m] = frechet_block(d[z], np.zeros_like(d[z]))


@tangent(expm_derivative)
def expm_derivative_tangent(z, a, e):
    d[z] = upper_right_block(expm_derivative(frechet_block(a, e), frechet_block(d[a], d[e])))


@adjoint(expm_derivative)
def expm_derivative_adjoint(z, a, e):
    g = expm_derivative(np.swapaxes(frechet_block(a, e), -1, -2),
                        frechet_block(np.zeros_like(d[z]), d[z]))
    d[a] = diagonal_blocks(g)
    d[e] = upper_right_block(g)


# ---------------------------------------------------------------------------------------------
# logm and sqrtm: the Frechet derivative of an analytic f is the upper right block of
# f([[A, E], [0, A]]) (Higham), and for real A (f with real coefficients, f(A^T) = f(A)^T) its
# adjoint is L_f(A^T, .):  dY = L_f(A, dA),  A_bar = L_f(A^T, Y_bar). Real results only.

@helper(tangent="linear")
def real_result(g, y, name):
    """g, the derivative of y = scipy.linalg.<name>(a), where y is one real matrix; refused
    where it is complex (a matrix with negative eigenvalues) or a tuple (disp=False)."""
    if isinstance(y, tuple) or np.iscomplexobj(y):
        raise ValueError(f"srcad differentiates scipy.linalg.{name} where its value is one real "
                         f"matrix (not complex, and not disp=False's pair)")
    return g


@adjoint(real_result)
def real_result_adjoint(z, g, y, name):
    d[g] = real_result(d[z], y, name)


@adjoint_of("logm")
def logm(y, a, disp=True):
    d[a] = upper_right_block(scipy.linalg.logm(frechet_block(
        np.swapaxes(a, -1, -2), real_result(d[y], y, "logm"))))


@tangent_of("logm")
def logm(y, a, disp=True):
    d[y] = real_result(upper_right_block(scipy.linalg.logm(frechet_block(a, d[a]))), y, "logm")


@adjoint_of("sqrtm")
def sqrtm(y, a, disp=True, blocksize=64):
    d[a] = upper_right_block(scipy.linalg.sqrtm(frechet_block(
        np.swapaxes(a, -1, -2), real_result(d[y], y, "sqrtm"))))


@tangent_of("sqrtm")
def sqrtm(y, a, disp=True, blocksize=64):
    d[y] = real_result(upper_right_block(scipy.linalg.sqrtm(frechet_block(a, d[a]))), y,
                       "sqrtm")
