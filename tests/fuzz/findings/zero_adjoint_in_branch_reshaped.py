"""A value overwritten in a branch (t = s * A, then t = A under an if) crashed the gradient with
"ValueError: cannot reshape array of size 1 into shape (2, 2)" when s is a 0-d array.

Affects: grad, value_and_grad, vjp, hvp (a crash in generated code); with SRCAD_VERIFY=1 it
showed as "the unoptimized derivative raised ... the optimized one returned a value" when only
the generic code crashed.
Found by tests/fuzz (seeds 7166, 7205, 7073, 7293, 7591, 7178; 0-d array arguments are one of
the generator's argument kinds).
Mechanism (a guess): the adjoint of the overwritten value is a zero written as the number 0.0
on the untaken path, and unbroadcast tried to reshape that number to the shape of A.
Status: crash at 0623fd6 and 97e561f; fixed by 9f1a085 ("zero adjoints in branches use what is
surely bound...: 0.0 could not be reshaped").
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, done, numeric_vjp, runs  # noqa: E402


def f(s, A, B):
    for a, b in zip(B, B):
        pass
    t = s * A
    if np.sum(B) < 100.0:
        t = A
    return t.sum()


s, A, B = np.array(1.18), np.array([[-1.0, 1.0], [1.2, -0.1]]), np.array([[0.5], [-0.3]])
got = runs("grad of f", lambda: srcad.grad(f, wrt=(0, 1))(s, A, B))
if got is not None:
    compare("grad of f", got, (numeric_vjp(f, (s, A, B), 0), numeric_vjp(f, (s, A, B), 1)))
done()
