"""NumPy products (dot, vdot, inner, outer, tensordot, kron, einsum, cross; matmul is with the @
operator in operators.py) and numpy.linalg (inv, det, slogdet, solve, cholesky, eigh,
eigvalsh, svd, pinv, norm, matrix_power).

Real arrays. The products are multilinear, so each operand's adjoint is the product of the
output's adjoint with the other operands, contracted over the axes the operand does not share
with the output; the tangent is the sum of the products with one operand replaced by its
tangent, which the registry writes for the products declared @bilinear. Matrix functions use the identities written beside them; cholesky, eigh and eigvalsh
take A symmetric: they are differentiated along symmetric directions, with symmetric gradients.
"""
import numpy as np

from srcad.rules.registry import adjoint, bilinear, d, non_differentiable, tangent
from srcad.runtime import helper, unreduce


# ---------------------------------------------------------------------------------------------
# runtime helpers: contractions in tensordot form

@helper(linear=False)
def tensordot_axes(a, b, axes=2):
    """np.tensordot's `axes` as two lists of non-negative axes (contracted axes of a, of b)."""
    nda, ndb = np.ndim(a), np.ndim(b)
    if np.ndim(axes) == 0:
        return list(range(nda - axes, nda)), list(range(axes))
    ia, ib = axes
    ia = [ia] if np.ndim(ia) == 0 else list(ia)
    ib = [ib] if np.ndim(ib) == 0 else list(ib)
    return [int(i) % nda for i in ia], [int(i) % ndb for i in ib]


@helper(linear=False)
def dot_axes(a, b):
    """np.dot(a, b) as a tensordot: a product for 0-d operands, else the last axis of a with
    the second-to-last of b (the only one if b is 1-D)."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return 0
    return [np.ndim(a) - 1], [max(np.ndim(b) - 2, 0)]


@helper(linear=False)
def inner_axes(a, b):
    """np.inner(a, b) as a tensordot: a product for 0-d operands, else the two last axes."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return 0
    return [np.ndim(a) - 1], [np.ndim(b) - 1]


@helper
def tensordot_adjoint_a(g, a, b, axes=2):
    """Adjoint of a in c = np.tensordot(a, b, axes): g (axes: a's free axes, then b's)
    contracted with b over b's free axes, then put back in a's axis order."""
    ia, ib = tensordot_axes(a, b, axes)
    free_a = [i for i in range(np.ndim(a)) if i not in ia]
    free_b = [i for i in range(np.ndim(b)) if i not in ib]
    ga = np.tensordot(g, b, (list(range(len(free_a), np.ndim(g))), free_b))
    # ga's axes: a's free axes, then b's contracted axes in b's order (paired with ia)
    src = free_a + [ia[k] for k in np.argsort(ib, kind="stable")]
    return np.transpose(ga, np.argsort(src, kind="stable"))


@helper
def tensordot_adjoint_b(g, a, b, axes=2):
    """Adjoint of b in c = np.tensordot(a, b, axes): a contracted with g over a's free axes."""
    ia, ib = tensordot_axes(a, b, axes)
    free_a = [i for i in range(np.ndim(a)) if i not in ia]
    free_b = [i for i in range(np.ndim(b)) if i not in ib]
    gb = np.tensordot(a, g, (free_a, list(range(len(free_a)))))
    # gb's axes: a's contracted axes in a's order (paired with ib), then b's free axes
    src = [ib[k] for k in np.argsort(ia, kind="stable")] + free_b
    return np.transpose(gb, np.argsort(src, kind="stable"))


@helper
def kron_adjoint_a(g, a, b):
    """Adjoint of a in np.kron(a, b): c[i*nb + k] = a[i] b[k] along every axis, so g viewed
    with shape (na0, nb0, na1, nb1, ...) is contracted with b over the b axes."""
    nd = max(np.ndim(a), np.ndim(b))
    sa = (1,) * (nd - np.ndim(a)) + np.shape(a)
    sb = (1,) * (nd - np.ndim(b)) + np.shape(b)
    g = np.reshape(g, [n for pair in zip(sa, sb) for n in pair])
    ga = np.tensordot(g, np.reshape(b, sb), (list(range(1, 2 * nd, 2)), list(range(nd))))
    return np.reshape(ga, np.shape(a))


