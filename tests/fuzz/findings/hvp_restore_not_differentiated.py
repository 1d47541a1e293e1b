"""hvp is wrong for a helper that scales the tail of an array it made: y1 = np.array(c);
y1[1:] *= a[1].

Affects: hvp only.
Found by tests/fuzz (seed 602529 at 12facc8, in a 10,000-program run).
Mechanism: the helper's backward half restores the tail (`y1[1:] = stack.pop()`), which puts
back the view `t2 = y1[1:]` its adjoint then reads; nothing reads y1 by name after the restore,
so forward mode's activity analysis (names, not memory) found the restore useless and wrote no
tangent for it: the tangent of the view kept the scaled values.
Status: fixed after 929dcb3 (in forward mode a store into an array is always differentiated);
regression test tests/regressions/test_tangent_aliases_of_items.py.
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, done, runs  # noqa: E402


def helper(a, c):
    t1 = a[1]
    y1 = np.array(c)
    y1[1:] *= t1
    return y1


def f(x, y):
    return helper(x, y).sum()


x, y = np.array([0.3, -0.7, 1.1]), np.array([0.5, 1.5, -2.0])
v = np.array([1.0, 0.5, -0.3])
got = runs("hvp of f", lambda: srcad.hvp(f)(x, y, v))
if got is not None:
    compare("hvp of f", got, np.zeros(3))  # the gradient, (0, sum(y[1:]), 0), is constant
done()
