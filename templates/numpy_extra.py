"""More NumPy: NaN-ignoring reductions and scans (nanmax, nanmin, nanprod, nanvar, nanstd,
nancumsum, nancumprod, nanmedian), cumulative_sum/_prod, sort, median, differences and
integrals (diff, ediff1d, trapezoid), polynomials (polyval, polyadd, polysub, polymul, polyder,
polyint, vander), convolve, correlate, interp, cov, corrcoef, the numpy.linalg array-API
functions (vector_norm, matrix_norm, vecdot, outer, cross, trace, diagonal, matrix_transpose,
tensordot, matmul, svdvals), vecdot, matvec, vecmat, and layout functions (append, insert,
delete, resize, rollaxis, unstack, select, full, full_like, asanyarray).

Conventions (as in numpy_reductions.py):
- NaN entries of the nan* functions are constants: their derivative is exactly 0 (also in lanes
  of NaN only).
- nanmax, nanmin: ties share the derivative evenly.
- sort, median, nanmedian: the derivative follows the permutation of a stable argsort; where
  entries tie (there the function is not differentiable) the tied sorted values share the
  derivative evenly, as max/min do (the central-difference derivative).
- interp: x on a knot takes the slope of the segment to its right (the last knot: to its left);
  outside [xp[0], xp[-1]] the value is left/right (by default fp[0]/fp[-1]), slope 0 in x.
- nanstd: where the standard deviation is 0 the derivative is taken as 0 (as np.std).
"""
import numpy as np

from srcad.rules.registry import REGISTRY, adjoint, d, non_differentiable, tangent
from srcad.runtime import helper, unbroadcast, unconcatenate, unreduce

from .numpy_linalg import norm_coefficients, norm_extremum_weights, signed_power
from .numpy_reductions import (exclusive_cumprod, from_lanes, linear_scan, prod_of_others,
                               shift_along, to_lanes, undiagonal)
from .numpy_shapes import through_cast, untake, untranspose


# ---------------------------------------------------------------------------------------------
# runtime helpers

@helper(tangent="linear")
def nan_extremum_spread(g, a, y, axis=None, keepdims=False):
    """Adjoint of nanmax/nanmin: g shared evenly among the entries equal to the extremum; NaN
    entries (and lanes of NaN only) get 0."""
    if axis is not None and not keepdims:
        axes = tuple(ax % np.ndim(a) for ax in ((axis,) if np.ndim(axis) == 0 else axis))
        g = np.expand_dims(g, axes)
        y = np.expand_dims(y, axes)
    mask = a == y
    count = np.maximum(np.sum(mask, axis=axis, keepdims=True), 1)
    return np.where(mask, g / count, 0.0)


@helper(tangent="linear")
def nan_extremum_pick(da, a, y, axis=None, keepdims=False):
    """Tangent of nanmax/nanmin: the mean of da over the entries equal to the extremum (0 for
    lanes of NaN only)."""
    yk = y
    if axis is not None and not keepdims:
        axes = tuple(ax % np.ndim(a) for ax in ((axis,) if np.ndim(axis) == 0 else axis))
        yk = np.expand_dims(y, axes)
    mask = a == yk
    return (np.sum(np.where(mask, da, 0.0), axis=axis, keepdims=keepdims)
            / np.maximum(np.sum(mask, axis=axis, keepdims=keepdims), 1))


@helper(tangent="linear")
def reverse_cumsum(g, axis=-1):
    """The sum of g from each entry to the end along axis: the adjoint of a cumulative sum."""
    return np.flip(np.cumsum(np.flip(g, axis), axis=axis), axis)


@helper(tangent="linear")
def scan_drop_initial(g, axis=None, include_initial=False):
    """g without its first entry along axis (None: the only axis) if include_initial: the
    adjoint of the initial 0 (or 1) that cumulative_sum/_prod put first is dropped."""
    if not include_initial:
        return g
    ax = 0 if axis is None else axis % np.ndim(g)
    return g[(slice(None),) * ax + (slice(1, None),)]


@helper(tangent="linear")
def scan_with_initial(t, axis=None, include_initial=False):
    """t with a zero entry put first along axis if include_initial (the tangent of the
    constant initial value)."""
    if not include_initial:
        return t
    t = np.asarray(t)
    ax = 0 if axis is None else axis % t.ndim
    shape = list(t.shape)
    shape[ax] = 1
    return np.concatenate([np.zeros(shape, dtype=np.result_type(t, float)), t], axis=ax)


@helper(tangent="linear")
def diff_transpose(g, n=1, axis=-1, length=None):
    """The adjoint of np.diff(x, n, axis) for x of `length` entries along axis (None: n more
    than g): (D^T g)_i = g_{i-1} - g_i (0 outside), n times (a difference of nothing is
    nothing: lengths stop at 0)."""
    g = np.asarray(g)
    ax = axis % g.ndim
    lengths = [g.shape[ax] + n if length is None else length]
    for _ in range(n):
        lengths.append(max(lengths[-1] - 1, 0))
    width = [(0, 0)] * g.ndim
    width[ax] = (1, 1)
    for before in reversed(lengths[:-1]):
        if before > 0:
            g = -np.diff(np.pad(g, width), axis=ax)
    return g


@helper(linear=False)
def diff_length(a, prepend=None, append=None, axis=-1):
    """The length along axis of what np.diff(a, n, axis, prepend, append) differences."""
    ax = axis % np.ndim(a)
    extra = [0 if v is None else (1 if np.ndim(v) == 0 else np.shape(v)[ax])
             for v in (prepend, append)]
    return np.shape(a)[ax] + extra[0] + extra[1]


@helper(tangent="linear")
def diff_piece(full, a, prepend=None, append=None, axis=-1, which=0):
    """The part of `full` (shaped like np.concatenate((prepend, a, append), axis), as np.diff
    builds it) that belongs to a (which=0), prepend (-1) or append (1), shaped like it."""
    ax = axis % np.ndim(a)
    before = 0 if prepend is None else (1 if np.ndim(prepend) == 0 else np.shape(prepend)[ax])
    n = np.shape(a)[ax]
    if which == -1:
        start, stop, like = 0, before, prepend
    elif which == 0:
        start, stop, like = before, before + n, a
    else:
        start, stop, like = before + n, np.shape(full)[ax], append
    piece = full[(slice(None),) * ax + (slice(start, stop),)]
    return piece if which == 0 else unbroadcast(piece, like)


@helper(tangent="linear")
def diff_of_piece(t, a, prepend=None, append=None, n=1, axis=-1, which=0):
    """np.diff(np.concatenate((prepend, a, append), axis), n, axis) with t in the place of a
    (which=0), prepend (-1) or append (1) and zeros in the others: one operand's share of
    the tangent of np.diff."""
    ax = axis % np.ndim(a)
    parts = []
    for slot, v in ((-1, prepend), (0, a), (1, append)):
        if v is None:
            continue
        shape = list(np.shape(a))
        if slot != 0:
            if np.ndim(v) == 0:
                shape[ax] = 1
            else:
                shape = list(np.shape(v))
        if slot == which:
            parts.append(np.broadcast_to(t, shape))
        else:
            parts.append(np.zeros(shape))
    return np.diff(np.concatenate(parts, axis=ax), n, axis=ax)


@helper(tangent="linear")
def ediff1d_piece(g, ary, to_end=None, to_begin=None, which=0):
    """The part of g (the adjoint of np.ediff1d(ary, to_end, to_begin)) that belongs to ary
    (which=0, through the transpose of the differences), to_begin (-1) or to_end (1)."""
    g = np.asarray(g)
    before = 0 if to_begin is None else np.size(to_begin)
    m = max(np.size(ary) - 1, 0)
    if which == -1:
        return np.reshape(g[:before], np.shape(to_begin))
    if which == 1:
        return np.reshape(g[before + m:], np.shape(to_end))
    if np.size(ary) == 0:
        return np.zeros(np.shape(ary), dtype=np.result_type(g, float))
    return np.reshape(diff_transpose(g[before:before + m], 1, 0), np.shape(ary))