@helper
def kron_adjoint_b(g, a, b):
    """Adjoint of b in np.kron(a, b): g contracted with a over the a axes."""
    nd = max(np.ndim(a), np.ndim(b))
    sa = (1,) * (nd - np.ndim(a)) + np.shape(a)
    sb = (1,) * (nd - np.ndim(b)) + np.shape(b)
    g = np.reshape(g, [n for pair in zip(sa, sb) for n in pair])
    gb = np.tensordot(g, np.reshape(a, sa), (list(range(0, 2 * nd, 2)), list(range(nd))))
    return np.reshape(gb, np.shape(b))


# einsum: every derivative of an einsum is a sum of einsums over the same factors, some of them
# replaced by tangents or by the output's adjoint. einsum_sums evaluates such sums from a plan
# (subscripts, which factors), and its own tangent is again an einsum_sums, so derivatives of
# every order stay einsums.

@helper(tangent="linear")
def einsum_refuse_sublists(g):
    """np.einsum(a, [0, 1], b, [1, 2]): the first operand is an array, not subscripts."""
    raise ValueError("srcad differentiates np.einsum with a subscripts string ('ij,jk->ik'), "
                     "not with sublists")


@helper(linear=False)
def einsum_canonical(subscripts, shapes):
    """The einsum `subscripts` for operands of `shapes` with one explicit letter per axis:
    (input subscripts, output subscripts, size of each letter). Ellipses become letters, the
    implicit output ('ij,jk') is made explicit, and a size-1 axis that broadcasts against a
    longer one gets a letter of its own (summed over its single entry)."""
    if not isinstance(subscripts, str):
        einsum_refuse_sublists(subscripts)
    spec = subscripts.replace(" ", "")
    lhs, arrow, out = spec.partition("->")
    inputs = lhs.split(",")
    unused = [c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in spec]
    lengths = [len(shape) - len(t) + 3 for t, shape in zip(inputs, shapes) if "..." in t]
    n_ell = max(lengths, default=0)
    ell = "".join(unused[:n_ell])
    unused = unused[n_ell:]
    terms = []
    for t, shape in zip(inputs, shapes):
        if "..." in t:
            t = t.replace("...", ell[n_ell - (len(shape) - len(t) + 3):])
        terms.append(t)
    if not arrow:  # implicit output: the ellipsis, then the letters used once, sorted
        letters = lhs.replace(".", "").replace(",", "")
        out = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    out = out.replace("...", ell)
    sizes = {}
    for t, shape in zip(terms, shapes):
        for c, n in zip(t, shape):
            sizes[c] = max(sizes.get(c, 1), n)
    for k, (t, shape) in enumerate(zip(terms, shapes)):
        chars = list(t)
        for i, (c, n) in enumerate(zip(t, shape)):
            if n == 1 and sizes[c] != 1:
                chars[i] = unused.pop(0)
                sizes[chars[i]] = 1
        terms[k] = "".join(chars)
    return terms, out, sizes


@helper(linear=False)
def einsum_adjoint_plan(subscripts, operands):
    """The einsum_sums plan of the operands' adjoints, over the factors (*operands, g): the
    adjoint of operand k is the einsum of g and the other operands with operand k's subscripts
    as output. A letter repeated in operand k (a diagonal, 'ii') is written once and tied to its
    copies by identity matrices; a letter in no other factor (summed over operand k alone) is
    supplied by a vector of ones, along which the adjoint is constant."""
    terms, out, sizes = einsum_canonical(subscripts, [np.shape(x) for x in operands])
    n = len(operands)
    plans = []
    for k in range(n):
        fresh = [c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                 if c not in "".join(terms) + out]
        subs = [terms[j] for j in range(n) if j != k] + [out]
        picks = [j for j in range(n) if j != k] + [n]
        target = list(terms[k])
        for i, c in enumerate(terms[k]):
            if c in terms[k][:i]:
                target[i] = fresh.pop(0)
                subs.append(c + target[i])
                picks.append(("eye", sizes[c]))
        for c in target:
            if c not in "".join(subs):
                subs.append(c)
                picks.append(("ones", sizes[c]))
        plans.append([(",".join(subs) + "->" + "".join(target), picks)])
    return plans


