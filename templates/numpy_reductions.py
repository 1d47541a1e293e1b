"""NumPy's reductions: sum, mean, average, prod, max/min (amax/amin), ptp, var, std, trace (axis
None, int, negative int or tuple; keepdims), and the helpers that lay out the reduced axes as
lanes and run products and linear recurrences along them (numpy_scans.py builds the scans from
them too; numpy_nan_reductions.py has the NaN-ignoring reductions).

The adjoint of a reduction spreads d[y] back over the reduced axes (unreduce); the tangent
reduces d[x] the same way the primal reduces x (written by the registry for sum, mean and
trace, declared @linear).

Conventions (docs/numerics.md):
- max/min/ptp: ties share the derivative evenly (the mean of the tied entries' derivatives).
- prod: no division anywhere, so inputs with zeros get exact derivatives. It is built from the
  helpers below: products of the entries before (or after) each entry (exclusive_cumprod) and
  the linear recurrence h_i = g_i + b_i h_{i-1} (linear_scan), whose derivatives are again such
  recurrences, so derivatives of every order stay exact.
- std: where the standard deviation is 0 (a constant lane) std is not differentiable; srcad
  returns 0 there, the smallest subgradient of this convex function (as abs does at 0).
"""
import numpy as np

from srcad.rules.registry import adjoint, d, linear, tangent
from srcad.runtime import (array_like, extremum_tangent, helper, size_of, unreduce,
                           unreduce_extremum)


# ---------------------------------------------------------------------------------------------
# runtime helpers: lanes (the reduced axes merged into one last axis) and scans along them

@helper(tangent="linear")
def to_lanes(x, axis=None):
    """x with the axes in `axis` (None: all of them) moved to the end and merged into one."""
    x = x if array_like(x) else np.asarray(x)  # (a dask or CuPy array stays one)
    if axis is None or x.ndim == 0:  # (numpy reduces a 0-d x along axis 0 too: one lane)
        return np.reshape(x, (-1,))
    axes = [ax % x.ndim for ax in ((axis,) if np.ndim(axis) == 0 else tuple(axis))]
    rest = [ax for ax in range(x.ndim) if ax not in axes]
    moved = np.transpose(x, rest + axes)
    return np.reshape(moved, moved.shape[:len(rest)] + (-1,))


@helper(tangent="linear")
def from_lanes(g, x, axis=None):
    """The inverse of to_lanes(x, axis): g, laid out as lanes of x, back in x's layout."""
    shape = np.shape(x)
    if axis is None or not shape:
        return np.reshape(g, shape)
    axes = [ax % len(shape) for ax in ((axis,) if np.ndim(axis) == 0 else tuple(axis))]
    rest = [ax for ax in range(len(shape)) if ax not in axes]
    moved = np.reshape(g, tuple(shape[ax] for ax in rest + axes))
    return np.transpose(moved, tuple(int(i) for i in np.argsort(rest + axes)))


@helper(tangent="linear")
def shift_along(x, reverse=False):
    """x shifted one place along the last axis: x_{i-1} at i, 0 at the start (reverse: x_{i+1}
    at i, 0 at the end)."""
    x = x if array_like(x) else np.asarray(x)
    zero = np.zeros_like(x[..., :1])
    if reverse:
        return np.concatenate([x[..., 1:], zero], axis=-1)
    return np.concatenate([zero, x[..., :-1]], axis=-1)


