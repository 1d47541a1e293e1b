"""hvp crashes (TypeError: float * NoneType) when values scaled by a loop counter are appended
to a list, stacked, and another loop reuses the counter's name afterwards.

Affects: hvp (forward mode over the generated gradient), with and without the optimizer;
grad and jvp are right.
Found by tests/fuzz (seeds 300122, 301627, 302338, 303815, 303317 at a78144e: the most common
failure after the float32 dtypes).
Mechanism (a guess): since d084465 the gradient saves the counter before the loop and restores
it after its adjoint; differentiating that generated gradient again, the restored counter i has
no tangent (None), and the adjoint bt * i meets di = None in the product rule.
Status: crash at a78144e; fixed by e8b115a (a loop counter that reaches tangents gets a zero
tangent).
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, done, runs  # noqa: E402


def f(A, m):
    rows = []
    for i in range(m):
        rows.append(np.sin(A) * i)
    t = np.stack(rows)
    for i in range(3):
        pass
    return t.sum()


A, m, v = np.array([[-1.2, 0.3]]), 2, np.array([[1.0, 1.0]])
got = runs("hvp of f", lambda: srcad.hvp(f)(A, m, v))
if got is not None:
    compare("hvp of f", got, -np.sin(A) * v * sum(range(m)))
done()
