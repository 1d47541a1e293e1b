"""NumPy's products: dot, vdot, inner, outer, tensordot, kron, cross and einsum (matmul is the @
operator's, in operators.py), and the runtime helpers that contract their adjoints.

Real arrays. The products are multilinear, so each operand's adjoint is the product of the
output's adjoint with the other operands, contracted over the axes the operand does not share
with the output; the tangent is the sum of the products with one operand replaced by its
tangent, which the registry writes for the products declared @bilinear.
"""
import numpy as np

from srcad.rules.registry import adjoint, bilinear, d, non_differentiable, tangent
from srcad.runtime import concat_adjoint, helper, item_adjoints, on_host, safe_matmul


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
def safe_tensordot(a, b, axes):
    """np.tensordot(a, b, axes) (axes: a pair of lists) with safe_matmul's strong zeros: a zero
    times an inf or nan adds 0 to the sums. One dot product of the result where it is finite."""
    with np.errstate(invalid="ignore"):
        out = np.tensordot(a, b, axes)
    if not on_host(out):  # a dask or CuPy array: no look at its values
        return out
    check = np.vdot(out, out).real  # NaN when an entry is NaN (or inf when one is inf): cheap
    if -np.inf < check < np.inf:
        return out
    ia, ib = list(axes[0]), list(axes[1])  # (rare: as a matrix product of the two)
    free_a = [i for i in range(np.ndim(a)) if i not in ia]
    free_b = [i for i in range(np.ndim(b)) if i not in ib]
    sizes = [np.shape(a)[i] for i in free_a] + [np.shape(b)[i] for i in free_b]
    inner = int(np.prod([np.shape(a)[i] for i in ia]))
    left = np.reshape(np.transpose(a, free_a + ia), (-1, inner))
    right = np.reshape(np.transpose(b, ib + free_b), (inner, -1))
    return np.reshape(safe_matmul(left, right), sizes)


@helper
def tensordot_adjoint_a(g, a, b, axes=2):
    """Adjoint of a in c = np.tensordot(a, b, axes): g (axes: a's free axes, then b's)
    contracted with b over b's free axes, then put back in a's axis order."""
    ia, ib = tensordot_axes(a, b, axes)
    free_a = [i for i in range(np.ndim(a)) if i not in ia]
    free_b = [i for i in range(np.ndim(b)) if i not in ib]
    ga = safe_tensordot(g, b, (list(range(len(free_a), np.ndim(g))), free_b))  # (strong zeros:
    # modes/strong_zeros.py)
    # ga's axes: a's free axes, then b's contracted axes in b's order (paired with ia)
    src = free_a + [ia[k] for k in np.argsort(ib, kind="stable")]
    return np.transpose(ga, tuple(int(i) for i in np.argsort(src, kind="stable")))  # (ints:
    # dask's transpose refuses an array of axes)


@helper
def tensordot_adjoint_b(g, a, b, axes=2):
    """Adjoint of b in c = np.tensordot(a, b, axes): a contracted with g over a's free axes."""
    ia, ib = tensordot_axes(a, b, axes)
    free_a = [i for i in range(np.ndim(a)) if i not in ia]
    free_b = [i for i in range(np.ndim(b)) if i not in ib]
    gb = safe_tensordot(a, g, (free_a, list(range(len(free_a)))))
    # gb's axes: a's contracted axes in a's order (paired with ib), then b's free axes
    src = [ib[k] for k in np.argsort(ia, kind="stable")] + free_b
    return np.transpose(gb, tuple(int(i) for i in np.argsort(src, kind="stable")))


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
def einsum_transpose_plan(plans, factors, gs):
    """The plan of the adjoints of einsum_sums(factors, plans)'s factors, over (*factors, *gs)
    with gs the adjoints of its outputs (None: an output no adjoint reached): for every term and
    every factor it picks, that factor's adjoint in the term (einsum_adjoint_plan, its picks
    mapped back to the factors, output i's adjoint at len(factors) + i). A factor no term picks
    gets an empty sum (None)."""
    n = len(factors)
    out = [[] for _ in factors]
    for i, terms in enumerate(plans):
        if gs[i] is None:
            continue
        for subs, picks in terms:
            args = [(np.eye(p[1]) if p[0] == "eye" else np.ones(p[1])) if isinstance(p, tuple)
                    else factors[p] for p in picks]
            for q, p in enumerate(picks):
                if isinstance(p, tuple):
                    continue  # (a constant: no adjoint)
                (sub, inner), = einsum_adjoint_plan(subs, args)[q]
                where = list(picks) + [n + i]  # inner picks index (*args, g_i)
                out[p].append((sub, [r if isinstance(r, tuple) else where[r] for r in inner]))
    return out


