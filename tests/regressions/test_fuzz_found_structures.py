"""Mechanisms the fuzzer found (tests/fuzz), each reduced to a few lines.

- A zero adjoint made in one branch of an `if` after a loop was the number 0.0 (the name was not
  "surely bound" before the first block), and unbroadcast could not reshape it: ValueError.
- A list display passed to a helper (h([a, b])) carried no derivative: a silent zero.
- Items appended to a list in a loop got their adjoint overwritten each turn, not added.
- The zero tangent or gradient of a list of arrays of two shapes (np.zeros_like of a list)
  failed; None, add_adjoint's zero, got a tangent that was not None.
- Forward mode: the tangent of t = a + y was rebroadcast(dy, t), the array dy itself; a later
  store into y changed it (hvp of y1[1:] += (A + y1).dot(x) was wrong).
"""
import numpy as np
import pytest

import srcad

from .numeric import central_gradient


def zero_in_a_branch_after_a_loop(x):
    for i in range(3):
        pass
    t1 = x[1] * x
    if x[i] > 0.17:
        return t1[i]
    return 1.0


def sum_items(xs):
    total = 0.0
    for v in xs:
        total = total + np.sum(v * v)
    return total


def list_display_to_a_helper(A, s):
    return sum_items([A, s * 2.0])


def last_of(xs):
    return xs[0]


def stack_appended_in_a_loop(A, n):
    rows = []
    for i in range(n):
        rows.append(A * (i + 1.0))
    return np.sum(np.stack(rows) ** 2)


def mixed_list_helper(A, x):
    t1 = sum_items([A, np.where(x > 0, x, 0.5 * x)])
    return t1 + np.sum(last_of([x, A]) ** 2)


def store_after_a_sum(A, x):
    y1 = x * 1.0
    y1[1:] += (A + y1).dot(x)
    return np.sum(y1 * y1)


@pytest.mark.parametrize("disable", [None, "all"])
def test_reverse_and_forward(disable):
    x = np.array([-0.9, -0.8, -0.4])
    A = np.array([[0.3, -1.2], [0.7, 0.4]])
    cases = [(zero_in_a_branch_after_a_loop, (x,), 0),
             (list_display_to_a_helper, (A, 0.7), 0), (list_display_to_a_helper, (A, 0.7), 1),
             (stack_appended_in_a_loop, (A, 3), 0),
             (mixed_list_helper, (A, x), 0), (mixed_list_helper, (A, x), 1),
             (store_after_a_sum, (np.array([[1.7]]), np.array([0.8, -1.0])), 1)]
    for func, args, i in cases:
        want = central_gradient(func, args, i)
        np.testing.assert_allclose(srcad.grad(func, wrt=i, disable=disable)(*args), want,
                                   rtol=1e-6, atol=1e-9, err_msg=func.__name__)
        v = np.ones(np.shape(args[i])) * 0.3
        np.testing.assert_allclose(srcad.jvp(func, wrt=i, disable=disable)(*args, v),
                                   np.sum(want * v), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("func, args, i", [
    (store_after_a_sum, (np.array([[1.7]]), np.array([0.8, -1.0])), 1),
    (mixed_list_helper, (np.array([[0.3, -1.2], [0.7, 0.4]]), np.array([-0.9, 0.8])), 1),
    (list_display_to_a_helper, (np.array([[0.3, -1.2]]), 0.7), 0)])
def test_hessian_vector_products(func, args, i):
    v = np.ones(np.shape(args[i])) * 0.7
    gradient = srcad.grad(func, wrt=i, disable="all")
    h = 1e-6
    a, b = list(args), list(args)
    a[i], b[i] = args[i] + h * v, args[i] - h * v
    want = (gradient(*a) - gradient(*b)) / (2 * h)
    for disable in (None, "all"):
        np.testing.assert_allclose(srcad.hvp(func, wrt=i, disable=disable)(*args, v), want,
                                   rtol=1e-6, atol=1e-9)


def unused_list(xs, x):
    return np.sum(x * x)


def test_the_zero_gradient_of_a_list_of_arrays_of_two_shapes():
    xs = [np.ones(2), np.ones((2, 3))]
    got = srcad.grad(unused_list)(xs, np.ones(3))
    assert isinstance(got, list) and [np.shape(g) for g in got] == [(2,), (2, 3)]
    assert all(not np.any(g) for g in got)
