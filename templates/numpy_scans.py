"""NumPy's scans: cumsum, cumprod, their NaN-ignoring forms nancumsum and nancumprod, and the array
API's cumulative_sum and cumulative_prod (axis None: over the flattened array).

Each works on lanes, the scanned axis moved last (to_lanes, from_lanes in numpy_reductions.py).
cumsum is linear: its adjoint is the cumulative sum from the end. cumprod's derivatives are
linear recurrences (linear_scan), with no division, so inputs with zeros get exact derivatives
of every order. NaN entries of the nan-forms are constants: their derivative is exactly 0.
"""
import numpy as np

from srcad.rules.registry import adjoint, d, linear, tangent
from srcad.runtime import helper

from .numpy_reductions import exclusive_cumprod, from_lanes, linear_scan, shift_along, to_lanes


# ---------------------------------------------------------------------------------------------
# runtime helpers

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


# ---------------------------------------------------------------------------------------------
# cumsum, cumprod

# cumsum: the adjoint is the cumulative sum from the end
@linear(np.cumsum, keywords=("axis",))
def cumsum(y, a, axis=None, dtype=None, out=None):
    d[a] = from_lanes(np.flip(np.cumsum(np.flip(to_lanes(d[y], axis), -1), -1), -1), a, axis)


# cumprod: y_i = a_i y_{i-1}, so dy_i = da_i prod_{j<i} a_j + a_i dy_{i-1} (a linear recurrence),
# and its transpose: bar a_j = prod_{k<j} a_k * sum_{i>=j} bar y_i prod_{j<k<=i} a_k
@adjoint(np.cumprod)
def cumprod(y, a, axis=None, dtype=None, out=None):
    x = to_lanes(a, axis)
    d[a] = from_lanes(exclusive_cumprod(x, False)
                      * linear_scan(to_lanes(d[y], axis), shift_along(x, True), True), a, axis)


@tangent(np.cumprod)
def cumprod(y, a, axis=None, dtype=None, out=None):
    x = to_lanes(a, axis)
    d[y] = from_lanes(linear_scan(to_lanes(d[a], axis) * exclusive_cumprod(x, False), x, False),
                      y, axis)


# ---------------------------------------------------------------------------------------------
# nancumsum, nancumprod: NaN entries are constants (np.where, not a product with a mask)

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
@linear(np.cumulative_sum)
def cumulative_sum(y, x, *, axis=None, dtype=None, include_initial=False):
    d[x] = from_lanes(reverse_cumsum(to_lanes(scan_drop_initial(d[y], axis, include_initial),
                                              axis), -1), x, axis)


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
