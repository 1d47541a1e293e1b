"""More mechanisms the fuzzer found.

- Copy propagation emptied a branch (`if c: t3 = B` with t3 unread): the emitted `if` had no
  body (IndentationError). Emit writes `pass` into a block the passes emptied.
- np.dot(x, 1.23): the template asks np.ndim of each operand; of a number it was not decided
  (ValueError while building). The shape facts of a number are known: ().
- A parameter read by item (A[i] in `for row in A`) counted as a possible list, so its copy's
  adjoint started as None before a loop and met arithmetic (TypeError). A zero adjoint is
  zero_gradient of the value where the value is bound.
- jvp wrote into the caller's tangent array: a store into x after `x = x * 1.0`, x not
  reaching the output, stored 0.0 into dx, the caller's.
- A branch whose adjoint was all dead code kept its `# grad of:` comment only, which is an
  empty block once written as a comment (IndentationError; fuzz seed 601449): a block of
  comments only gets `pass` too.
"""
import numpy as np
import pytest

import srcad


def emptied_branch(A, B):
    if A[0, 1] > 0.553:
        t3 = B
    else:
        pass
    return np.sum(A * A)


def dot_with_a_number(x):
    s1 = 0.0
    s1 -= np.dot(x, 1.23)
    return s1


def copy_of_a_parameter_read_by_item(A, s):
    t2 = A
    y1 = t2
    for row in A:
        t2 = 0.9 * t2 + row[0] * s
    return np.sum(y1 * t2)


def store_into_a_copy_that_does_not_matter(x, y):
    x = x * 1.0
    if x[0] >= 2.994:
        x -= x
    i = 0
    x[i] = y[1]
    return np.sum(y * y)


def helper_of_unused_values(a, b):
    return np.sin(a) - a


def branch_whose_adjoint_is_dead(x, z, s):
    if 1.0 >= 1.246:
        t2 = helper_of_unused_values(np.sin(s), x)
    else:
        t2 = s
    y1 = 1.0
    if np.cos(s) > 0.951:
        t8 = np.abs(y1)
    else:
        y1 *= np.tanh(t2)
        t8 = np.expand_dims(z ** 3, 1)
    return t8.sum()


@pytest.mark.parametrize("func, args", [
    (branch_whose_adjoint_is_dead, (np.array([1.2, -0.5]), np.array([1.3, 0.3]), -0.44)),
    (emptied_branch, (np.array([[1.3, 0.6, -0.4], [-1.2, -0.5, -1.2]]), np.ones(2))),
    (dot_with_a_number, (np.array([1.1, -0.3]),)),
    (copy_of_a_parameter_read_by_item, (np.array([[1.8, 0.3], [0.2, -0.5]]), 0.7)),
    (store_into_a_copy_that_does_not_matter, (np.array([1.7, 1.4, 0.8]), np.array([0.5, 0.6])))])
def test_programs(func, args):
    positions = tuple(range(len(args)))
    srcad.check_grads(func, args, wrt=positions)
    tangents = [np.ones(np.shape(a)) * 0.5 for a in args]
    kept = [np.copy(t) for t in tangents]
    for disable in (None, "all"):
        srcad.jvp(func, wrt=positions, disable=disable)(*args, *tangents)
        for tangent, copy in zip(tangents, kept):
            np.testing.assert_array_equal(tangent, copy)  # the caller's tangents untouched
        srcad.vjp(func, wrt=positions, disable=disable)(*args, np.ones(np.shape(func(*args))))
