"""NumPy sorting and order statistics: sort, median, nanmedian, quantile, percentile.

The derivative follows the permutation of a stable argsort; where entries tie (there the
function is not differentiable) the tied sorted values share the derivative evenly, as max/min
do (the central-difference derivative). NaN entries of nanmedian are constants.
"""
import numpy as np

from srcad.rules.registry import adjoint, d, non_differentiable, tangent
from srcad.runtime import helper, unreduce

from .numpy_reductions import from_lanes, to_lanes


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


# their adjoints: sharing among ties is symmetric, and gather and scatter transpose each other
@adjoint(tie_mean, broadcasts=True)
def tie_mean_adjoint(z, v, s):
    d[v] = tie_mean(d[z], s)


@adjoint(sort_gather)
def sort_gather_adjoint(z, da, a, axis=-1):
    d[da] = sort_scatter(d[z], a, axis)


@adjoint(sort_scatter)
def sort_scatter_adjoint(z, g, a, axis=-1):
    d[g] = sort_gather(d[z], a, axis)


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


# nanmedian: the median of the non-NaN entries of each lane
@adjoint(np.nanmedian)
def nanmedian(y, a, axis=None, out=None, overwrite_input=False, keepdims=False):
    d[a] = unreduce(d[y], a, axis, keepdims) * median_weights(a, axis, True)


@tangent(np.nanmedian)
def nanmedian(y, a, axis=None, out=None, overwrite_input=False, keepdims=False):
    d[y] = np.sum(d[a] * median_weights(a, axis, True), axis=axis, keepdims=keepdims)


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


non_differentiable(median_weights)


# ---------------------------------------------------------------------------------------------
# quantile and percentile: for the order of each lane, a weighted sum of two order statistics,
#   q-quantile = (1 - gamma) s[i] + gamma s[j]     (s sorted; i, j, gamma from q and the method)
# so dy = sum(w da) with w those weights put back where the sorted entries came from (tied
# values share theirs evenly, as median does). The methods' virtual index, as numpy defines it
# (Hyndman and Fan): linear (n - 1) q; the continuous ones n q + alpha + q (1 - alpha - beta) - 1;
# lower, higher and nearest round it (nearest to even, numpy's np.around), midpoint takes the
# mean of the two neighbours. The discrete ones that invert the CDF are refused (with numpy's
# weights=, which only they take).

@helper(linear=False)
def quantile_weights(a, q, axis=None, method="linear"):
    """d np.quantile(a, q, axis, method=method) / d a, for one number q in [0, 1], in a's
    layout: 1 - gamma and gamma on the two order statistics each lane's quantile interpolates
    (found by a stable argsort), shared evenly among tied values."""
    x = to_lanes(a, axis)
    n = x.shape[-1]
    if method == "linear":
        virtual = (n - 1) * q
    elif method in ("weibull", "hazen", "interpolated_inverted_cdf", "median_unbiased",
                    "normal_unbiased"):
        alpha, beta = {"weibull": (0.0, 0.0), "hazen": (0.5, 0.5),
                       "interpolated_inverted_cdf": (0.0, 1.0),
                       "median_unbiased": (1 / 3.0, 1 / 3.0),
                       "normal_unbiased": (3 / 8.0, 3 / 8.0)}[method]
        virtual = n * q + (alpha + q * (1 - alpha - beta)) - 1
    elif method in ("lower", "higher", "nearest", "midpoint"):
        exact = (n - 1) * q
        virtual = {"lower": np.floor(exact), "higher": np.ceil(exact),
                   "nearest": np.around(exact),
                   "midpoint": 0.5 * (np.floor(exact) + np.ceil(exact))}[method]
    else:
        raise ValueError(f"srcad differentiates np.quantile and np.percentile with the methods "
                         f"linear, lower, higher, nearest, midpoint, weibull, hazen, "
                         f"interpolated_inverted_cdf, median_unbiased and normal_unbiased, not "
                         f"method={method!r}")
    below = min(max(int(np.floor(virtual)), 0), n - 1)
    above = min(below + 1, n - 1)
    gamma = 0.0 if virtual < 0 or virtual >= n - 1 else float(virtual - np.floor(virtual))
    place = np.arange(n)
    w = (1.0 - gamma) * (place == below) + gamma * (place == above)
    order = np.argsort(x, axis=-1, kind="stable")
    w = tie_mean(np.broadcast_to(w, x.shape), np.take_along_axis(x, order, axis=-1))
    weights = np.zeros(x.shape)
    np.put_along_axis(weights, order, w, axis=-1)
    return from_lanes(weights, a, axis)


@helper(linear=False)
def quantile_levels(q, per=1.0, weights=None):
    """The quantile levels q / per (np.percentile's per cent: per = 100) as floats in q's shape;
    weighted quantiles (numpy's weights=) are refused."""
    if weights is not None:
        raise ValueError("srcad does not differentiate weighted quantiles (weights=)")
    return np.asarray(q, dtype=float) / per


@helper(tangent="linear")
def quantile_spread(g, a, q, axis=None, keepdims=False, method="linear"):
    """The adjoint of np.quantile(a, q, axis, keepdims=keepdims, method=method) (q the levels,
    quantile_levels): g, shaped like its value (q's axes first), spread over a's entries by each
    level's weights."""
    if np.ndim(q) == 0:
        return unreduce(g, a, axis, keepdims) * quantile_weights(a, float(q), axis, method)
    g = np.asarray(g)
    out = np.zeros(np.shape(a), dtype=np.result_type(g, float))
    for k in np.ndindex(np.shape(q)):
        out = out + unreduce(g[k], a, axis, keepdims) * quantile_weights(
            a, float(q[k]), axis, method)
    return out


@helper(tangent="linear")
def quantile_gather(da, a, q, axis=None, keepdims=False, method="linear"):
    """The tangent of np.quantile(a, q, axis, keepdims=keepdims, method=method): for each
    level, the sum of da by its weights (q's axes first)."""
    if np.ndim(q) == 0:
        return np.sum(da * quantile_weights(a, float(q), axis, method), axis=axis,
                      keepdims=keepdims)
    parts = [np.sum(da * quantile_weights(a, float(q[k]), axis, method), axis=axis,
                    keepdims=keepdims) for k in np.ndindex(np.shape(q))]
    return np.reshape(np.stack(parts), np.shape(q) + np.shape(parts[0]))


non_differentiable(quantile_weights, quantile_levels)


# gather and spread transpose each other (for reverse mode over generated code)
@adjoint(quantile_spread)
def quantile_spread_adjoint(z, g, a, q, axis=None, keepdims=False, method="linear"):
    d[g] = quantile_gather(d[z], a, q, axis, keepdims, method)


@adjoint(quantile_gather)
def quantile_gather_adjoint(z, da, a, q, axis=None, keepdims=False, method="linear"):
    d[da] = quantile_spread(d[z], a, q, axis, keepdims, method)


@adjoint(np.quantile)
def quantile(y, a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None):
    d[a] = quantile_spread(d[y], a, quantile_levels(q, 1.0, weights), axis, keepdims, method)


@tangent(np.quantile)
def quantile(y, a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None):
    d[y] = quantile_gather(d[a], a, quantile_levels(q, 1.0, weights), axis, keepdims, method)


@adjoint(np.percentile)
def percentile(y, a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None):
    d[a] = quantile_spread(d[y], a, quantile_levels(q, 100.0, weights), axis, keepdims, method)


@tangent(np.percentile)
def percentile(y, a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None):
    d[y] = quantile_gather(d[a], a, quantile_levels(q, 100.0, weights), axis, keepdims, method)
