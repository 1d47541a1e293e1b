"""An in-place update through a second name for the same array (y = x + 0.0; v = y; v *= 1.1).

Affects: every mode (grad, value_and_grad, vjp, jvp, hvp) and value_and_grad's value.
Found by tests/fuzz (first batch, seed 1; shrunk from a 5-line program).
Mechanism (a guess): srcad treated `v *= 1.1` as a rebinding of v (v = v * 1.1), as it is for
numbers, not as a write into the array v and y share; y kept its old value in the derivative,
so the gradient (1/6 instead of 1.1/6) and even value_and_grad's value were off by the factor.
Status: wrong at 0623fd6 (session start); refused with SrcadError since 9b484a3 (the mutation
fence), which is an acceptable answer.
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, derivative, done, numeric_vjp  # noqa: E402


def f(A):
    y = A + 0.0
    v = y
    v *= 1.1
    return np.mean(y)


A = np.array([[0.7, 0.2, -1.0], [0.3, 0.4, -0.5]])
got = derivative("grad of f", lambda: srcad.grad(f)(A))
if got is not None:
    compare("grad of f", got, numeric_vjp(f, (A,), 0))
got = derivative("value_and_grad of f: the value", lambda: srcad.value_and_grad(f)(A)[0])
if got is not None:
    compare("value_and_grad of f: the value", got, f(A))
done()
