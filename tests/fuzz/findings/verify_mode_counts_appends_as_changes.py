"""Verify mode raises VerifyError ("changed its arguments") on a correct derivative when f
appends to a list it is given: the program's own, documented side effect is taken for a
derivative call that changed its inputs.

Affects: every entry point with verify=True or SRCAD_VERIFY=1 (the test suite and the fuzzer
run with it); the derivative itself is right and appends exactly once.
Found by tests/fuzz: on 27-32 programs of each 3000-program batch (those with a `log` list
argument), verify mode raised while the same call without verify mode was right. The fuzzer
counts these apart ("verify mode raised on N programs whose derivatives were right").
Mechanism (a guess): verify.py snapshots the arguments with copy.deepcopy before the call and
compares lists exactly after it; a list argument the program appends to always differs.
Status: raised at 0623fd6 ... a78144e; fixed by f10ee08 (a list or dict argument may grow).
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, done, runs  # noqa: E402


def f(x, log):
    log.append(1)
    return np.sum(x * x)


x = np.array([0.5, -1.2, 0.7])
got = runs("grad of f with verify=True", lambda: srcad.grad(f, verify=True)(x, []))
if got is not None:
    compare("grad of f with verify=True", got, 2 * x)
done()
