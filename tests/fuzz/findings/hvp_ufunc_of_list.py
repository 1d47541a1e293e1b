"""hvp crashes (TypeError: bad operand type for unary -: 'list') for a ufunc applied to a list
of arrays, np.sin([A]), which numpy turns into an array.

Affects: hvp (with and without the optimizer); grad, vjp and jvp are right.
Found by tests/fuzz (seed 301097 at a78144e; lists of arrays are one of the generator's helpers'
and statements' families).
Mechanism (a guess): the gradient's code keeps t = [A] as a list and computes
bt * np.cos(t); forward mode then writes the tangent of np.cos(t) as -dt * np.sin(t), with dt
the list of tangents, and a list cannot be negated.
Status: open at a78144e and at 8ba7cd0 (after e8b115a, whose "a ufunc's list operand has its
tangents made an array first" covers jvp but not this tangent of the generated gradient);
fixed after 2713dad (the tangent of a display operand of a ufunc is np.asarray of the display
of tangents); regression test tests/regressions/test_ufunc_of_a_display.py.
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, done, runs  # noqa: E402


def f(A):
    return np.sum(np.sin([A]))


A, v = np.array([[0.26, -0.4]]), np.array([[1.0, 1.0]])
got = runs("hvp of f", lambda: srcad.hvp(f)(A, v))
if got is not None:
    compare("hvp of f", got, -np.sin(A) * v)
done()
