"""A copy of a list parameter (t = xs, or the holder of *rest, last = xs) read by two items
got their adjoints added with +, which joins lists: the gradient of a list of three arrays came
back with five items, the first two None (found by writing `*rest, last = xs` in an example).
Names that may hold anything (parameters, what helpers return, their copies and items) and are
read by item are added with add_adjoint in builds for any shapes, and a parameter whose copy's
adjoint is a list is returned in its structure (as_gradient)."""
import numpy as np
import pytest

import srcad

XS = [np.array([0.5, -1.0]), np.array([2.0, 0.3]), np.array([-0.7, 1.1])]
PAIRS = [(np.ones((2, 2)) * 0.3, np.array([0.1, -0.2])), (np.eye(2), np.array([0.4, 0.5]))]


def copy_read_by_items(xs):
    t = xs
    return np.sum(t[0] * t[1]) + np.sum(t[2] ** 2)


def starred_rest(xs):
    *rest, last = xs
    return np.sum(last ** 2) + sum(np.sum(np.sin(r)) for r in rest)


def starred_nested(pairs):
    *hidden, (W, b) = pairs
    return np.sum(W * 2.0) + np.sum(b ** 2) + sum(np.sum(V) * np.sum(c) for V, c in hidden)


@pytest.mark.parametrize("func, args", [(copy_read_by_items, (XS,)), (starred_rest, (XS,)),
                                        (starred_nested, (PAIRS,))])
def test_copies_of_list_parameters(func, args):
    srcad.check_grads(func, args, order=2)
    g = srcad.grad(func)(*args)
    assert type(g) is type(args[0]) and len(g) == len(args[0])
    assert all(type(gi) is type(ai) for gi, ai in zip(g, args[0]))
