"""Adjoints that are lists. `+` concatenates lists: the adjoint of a slice of a list passed to a
helper (for v in xs[1:]) was its zero list plus the items' adjoints, concatenated (a silent
zero). A helper whose parameter is bound again in a branch had that parameter set to None at
the head of its forward half (TypeError). list(x) and tuple(x) had no templates; the items of a
tuple display whose adjoint arrived whole could be None."""
import numpy as np
import pytest

import srcad

A = np.array([[0.5, -0.7], [-1.4, 1.1]])


def rest_sum(xs):
    for v in xs[1:]:
        rest = np.sum(v * v)
    return rest


def slice_of_a_list(A):
    return rest_sum([A, A * 2.0])


def squared_if(a, b):
    if a[0] < -0.9:
        b = b * b
    return b


def parameter_bound_in_a_branch(s, y):
    return np.sum(squared_if(y, s) * y)


def rows_as_a_list(A):
    rows = list(A)
    s = 0.0
    for r in rows[1:]:
        s = s + np.sum(r * r)
    return s + np.sum(rows[0]) * np.sum(np.stack(tuple(rows)))


def item_of_a_tuple(x, y):
    return np.sum(tuple([x, y * x])[1] * y)


@pytest.mark.parametrize("func, args, wrt", [
    (slice_of_a_list, (A,), 0), (parameter_bound_in_a_branch, (-1.1, np.array([-1.4, 0.2])), 0),
    (parameter_bound_in_a_branch, (-1.1, np.array([-1.4, 0.2])), 1), (rows_as_a_list, (A,), 0),
    (item_of_a_tuple, (np.array([0.5, 1.0]), np.array([2.0, 3.0])), (0, 1))])
def test_sequence_adjoints(func, args, wrt):
    srcad.check_grads(func, args, wrt=wrt)
    for disable in (None, "all"):
        got = srcad.grad(func, wrt=wrt, disable=disable)(*args)
        want = srcad.grad(func, wrt=wrt, disable="all")(*args)
        np.testing.assert_allclose(np.concatenate([np.ravel(g) for g in np.atleast_1d(got)])
                                   if isinstance(got, tuple) else got,
                                   np.concatenate([np.ravel(g) for g in want])
                                   if isinstance(want, tuple) else want, rtol=1e-12)