@helper
def linear_scan(g, b, reverse=False):
    """h with h_i = g_i + b_i h_{i-1} along the last axis, h_0 = g_0 (reverse: h_i = g_i +
    b_i h_{i+1}). By recursive doubling: log2(n) vectorized steps, no division."""
    if reverse:
        return np.flip(linear_scan(np.flip(g, -1), np.flip(b, -1)), -1)
    if array_like(g) or array_like(b):  # a dask or CuPy array: the same steps, not in place
        dtype = np.result_type(g, b, 0.0)
        h = g.astype(dtype) if array_like(g) else np.asarray(g, dtype=dtype)
        b = np.broadcast_to(b, np.shape(h)).astype(dtype)
        step = 1
        while step < np.shape(h)[-1]:
            h = np.concatenate([h[..., :step], h[..., step:] + b[..., step:] * h[..., :-step]], -1)
            b = np.concatenate([b[..., :step], b[..., step:] * b[..., :-step]], -1)
            step *= 2
        return h
    h = np.array(g, dtype=np.result_type(g, b, 0.0))
    b = np.array(np.broadcast_to(b, h.shape), dtype=h.dtype)
    step = 1
    while step < h.shape[-1]:
        # h_i now sums the last `step` terms; add the `step` terms before them
        h[..., step:] = h[..., step:] + b[..., step:] * h[..., :-step]
        b[..., step:] = b[..., step:] * b[..., :-step]
        step *= 2
    return h


@helper(linear=False)
def exclusive_cumprod(x, reverse=False):
    """The product of the entries before each entry along the last axis (reverse: after it);
    1 for the first (last) entry."""
    x = x if array_like(x) else np.asarray(x)
    if reverse:
        return np.flip(exclusive_cumprod(np.flip(x, -1)), -1)
    return np.cumprod(np.concatenate([np.ones_like(x[..., :1]), x[..., :-1]], axis=-1), axis=-1)


@helper(linear=False)
def prod_of_others(a, axis=None):
    """For each entry of a, the product of the other entries along axis (None: all), as the
    product of the entries before it times those after it: no division, so zeros are exact."""
    x = to_lanes(a, axis)
    return from_lanes(exclusive_cumprod(x) * exclusive_cumprod(x, True), a, axis)


@helper(tangent="linear")
def expand_weights(w, a, axis=None):
    """The weights of np.average(a, axis, weights=w) laid out like a (numpy's rule: w has a's
    shape, or the shape of a along the axes in `axis`); None means equal weights."""
    shape = np.shape(a)
    if w is None:
        return np.ones(shape)
    if np.shape(w) == shape:
        return w
    axes = [ax % len(shape) for ax in ((axis,) if np.ndim(axis) == 0 else tuple(axis))]
    w = np.reshape(np.transpose(w, np.argsort(axes)),
                   tuple(n if i in axes else 1 for i, n in enumerate(shape)))
    return np.broadcast_to(w, shape)


@helper(tangent="linear")
def unexpand_weights(g, w, a, axis=None):
    """The adjoint of expand_weights: g (shaped like a) summed back to the shape of w."""
    shape = np.shape(a)
    if np.shape(w) == shape:
        return g
    axes = [ax % len(shape) for ax in ((axis,) if np.ndim(axis) == 0 else tuple(axis))]
    rest = tuple(i for i in range(len(shape)) if i not in axes)
    g = np.reshape(np.sum(g, axis=rest), tuple(shape[ax] for ax in sorted(axes)))
    return np.transpose(g, np.argsort(np.argsort(axes)))


@helper(tangent="linear")
def undiagonal(g, a, offset=0, axis1=0, axis2=1):
    """The adjoint of np.diagonal(a, offset, axis1, axis2): zeros shaped like a with g (its last
    axis running along the diagonal, or of length 1 to fill the whole diagonal) on it."""
    shape = np.shape(a)
    ax1, ax2 = axis1 % len(shape), axis2 % len(shape)
    rest = tuple(n for i, n in enumerate(shape) if i not in (ax1, ax2))
    first_row, first_col = max(-offset, 0), max(offset, 0)
    length = max(0, min(shape[ax1] - first_row, shape[ax2] - first_col))
    if array_like(g):  # a dask or CuPy array: g along the rows, kept on the diagonal by np.where
        g = np.broadcast_to(g, rest + (length,))  # (dask stores take one index array, not two)
        rows = [np.zeros_like(g, shape=rest + (first_row,)), g,
                np.zeros_like(g, shape=rest + (shape[ax1] - first_row - length,))]
        on = np.asarray(np.eye(shape[ax1], shape[ax2], offset, dtype=bool), like=g)
        out = np.where(on, np.concatenate(rows, axis=-1)[..., None], 0.0)
        return np.moveaxis(out.astype(np.result_type(g, 0.0)), (-2, -1), (ax1, ax2))
    out = np.zeros(rest + (shape[ax1], shape[ax2]), dtype=np.result_type(g, 0.0))
    k = np.arange(length)
    out[..., k + first_row, k + first_col] = g
    return np.moveaxis(out, (-2, -1), (ax1, ax2))


