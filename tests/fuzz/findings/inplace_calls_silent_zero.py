"""In-place calls gave a zero derivative without an error: np.add.at(y, idx, x) and y.fill(v).

Affects: every mode (the write is lost: the derivative is that of y = zeros).
Found by tests/fuzz (generator family `views`, first batches).
Mechanism (a guess): a call whose result is unused is treated as dead code (or as having no
derivative), so the values it writes into y never reach the adjoint.
Status: silent zeros at 0623fd6; refused with SrcadError since 9b484a3 (mutation fence);
np.add.at into an array the function made differentiated since (desugar: a store).
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, derivative, done, numeric_vjp  # noqa: E402


def add_at(x):
    y = np.zeros(3)
    np.add.at(y, np.array([0, 2, 0]), x)
    return np.sum(y ** 2)


def fill(x):
    y = np.zeros(3)
    y.fill(x[0])
    return np.sum(y ** 2)


x = np.array([0.5, -1.2, 0.7])
for f in (add_at, fill):
    got = derivative(f"grad of {f.__name__}", lambda: srcad.grad(f)(x))
    if got is not None:
        compare(f"grad of {f.__name__}", got, numeric_vjp(f, (x,), 0))
done()
