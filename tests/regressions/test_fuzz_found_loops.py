"""Mechanisms the fuzzer found in loops and reductions.

- A loop counter also bound elsewhere (an unrolled `for i, row in enumerate(A)` then a kept
  `for i in range(3)`): the adjoint of `row = A[i]` read i after the second loop had changed it
  (IndexError, or the wrong row). The counter is saved before a loop and restored after its
  adjoint.
- A name bound before a loop and assigned first thing in its body was pushed once per turn at the
  end of the turn (a turn's own value), so after the adjoint of its assignment its zero had the
  shape of the next turn's value, not the one before the loop.
- `for a, b in zip(b, c)`: b is bound by the loop's own targets each turn; Python iterates the
  object the loop started with.
- np.sum(v, axis=0) and np.max(v, axis=0) of a 0-d v (numpy allows it): the adjoint's helpers
  took the axis modulo 0 (ZeroDivisionError).
"""
import numpy as np
import pytest

import srcad

from .numeric import central_gradient


def counter_bound_twice(A):
    for i, row in enumerate(A):
        acc1 = row * 2.0
    rows1 = []
    for i in range(3):
        rows1.append(1.99)
    return np.sum(acc1 * acc1) + rows1[0]


def assigned_first_in_a_loop(x, s):
    for i, row in enumerate(x):
        x = s * row
    return np.sum(x) * 2.0


def zipped_over_its_own_target(a, b, c):
    for a, b in zip(b, c):
        c = c * a
    return np.sum(c) + np.sum(a * b)


def reductions_of_a_number(x):
    return np.max(x * 2.0, axis=0) + np.sum(x * x, axis=0)


@pytest.mark.parametrize("func, args", [
    (counter_bound_twice, (np.array([[-0.88, 1.40, -1.12], [-0.66, -0.36, -0.95]]),)),
    (assigned_first_in_a_loop, (np.array([0.3, 0.5]), 0.7)),
    (zipped_over_its_own_target, (0.3, np.array([0.5, -1.2]), np.array([1.1, 0.4]))),
    (reductions_of_a_number, (0.7,)), (reductions_of_a_number, (np.array(0.7),))])
def test_programs(func, args):
    for disable in (None, "all"):
        for i, arg in enumerate(args):
            got = srcad.grad(func, wrt=i, disable=disable)(*args)
            assert np.shape(got) == np.shape(arg)
            np.testing.assert_allclose(got, central_gradient(func, args, i), rtol=1e-6,
                                       atol=1e-9)
        srcad.check_grads(func, args, wrt=tuple(range(len(args))))


def tanh_total(xs):
    for i, v in enumerate(xs):
        total = np.sum(np.tanh(v))
    return total


def through_a_helper_loop(x):
    return tanh_total([x, x * 0.5])


def test_hessian_through_a_helper_that_keeps_a_stack():
    """A callee's forward half returns (value, (..., stack)): the names in the nested tuple were
    not counted as returned, so the stack had no tangent in forward mode and the Hessian of a
    function calling a helper with a loop was 0."""
    x, v = np.array([-1.2, 0.3]), np.array([-1.86, 0.4])
    gradient = srcad.grad(through_a_helper_loop, disable="all")
    want = (gradient(x + 1e-6 * v) - gradient(x - 1e-6 * v)) / 2e-6
    for disable in (None, "all"):
        np.testing.assert_allclose(srcad.hvp(through_a_helper_loop, disable=disable)(x, v), want,
                                   rtol=1e-6)
