"""A list display passed to a helper (total([x])) carried no derivative: a silent zero.

Affects: grad, value_and_grad, vjp (zero); hvp (zero, later a wrong number); jvp was right.
Found by tests/fuzz (seeds 7462, 7540, 7231, 7513, 7261: the generator's helper_list family
failed on 44 % of the programs using it).
Mechanism (a guess): the adjoint of a helper call was returned for the parameter `xs`, but the
list display [x] built at the call site had no adjoint that would split it back to x.
Status: zero at 0623fd6 and 97e561f; fixed in reverse mode by 9f1a085; hvp (forward over the
generated gradient) stayed wrong (0.87 instead of 1.82 at c49de5f), fixed by a22a7f0.
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, done, numeric_vjp, runs  # noqa: E402


def total(xs):
    for v in xs:
        result = np.sum(np.sin(v) * v)
    return result


def f(x):
    return total([x])


x = np.array([0.3])
got = runs("grad of f", lambda: srcad.grad(f)(x))
if got is not None:
    compare("grad of f", got, numeric_vjp(f, (x,), 0))
got = runs("hvp of f", lambda: srcad.hvp(f)(x, np.array([1.0])))
if got is not None:
    compare("hvp of f", got, 2 * np.cos(x) - x * np.sin(x))
done()