@helper(tangent="linear")
def ediff1d_of_piece(t, ary, to_end=None, to_begin=None, which=0):
    """np.ediff1d with t in the place of ary (which=0), to_begin (-1) or to_end (1) and zeros
    in the others: one operand's share of the tangent."""
    begin = np.zeros(0) if to_begin is None else np.zeros(np.size(to_begin))
    end = np.zeros(0) if to_end is None else np.zeros(np.size(to_end))
    middle = np.zeros(max(np.size(ary) - 1, 0))
    if which == -1:
        begin = np.ravel(t)
    elif which == 1:
        end = np.ravel(t)
    else:
        middle = np.diff(np.ravel(t))
    return np.concatenate([begin, middle, end])


@helper(tangent="linear")
def cut_along(v, axis, start, stop):
    """v[start:stop] along axis."""
    v = np.asarray(v)
    return v[(slice(None),) * (axis % v.ndim) + (slice(start, stop),)]


@helper(tangent="linear")
def pad_along(v, axis, before, after):
    """v with `before` zeros in front and `after` zeros behind along axis."""
    v = np.asarray(v)
    width = [(0, 0)] * v.ndim
    width[axis % v.ndim] = (before, after)
    return np.pad(v, width)


@helper(tangent="linear")
def trapezoid_step(dx, y, axis=-1):
    """The constant spacing dx of np.trapezoid(y, dx=dx, axis=axis) broadcast to the shape of
    one trapezoid per interval (y with one entry fewer along axis)."""
    shape = list(np.shape(y))
    shape[axis % len(shape)] -= 1
    return np.broadcast_to(dx, shape)


@helper(tangent="linear")
def trapezoid_spacing(x, y, axis=-1):
    """The widths np.diff(x) of np.trapezoid(y, x, axis=axis), shaped as numpy multiplies them
    (a 1-D x runs along axis)."""
    if np.ndim(x) == 1:
        shape = [1] * np.ndim(y)
        shape[axis % np.ndim(y)] = np.size(x) - 1
        return np.reshape(np.diff(x), shape)
    return np.diff(x, axis=axis)


@helper(tangent="linear")
def trapezoid_unspacing(gs, x, axis=-1):
    """The adjoint of trapezoid_spacing: gs (shaped like the widths) back onto x."""
    if np.ndim(x) == 1:
        return diff_transpose(np.reshape(gs, (-1,)), 1, 0, np.size(x))
    return diff_transpose(gs, 1, axis, np.shape(x)[axis])


