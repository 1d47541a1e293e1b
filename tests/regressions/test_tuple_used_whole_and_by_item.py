"""A tuple display read item by item (t[0]) and also whole (np.stack(t), tuple(t), f(*t))
gets item adjoints of its own (bt_0, bt_1) and an adjoint of the whole; the adjoint of the
display passed on the item adjoints and dropped the whole one: a silent wrong gradient (found
by docs/generate.py's check of `total(x, *both) + pair(*both)`). The whole adjoint's items,
zeros where it holds None, now reach the display's items too."""
import numpy as np
import pytest

import srcad

X = np.array([0.3, -1.2, 0.5])


def stacked_and_indexed(x):
    both = (x, x * 2.0)
    return np.sum(both[0] * both[1]) + np.sum(np.stack(both) ** 2)


def copied_and_indexed(x):
    both = (x, x * 2.0)
    t = tuple(both)
    return np.sum(both[0] * both[1]) + np.sum(t[1] ** 2)


def pair(a, b):
    return np.sum(a * b)


def total(*arrays):
    return sum(np.sum(a ** 2) for a in arrays)


def starred_twice(x):
    both = (x, x * 2.0)
    return total(x, *both) + pair(*both)


@pytest.mark.parametrize("func", [stacked_and_indexed, copied_and_indexed, starred_twice])
def test_tuple_used_whole_and_by_item(func):
    srcad.check_grads(func, (X,), order=2)
    np.testing.assert_allclose(srcad.grad(func, disable="specialize")(X), srcad.grad(func)(X),
                               rtol=1e-12)
