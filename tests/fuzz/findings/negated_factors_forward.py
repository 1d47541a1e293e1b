"""Forward mode folded the tangent of a product of two negations wrongly: jvp of
(-exp(x)) * (-x) gave -0.60 instead of 3.42 (reverse mode was right, so the modes disagreed).

Affects: jvp and everything built on forward mode (hvp, jacobian(mode="forward"), the
forward-mode gradient of a function of one float, which srcad.grad uses for a float argument).
Found by tests/fuzz: verify mode named the pass on a random program ("the first pass that
changes it: proportional"), and the dot test between jvp and vjp failed.
Mechanism (a guess): the `proportional` pass folds tangents that are multiples of another;
with all terms negative it kept the minus of the first term only (df4545c's message).
Status: wrong at 0623fd6; fixed by df4545c.
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, done, runs  # noqa: E402


def f(x):
    return (-np.exp(x)) * (-x)


x = 0.7
got = runs("jvp of f", lambda: srcad.jvp(f)(x, 1.0))
if got is not None:
    compare("jvp of f", got, np.exp(x) * (1 + x))
got = runs("grad of f (a float argument: forward mode)", lambda: srcad.grad(f)(x))
if got is not None:
    compare("grad of f (a float argument: forward mode)", got, np.exp(x) * (1 + x))
done()