@helper(tangent="linear")
def tie_mean(v, s):
    """v with each run of equal entries of s (along the last axis) replaced by its mean: the
    derivative of sorted values that tie is shared evenly among them (NaN ties nothing)."""
    s = np.asarray(s)
    v = np.broadcast_to(v, s.shape)
    if s.size == 0:
        return np.array(v, dtype=np.result_type(v, float))
    n = s.shape[-1]
    starts = np.concatenate([np.ones(s.shape[:-1] + (1,), dtype=bool),
                             s[..., 1:] != s[..., :-1]], axis=-1)
    lanes = np.reshape(np.arange(s.size // n) * n, s.shape[:-1] + (1,))
    ids = np.ravel(np.cumsum(starts, axis=-1) - 1 + lanes)
    sums = np.bincount(ids, weights=np.ravel(v), minlength=s.size)
    counts = np.maximum(np.bincount(ids, minlength=s.size), 1)
    return np.reshape((sums / counts)[ids], s.shape)


@helper(tangent="linear")
def sort_gather(da, a, axis=-1):
    """The tangent of np.sort(a, axis): da in the order of a stable argsort (axis None:
    flattened), shared evenly among tied values."""
    order = np.argsort(a, axis=axis, kind="stable")
    if axis is None:
        return tie_mean(np.ravel(da)[order], np.ravel(a)[order])
    moved = np.moveaxis(np.take_along_axis(da, order, axis=axis), axis, -1)
    ordered = np.moveaxis(np.take_along_axis(np.asarray(a), order, axis=axis), axis, -1)
    return np.moveaxis(tie_mean(moved, ordered), -1, axis)


@helper(tangent="linear")
def sort_scatter(g, a, axis=-1):
    """The adjoint of np.sort(a, axis), the transpose of sort_gather: g shared evenly among tied
    values, then sent back to where each sorted entry came from."""
    order = np.argsort(a, axis=axis, kind="stable")
    if axis is None:
        out = np.zeros(np.size(a), dtype=np.result_type(g, float))
        out[order] = tie_mean(g, np.ravel(a)[order])
        return np.reshape(out, np.shape(a))
    ordered = np.moveaxis(np.take_along_axis(np.asarray(a), order, axis=axis), axis, -1)
    shared = np.moveaxis(tie_mean(np.moveaxis(g, axis, -1), ordered), -1, axis)
    out = np.zeros(np.shape(a), dtype=np.result_type(g, float))
    np.put_along_axis(out, order, shared, axis=axis)
    return out


@helper(linear=False)
def median_weights(a, axis=None, ignore_nan=False):
    """d median / d a: 1/2 on each of the two middle entries of each lane (1 on the middle one
    of an odd lane), in the order of a stable argsort, shared evenly among tied values;
    ignore_nan: of the lane's non-NaN entries (a lane of NaN only gets 0)."""
    x = to_lanes(a, axis)
    n = x.shape[-1]
    order = np.argsort(x, axis=-1, kind="stable")  # NaN last
    count = np.sum(np.logical_not(np.isnan(x)), axis=-1, keepdims=True) if ignore_nan else n
    place = np.arange(n)
    w = (0.5 * (place == (count - 1) // 2) + 0.5 * (place == count // 2)) * (count > 0)
    w = tie_mean(w, np.take_along_axis(x, order, axis=-1))
    weights = np.zeros(x.shape)
    np.put_along_axis(weights, order, w, axis=-1)
    return from_lanes(weights, a, axis)


@helper(tangent="linear")
def matrix_norm_fro(g, ord="fro"):
    """g, after checking that np.linalg.matrix_norm's ord is 'fro' (the one srcad
    differentiates)."""
    if not (isinstance(ord, str) and ord == "fro"):
        raise ValueError(f"srcad differentiates np.linalg.matrix_norm with ord='fro' only, "
                         f"not ord={ord!r}")
    return g


non_differentiable(median_weights, diff_length)


# tangents of the helpers: each is linear in its first argument and uses the others only through
# shapes or piecewise-constant masks, so its tangent is itself applied to that tangent

# ---------------------------------------------------------------------------------------------
# NaN-ignoring reductions: NaN entries are constants (np.where, not a product with a mask, so a
# NaN cannot leak into the derivative of the other entries)

@adjoint(np.nanmax)
def nanmax(y, a, axis=None, out=None, keepdims=False):
    d[a] = nan_extremum_spread(d[y], a, y, axis, keepdims)


@tangent(np.nanmax)
def nanmax(y, a, axis=None, out=None, keepdims=False):
    d[y] = nan_extremum_pick(d[a], a, y, axis, keepdims)


@adjoint(np.nanmin)
def nanmin(y, a, axis=None, out=None, keepdims=False):
    d[a] = nan_extremum_spread(d[y], a, y, axis, keepdims)


@tangent(np.nanmin)
def nanmin(y, a, axis=None, out=None, keepdims=False):
    d[y] = nan_extremum_pick(d[a], a, y, axis, keepdims)


# nanprod = prod with NaN read as 1: d/da_i = the product of the other entries (no division)
@adjoint(np.nanprod)
def nanprod(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[a] = np.where(np.isnan(a), 0.0, unreduce(d[y], a, axis, keepdims)
                    * prod_of_others(np.where(np.isnan(a), 1.0, a), axis))


@tangent(np.nanprod)
def nanprod(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = np.sum(np.where(np.isnan(a), 0.0,
                           d[a] * prod_of_others(np.where(np.isnan(a), 1.0, a), axis)),
                  axis=axis, keepdims=keepdims)


# nanvar = sum((a - m)^2) / (n - ddof) over the n non-NaN entries, m their mean:
# d nanvar / d a_i = 2 (a_i - m) / (n - ddof)
@adjoint(np.nanvar)
def nanvar(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    n = np.sum(np.logical_not(np.isnan(a)), axis=axis, keepdims=True)
    d[a] = np.where(np.isnan(a), 0.0, unreduce(d[y], a, axis, keepdims) * (
        2.0 * (a - np.nanmean(a, axis=axis, keepdims=True)) / (n - ddof)))


@tangent(np.nanvar)
def nanvar(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    n = np.sum(np.logical_not(np.isnan(a)), axis=axis, keepdims=keepdims)
    d[y] = np.sum(np.where(np.isnan(a), 0.0, d[a] * (a - np.nanmean(a, axis=axis, keepdims=True))),
                  axis=axis, keepdims=keepdims) * 2.0 / (n - ddof)


# nanstd = sqrt(nanvar): d nanstd = d nanvar / (2 nanstd), taken as 0 where nanstd == 0
@adjoint(np.nanstd)
def nanstd(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    n = np.sum(np.logical_not(np.isnan(a)), axis=axis, keepdims=True)
    inverse = np.where(y == 0, 0.0, 1.0 / np.where(y == 0, 1.0, y))
    d[a] = np.where(np.isnan(a), 0.0, unreduce(d[y] * inverse, a, axis, keepdims) * (
        (a - np.nanmean(a, axis=axis, keepdims=True)) / (n - ddof)))


@tangent(np.nanstd)
def nanstd(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    n = np.sum(np.logical_not(np.isnan(a)), axis=axis, keepdims=keepdims)
    inverse = np.where(y == 0, 0.0, 1.0 / np.where(y == 0, 1.0, y))
    d[y] = np.sum(np.where(np.isnan(a), 0.0, d[a] * (a - np.nanmean(a, axis=axis, keepdims=True))),
                  axis=axis, keepdims=keepdims) * inverse / (n - ddof)


# nanmedian: the median of the non-NaN entries of each lane
@adjoint(np.nanmedian)
def nanmedian(y, a, axis=None, out=None, overwrite_input=False, keepdims=False):
    d[a] = unreduce(d[y], a, axis, keepdims) * median_weights(a, axis, True)


@tangent(np.nanmedian)
def nanmedian(y, a, axis=None, out=None, overwrite_input=False, keepdims=False):
    d[y] = np.sum(d[a] * median_weights(a, axis, True), axis=axis, keepdims=keepdims)


# ---------------------------------------------------------------------------------------------
# scans (axis None: over the flattened array)

@adjoint(np.nancumsum)
def nancumsum(y, a, axis=None, dtype=None, out=None):
    d[a] = np.where(np.isnan(a), 0.0, from_lanes(reverse_cumsum(to_lanes(d[y], axis), -1), a,
                                                 axis))


@tangent(np.nancumsum)
def nancumsum(y, a, axis=None, dtype=None, out=None):
    d[y] = np.cumsum(np.where(np.isnan(a), 0.0, d[a]), axis=axis)


# nancumprod = cumprod with NaN read as 1 (see cumprod in numpy_reductions.py)
@adjoint(np.nancumprod)
def nancumprod(y, a, axis=None, dtype=None, out=None):
    x = to_lanes(np.where(np.isnan(a), 1.0, a), axis)
    d[a] = np.where(np.isnan(a), 0.0, from_lanes(
        exclusive_cumprod(x, False) * linear_scan(to_lanes(d[y], axis), shift_along(x, True),
                                                  True), a, axis))


@tangent(np.nancumprod)
def nancumprod(y, a, axis=None, dtype=None, out=None):
    x = to_lanes(np.where(np.isnan(a), 1.0, a), axis)
    d[y] = from_lanes(linear_scan(to_lanes(np.where(np.isnan(a), 0.0, d[a]), axis)
                                  * exclusive_cumprod(x, False), x, False), y, axis)


# cumulative_sum / cumulative_prod (array API): include_initial puts a constant 0 (1) first
@adjoint(np.cumulative_sum)
def cumulative_sum(y, x, *, axis=None, dtype=None, include_initial=False):
    d[x] = from_lanes(reverse_cumsum(to_lanes(scan_drop_initial(d[y], axis, include_initial),
                                              axis), -1), x, axis)


@tangent(np.cumulative_sum)
def cumulative_sum(y, x, *, axis=None, dtype=None, include_initial=False):
    d[y] = np.cumulative_sum(d[x], axis=axis, include_initial=include_initial)


@adjoint(np.cumulative_prod)
def cumulative_prod(y, x, *, axis=None, dtype=None, include_initial=False):
    lanes = to_lanes(x, axis)
    d[x] = from_lanes(exclusive_cumprod(lanes, False) * linear_scan(
        to_lanes(scan_drop_initial(d[y], axis, include_initial), axis),
        shift_along(lanes, True), True), x, axis)


@tangent(np.cumulative_prod)
def cumulative_prod(y, x, *, axis=None, dtype=None, include_initial=False):
    lanes = to_lanes(x, axis)
    d[y] = scan_with_initial(from_lanes(linear_scan(to_lanes(d[x], axis)
                                                    * exclusive_cumprod(lanes, False), lanes,
                                                    False), x, axis), axis, include_initial)


# ---------------------------------------------------------------------------------------------
# sort and median: the derivative follows the permutation (a stable argsort)

@adjoint(np.sort)
def sort(y, a, axis=-1, kind=None, order=None, *, stable=None):
    d[a] = sort_scatter(d[y], a, axis)


@tangent(np.sort)
def sort(y, a, axis=-1, kind=None, order=None, *, stable=None):
    d[y] = sort_gather(d[a], a, axis)


@adjoint(np.median)
def median(y, a, axis=None, out=None, overwrite_input=False, keepdims=False):
    d[a] = unreduce(d[y], a, axis, keepdims) * median_weights(a, axis, False)


@tangent(np.median)
def median(y, a, axis=None, out=None, overwrite_input=False, keepdims=False):
    d[y] = np.sum(d[a] * median_weights(a, axis, False), axis=axis, keepdims=keepdims)


# ---------------------------------------------------------------------------------------------
# differences and the trapezoidal rule (all linear in each operand but trapezoid's x and y)

# diff = D^n applied to concatenate((prepend, a, append), axis)
@adjoint(np.diff)
def diff(y, a, n=1, axis=-1, prepend=None, append=None):
    full = diff_transpose(d[y], n, axis, diff_length(a, prepend, append, axis))
    d[a] = diff_piece(full, a, prepend, append, axis, 0)
    d[prepend] = diff_piece(full, a, prepend, append, axis, -1)
    d[append] = diff_piece(full, a, prepend, append, axis, 1)


@tangent(np.diff)
def diff(y, a, n=1, axis=-1, prepend=None, append=None):
    d[y] = (diff_of_piece(d[a], a, prepend, append, n, axis, 0)
            + diff_of_piece(d[prepend], a, prepend, append, n, axis, -1)
            + diff_of_piece(d[append], a, prepend, append, n, axis, 1))


# ediff1d = concatenate((ravel(to_begin), diff(ravel(ary)), ravel(to_end)))
@adjoint(np.ediff1d)
def ediff1d(y, ary, to_end=None, to_begin=None):
    d[ary] = ediff1d_piece(d[y], ary, to_end, to_begin, 0)
    d[to_begin] = ediff1d_piece(d[y], ary, to_end, to_begin, -1)
    d[to_end] = ediff1d_piece(d[y], ary, to_end, to_begin, 1)


@tangent(np.ediff1d)
def ediff1d(y, ary, to_end=None, to_begin=None):
    d[y] = (ediff1d_of_piece(d[ary], ary, to_end, to_begin, 0)
            + ediff1d_of_piece(d[to_begin], ary, to_end, to_begin, -1)
            + ediff1d_of_piece(d[to_end], ary, to_end, to_begin, 1))


# t = sum(s * (y_lo + y_hi) / 2) along axis, y_lo and y_hi y without its last / first entry,
# s the widths (diff(x), or dx): dt/dy = (s padded behind + s padded in front) / 2,
# dt/ds = (y_lo + y_hi) / 2
@adjoint(np.trapezoid)
def trapezoid(t, y, x=None, dx=1.0, axis=-1):
    g = np.expand_dims(d[t], axis)
    mid = (cut_along(y, axis, None, -1) + cut_along(y, axis, 1, None)) * 0.5
    if x is None:
        s = trapezoid_step(dx, y, axis)
        d[dx] = unbroadcast(g * mid, dx)
    else:
        s = trapezoid_spacing(x, y, axis)
        d[x] = trapezoid_unspacing(unbroadcast(g * mid, s), x, axis)
    d[y] = unbroadcast(g * (pad_along(s, axis, 0, 1) + pad_along(s, axis, 1, 0)) * 0.5, y)


@tangent(np.trapezoid)
def trapezoid(t, y, x=None, dx=1.0, axis=-1):
    mid = (cut_along(y, axis, None, -1) + cut_along(y, axis, 1, None)) * 0.5
    if x is None:
        s = trapezoid_step(dx, y, axis)
        ds = trapezoid_step(d[dx], y, axis)
    else:
        s = trapezoid_spacing(x, y, axis)
        ds = trapezoid_spacing(d[x], y, axis)
    d[t] = np.sum(s * (cut_along(d[y], axis, None, -1) + cut_along(d[y], axis, 1, None)) * 0.5
                  + ds * mid, axis=axis)


# ---------------------------------------------------------------------------------------------
# numpy.linalg's array-API functions that work on the last axes

@adjoint(np.linalg.trace)
def linalg_trace(y, x, *, offset=0, dtype=None):
    d[x] = undiagonal(np.expand_dims(d[y], -1), x, offset, -2, -1)


@tangent(np.linalg.trace)
def linalg_trace(y, x, *, offset=0, dtype=None):
    d[y] = np.linalg.trace(d[x], offset=offset)


@adjoint(np.linalg.diagonal)
def linalg_diagonal(y, x, *, offset=0):
    d[x] = undiagonal(d[y], x, offset, -2, -1)


@tangent(np.linalg.diagonal)
def linalg_diagonal(y, x, *, offset=0):
    d[y] = np.linalg.diagonal(d[x], offset=offset)


# vecdot(x1, x2, axis) = sum(x1 * x2) along axis (each operand's own axis), batch axes broadcast
@adjoint(np.vecdot, np.linalg.vecdot)
def vecdot(y, x1, x2, *, axis=-1):
    d[x1] = np.moveaxis(unbroadcast(np.expand_dims(d[y], -1) * np.moveaxis(x2, axis, -1),
                                    np.moveaxis(x1, axis, -1)), -1, axis)
    d[x2] = np.moveaxis(unbroadcast(np.expand_dims(d[y], -1) * np.moveaxis(x1, axis, -1),
                                    np.moveaxis(x2, axis, -1)), -1, axis)


@tangent(np.vecdot, np.linalg.vecdot)
def vecdot(y, x1, x2, *, axis=-1):
    d[y] = np.sum(np.moveaxis(d[x1], axis, -1) * np.moveaxis(x2, axis, -1)
                  + np.moveaxis(x1, axis, -1) * np.moveaxis(d[x2], axis, -1), axis=-1)


# matvec(A, v)_i = sum_j A_ij v_j,  vecmat(v, A)_j = sum_i v_i A_ij (batch axes broadcast)
@adjoint(np.matvec)
def matvec(y, x1, x2):
    d[x1] = unbroadcast(np.expand_dims(d[y], -1) * np.expand_dims(x2, -2), x1)
    d[x2] = unbroadcast(np.sum(np.expand_dims(d[y], -1) * x1, axis=-2), x2)


@tangent(np.matvec)
def matvec(y, x1, x2):
    d[y] = np.sum(d[x1] * np.expand_dims(x2, -2) + x1 * np.expand_dims(d[x2], -2), axis=-1)


@adjoint(np.vecmat)
def vecmat(y, x1, x2):
    d[x1] = unbroadcast(np.sum(np.expand_dims(d[y], -2) * x2, axis=-1), x1)
    d[x2] = unbroadcast(np.expand_dims(x1, -1) * np.expand_dims(d[y], -2), x2)


@tangent(np.vecmat)
def vecmat(y, x1, x2):
    d[y] = np.sum(np.expand_dims(d[x1], -1) * x2 + np.expand_dims(x1, -1) * d[x2], axis=-2)


# vector_norm: a p-norm over axis (None: all entries, whatever the shape), weights as for
# np.linalg.norm (numpy_linalg.py): w = sign(x) |x / y|^(p-1), or the extremal entries
@adjoint(np.linalg.vector_norm)
def vector_norm(y, x, *, axis=None, keepdims=False, ord=2):
    coef = norm_coefficients(ord)
    yb = unreduce(y, x, axis, keepdims)
    w = (coef[1] * signed_power(x / np.where(yb > 0, yb, 1.0), coef[0])
         + coef[2] * norm_extremum_weights(x, yb, axis))
    d[x] = unreduce(d[y], x, axis, keepdims) * w


@tangent(np.linalg.vector_norm)
def vector_norm(y, x, *, axis=None, keepdims=False, ord=2):
    coef = norm_coefficients(ord)
    yb = unreduce(y, x, axis, keepdims)
    w = (coef[1] * signed_power(x / np.where(yb > 0, yb, 1.0), coef[0])
         + coef[2] * norm_extremum_weights(x, yb, axis))
    d[y] = np.sum(w * d[x], axis=axis, keepdims=keepdims)


# matrix_norm 'fro' over the last two axes: dy = sum(x dx) / y (0 where y = 0)
@adjoint(np.linalg.matrix_norm)
def matrix_norm(y, x, *, keepdims=False, ord="fro"):
    yb = unreduce(y, x, (-2, -1), keepdims)
    d[x] = matrix_norm_fro(unreduce(d[y], x, (-2, -1), keepdims), ord) * (
        x / np.where(yb > 0, yb, 1.0))


@tangent(np.linalg.matrix_norm)
def matrix_norm(y, x, *, keepdims=False, ord="fro"):
    yb = unreduce(y, x, (-2, -1), keepdims)
    d[y] = matrix_norm_fro(np.sum(d[x] * (x / np.where(yb > 0, yb, 1.0)), axis=(-2, -1),
                                  keepdims=keepdims), ord)


# singular values: ds = diag(U^T dA V),  A_bar = U diag(s_bar) V^T (thin SVD)
@adjoint(np.linalg.svdvals)
def svdvals(s, x):
    usv = np.linalg.svd(x, full_matrices=False)
    d[x] = (usv[0] * np.expand_dims(d[s], -2)) @ usv[2]


@tangent(np.linalg.svdvals)
def svdvals(s, x):
    usv = np.linalg.svd(x, full_matrices=False)
    d[s] = np.diagonal(np.swapaxes(usv[0], -1, -2) @ d[x] @ np.swapaxes(usv[2], -1, -2),
                       0, -2, -1)


# the array-API spellings in numpy.linalg that compute what the numpy functions compute: the
# same templates (np.linalg.cross, outer, tensordot, matmul, matrix_transpose)
for _op, _same in ((np.linalg.cross, np.cross), (np.linalg.outer, np.outer),
                   (np.linalg.tensordot, np.tensordot), (np.linalg.matmul, np.matmul),
                   (np.linalg.matrix_transpose, np.matrix_transpose),
                   (np.asanyarray, np.asarray)):
    if _op is not _same:
        _template = REGISTRY.adjoint_of(_same)
        adjoint(_op, broadcasts=_template.broadcasts,
                tuple_result=_template.tuple_result)(_template.func)
        _template = REGISTRY.tangent_of(_same)
        tangent(_op, broadcasts=_template.broadcasts)(_template.func)


# ---------------------------------------------------------------------------------------------
# runtime helpers of the second part: convolutions, polynomials, interpolation, covariance,
# layout

@helper(linear=False)
def conv_window(n_a, n_v, mode, correlate=False):
    """(start, length) of np.convolve(a, v, mode) (correlate: np.correlate) within the full
    product of a and v (lengths n_a, n_v)."""
    if not isinstance(mode, str):
        mode = {0: "valid", 1: "same", 2: "full"}[int(mode)]
    kind = mode.lower()[:1]
    lo, hi = min(n_a, n_v), max(n_a, n_v)
    if kind == "f":
        return 0, n_a + n_v - 1
    if kind == "v":
        return lo - 1, hi - lo + 1
    if kind == "s":  # np.correlate centres a shorter first operand differently
        return (n_a // 2 if correlate and n_a < n_v else (lo - 1) // 2), hi
    raise ValueError(f"mode must be 'full', 'same' or 'valid', not {mode!r}")


@helper
def full_conv_adjoint(g, v, a, start=0):
    """The adjoint of a in np.convolve(a, v, 'full')[start:start + len(g)]: g put in its place
    in the full product, correlated with v (shaped like a)."""
    full = np.zeros(np.size(a) + np.size(v) - 1, dtype=np.result_type(g, v, float))
    full[start:start + np.size(g)] = np.ravel(g)
    return np.reshape(np.correlate(full, np.ravel(v), "valid"), np.shape(a))


@helper
def full_conv_adjoint_by(v, g, a, start=0):
    """full_conv_adjoint(g, v, a, start), linear in its first argument v."""
    return full_conv_adjoint(g, v, a, start)


@helper
def convolve_by(t, v, mode="full"):
    """np.convolve(t, v, mode), linear in t."""
    return np.convolve(t, v, mode)


@helper
def correlate_by(t, v, mode="valid"):
    """np.correlate(t, v, mode), linear in t."""
    return np.correlate(t, v, mode)


@helper
def correlate_with(t, a, mode="valid"):
    """np.correlate(a, t, mode), linear in t."""
    return np.correlate(a, t, mode)


@helper(tangent="linear")
def poly_derivative(p, m=1):
    """The coefficients of the m-th derivative of the polynomial p (highest power first), as
    np.polyder computes them; linear in p."""
    p = np.asarray(p)
    for _ in range(m):
        p = p[:-1] * np.arange(np.shape(p)[0] - 1, 0, -1)
    return p


@helper(tangent="linear")
def poly_derivative_transpose(g, p, m=1):
    """The adjoint of poly_derivative(p, m): g back to p's coefficients."""
    lengths = [np.shape(p)[0]]
    for _ in range(m):
        lengths.append(max(lengths[-1] - 1, 0))
    g = np.asarray(g)
    for n in reversed(lengths[:-1]):
        if n > 0:
            g = np.concatenate([g * np.arange(n - 1, 0, -1), np.zeros(1, dtype=g.dtype)])
    return np.reshape(g, np.shape(p))


@helper(linear=False)
def poly_powers(x, n, m=0):
    """[..., k] = the m-th derivative of x^(n-1-k) (k = 0 .. n-1, the columns of a Vandermonde
    matrix, highest power first): e (e-1) ... (e-m+1) x^(e-m) with e = n-1-k, 0 for e < m."""
    e = np.arange(n - 1, -1, -1)
    coef = np.ones(n)
    for i in range(m):
        coef = coef * (e - i)
    return coef * np.expand_dims(np.asarray(x), -1) ** np.maximum(e - m, 0)


@helper
def polyval_by(c, x):
    """np.polyval(c, x), linear in c."""
    return np.polyval(c, x)


@helper(tangent="linear")
def poly_in_front(t, a, b):
    """t (the coefficients of a) with zeros in front up to the length of b, as np.polyadd and
    np.polysub align their operands."""
    t = np.atleast_1d(t)
    n = max(np.shape(np.atleast_1d(b))[0] - np.shape(np.atleast_1d(a))[0], 0)
    return np.concatenate([np.zeros(n, dtype=np.result_type(t, float)), t])


@helper(tangent="linear")
def poly_tail(g, a):
    """The adjoint of poly_in_front: the last len(a) entries of g, shaped like a."""
    n = np.shape(np.atleast_1d(a))[0]
    return np.reshape(np.asarray(g)[np.shape(g)[0] - n:], np.shape(a))


@helper(linear=False)
def poly_leading_zeros(a):
    """How many leading zeros np.polymul drops from a (np.poly1d keeps one of all-zero a)."""
    a = np.atleast_1d(a)
    nonzero = np.flatnonzero(a)
    return int(nonzero[0]) if nonzero.size else max(a.shape[0] - 1, 0)


@helper(tangent="linear")
def poly_trim(t, a):
    """t without the places of a's leading zeros (np.polymul's operand)."""
    return np.atleast_1d(t)[poly_leading_zeros(a):]


@helper(tangent="linear")
def poly_untrim(g, a):
    """The adjoint of poly_trim: zeros for a's leading zeros, shaped like a."""
    g = np.asarray(g)
    return np.reshape(np.concatenate([np.zeros(poly_leading_zeros(a), dtype=g.dtype), g]),
                      np.shape(a))


@helper(linear=False)
def poly_integral_constants(k, m):
    """The m constants np.polyint(p, m, k) adds (k None: zeros; one value: repeated)."""
    if k is None:
        return np.zeros(m)
    k = np.atleast_1d(k)
    if k.shape[0] == 1 and m > 1:
        return k[0] * np.ones(m)
    return k[:m]


@helper(tangent="linear")
def polyint_share(t, p, m=1, k=None, which=0):
    """np.polyint with t in the place of p (which=0) or of k (which=1) and zeros in the other:
    one operand's share of the tangent."""
    q = np.atleast_1d(t) if which == 0 else np.zeros(np.shape(np.atleast_1d(p))[0])
    ks = poly_integral_constants(t, m) if which == 1 else np.zeros(m)
    for i in range(m):
        q = np.concatenate([q / np.arange(q.shape[0], 0, -1), ks[i:i + 1]])
    return q


@helper(tangent="linear")
def polyint_piece(g, p, m=1, k=None, which=0):
    """The adjoint of np.polyint(p, m, k) for p (which=0) or k (which=1), shaped like it."""
    g = np.asarray(g, dtype=np.result_type(g, float))
    ks = np.zeros(m, dtype=g.dtype)
    for i in reversed(range(m)):
        ks[i] = g[-1]
        g = g[:-1] / np.arange(g.shape[0] - 1, 0, -1)
    if which == 0:
        return np.reshape(g, np.shape(p))
    if np.size(k) == 1 and m > 1:
        return np.reshape(np.sum(ks), np.shape(k))
    return np.reshape(np.concatenate([ks, np.zeros(np.size(k) - m, dtype=g.dtype)]),
                      np.shape(k))


@helper(tangent="linear")
def vander_order(v, increasing=False):
    """Vandermonde columns (highest power first) in np.vander's order."""
    return np.flip(v, -1) if increasing else v


@helper(linear=False)
def vander_columns(x, N=None):
    """The number of columns of np.vander(x, N)."""
    return np.shape(x)[0] if N is None else N


@helper(linear=False)
def interp_segment(x, xp):
    """The segment [xp[j], xp[j+1]] np.interp(x, xp, fp) interpolates on: the one to the right
    of a knot (the last for x >= xp[-1], the first for x < xp[0])."""
    n = np.size(xp)
    if n < 2:
        raise ValueError("srcad differentiates np.interp with two or more points xp")
    return np.clip(np.searchsorted(xp, x, side="right") - 1, 0, n - 2)


@helper(tangent="linear")
def masked(v, mask):
    """v where mask, 0 elsewhere (np.where: a NaN or inf outside the mask cannot leak)."""
    return np.where(mask, v, 0.0)


@helper
def interp_fp_share(dfp, j, t, below, above, left=None, right=None):
    """fp's share of the tangent of np.interp: dfp interpolated on the segment j at the
    fraction t inside [xp[0], xp[-1]], and dfp[0] (dfp[-1]) below (above) the range when left
    (right) is None."""
    inside = np.logical_not(np.logical_or(below, above))
    v = np.where(inside, np.take(dfp, j) * (1.0 - t) + np.take(dfp, j + 1) * t, 0.0)
    if left is None:
        v = v + np.where(below, np.take(dfp, 0), 0.0)
    if right is None:
        v = v + np.where(above, np.take(dfp, -1), 0.0)
    return v


@helper(linear=False, tangent="linear")
def cov_rows(v, rowvar=True, second=False):
    """The variables-by-observations rows np.cov makes of its first (second=False) or second
    operand v (linear in v; not folded on zeros, whose shape differs)."""
    x = np.array(v, ndmin=2)
    flip = (np.ndim(v) != 1) if not second else (x.shape[0] != 1)
    return x.T if not rowvar and flip else x


@helper(tangent="linear")
def cov_unrows(g, v, rowvar=True, second=False):
    """The adjoint of cov_rows: g (rows) back in v's layout."""
    x = np.array(v, ndmin=2)
    flip = (np.ndim(v) != 1) if not second else (x.shape[0] != 1)
    return np.reshape(np.transpose(g) if not rowvar and flip else g, np.shape(v))


@helper(linear=False)
def cov_divisor(x, bias=False, ddof=None):
    """np.cov's normalization: observations minus ddof (default 1, or 0 with bias), at least
    0."""
    if ddof is None:
        ddof = 0 if bias else 1
    return float(max(np.shape(x)[1] - ddof, 0))


@helper(tangent="linear")
def append_zeros(t, values, axis=None):
    """np.append(t, zeros shaped like values, axis): arr's share of the tangent of np.append."""
    return np.append(t, np.zeros(np.shape(values)), axis)


@helper(tangent="linear")
def prepend_zeros(t, arr, axis=None):
    """np.append(zeros shaped like arr, t, axis): values' share of the tangent."""
    return np.append(np.zeros(np.shape(arr)), t, axis)


@helper(linear=False)
def insert_sources(arr, obj, values, axis=None):
    """Where each entry of np.insert(arr, obj, values, axis) comes from: k >= 0 for entry k of
    arr (flattened), -1 - k for entry k of values (flattened; broadcast copies repeat it)."""
    source = np.reshape(np.arange(np.size(arr)), np.shape(arr))
    labels = np.reshape(-1 - np.arange(np.size(values)), np.shape(values))
    return np.insert(source, obj, labels, axis)


@helper(tangent="linear")
def insert_piece(g, arr, obj, values, axis=None, which=0):
    """The adjoint of np.insert(arr, obj, values, axis) for arr (which=0) or values (which=1):
    g summed back onto the entries it copies."""
    source = np.ravel(insert_sources(arr, obj, values, axis))
    g = np.ravel(g)
    if which == 0:
        out = np.zeros(np.size(arr), dtype=np.result_type(g, float))
        np.add.at(out, source[source >= 0], g[source >= 0])
        return np.reshape(out, np.shape(arr))
    out = np.zeros(np.size(values), dtype=np.result_type(g, float))
    np.add.at(out, -1 - source[source < 0], g[source < 0])
    return np.reshape(out, np.shape(values))


@helper(tangent="linear")
def insert_share(t, arr, obj, values, axis=None, which=0):
    """np.insert with t in the place of arr (which=0) or values (which=1) and zeros in the
    other: one operand's share of the tangent."""
    if which == 0:
        return np.insert(np.asarray(t, dtype=np.result_type(t, float)), obj,
                         np.zeros(np.shape(values)), axis)
    return np.insert(np.zeros(np.shape(arr)), obj, t, axis)


@helper(linear=False)
def delete_kept(arr, obj, axis=None):
    """The indices (along axis; None: of the flattened arr) that np.delete(arr, obj, axis)
    keeps."""
    n = np.size(arr) if axis is None else np.shape(arr)[axis]
    return np.delete(np.arange(n), obj)


@helper(tangent="linear")
def resize_adjoint(g, a, new_shape):
    """The adjoint of np.resize(a, new_shape): each copy of an entry added back onto it."""
    out = np.zeros(np.size(a), dtype=np.result_type(g, float))
    if np.size(a) and np.size(g):
        source = np.resize(np.arange(np.size(a)), new_shape)
        np.add.at(out, np.ravel(source), np.ravel(g))
    return np.reshape(out, np.shape(a))


@helper(linear=False)
def rollaxis_order(ndim, axis, start=0):
    """The permutation np.rollaxis(a, axis, start) applies to a's axes (as a transpose)."""
    axis = axis % ndim
    if start < 0:
        start += ndim
    if axis < start:
        start -= 1
    axes = [i for i in range(ndim) if i != axis]
    axes.insert(start, axis)
    return axes


@helper(tangent="linear")
def select_pieces(g, condlist, choicelist):
    """The adjoint of the choices of np.select(condlist, choicelist, default): g where the
    choice's condition is the first true one, summed to the choice's shape."""
    taken = np.zeros(np.shape(g), dtype=bool)
    out = []
    for cond, choice in zip(condlist, choicelist):
        mine = np.logical_and(np.broadcast_to(cond, np.shape(g)), np.logical_not(taken))
        out.append(unbroadcast(np.where(mine, g, 0.0), choice))
        taken = np.logical_or(taken, mine)
    return out


@helper(tangent="linear")
def select_rest(g, condlist, default):
    """The adjoint of np.select's default: g where no condition is true."""
    taken = np.zeros(np.shape(g), dtype=bool)
    for cond in condlist:
        taken = np.logical_or(taken, cond)
    return unbroadcast(np.where(taken, 0.0, g), default)


@helper(tangent="linear")
def window_adjoint(g, x, window_shape, axis=None):
    """The adjoint of sliding_window_view(x, window_shape, axis): every window's copy of an
    entry added back onto it."""
    source = np.lib.stride_tricks.sliding_window_view(
        np.reshape(np.arange(np.size(x)), np.shape(x)), window_shape, axis)
    out = np.zeros(np.size(x), dtype=np.result_type(g, float))
    np.add.at(out, np.ravel(source), np.ravel(g))
    return np.reshape(out, np.shape(x))


non_differentiable(conv_window, poly_leading_zeros, poly_integral_constants, vander_columns,
                   interp_segment, cov_divisor, insert_sources, delete_kept, rollaxis_order)


# tangents of the second part's helpers

@tangent(full_conv_adjoint)
def full_conv_adjoint_tangent(z, g, v, a, start=0):
    d[z] = full_conv_adjoint(d[g], v, a, start) + full_conv_adjoint_by(d[v], g, a, start)


@tangent(full_conv_adjoint_by)
def full_conv_adjoint_by_tangent(z, v, g, a, start=0):
    d[z] = full_conv_adjoint_by(d[v], g, a, start) + full_conv_adjoint(d[g], v, a, start)


@tangent(convolve_by)
def convolve_by_tangent(z, t, v, mode="full"):
    d[z] = convolve_by(d[t], v, mode) + convolve_by(d[v], t, mode)  # convolve is symmetric


@tangent(correlate_by)
def correlate_by_tangent(z, t, v, mode="valid"):
    d[z] = correlate_by(d[t], v, mode) + correlate_with(d[v], t, mode)


@tangent(correlate_with)
def correlate_with_tangent(z, t, a, mode="valid"):
    d[z] = correlate_with(d[t], a, mode) + correlate_by(d[a], t, mode)


# d/dx of the m-th derivatives of the powers are the (m+1)-th
@tangent(poly_powers)
def poly_powers_tangent(z, x, n, m=0):
    d[z] = np.expand_dims(d[x], -1) * poly_powers(x, n, m + 1)


@tangent(polyval_by)
def polyval_by_tangent(z, c, x):
    d[z] = polyval_by(d[c], x) + d[x] * polyval_by(poly_derivative(c, 1), x)


# linear in dfp; t enters through the interpolation weights
@tangent(interp_fp_share)
def interp_fp_share_tangent(z, dfp, j, t, below, above, left=None, right=None):
    d[z] = (interp_fp_share(d[dfp], j, t, below, above, left, right)
            + masked((np.take(dfp, j + 1) - np.take(dfp, j)) * d[t],
                     np.logical_not(np.logical_or(below, above))))


# ---------------------------------------------------------------------------------------------
# convolution and correlation of 1-D sequences: bilinear. Each mode is a window of the full
# product: np.convolve(a, v, mode) = full[start:start + length] with full_k = sum_i a_i v_{k-i},
# and np.correlate(a, v, mode) the same window of the full convolution of a with v reversed.

@adjoint(np.convolve)
def convolve(y, a, v, mode="full"):
    window = conv_window(np.size(a), np.size(v), mode, False)
    d[a] = full_conv_adjoint(d[y], v, a, window[0])
    d[v] = full_conv_adjoint(d[y], a, v, window[0])


@tangent(np.convolve)
def convolve(y, a, v, mode="full"):
    d[y] = convolve_by(d[a], v, mode) + convolve_by(d[v], a, mode)


@adjoint(np.correlate)
def correlate(y, a, v, mode="valid"):
    window = conv_window(np.size(a), np.size(v), mode, True)
    d[a] = full_conv_adjoint(d[y], np.flip(v), a, window[0])
    d[v] = np.flip(full_conv_adjoint(d[y], a, v, window[0]))


@tangent(np.correlate)
def correlate(y, a, v, mode="valid"):
    d[y] = correlate_by(d[a], v, mode) + correlate_with(d[v], a, mode)


# ---------------------------------------------------------------------------------------------
# polynomials (coefficients highest power first)

# y = sum_k p_k x^(n-1-k):  dy/dp_k = x^(n-1-k),  dy/dx = polyval(polyder(p), x)
@adjoint(np.polyval)
def polyval(y, p, x):
    d[p] = np.tensordot(d[y], poly_powers(x, np.size(p), 0), np.ndim(x))
    d[x] = d[y] * polyval_by(poly_derivative(p, 1), x)


@tangent(np.polyval)
def polyval(y, p, x):
    d[y] = polyval_by(d[p], x) + d[x] * polyval_by(poly_derivative(p, 1), x)


@adjoint(np.polyadd)
def polyadd(y, a1, a2):
    d[a1] = poly_tail(d[y], a1)
    d[a2] = poly_tail(d[y], a2)


@tangent(np.polyadd)
def polyadd(y, a1, a2):
    d[y] = poly_in_front(d[a1], a1, a2) + poly_in_front(d[a2], a2, a1)


@adjoint(np.polysub)
def polysub(y, a1, a2):
    d[a1] = poly_tail(d[y], a1)
    d[a2] = -poly_tail(d[y], a2)


@tangent(np.polysub)
def polysub(y, a1, a2):
    d[y] = poly_in_front(d[a1], a1, a2) - poly_in_front(d[a2], a2, a1)


# polymul = the full convolution of the operands without their leading zeros (np.poly1d drops
# them: they get derivative 0, the product's length does not depend on them)
@adjoint(np.polymul)
def polymul(y, a1, a2):
    d[a1] = poly_untrim(full_conv_adjoint(d[y], poly_trim(a2, a2), poly_trim(a1, a1), 0), a1)
    d[a2] = poly_untrim(full_conv_adjoint(d[y], poly_trim(a1, a1), poly_trim(a2, a2), 0), a2)


@tangent(np.polymul)
def polymul(y, a1, a2):
    d[y] = (convolve_by(poly_trim(d[a1], a1), poly_trim(a2, a2), "full")
            + convolve_by(poly_trim(d[a2], a2), poly_trim(a1, a1), "full"))


@adjoint(np.polyder)
def polyder(y, p, m=1):
    d[p] = poly_derivative_transpose(d[y], p, m)


@tangent(np.polyder)
def polyder(y, p, m=1):
    d[y] = poly_derivative(d[p], m)


@adjoint(np.polyint)
def polyint(y, p, m=1, k=None):
    d[p] = polyint_piece(d[y], p, m, k, 0)
    d[k] = polyint_piece(d[y], p, m, k, 1)


@tangent(np.polyint)
def polyint(y, p, m=1, k=None):
    d[y] = polyint_share(d[p], p, m, k, 0) + polyint_share(d[k], p, m, k, 1)


# vander(x, N)[i, k] = x_i^(N-1-k) (increasing: x_i^k)
@adjoint(np.vander)
def vander(y, x, N=None, increasing=False):
    d[x] = np.sum(d[y] * vander_order(poly_powers(x, vander_columns(x, N), 1), increasing),
                  axis=-1)


@tangent(np.vander)
def vander(y, x, N=None, increasing=False):
    d[y] = np.expand_dims(d[x], -1) * vander_order(poly_powers(x, vander_columns(x, N), 1),
                                                   increasing)


# ---------------------------------------------------------------------------------------------
# interp: on the segment j, y = fp_j (1 - t) + fp_{j+1} t with t = (x - xp_j) / h,
# h = xp_{j+1} - xp_j:  dy/dx = s (the slope), dy/dxp_j = -s (1 - t), dy/dxp_{j+1} = -s t;
# outside [xp[0], xp[-1]] y = left (fp[0]) or right (fp[-1]). (period is not supported.)
@adjoint(np.interp)
def interp(y, x, xp, fp, left=None, right=None):
    j = interp_segment(x, xp)
    x0 = np.take(xp, j)
    h = np.take(xp, j + 1) - x0
    t = (x - x0) / h
    slope = (np.take(fp, j + 1) - np.take(fp, j)) / h
    below = x < np.take(xp, 0)
    above = x > np.take(xp, -1)
    g = masked(d[y], np.logical_not(np.logical_or(below, above)))
    d[x] = g * slope
    d[fp] = untake(g * (1.0 - t), fp, j) + untake(g * t, fp, j + 1)
    d[xp] = -(untake(g * slope * (1.0 - t), xp, j) + untake(g * slope * t, xp, j + 1))
    if left is None:
        d[fp] = untake(np.sum(masked(d[y], below)), fp, 0)
    else:
        d[left] = unbroadcast(masked(d[y], below), left)
    if right is None:
        d[fp] = untake(np.sum(masked(d[y], above)), fp, np.size(fp) - 1)
    else:
        d[right] = unbroadcast(masked(d[y], above), right)


@tangent(np.interp)
def interp(y, x, xp, fp, left=None, right=None):
    j = interp_segment(x, xp)
    x0 = np.take(xp, j)
    h = np.take(xp, j + 1) - x0
    t = (x - x0) / h
    slope = (np.take(fp, j + 1) - np.take(fp, j)) / h
    below = x < np.take(xp, 0)
    above = x > np.take(xp, -1)
    d[y] = (interp_fp_share(d[fp], j, t, below, above, left, right)
            + masked(slope * (d[x] - np.take(d[xp], j) * (1.0 - t) - np.take(d[xp], j + 1) * t),
                     np.logical_not(np.logical_or(below, above)))
            + masked(d[left], below) + masked(d[right], above))


# ---------------------------------------------------------------------------------------------
# cov: C = Xc Xc^T / f, Xc the rows of X minus their means, f = observations - ddof:
#   dC = (dXc Xc^T + Xc dXc^T) / f,  X_bar = (C_bar + C_bar^T) Xc / f  (Xc's rows sum to 0)
# (fweights and aweights are not supported.)
@adjoint(np.cov)
def cov(c, m, y=None, rowvar=True, bias=False, ddof=None, *, dtype=None):
    if y is None:
        x = cov_rows(m, rowvar, False)
    else:
        x = np.concatenate([cov_rows(m, rowvar, False), cov_rows(y, rowvar, True)], axis=0)
    xc = x - np.mean(x, axis=1, keepdims=True)
    g = np.reshape(d[c], (np.shape(x)[0], np.shape(x)[0]))
    gx = (g + np.swapaxes(g, 0, 1)) @ xc / cov_divisor(x, bias, ddof)
    if y is None:
        d[m] = cov_unrows(gx, m, rowvar, False)
    else:
        d[m] = cov_unrows(gx[:np.shape(cov_rows(m, rowvar, False))[0]], m, rowvar, False)
        d[y] = cov_unrows(gx[np.shape(cov_rows(m, rowvar, False))[0]:], y, rowvar, True)


@tangent(np.cov)
def cov(c, m, y=None, rowvar=True, bias=False, ddof=None, *, dtype=None):
    if y is None:
        x = cov_rows(m, rowvar, False)
        dx = cov_rows(d[m], rowvar, False)
    else:
        x = np.concatenate([cov_rows(m, rowvar, False), cov_rows(y, rowvar, True)], axis=0)
        dx = np.concatenate([cov_rows(d[m], rowvar, False), cov_rows(d[y], rowvar, True)],
                            axis=0)
    xc = x - np.mean(x, axis=1, keepdims=True)
    p = (dx - np.mean(dx, axis=1, keepdims=True)) @ np.swapaxes(xc, 0, 1) / cov_divisor(
        x, bias, ddof)
    d[c] = np.reshape(p + np.swapaxes(p, 0, 1), np.shape(c))


# corrcoef: R = C / (s s^T), s = sqrt(diag C) (numpy's clip to [-1, 1] only rounds):
#   dR = dC / (s s^T) - R (q_i + q_j) / 2 with q = diag(dC) / diag(C), and with H = G + G^T,
#   C_bar + C_bar^T = H / (s s^T) - diag(rowsum(H R) / diag C)
@adjoint(np.corrcoef)
def corrcoef(r, x, y=None, rowvar=True, *, dtype=None):
    if y is None:
        rows = cov_rows(x, rowvar, False)
    else:
        rows = np.concatenate([cov_rows(x, rowvar, False), cov_rows(y, rowvar, True)], axis=0)
    xc = rows - np.mean(rows, axis=1, keepdims=True)
    f = cov_divisor(rows, False, None)
    cm = xc @ np.swapaxes(xc, 0, 1) / f
    s = np.sqrt(np.diagonal(cm))
    rm = cm / np.outer(s, s)
    g = np.reshape(d[r], (np.shape(rows)[0], np.shape(rows)[0]))
    h = g + np.swapaxes(g, 0, 1)
    gx = (h / np.outer(s, s) - np.diag(np.sum(h * rm, axis=1) / np.diagonal(cm))) @ xc / f
    if y is None:
        d[x] = cov_unrows(gx, x, rowvar, False)
    else:
        d[x] = cov_unrows(gx[:np.shape(cov_rows(x, rowvar, False))[0]], x, rowvar, False)
        d[y] = cov_unrows(gx[np.shape(cov_rows(x, rowvar, False))[0]:], y, rowvar, True)


@tangent(np.corrcoef)
def corrcoef(r, x, y=None, rowvar=True, *, dtype=None):
    if y is None:
        rows = cov_rows(x, rowvar, False)
        drows = cov_rows(d[x], rowvar, False)
    else:
        rows = np.concatenate([cov_rows(x, rowvar, False), cov_rows(y, rowvar, True)], axis=0)
        drows = np.concatenate([cov_rows(d[x], rowvar, False), cov_rows(d[y], rowvar, True)],
                               axis=0)
    xc = rows - np.mean(rows, axis=1, keepdims=True)
    f = cov_divisor(rows, False, None)
    cm = xc @ np.swapaxes(xc, 0, 1) / f
    s = np.sqrt(np.diagonal(cm))
    rm = cm / np.outer(s, s)
    p = (drows - np.mean(drows, axis=1, keepdims=True)) @ np.swapaxes(xc, 0, 1) / f
    dc = p + np.swapaxes(p, 0, 1)
    q = np.diagonal(dc) / np.diagonal(cm)
    d[r] = np.reshape(dc / np.outer(s, s) - rm * (np.expand_dims(q, 0) + np.expand_dims(q, 1))
                      * 0.5, np.shape(r))


# ---------------------------------------------------------------------------------------------
# layout: the adjoint sends each entry of d[y] back to the entry it copies

@adjoint(np.append)
def append(y, arr, values, axis=None):
    d[arr] = unconcatenate(d[y], [arr, values], axis)[0]
    d[values] = unconcatenate(d[y], [arr, values], axis)[1]


@tangent(np.append)
def append(y, arr, values, axis=None):
    d[y] = append_zeros(d[arr], values, axis) + prepend_zeros(d[values], arr, axis)


# an integer arr makes an integer result: a rounding, derivative 0 (through_cast)
@adjoint(np.insert)
def insert(y, arr, obj, values, axis=None):
    d[arr] = insert_piece(through_cast(d[y], y), arr, obj, values, axis, 0)
    d[values] = insert_piece(through_cast(d[y], y), arr, obj, values, axis, 1)


@tangent(np.insert)
def insert(y, arr, obj, values, axis=None):
    d[y] = through_cast(insert_share(d[arr], arr, obj, values, axis, 0)
                        + insert_share(d[values], arr, obj, values, axis, 1), y)


@adjoint(np.delete)
def delete(y, arr, obj, axis=None):
    d[arr] = untake(d[y], arr, delete_kept(arr, obj, axis), axis)


@tangent(np.delete)
def delete(y, arr, obj, axis=None):
    d[y] = np.delete(d[arr], obj, axis)


@adjoint(np.resize)
def resize(y, a, new_shape):
    d[a] = resize_adjoint(d[y], a, new_shape)


@tangent(np.resize)
def resize(y, a, new_shape):
    d[y] = np.resize(d[a], new_shape)


@adjoint(np.rollaxis)
def rollaxis(y, a, axis, start=0):
    d[a] = untranspose(d[y], rollaxis_order(np.ndim(a), axis, start))


@tangent(np.rollaxis)
def rollaxis(y, a, axis, start=0):
    d[y] = np.rollaxis(d[a], axis, start)


@adjoint(np.unstack, tuple_result=True)
def unstack(y, x, *, axis=0):
    d[x] = np.stack(d[y], axis)


@tangent(np.unstack)
def unstack(y, x, *, axis=0):
    d[y] = np.unstack(d[x], axis=axis)


@adjoint(np.lib.stride_tricks.sliding_window_view)
def sliding_window_view(y, x, window_shape, axis=None, *, subok=False):
    d[x] = window_adjoint(d[y], x, window_shape, axis)


@tangent(np.lib.stride_tricks.sliding_window_view)
def sliding_window_view(y, x, window_shape, axis=None, *, subok=False):
    d[y] = np.lib.stride_tricks.sliding_window_view(d[x], window_shape, axis)


# select: each entry comes from the first choice whose condition holds, else from default
@adjoint(np.select)
def select(y, condlist, choicelist, default=0):
    d[choicelist] = select_pieces(d[y], condlist, choicelist)
    d[default] = select_rest(d[y], condlist, default)


@tangent(np.select)
def select(y, condlist, choicelist, default=0):
    d[y] = np.select(condlist, d[choicelist], d[default])


# full, full_like: the fill value broadcast (rounded away, derivative 0, into an integer dtype)
@adjoint(np.full)
def full(y, shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    d[fill_value] = unbroadcast(through_cast(d[y], y), fill_value)


@tangent(np.full)
def full(y, shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    d[y] = through_cast(np.full(np.shape(y), d[fill_value]), y)


@adjoint(np.full_like)
def full_like(y, a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    d[fill_value] = unbroadcast(through_cast(d[y], y), fill_value)


@tangent(np.full_like)
def full_like(y, a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    d[y] = through_cast(np.full(np.shape(y), d[fill_value]), y)


# unwrap adds multiples of period, piecewise constant in p: y - p = K period, K integer
@adjoint(np.unwrap)
def unwrap(y, p, discont=None, axis=-1, *, period=6.283185307179586):
    d[p] = d[y]
    d[period] = unbroadcast(d[y] * np.round((y - p) / period), period)


@tangent(np.unwrap)
def unwrap(y, p, discont=None, axis=-1, *, period=6.283185307179586):
    d[y] = d[p] + d[period] * np.round((y - p) / period)
