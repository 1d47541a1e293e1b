"""hvp returned an array of dtype object ([0.0 0.0]) for an argument whose entries do not all
reach the output.

Affects: hvp (the derivative of the generated gradient).
Found by tests/fuzz (seeds 1020, 7208: 112 programs of a 3000-program batch failed this way).
Mechanism (a guess): the gradient's zero for the unused entries was a Python list or None
mixed into an array, so the forward-mode tangent of it became an object array.
Status: object dtype at 0623fd6 and 97e561f; float64 since c49de5f (9f1a085: zero tangents keep
their structure).
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, done, expect, runs  # noqa: E402


def f(x, y):
    for i in range(len(y)):
        last = x[1]
    return last * last


x, y = np.array([0.9, -1.4]), np.array([0.2])
got = runs("hvp of f", lambda: srcad.hvp(f)(x, y, np.array([1.0, 1.0])))
if got is not None:
    expect("hvp of f is a float array", np.asarray(got).dtype.kind == "f",
           f"dtype {np.asarray(got).dtype}")
    compare("hvp of f", np.asarray(got, dtype=float), np.array([0.0, 2.0]))
done()
