"""y[idx] = v and y[idx] += v with an index array that names an entry twice: numpy keeps the
last value written there, so the earlier values reach nothing; the reverse pass gave each of
them the entry's adjoint (x[0] got y[0]'s adjoint though y[0] holds x[1]).

An array stored into itself (y[[0, 2, 0]] = y, fuzz seed 96391): the stored value's adjoint
went into y's own before the overwritten entries' were zeroed, and was zeroed with them."""
import numpy as np
import pytest

import srcad

from .numeric import central

IDX = np.array([0, 0, 1])


def add_at_repeats(x):
    y = np.zeros(2)
    y[IDX] += x
    return np.sum(y * y)


def store_at_repeats(x):
    y = np.zeros(2)
    y[IDX] = x
    return np.sum(y * y)


def rows_at_repeats(x):
    y = np.outer(x, x)
    y[np.array([2, 0, 2])] = y[np.array([0, 1, 1])] * x
    return np.sum(y * y)


def scalar_to_repeats(x):
    y = x * 2.0
    y[np.array([1, 1, 2, 1])] = x[0] * 3.0
    return np.sum(y * y * x)


def itself_at_repeats(x):
    y = x.copy()
    y[[0, 2, 0]] = y
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


def itself_at_an_index(x):
    y = x * 1.0
    y[1] = y[2]
    y[np.array([0, 2])] = y[:2]
    return np.sum(y * y)


@pytest.mark.parametrize("func", [add_at_repeats, store_at_repeats, rows_at_repeats,
                                  scalar_to_repeats, itself_at_repeats, itself_at_an_index])
@pytest.mark.parametrize("disable", [None, "all"])
def test_repeated_index_stores(func, disable):
    x = np.array([0.7, -1.3, 2.1])
    np.testing.assert_allclose(srcad.grad(func, disable=disable)(x), central(func, x),
                               rtol=1e-7, atol=1e-9)
    srcad.check_grads(func, (x,))
