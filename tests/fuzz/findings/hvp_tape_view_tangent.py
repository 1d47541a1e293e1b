"""hvp is wrong (one entry of H v) for a helper that stores into an array after taking a view of
it: y = b + 0.0; y[[1]] += np.dot(b, y[::-1]).

Affects: hvp only (grad, vjp, jvp right; the same code inline is right).
Found by tests/fuzz (seed 601356 at 12facc8, in a 10,000-program run).
Mechanism: the helper's backward half reads its tape (`y1 = tape[5]`) and restores the values
the store overwrote (`y1[[1]] = stack.pop()`), which also restores the view `t2 = y1[::-1]` the
adjoint reads. hvp runs forward mode over that code, and forward mode gave y1 a copy of its
tangent (`dy1 = np.copy(dtape[5])`, as for any name stored into), so the tangent's restore
missed the tangent of the view.
Status: fixed in the commit after 2fda02b (a tangent of t[i] aliases or views as its primal
does); regression test tests/regressions/test_tangent_aliases_of_items.py.
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, done, runs  # noqa: E402


def helper(b):
    y = b + 0.0
    y[[1]] += np.dot(b, y[::-1])
    return y


def f(x):
    return np.sum(helper(x))


x = np.array([0.35, -0.96, 0.83, 0.53])
v = np.array([-0.55, -0.35, -1.15, -0.87])
gradient = srcad.grad(f)
right = (gradient(x + 1e-5 * v) - gradient(x - 1e-5 * v)) / 2e-5
got = runs("hvp of f", lambda: srcad.hvp(f)(x, v))
if got is not None:
    compare("hvp of f", got, right)
done()
