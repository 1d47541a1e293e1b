"""A derivative call changes its argument: a store through another name for a copy of it
(y = B * 1.0; v = y; v[0] = 1.0), and the same store through a view (v = y[1:]) in hvp.

Affects: grad, value_and_grad, vjp, jvp (first case); hvp (second case, after the first was
refused). The gradient is also wrong (2 instead of 1 for the row that was overwritten).
Found by tests/fuzz (seed 1043 of the first batch; seed 201250 of the c49de5f batch).
Mechanism (a guess): the optimizer folds `B * 1.0` to `B` (an identity), so y, and v with it,
become B itself, and the user's store writes into the caller's array. In hvp the gradient code
is differentiated again and the fold happened there.
Status: wrong at 0623fd6; grad refused since 9b484a3 (mutation fence); hvp still wrote into
its argument at c49de5f, fixed by 72e1611.
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, derivative, done, expect, numeric_vjp  # noqa: E402


def f(B):
    y = B * 1.0
    v = y
    v[0] = 1.0
    return np.sum(y * B)


def g(x):
    y = x * 1.0
    v = y[1:]
    v[0] = 1.0
    return np.sum(x * x)


B = np.array([[0.7, 0.2, -1.0], [0.3, 0.4, -0.5]])
before = B.copy()
got = derivative("grad of f", lambda: srcad.grad(f)(B))
expect("grad of f leaves B as it was", np.array_equal(B, before), f"B after the call: {B.tolist()}")
if got is not None:
    compare("grad of f", got, numeric_vjp(f, (before,), 0))
x = np.array([0.5, -1.2, 0.7])
before = x.copy()
got = derivative("hvp of g", lambda: srcad.hvp(g)(x, np.ones(3)))
expect("hvp of g leaves x as it was", np.array_equal(x, before), f"x after the call: {x.tolist()}")
if got is not None:
    compare("hvp of g", got, 2.0 * np.ones(3))
done()