@helper(linear=False)
def einsum_tangent_plan(subscripts, operands):
    """The einsum_sums plan of the tangent, over the factors (*operands, *tangents): the sum
    over k of the einsum with operand k replaced by its tangent."""
    if not isinstance(subscripts, str):
        einsum_refuse_sublists(subscripts)
    n = len(operands)
    return [[(subscripts, [j + n if j == k else j for j in range(n)]) for k in range(n)]]


@helper(linear=False)
def einsum_product_rule(plans, factors):
    """The plan of the tangent of einsum_sums(factors, plans) over (*factors, *tangents): each
    term once per factor it uses, that factor replaced by its tangent (constants stay)."""
    n = len(factors)
    return [[(subs, list(picks[:i]) + [picks[i] + n] + list(picks[i + 1:]))
             for subs, picks in terms for i in range(len(picks))
             if not isinstance(picks[i], tuple)] for terms in plans]


@helper(linear=False)
def einsum_sums(factors, plans):
    """One array per plan: the sum over its terms (subscripts, picks) of np.einsum(subscripts,
    *picked factors); a pick is an index into `factors` or a constant ("eye", n) or
    ("ones", n). Terms with an all-zero factor are zero and skipped (the last is computed if
    all are, for the shape)."""
    outs = []
    for terms in plans:
        total = None
        for t, (subs, picks) in enumerate(terms):
            args = [(np.eye(p[1]) if p[0] == "eye" else np.ones(p[1])) if isinstance(p, tuple)
                    else factors[p] for p in picks]
            if (total is not None or t < len(terms) - 1) and not all(np.any(a) for a in args):
                continue
            term = np.einsum(subs, *args, optimize=len(args) > 2)
            total = term if total is None else total + term
        outs.append(total)
    return outs


@helper(linear=False)
def join_lists(a, b):
    """The items of a, then those of b, in one list."""
    return list(a) + list(b)


non_differentiable(tensordot_axes, dot_axes, inner_axes, einsum_canonical, einsum_adjoint_plan,
                   einsum_tangent_plan, einsum_product_rule)


# each adjoint helper is bilinear in (g, the other operand) and reads its own operand's shape only
@tangent(tensordot_adjoint_a)
def tensordot_adjoint_a_tangent(z, g, a, b, axes=2):
    d[z] = tensordot_adjoint_a(d[g], a, b, axes) + tensordot_adjoint_a(g, a, d[b], axes)


@tangent(tensordot_adjoint_b)
def tensordot_adjoint_b_tangent(z, g, a, b, axes=2):
    d[z] = tensordot_adjoint_b(d[g], a, b, axes) + tensordot_adjoint_b(g, d[a], b, axes)


@tangent(kron_adjoint_a)
def kron_adjoint_a_tangent(z, g, a, b):
    d[z] = kron_adjoint_a(d[g], a, b) + kron_adjoint_a(g, a, d[b])


@tangent(kron_adjoint_b)
def kron_adjoint_b_tangent(z, g, a, b):
    d[z] = kron_adjoint_b(d[g], a, b) + kron_adjoint_b(g, d[a], b)


# product rule on a sum of einsums: the same sum over the factors and their tangents
@tangent(einsum_sums)
def einsum_sums_tangent(z, factors, plans):
    d[z] = einsum_sums(join_lists(factors, d[factors]), einsum_product_rule(plans, factors))


@tangent(join_lists)
def join_lists_tangent(z, a, b):
    d[z] = join_lists(d[a], d[b])


# ---------------------------------------------------------------------------------------------
# products

# dot: tensordot over the last axis of a and the second-to-last of b (any number of dims)
@bilinear(np.dot)
def dot(c, a, b, out=None):
    if np.ndim(a) == 2 and np.ndim(b) == 2:  # ranks known (a shape-specialized build)
        d[a] = np.dot(d[c], b.T)
        d[b] = np.dot(a.T, d[c])
    elif np.ndim(a) == 2 and np.ndim(b) == 1:
        d[a] = np.outer(d[c], b)
        d[b] = np.dot(d[c], a)
    elif np.ndim(a) == 1 and np.ndim(b) == 2:
        d[a] = np.dot(b, d[c])
        d[b] = np.outer(a, d[c])
    elif np.ndim(a) == 1 and np.ndim(b) == 1:
        d[a] = d[c] * b
        d[b] = d[c] * a
    else:
        d[a] = tensordot_adjoint_a(d[c], a, b, dot_axes(a, b))
        d[b] = tensordot_adjoint_b(d[c], a, b, dot_axes(a, b))


