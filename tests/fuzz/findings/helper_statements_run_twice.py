"""A helper's statements ran twice per derivative call: an append to a list passed in (also a
random draw or a print) happened in the primal sweep and again in the adjoint sweep.

Affects: grad, value_and_grad, vjp (reverse mode through helpers).
Found by tests/fuzz (its side-effect check: the list's length after a derivative call against
its length after one call of f; e.g. 2 appends where f makes 1).
Mechanism (a guess): the adjoint of a helper call re-ran the helper's primal to recompute
what its adjoint reads.
Status: twice at 0623fd6 and 97e561f; once since cccfc66 (a callee's adjoint split into a
forward half with a tape and a backward half).
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import done, expect, runs  # noqa: E402


def square(a, log):
    log.append(1)
    return a * a


def f(x, log):
    return np.sum(square(x, log))


x = np.array([0.5, -1.2, 0.7])
log = []
f(x, log)
once = len(log)
log = []
runs("grad of f", lambda: srcad.grad(f)(x, log))
expect("appends during one grad call", len(log) == once, f"{len(log)} (one call of f: {once})")
done()
