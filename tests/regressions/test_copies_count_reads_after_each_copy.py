"""Crash: the copies pass renamed `dt2 = e; dt7 = dt2; dt8 = dt2` into `dt7 = e; dt8 = dt7`,
then, with dt7's count of reads not updated (it still said one, its read in another block),
took `dt8 = dt7` as the only read of dt7 and renamed again: `dt8 = e`, and the read of dt7 in
the other `if` block raised NameError. Fuzz seed 112152 (an hvp of a function with an if).
Each form of the pass now keeps the counts of reads and bindings true for the copies after it."""
import numpy as np

import srcad
from before_after import check_rewrite
from srcad.optimize.copies import copies


def branchy(A):
    if 1.0 - A[0, 2] > 1.228:
        t2 = np.sin(A)
        t1 = (t2 + 1.9) * (t2 + 1.9)
    else:
        t1 = A
    t6 = t1
    return np.sum(t6)


def test_hvp_through_a_branch_with_copies_of_one_tangent():
    A = np.array([[-0.1, -1.4, -0.3], [-0.0, 1.0, 1.0], [-1.1, -0.2, 0.6]])
    v = np.linspace(-1.0, 1.0, 9).reshape(3, 3)
    got = srcad.hvp(branchy)(A, v)  # (first: it builds the gradient it differentiates)
    grad = srcad.grad(branchy)
    h = 1e-6
    want = (grad(A + h * v) - grad(A - h * v)) / (2 * h)
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)


def test_a_copy_read_in_another_block_is_kept():
    x = np.array([0.3, -0.7])
    check_rewrite(copies, """
        def f(x, c):
            y = x
            if c:
                d2 = x * 2.0
                d7 = d2
                d8 = d2
            if c:
                y = d7 + d8
            return y
        """, """
        def f(x, c):
            y = x
            if c:
                d7 = x * 2.0
                d8 = d7
            if c:
                y = d7 + d8
            return y
        """, (x, True))