# vdot(a, b) = sum(ravel(a) * ravel(b)) (real operands)
@bilinear(np.vdot)
def vdot(c, a, b):
    d[a] = d[c] * np.reshape(b, np.shape(a))
    d[b] = d[c] * np.reshape(a, np.shape(b))


# inner: tensordot over the last axes of a and b
@bilinear(np.inner)
def inner(c, a, b):
    d[a] = tensordot_adjoint_a(d[c], a, b, inner_axes(a, b))
    d[b] = tensordot_adjoint_b(d[c], a, b, inner_axes(a, b))


# outer(a, b)[i, j] = ravel(a)[i] ravel(b)[j]
@bilinear(np.outer)
def outer(c, a, b, out=None):
    d[a] = np.reshape(np.dot(d[c], np.ravel(b)), np.shape(a))
    d[b] = np.reshape(np.dot(np.ravel(a), d[c]), np.shape(b))


@bilinear(np.tensordot)
def tensordot(c, a, b, axes=2):
    d[a] = tensordot_adjoint_a(d[c], a, b, axes)
    d[b] = tensordot_adjoint_b(d[c], a, b, axes)


@bilinear(np.kron)
def kron(c, a, b):
    d[a] = kron_adjoint_a(d[c], a, b)
    d[b] = kron_adjoint_b(d[c], a, b)


# cross of 3-vectors (batched, broadcasting): <g, a x b> = <a, b x g> = <b, g x a>
@adjoint(np.cross, broadcasts=True)
def cross(c, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is None:
        d[a] = np.cross(b, d[c], axisa=axisb, axisb=axisc, axisc=axisa)
        d[b] = np.cross(d[c], a, axisa=axisc, axisb=axisa, axisc=axisb)
    else:
        d[a] = np.cross(b, d[c], axis=axis)
        d[b] = np.cross(d[c], a, axis=axis)


@tangent(np.cross)
def cross(c, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    d[c] = (np.cross(d[a], b, axisa, axisb, axisc, axis)
            + np.cross(a, d[b], axisa, axisb, axisc, axis))


# einsum (subscripts string): the adjoint of each operand and the tangent are einsums again
@adjoint(np.einsum)
def einsum(c, subscripts, *operands, out=None, dtype=None, order="K", casting="safe",
           optimize=False):
    d[operands] = einsum_sums(join_lists(operands, [d[c]]),
                              einsum_adjoint_plan(subscripts, operands))
    d[subscripts] = einsum_refuse_sublists(d[c])


@tangent(np.einsum)
def einsum(c, subscripts, *operands, out=None, dtype=None, order="K", casting="safe",
           optimize=False):
    d[c] = einsum_sums(join_lists(operands, d[operands]),
                       einsum_tangent_plan(subscripts, operands))[0]


# ---------------------------------------------------------------------------------------------
# numpy.linalg. Matrices are the last two axes; leading axes are stacks (batched).

@helper(tangent="linear")
def solve_column(v, b):
    """v as a stack of columns when b is a vector (solve treats 1-D b as a vector)."""
    return v[..., None] if np.ndim(b) == 1 else v


@helper(tangent="linear")
def solve_uncolumn(v, b):
    """The inverse of solve_column."""
    return v[..., 0] if np.ndim(b) == 1 else v


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
        low = l
        p = np.swapaxes(low, -1, -2) @ d[l]
    phi = np.tril(p) - 0.5 * p * np.eye(np.shape(p)[-1])
    lt = np.swapaxes(low, -1, -2)
    q = np.linalg.solve(lt, np.swapaxes(np.linalg.solve(lt, np.swapaxes(phi, -1, -2)), -1, -2))
    d[a] = 0.5 * (q + np.swapaxes(q, -1, -2))


@tangent(np.linalg.cholesky)
def cholesky(l, a, upper=False):
    if upper:
        low = np.swapaxes(l, -1, -2)
    else:
        low = l
    sym = 0.5 * (d[a] + np.swapaxes(d[a], -1, -2))
    s = np.linalg.solve(low, np.swapaxes(np.linalg.solve(low, sym), -1, -2))
    dl = low @ (np.tril(s) - 0.5 * s * np.eye(np.shape(s)[-1]))
    if upper:
        d[l] = np.swapaxes(dl, -1, -2)
    else:
        d[l] = dl


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
