"""NumPy reductions: sum, mean, prod, max/min, var, std (axis None, int or tuple; keepdims).

The adjoint of a reduction spreads d[y] back over the reduced axes (unreduce); the tangent
reduces d[x] the same way the primal reduces x.
"""
import numpy as np

from srcad.registry import adjoint, d, tangent
from srcad.runtime import extremum_tangent, prod_of_others, unreduce, unreduce_extremum


@adjoint(np.sum)
def sum(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[a] = unreduce(d[y], a, axis, keepdims)


@tangent(np.sum)
def sum(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = np.sum(d[a], axis=axis, keepdims=keepdims)


@adjoint(np.mean)
def mean(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[a] = unreduce(d[y], a, axis, keepdims) * (np.size(y) / np.size(a))


@tangent(np.mean)
def mean(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = np.mean(d[a], axis=axis, keepdims=keepdims)


# prod: d/da_i = product of the other entries, computed without dividing by a_i (zeros are fine)
@adjoint(np.prod)
def prod(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[a] = unreduce(d[y], a, axis, keepdims) * prod_of_others(a, axis)


@tangent(np.prod)
def prod(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = np.sum(d[a] * prod_of_others(a, axis), axis=axis, keepdims=keepdims)


@adjoint(np.max, np.amax)
def max(y, a, axis=None, out=None, keepdims=False):
    d[a] = unreduce_extremum(d[y], a, y, axis, keepdims)


@tangent(np.max, np.amax)
def max(y, a, axis=None, out=None, keepdims=False):
    d[y] = extremum_tangent(d[a], a, y, axis, keepdims)


@adjoint(np.min, np.amin)
def min(y, a, axis=None, out=None, keepdims=False):
    d[a] = unreduce_extremum(d[y], a, y, axis, keepdims)


@tangent(np.min, np.amin)
def min(y, a, axis=None, out=None, keepdims=False):
    d[y] = extremum_tangent(d[a], a, y, axis, keepdims)


@adjoint(np.var)
def var(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[a] = unreduce(d[y], a, axis, keepdims) * (2.0 * (a - np.mean(a, axis=axis, keepdims=True))
                                               / (np.size(a) / np.size(y) - ddof))


@tangent(np.var)
def var(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[y] = np.sum(d[a] * (a - np.mean(a, axis=axis, keepdims=True)), axis=axis,
                  keepdims=keepdims) * (2.0 / (np.size(a) / np.size(y) - ddof))


@adjoint(np.std)
def std(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[a] = unreduce(d[y] / y, a, axis, keepdims) * ((a - np.mean(a, axis=axis, keepdims=True))
                                                    / (np.size(a) / np.size(y) - ddof))


@tangent(np.std)
def std(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[y] = np.sum(d[a] * (a - np.mean(a, axis=axis, keepdims=True)), axis=axis,
                  keepdims=keepdims) / (y * (np.size(a) / np.size(y) - ddof))
