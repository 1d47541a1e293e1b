"""A name bound in two branches to values of different shapes (t = np.expand_dims(y, 1) or
t = x), then passed on through another branch and a loop, crashes the gradient with
"ValueError: cannot reshape array of size 1 into shape (4,)".

Affects: grad, value_and_grad, vjp (a crash in generated code).
Found by tests/fuzz (seed 301933 at a78144e, and similar programs in earlier batches).
Mechanism (a guess): the zero adjoint of the untaken branch's value is built for the shape
the probe saw for the other branch, or as a number that unbroadcast cannot reshape.
Status: crash at a78144e; fixed by e8b115a (names bound on both arms of an if are surely
bound).
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, done, numeric_vjp, runs  # noqa: E402


def f(x, y, B):
    if np.sum(y) > -100.0:
        t = np.expand_dims(y, 1)
    else:
        t = x
    if np.sum(y) > 100.0:
        u = t
    else:
        u = 1.5
    for a, b in zip(x, B):
        acc = np.tanh(u)
    return acc * np.mean(B ** 2)


x = np.array([0.9, -1.3, -1.0, -1.5, 0.02, -1.1])
y = np.array([0.5, 1.4, -0.7, 0.8])
B = np.full((6, 6), 0.5)
got = runs("grad of f wrt x, y, B", lambda: srcad.grad(f, wrt=(0, 1, 2))(x, y, B))
if got is not None:
    compare("grad of f wrt x, y, B", got, tuple(numeric_vjp(f, (x, y, B), i) for i in range(3)))
done()