# tangents of the helpers (so generated gradients can be differentiated again) ------------------

@tangent(linear_scan)
def linear_scan_tangent(h, g, b, reverse=False):
    # dh_i = dg_i + db_i h_{i-1} + b_i dh_{i-1}: the same recurrence, driven by dg + db h_{i-1}
    d[h] = linear_scan(d[g] + d[b] * shift_along(h, reverse), b, reverse)


@tangent(exclusive_cumprod)
def exclusive_cumprod_tangent(e, x, reverse=False):
    # e_i = x_{i-1} e_{i-1}, so de_i = dx_{i-1} e_{i-1} + x_{i-1} de_{i-1}
    d[e] = linear_scan(shift_along(d[x] * e, reverse), shift_along(x, reverse), reverse)


@tangent(prod_of_others)
def prod_of_others_tangent(p, a, axis=None):
    # in lanes p = left * right (the products before and after each entry); d(left) and
    # d(right) as in exclusive_cumprod_tangent
    x = to_lanes(a, axis)
    left = exclusive_cumprod(x, False)
    right = exclusive_cumprod(x, True)
    d[p] = from_lanes(
        linear_scan(shift_along(to_lanes(d[a], axis) * left, False), shift_along(x, False),
                    False) * right
        + left * linear_scan(shift_along(to_lanes(d[a], axis) * right, True),
                             shift_along(x, True), True), a, axis)


# ---------------------------------------------------------------------------------------------
# sums and means

@linear(np.sum, keywords=("axis",))
def sum_(y, a, axis=None, dtype=None, out=None, keepdims=False):
    if axis is None and not keepdims and np.size(a) <= 4096:  # small, shape known: fill
        d[a] = np.full(np.shape(a), d[y])
    elif axis is None and not keepdims:  # the sum of everything: d[y] broadcast back
        d[a] = np.broadcast_to(d[y], np.shape(a))
    else:
        d[a] = unreduce(d[y], a, axis, keepdims)


@linear(np.mean, keywords=("axis",))
def mean(y, a, axis=None, dtype=None, out=None, keepdims=False):
    if axis is None and not keepdims and np.size(a) <= 4096:
        d[a] = np.full(np.shape(a), d[y] / size_of(a))
    elif axis is None and not keepdims:
        d[a] = np.broadcast_to(d[y] / size_of(a), np.shape(a))
    else:
        d[a] = unreduce(d[y], a, axis, keepdims) * (size_of(y) / size_of(a))


# y = sum(a w) / sum(w) over axis: dy = sum(da w + (a - y) dw) / sum(w)
@adjoint(np.average)
def average(y, a, axis=None, weights=None, *, keepdims=False):
    w = expand_weights(weights, a, axis)
    share = unreduce(d[y] / np.sum(w, axis=axis, keepdims=keepdims), a, axis, keepdims)
    d[a] = share * w
    d[weights] = unexpand_weights(share * (a - unreduce(y, a, axis, keepdims)), weights, a,
                                  axis)


@tangent(np.average)
def average(y, a, axis=None, weights=None, *, keepdims=False):
    w = expand_weights(weights, a, axis)
    d[y] = (np.sum(d[a] * w, axis=axis, keepdims=keepdims)
            + np.sum(expand_weights(d[weights], a, axis) * (a - unreduce(y, a, axis, keepdims)),
                     axis=axis, keepdims=keepdims)) / np.sum(w, axis=axis, keepdims=keepdims)


