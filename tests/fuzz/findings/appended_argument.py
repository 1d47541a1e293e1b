"""An argument appended to a list as it is (rows.append(A)), then np.stack: a zero gradient.

Affects: grad, value_and_grad, vjp (zero, no error).
Found by tests/fuzz (seeds 1058 and 7549, shrunk to 5 lines).
Mechanism (a guess): the adjoints of appended items were popped for computed values only; an
item that is a parameter (or a plain copy of a name) had no adjoint slot, so nothing flowed
back to A.
Status: zero at 0623fd6 and 97e561f; fixed between 97e561f and c49de5f (9f1a085 / ade536c).
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, done, numeric_vjp, runs  # noqa: E402


def f(A, n):
    rows = []
    for i in range(n):
        rows.append(A)
    return np.sum(np.stack(rows) ** 2)


A = np.array([[0.7, 0.2, -1.0], [0.3, 0.4, -0.5]])
got = runs("grad of f", lambda: srcad.grad(f)(A, 2))
if got is not None:
    compare("grad of f", got, numeric_vjp(f, (A, 2), 0))
done()
