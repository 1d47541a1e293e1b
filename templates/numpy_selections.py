"""NumPy's selections: maximum, minimum, fmax, fmin, where, clip and nan_to_num, whose value is one
of their operands (or a replacement value) entry by entry, so each entry's derivative is that
operand's.

Conventions (docs/numerics.md):
- ties split the derivative evenly: maximum/minimum/fmax/fmin give each tied operand half;
- clip passes the derivative to `a` where a_min <= a <= a_max (the bounds included);
- the untaken operand gets an exact 0 (np.where, not a product with a mask, so an inf or nan on
  the untaken side cannot leak).
"""
import numpy as np

from srcad.rules.registry import adjoint, d, linear, non_differentiable, tangent
from srcad.runtime import helper, selection_share, tie_mask


@helper(linear=False)
def clip_limit(limit, keyword, default):
    """The bound np.clip applies: a_min (a_max), else its keyword spelling min (max), else the
    default -inf (inf) when the call gives neither."""
    if limit is not None:
        return limit
    return keyword if keyword is not None else default


non_differentiable(clip_limit)  # a bound only ever feeds comparisons
non_differentiable(tie_mask)  # a mask


# maximum/minimum: ties share the derivative evenly (each operand gets half). x's share of the
# adjoint is d[z] where x wins, half of it on a tie, an exact 0 elsewhere; y gets the rest (all of
# it where an operand is nan): selection_share computes np.where(tied, 0.5 * d[z], np.where(wins,
# d[z], 0.0)), without the tie pass when tie_mask finds nothing tied.

@adjoint(np.maximum, broadcasts=True)
def maximum(z, x, y):
    wins = x > y
    tied = tie_mask(x, y)
    d[x] = selection_share(d[z], wins, tied)
    d[y] = selection_share(d[z], wins, tied, True)


@tangent(np.maximum, broadcasts=True)
def maximum(z, x, y):
    d[z] = np.where(x == y, 0.5 * (d[x] + d[y]), np.where(x > y, d[x], d[y]))


@adjoint(np.minimum, broadcasts=True)
def minimum(z, x, y):
    wins = x < y
    tied = tie_mask(x, y)
    d[x] = selection_share(d[z], wins, tied)
    d[y] = selection_share(d[z], wins, tied, True)


@tangent(np.minimum, broadcasts=True)
def minimum(z, x, y):
    d[z] = np.where(x == y, 0.5 * (d[x] + d[y]), np.where(x < y, d[x], d[y]))


# fmax/fmin: as maximum/minimum, except that a nan operand loses to a number
@adjoint(np.fmax, broadcasts=True)
def fmax(z, x, y):
    wins = (x > y) | np.isnan(y)
    tied = tie_mask(x, y)
    d[x] = selection_share(d[z], wins, tied)
    d[y] = selection_share(d[z], wins, tied, True)


@tangent(np.fmax, broadcasts=True)
def fmax(z, x, y):
    d[z] = np.where(x == y, 0.5 * (d[x] + d[y]), np.where((x > y) | np.isnan(y), d[x], d[y]))


@adjoint(np.fmin, broadcasts=True)
def fmin(z, x, y):
    wins = (x < y) | np.isnan(y)
    tied = tie_mask(x, y)
    d[x] = selection_share(d[z], wins, tied)
    d[y] = selection_share(d[z], wins, tied, True)


@tangent(np.fmin, broadcasts=True)
def fmin(z, x, y):
    d[z] = np.where(x == y, 0.5 * (d[x] + d[y]), np.where((x < y) | np.isnan(y), d[x], d[y]))


# where: the untaken branch gets an exact zero (np.where, not a product, so an inf or nan in
# the untaken branch's adjoint cannot leak into the taken one)
@linear(np.where, broadcasts=True)
def where(z, condition, x, y):
    d[x] = np.where(condition, d[z], 0.0)
    d[y] = np.where(condition, 0.0, d[z])


# clip(a, lo, hi) = minimum(maximum(a, lo), hi): `a` gets the derivative where lo <= a <= hi
# (the bounds included), lo where a < lo <= hi, hi where max(a, lo) > hi. A bound may be None,
# an array (broadcast against a) or given by keyword (min=, max=).
@adjoint(np.clip, broadcasts=True)
def clip(y, a, a_min=None, a_max=None, out=None, *, min=None, max=None):
    lo = clip_limit(a_min, min, -np.inf)
    hi = clip_limit(a_max, max, np.inf)
    below = (a < lo) & (lo <= hi)
    above = np.maximum(a, lo) > hi
    d[a] = np.where(below | above, 0.0, d[y])
    d[a_min] = np.where(below, d[y], 0.0)
    d[min] = np.where(below, d[y], 0.0)
    d[a_max] = np.where(above, d[y], 0.0)
    d[max] = np.where(above, d[y], 0.0)


@tangent(np.clip, broadcasts=True)
def clip(y, a, a_min=None, a_max=None, out=None, *, min=None, max=None):
    lo = clip_limit(a_min, min, -np.inf)
    hi = clip_limit(a_max, max, np.inf)
    below = (a < lo) & (lo <= hi)
    above = np.maximum(a, lo) > hi
    d[y] = np.where(above, d[a_max] + d[max], np.where(below, d[a_min] + d[min], d[a]))


# nan_to_num: the derivative passes where x is finite; the replaced entries take the slope of
# their replacement value (nan=, posinf=, neginf= may be differentiated too)
@adjoint(np.nan_to_num, broadcasts=True)
def nan_to_num(y, x, copy=True, nan=0.0, posinf=None, neginf=None):
    d[x] = np.where(np.isfinite(x), d[y], 0.0)
    d[nan] = np.where(np.isnan(x), d[y], 0.0)
    d[posinf] = np.where(x == np.inf, d[y], 0.0)
    d[neginf] = np.where(x == -np.inf, d[y], 0.0)


@tangent(np.nan_to_num, broadcasts=True)
def nan_to_num(y, x, copy=True, nan=0.0, posinf=None, neginf=None):
    d[y] = np.where(np.isfinite(x), d[x], np.where(np.isnan(x), d[nan], np.where(
        x > 0, d[posinf], d[neginf])))
