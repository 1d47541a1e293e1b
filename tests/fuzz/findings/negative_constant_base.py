"""A negative constant raised to a power, (-0.5) ** 2.0, was written into the generated code as
-0.5 ** 2.0, which Python reads as -(0.5 ** 2.0): value_and_grad's value was 2.2, f gives 1.2.

Affects: value_and_grad's value, and every derivative whose terms contain such a constant.
Found by tests/fuzz: the generator's negation and power families write `a - (-0.5) ** 2.0`
and `(-0.6) ** 2 * a`, and the checker compares value_and_grad's value with f's own.
Mechanism (a guess): constant folding produced the number -0.5, and emit printed the negative
number without parentheses in front of `**`.
Status: wrong at 0623fd6; fixed by 01d9211 ("emit: negative numbers written as negations").
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, done, runs  # noqa: E402


def f(x):
    return np.sum(x - (-0.5) ** 2.0)


x = np.array([0.7, 1.0])
got = runs("value_and_grad of f: the value", lambda: srcad.value_and_grad(f)(x)[0])
if got is not None:
    compare("value_and_grad of f: the value", got, f(x))
done()
