"""A zero adjoint written as the number 0.0 where the value has axes: the adjoint sweep starts
an adjoint at zero before a loop's adjoint (or an arm of an if) when nothing after it read the
value. Where the probe knows no shape for the name (it is bound again in a loop that did not
run, with another dtype: `m = m > 0.2`), the zero was 0.0 unless the name was bound before a
block at the function's top level. Inside a loop's turn it was 0.0 though the name was bound
earlier in the same turn, and then

- `unbroadcast(0.0, A)` for an A with an axis of length 1 raised IndexError (it indexed the
  number's shape), and
- the adjoint of a store `b[0] = v` read `bb[0]` of the number: TypeError.

Found by the fuzzer (seed 145185: a helper with a loop over range(1, 1), called in a loop).
Now a block's zeros may read every name surely bound before it, in its turn too
(modes/tape.py bound_before_blocks), and unbroadcast spreads a 0.0 of fewer axes than the
value (runtime.py) for the names that are not surely bound (bound in a loop before)."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient


def masked(a, b):
    m = a * 1.0
    for i in range(1, 1):
        b = m
        m = m > 0.2
    return b


def helper_in_a_loop(A, k):
    s = 0.0
    for i in range(3):
        s = s + np.sum(np.sin(masked(A, A) + A.sum(axis=0, keepdims=True) * i))
    return s


def bound_earlier_in_the_turn(A, k):
    rows = [1.0, 1.0, 1.0]
    for i in range(3):
        m = A * 1.0
        b = A
        for j in range(k):
            b = m
            m = m > 0.2
        rows[i] = np.sin(b + A.sum(axis=0, keepdims=True) * i)
    return np.sum(np.sin(rows))


def matrix_product_after(A, k):
    s = 0.0
    for i in range(3):
        m = A * 1.0
        b = A * 1.0
        for j in range(1, 1):
            b = m
            m = m > 0.2
        c = b.T
        s = s + np.sum(np.sin(c @ A))
    return s


def store_before(A, k):
    s = 0.0
    for i in range(3):
        m = A * 1.0
        b = A * 1.0
        b[0] = A[0] * 2.0
        for j in range(1, 1):
            m = b
            b = b > 0.2
        s = s + np.sum(np.sin(m))
    return s


def bound_in_a_loop_before(A, k):
    s = 0.0
    for i in range(3):
        for j in range(1):
            m = A * 1.0
        b = A
        for j in range(1, 1):
            b = m
            m = m > 0.2
        s = s + np.sum(np.sin(b + A.sum(axis=0, keepdims=True) * i))
    return s


def top_level_bound_in_a_loop_before(A, k):
    for j in range(1):
        m = A * 1.0
    b = A
    for j in range(1, 1):
        b = m
        m = m > 0.2
    return np.sum(np.sin(b + A.sum(axis=0, keepdims=True)))


PROGRAMS = [helper_in_a_loop, bound_earlier_in_the_turn, matrix_product_after, store_before,
            bound_in_a_loop_before, top_level_bound_in_a_loop_before]


@pytest.mark.parametrize("f", PROGRAMS)
@pytest.mark.parametrize("disable", [None, "all"])
@pytest.mark.parametrize("rows", [1, 2])
@pytest.mark.parametrize("k", [0, 1])
def test_gradient(f, disable, rows, k):
    A = np.array([[1.08, 0.82, 0.27], [0.3, -0.5, 0.9]])[:rows]
    got = srcad.grad(f, disable=disable)(A, k)
    np.testing.assert_allclose(got, central_gradient(f, (A, k)), rtol=1e-6, atol=1e-9)
    V = np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]])[:rows]
    np.testing.assert_allclose(srcad.jvp(f, disable=disable)(A, k, V), np.sum(got * V),
                               rtol=1e-10)
