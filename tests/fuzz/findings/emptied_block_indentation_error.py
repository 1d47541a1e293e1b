"""srcad wrote Python that does not compile (IndentationError) when its passes emptied the body
of an else branch.

Affects: every mode (the build raises IndentationError: a crash, not a SrcadError).
Found by tests/fuzz (seed 100278, shrunk to 6 lines).
Mechanism (a guess): dead-code elimination removed every statement of a branch that computes
nothing the output needs, and emit printed the `else:` with nothing under it.
Status: crash at 0623fd6, 97e561f; fixed by 150f0a9 ("emit writes pass into a block the passes
emptied").
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, done, runs  # noqa: E402


def f(A, B):
    if A[0, 1] > 0.553:
        t = B
    else:
        pass
    return np.sum(A ** 2)


A, B = np.array([[1.3, 0.4, -0.4]]), np.array([[-1.3]])
got = runs("grad of f", lambda: srcad.grad(f)(A, B))
if got is not None:
    compare("grad of f", got, 2 * A)
done()
