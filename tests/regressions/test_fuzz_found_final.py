"""Mechanisms the fuzzer found in its last batches.

- A name bound on both arms of an `if` counted as maybe unbound, so a later branch's zero for
  its adjoint was the number 0.0, which reached a parameter's gradient (shape () for (3,)).
  Names bound on every path are surely bound; a 0.0 reaching as_gradient becomes zeros.
- A parameter bound again in a loop (`for a, b in zip(b, b)`) was not restored for the return
  (`zero_gradient(a)` read the loop's last value): what the return reads counts as read.
- Forward mode over generated code: a loop counter that reaches values with tangents had none
  (None from `i = None`, the placeholder of a saved value); now its tangent is 0.
- A ufunc of a list (np.sin(rows)): the list of tangents met arithmetic (-[da] failed;
  [da] * 2 would repeat the list); it becomes an array first, as the list does.
"""
import numpy as np
import pytest

import srcad

from .numeric import central_gradient


def bound_on_both_arms(x, y):
    if x[1] > 0.248:
        t1 = x * 2.0
    else:
        t1 = x
    if y[0] >= -0.466:
        t3 = y[1]
    else:
        t3 = np.sum(t1)
    return t3


def parameter_bound_in_a_helper_loop(A, B):
    return np.sum(_zip_over(A[0, 0], B))


def _zip_over(a, b):
    for a, b in zip(b, b):
        pass
    return b * 2.0


def stacked_then_counted(A, m):
    rows1 = []
    for i in range(m):
        rows1.append((1.2 - A) * i)
    t1 = np.stack(rows1)
    for i in range(3):
        pass
    return np.sum(t1 * t1)


def ufunc_of_a_list(A):
    rows = [A, A * 2.0]
    return np.sum(np.sin(rows) * np.negative(rows) * 3.0)


@pytest.mark.parametrize("func, args", [
    (bound_on_both_arms, (np.array([0.2, 0.3, -0.2]), np.array([1.0, 2.0]))),
    (parameter_bound_in_a_helper_loop, (np.array([[-1.4]]), np.array([[-0.7], [0.4]]))),
    (stacked_then_counted, (np.array([[-1.2, 0.3]]), 3)),
    (ufunc_of_a_list, (np.array([[0.26, -0.4]]),))])
def test_programs(func, args):
    positions = tuple(i for i, a in enumerate(args) if isinstance(a, np.ndarray))
    for disable in (None, "all"):
        got = srcad.grad(func, wrt=positions, disable=disable)(*args)
        for i, g in zip(positions, got):
            assert np.shape(g) == np.shape(args[i])
            np.testing.assert_allclose(g, central_gradient(func, args, i), rtol=1e-6,
                                       atol=1e-9)
    srcad.check_grads(func, args, wrt=positions, order=2)
