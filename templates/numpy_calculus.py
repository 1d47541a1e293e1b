"""NumPy differences and integrals: diff, ediff1d, trapezoid, unwrap.

All are linear in each operand but trapezoid's x and y (bilinear); unwrap adds multiples of its
period, piecewise constant in p.
"""
import numpy as np

from srcad.rules.registry import adjoint, d, non_differentiable, tangent
from srcad.runtime import helper, unbroadcast


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


# unwrap adds multiples of period, piecewise constant in p: y - p = K period, K integer
@adjoint(np.unwrap)
def unwrap(y, p, discont=None, axis=-1, *, period=6.283185307179586):
    d[p] = d[y]
    d[period] = unbroadcast(d[y] * np.round((y - p) / period), period)


@tangent(np.unwrap)
def unwrap(y, p, discont=None, axis=-1, *, period=6.283185307179586):
    d[y] = d[p] + d[period] * np.round((y - p) / period)


non_differentiable(diff_length)