@helper(linear=False, container=True)
def einsum_sums(factors, plans):
    """One array per plan: the sum over its terms (subscripts, picks) of np.einsum(subscripts,
    *picked factors); a pick is an index into `factors` or a constant ("eye", n) or
    ("ones", n). Terms with an all-zero factor are zero and skipped (the last is computed if
    all are, for the shape). With a dask or CuPy factor, whose values are not looked at, every
    term is computed and np.where keeps the same ones (zeros for the others)."""
    outs = []
    for terms in plans:
        total = None
        lazy = next((factors[p] for _, picks in terms for p in picks
                     if not isinstance(p, tuple) and not on_host(factors[p])), None)
        kept = False  # (lazy: whether a term before this one was kept, a 0-d array)
        for t, (subs, picks) in enumerate(terms):
            args = [(np.eye(p[1]) if p[0] == "eye" else np.ones(p[1])) if isinstance(p, tuple)
                    else factors[p] for p in picks]
            if lazy is not None:  # (the constants as arrays of the factors' kind: CuPy takes
                args = [np.asarray(a, like=lazy) if isinstance(p, tuple) else a  # no NumPy
                        for a, p in zip(args, picks)]  # arrays)
                keep = t == len(terms) - 1 and np.logical_not(kept)
                nonzero = True
                for a in args:
                    nonzero = np.logical_and(nonzero, np.any(a))
                keep = np.logical_or(keep, nonzero)
                kept = np.logical_or(kept, keep)
                term = np.where(keep, np.einsum(subs, *args, optimize=len(args) > 2), 0.0)
            elif (total is not None or t < len(terms) - 1) and not all(np.any(a) for a in args):
                continue
            else:
                with np.errstate(invalid="ignore"):
                    term = np.einsum(subs, *args, optimize=len(args) > 2)
                check = np.vdot(term, term).real  # (finite unless an entry is inf or nan)
                if not -np.inf < check < np.inf and "->" in subs and "." not in subs:
                    # strong zeros (modes/strong_zeros.py): every product, a zero factor
                    # making it 0 against an inf or nan, then summed
                    inputs, output = subs.split("->")
                    every = "".join(dict.fromkeys(inputs.replace(",", "")))
                    with np.errstate(invalid="ignore"):
                        products = np.einsum(f"{inputs}->{every}", *args)
                    zero = False
                    for k in range(len(args)):
                        zero = zero | (np.einsum(f"{inputs}->{every}", *[
                            np.equal(a, 0) if j == k else np.ones(np.shape(a), bool)
                            for j, a in enumerate(args)]) > 0)
                    term = np.einsum(f"{every}->{output}", np.where(
                        np.isnan(products) & zero, 0.0, products))
            total = term if total is None else total + term
        outs.append(total)  # (None for a plan with no terms: a factor no term picks)
    return outs


@helper(linear=False, container=True)
def join_lists(a, b):
    """The items of a, then those of b, in one list."""
    return list(a) + list(b)


non_differentiable(tensordot_axes, dot_axes, inner_axes, einsum_canonical, einsum_adjoint_plan,
                   einsum_tangent_plan, einsum_product_rule, einsum_transpose_plan)


@adjoint(einsum_refuse_sublists)  # (it raises: so does its adjoint, in a gradient of a gradient)
def einsum_refuse_sublists_adjoint(z, g):
    d[g] = einsum_refuse_sublists(d[z])


# each adjoint helper is bilinear in (g, the other operand) and reads its own operand's shape only
@tangent(safe_tensordot)
def safe_tensordot_tangent(z, a, b, axes):
    d[z] = safe_tensordot(d[a], b, axes) + safe_tensordot(a, d[b], axes)


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


# the adjoint of a sum of einsums is a sum of einsums again (over the factors and the outputs'
# adjoints): reverse over reverse of einsum, and so on to any order (zeros for a factor no term
# picks: item_adjoints)
@adjoint(einsum_sums)
def einsum_sums_adjoint(z, factors, plans):
    d[factors] = item_adjoints(einsum_sums(join_lists(factors, d[z]),
                                           einsum_transpose_plan(plans, factors, d[z])), factors)


@adjoint(join_lists)
def join_lists_adjoint(z, a, b):
    d[a] = concat_adjoint(d[z], a, b, 0)
    d[b] = concat_adjoint(d[z], a, b, 1)


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
