"""NumPy's NaN-ignoring reductions: nansum, nanmean, nanmax, nanmin, nanprod, nanvar, nanstd.

NaN entries are constants: their derivative is exactly 0, written with np.where, not a product
with a mask, so a NaN cannot leak into the derivative of the other entries. Otherwise each
follows its reduction in numpy_reductions.py (ties of nanmax/nanmin share the derivative evenly;
nanprod divides by nothing; nanstd's derivative is 0 where it is 0).
"""
import numpy as np

from srcad.rules.registry import adjoint, d, tangent
from srcad.runtime import helper, unreduce

from .numpy_reductions import prod_of_others


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


# ---------------------------------------------------------------------------------------------
# sums and means (np.where, not a product, so a NaN in d[y] or d[a] cannot leak through them)

@adjoint(np.nansum)
def nansum(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[a] = np.where(np.isnan(a), 0.0, unreduce(d[y], a, axis, keepdims))


@tangent(np.nansum)
def nansum(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = np.sum(np.where(np.isnan(a), 0.0, d[a]), axis=axis, keepdims=keepdims)


@adjoint(np.nanmean)
def nanmean(y, a, axis=None, dtype=None, out=None, keepdims=False):
    count = np.sum(np.logical_not(np.isnan(a)), axis=axis, keepdims=keepdims)
    d[a] = np.where(np.isnan(a), 0.0, unreduce(d[y] / count, a, axis, keepdims))


@tangent(np.nanmean)
def nanmean(y, a, axis=None, dtype=None, out=None, keepdims=False):
    count = np.sum(np.logical_not(np.isnan(a)), axis=axis, keepdims=keepdims)
    d[y] = np.sum(np.where(np.isnan(a), 0.0, d[a]), axis=axis, keepdims=keepdims) / count


# ---------------------------------------------------------------------------------------------
# extrema, products, moments

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