# ---------------------------------------------------------------------------------------------
# products: dy/da_i = product of the other entries, computed without dividing by a_i

@adjoint(np.prod)
def prod(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[a] = unreduce(d[y], a, axis, keepdims) * prod_of_others(a, axis)


@tangent(np.prod)
def prod(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = np.sum(d[a] * prod_of_others(a, axis), axis=axis, keepdims=keepdims)


# ---------------------------------------------------------------------------------------------
# extrema: the derivative goes to the entries equal to the extremum, shared evenly on ties

@adjoint(np.max, np.amax)
def max_(y, a, axis=None, out=None, keepdims=False):
    d[a] = unreduce_extremum(d[y], a, y, axis, keepdims)


@tangent(np.max, np.amax)
def max_(y, a, axis=None, out=None, keepdims=False):
    d[y] = extremum_tangent(d[a], a, y, axis, keepdims)


@adjoint(np.min, np.amin)
def min_(y, a, axis=None, out=None, keepdims=False):
    d[a] = unreduce_extremum(d[y], a, y, axis, keepdims)


@tangent(np.min, np.amin)
def min_(y, a, axis=None, out=None, keepdims=False):
    d[y] = extremum_tangent(d[a], a, y, axis, keepdims)


# ptp = max - min
@adjoint(np.ptp)
def ptp(y, a, axis=None, out=None, keepdims=False):
    top = np.max(a, axis=axis, keepdims=keepdims)
    bottom = np.min(a, axis=axis, keepdims=keepdims)
    d[a] = (unreduce_extremum(d[y], a, top, axis, keepdims)
            - unreduce_extremum(d[y], a, bottom, axis, keepdims))


@tangent(np.ptp)
def ptp(y, a, axis=None, out=None, keepdims=False):
    top = np.max(a, axis=axis, keepdims=keepdims)
    bottom = np.min(a, axis=axis, keepdims=keepdims)
    d[y] = (extremum_tangent(d[a], a, top, axis, keepdims)
            - extremum_tangent(d[a], a, bottom, axis, keepdims))


# ---------------------------------------------------------------------------------------------
# moments: var = sum((a - mean)^2) / (n - ddof), n the number of entries reduced per result

@adjoint(np.var)
def var(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[a] = unreduce(d[y], a, axis, keepdims) * (2.0 * (a - np.mean(a, axis=axis, keepdims=True))
                                               / (size_of(a) / size_of(y) - ddof))


@tangent(np.var)
def var(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[y] = np.sum(d[a] * (a - np.mean(a, axis=axis, keepdims=True)), axis=axis,
                  keepdims=keepdims) * (2.0 / (size_of(a) / size_of(y) - ddof))


# std = sqrt(var): d std = d var / (2 std); where std == 0 (a constant lane) 1/std is taken as 0
@adjoint(np.std)
def std(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    inverse = np.where(y == 0, 0.0, 1.0 / np.where(y == 0, 1.0, y))
    d[a] = unreduce(d[y] * inverse, a, axis, keepdims) * (
        (a - np.mean(a, axis=axis, keepdims=True)) / (size_of(a) / size_of(y) - ddof))


@tangent(np.std)
def std(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    inverse = np.where(y == 0, 0.0, 1.0 / np.where(y == 0, 1.0, y))
    d[y] = np.sum(d[a] * (a - np.mean(a, axis=axis, keepdims=True)), axis=axis,
                  keepdims=keepdims) * (inverse / (size_of(a) / size_of(y) - ddof))


# ---------------------------------------------------------------------------------------------
# trace: the sum of a diagonal

@linear(np.trace)
def trace(y, a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    d[a] = undiagonal(np.expand_dims(d[y], -1), a, offset, axis1, axis2)
