"""Python's builtins on numbers: max and min of two values, abs, float, pow.

max/min of two values split the derivative evenly on ties, like np.maximum/np.minimum; max or
min over one iterable is refused by the template (the call does not match two operands).
"""
import builtins

import numpy as np

from srcad.registry import adjoint, d, tangent
from srcad.runtime import helper


@adjoint(builtins.max, name="builtins.max")
def max_(z, a, b):
    d[a] = d[z] * ((a > b) + 0.5 * (a == b))
    d[b] = d[z] * ((b > a) + 0.5 * (a == b))


@tangent(builtins.max, name="builtins.max")
def max_tangent(z, a, b):
    d[z] = d[a] * ((a > b) + 0.5 * (a == b)) + d[b] * ((b > a) + 0.5 * (a == b))


@adjoint(builtins.min, name="builtins.min")
def min_(z, a, b):
    d[a] = d[z] * ((a < b) + 0.5 * (a == b))
    d[b] = d[z] * ((b < a) + 0.5 * (a == b))


@tangent(builtins.min, name="builtins.min")
def min_tangent(z, a, b):
    d[z] = d[a] * ((a < b) + 0.5 * (a == b)) + d[b] * ((b < a) + 0.5 * (a == b))


# |x|: subgradient 0 at the kink, as np.abs
@adjoint(builtins.abs, name="builtins.abs")
def abs_(y, x):
    d[x] = d[y] * np.sign(x)


@tangent(builtins.abs, name="builtins.abs")
def abs_tangent(y, x):
    d[y] = d[x] * np.sign(x)


@adjoint(builtins.float, name="builtins.float")
def float_(y, x=0.0):
    d[x] = d[y]


@tangent(builtins.float, name="builtins.float")
def float_tangent(y, x=0.0):
    d[y] = float(d[x])


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

