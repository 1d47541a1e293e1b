"""Python's builtins on numbers: max and min of two values, abs, float, pow.

max/min of two values split the derivative evenly on ties, like np.maximum/np.minimum; max or
min over one iterable is refused by the template (the call does not match two operands).
"""
import builtins

import numpy as np

from srcad.rules.registry import adjoint, d, linear, non_differentiable, tangent
from srcad.runtime import helper


@helper(linear=False)
def above_weight(a, b):
    """(a > b) + 0.5 * (a == b): a's share of the derivative of max(a, b) (b's of min(a, b)):
    1.0 above, 0.5 on a tie, 0.0 below or with a nan. The same value and type, without the
    bool arithmetic, which costs ~2 us on numpy scalars."""
    above = a > b
    if above is True:  # Python numbers
        return 1.0
    if above is False:
        return 0.5 if a == b else 0.0
    if type(above) is np.bool_:  # numpy scalars: a float64 weight, as the formula gives
        return np.float64(1.0 if above else 0.5 if a == b else 0.0)
    return above + 0.5 * (a == b)


non_differentiable(above_weight)


@adjoint(builtins.max, name="builtins.max")
def max_(z, a, b):
    d[a] = d[z] * above_weight(a, b)
    d[b] = d[z] * above_weight(b, a)


@tangent(builtins.max, name="builtins.max")
def max_tangent(z, a, b):
    d[z] = d[a] * above_weight(a, b) + d[b] * above_weight(b, a)


@adjoint(builtins.min, name="builtins.min")
def min_(z, a, b):
    d[a] = d[z] * above_weight(b, a)
    d[b] = d[z] * above_weight(a, b)


@tangent(builtins.min, name="builtins.min")
def min_tangent(z, a, b):
    d[z] = d[a] * above_weight(b, a) + d[b] * above_weight(a, b)


# |x|: subgradient 0 at the kink, as np.abs
@adjoint(builtins.abs, name="builtins.abs")
def abs_(y, x):
    d[x] = d[y] * np.sign(x)


@tangent(builtins.abs, name="builtins.abs")
def abs_tangent(y, x):
    d[y] = d[x] * np.sign(x)


@linear(builtins.float, name="builtins.float")
def float_(y, x=0.0):
    d[x] = d[y]


@adjoint(builtins.pow, name="builtins.pow")
def pow_(z, base, exp, mod=None):
    d[base] = d[z] * exp * base ** (exp - 1)
    d[exp] = d[z] * z * np.log(np.where(base > 0, base, 1))


@tangent(builtins.pow, name="builtins.pow")
def pow_tangent(z, base, exp, mod=None):
    d[z] = d[base] * exp * base ** (exp - 1) + d[exp] * z * np.log(np.where(base > 0, base, 1))


# sum(items, start): every item (an array's rows, or the items of a list or tuple) gets d[y]
@adjoint(builtins.sum, name="builtins.sum")
def sum_(y, iterable, start=0):
    d[iterable] = unsum(d[y], iterable)
    d[start] = d[y]


@tangent(builtins.sum, name="builtins.sum")
def sum_tangent(y, iterable, start=0):
    d[y] = sum(d[iterable]) + d[start]


@helper(tangent="linear")
def unsum(g, iterable):
    """The adjoint of sum(iterable): g for every item (an array's rows, or a sequence's items)."""
    if isinstance(iterable, np.ndarray):
        return np.broadcast_to(g, np.shape(iterable))
    return [g for _ in iterable]



# list(x), tuple(x): the rows of an array, or the items of a sequence, as a list or tuple
@linear(builtins.list, name="builtins.list")
def list_(y, iterable=()):
    d[iterable] = unlist(d[y], iterable)


@linear(builtins.tuple, name="builtins.tuple")
def tuple_(y, iterable=()):
    d[iterable] = unlist(d[y], iterable)


@helper(tangent="linear")
def unlist(g, iterable):
    """The adjoint of list(x) or tuple(x), given the items' adjoints g (None: zero): an array's
    rows stacked back, a sequence's items as a list."""
    if g is None:
        return None
    if isinstance(iterable, np.ndarray):
        rows = [np.zeros(np.shape(row), np.result_type(row, 0.0)) if item is None else item
                for item, row in zip(g, iterable)]
        return np.stack(rows) if rows else np.zeros(np.shape(iterable))
    return list(g)
