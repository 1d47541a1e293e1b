"""A loop counter (or loop variable) reused by a later loop corrupted the adjoint of the
earlier loop: `for i, v in enumerate(y): acc = x * v` then `for i, v in enumerate(x): break`
gave d/dx = -0.3 (x itself) instead of 1.2 (y[-1]); stores A[i] = 1.0 in an unrolled loop
followed by another loop over i kept a gradient on an overwritten row.

Affects: grad, value_and_grad, vjp (wrong numbers); verify mode blamed `unroll` in some
programs, others were wrong with every optimization off too; crashes (IndexError) when the
later loop was longer.
Found by tests/fuzz (seeds 102083, 101315, 201804, 201762, 100733: the most common wrong-gradient
mechanism at c49de5f).
Mechanism (a guess): the adjoint sweep of a loop reads the loop's counter and element variables
after the loop, where the later loop had rebound them, instead of values saved for it.
Status: wrong at 0623fd6, 97e561f, c49de5f; fixed by d084465 ("a loop counter bound elsewhere
too is saved before the loop and restored after its adjoint").
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, done, numeric_vjp, runs  # noqa: E402


def f(x, y):
    for i, v in enumerate(y):
        acc = x * v
    for i, v in enumerate(x):
        break
    return np.sum(acc)


def g(A):
    A = 0.5 * A
    for i in range(2):
        A[i] = 1.0
    for i, row in enumerate(A):
        pass
    return np.sum(A)


x, y = np.array([-0.3]), np.array([1.2])
got = runs("grad of f", lambda: srcad.grad(f)(x, y))
if got is not None:
    compare("grad of f", got, numeric_vjp(f, (x, y), 0))
A = np.array([[0.8, -0.1, -1.0], [0.3, -0.4, -1.3], [1.0, 2.0, 3.0]])
got = runs("grad of g", lambda: srcad.grad(g)(A))
if got is not None:
    compare("grad of g", got, numeric_vjp(g, (A,), 0))
done()
