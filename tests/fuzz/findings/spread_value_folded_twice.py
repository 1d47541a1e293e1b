"""grad is wrong (half the truth) when sink broadcasts copies a spread value into a temporary
and the constant folding then merges its numbers in place twice: mean((|A| (y < c))^2) + 1.0.

Affects: grad, value_and_grad (shape-specialized builds; verify mode catches it and names the
pass "broadcasts").
Found by tests/fuzz (seed 601731 at 12facc8, in a 10,000-program run).
Mechanism: the new temporary `t8 = 0.5 * (t5 ** 2 * bt7)` and the statement it came from held
the same node; FoldConstants.merge_numbers rewrote `t5 ** 2 * bt7` (bt7 = 1.0) in place into
`t5 ** 2 * 0.5` for one and again into `t5 ** 2 * 0.25` for the other.
Status: fixed after 7a92119 (broadcasts and factor clone what they copy, merge_numbers makes a
new node, and the pipeline refuses any pass result with a node in two places); regression test
tests/regressions/test_shared_nodes_folded_twice.py.
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, done, runs  # noqa: E402


def f(A, y):
    t2 = np.sqrt(A * A) * (y < 0.537)
    t3 = 1.0
    return np.mean(t2 ** 2) + t3


A, y = np.array([[0.7, -0.6]]), np.array([1.2, -0.0])
got = runs("grad of f", lambda: srcad.grad(f, wrt=(0, 1))(A, y)[0])
if got is not None:
    compare("grad of f", got, A * (y < 0.537))
done()
