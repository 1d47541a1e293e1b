"""A zip loop whose targets rebind the names it iterates over, `for a, b in zip(b, b)` (valid
Python: zip(b, b) is made once), crashed every derivative with IndexError.

Affects: every mode (a crash in generated code, not a SrcadError).
Found by tests/fuzz (seeds 100502, 100194, 100876, 201349: the generator's helpers rebind
their parameters as loop targets).
Mechanism (a guess): srcad lowers `for a, b in zip(X, Y)` to a counted loop that reads X[i] and
Y[i] on every turn; after the first turn `b` names an element, so b[i] indexes a number.
Status: crash at 0623fd6, 97e561f, c49de5f; fixed between c49de5f and a78144e for f below; a
variant was still open at a78144e: g calls the helper with an item, last(A[0, 0], B), and vjp
raised "ValueError: setting an array element with a sequence" (seed 302025); fixed at 8ba7cd0.
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, done, numeric_vjp, runs  # noqa: E402


def last_pair(a, b, c):
    for a, b in zip(b, b):
        pass
    return c * a


def f(A, s):
    t = last_pair(s, A, 1.3)
    return np.sum(A * t)


def last(a, b):
    for a, b in zip(b, b):
        pass
    return b


def g(A, B):
    return last(A[0, 0], B)


A, s = np.array([[-0.7], [-0.9]]), np.array(-0.7)
got = runs("grad of f", lambda: srcad.grad(f)(A, s))
if got is not None:
    compare("grad of f", got, numeric_vjp(f, (A, s), 0))
A, B, w = np.array([[-1.4]]), np.array([[-0.7]]), np.array([1.0])
got = runs("vjp of g", lambda: srcad.vjp(g, wrt=(0, 1))(A, B, w))
if got is not None:
    compare("vjp of g", got, (numeric_vjp(g, (A, B), 0, w), numeric_vjp(g, (A, B), 1, w)))
done()
