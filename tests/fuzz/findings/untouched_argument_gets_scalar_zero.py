"""The gradient of an array argument that the taken path does not use is the number 0.0, not
zeros of the argument's shape, when the argument was bound to another name in a branch.

Affects: grad, value_and_grad, vjp, hvp (API rule: "an input the output does not depend on gets
zeros of its shape"; a caller doing x -= lr * g gets away with it, one doing g.shape does not).
Found by tests/fuzz: its structure check (seeds 301300, 300123, 303884, 303086 at a78144e).
Mechanism (a guess): the adjoint of x starts as the number 0.0 wherever srcad cannot be sure x
is bound with a known shape (here t = x or t = -x under an if), and nothing adds an array to it
on this path, so the number is returned as it is.
Status: 0.0 at a78144e (and earlier); zeros of x's shape since e8b115a (as_gradient).
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import done, expect, runs  # noqa: E402


def f(x, y):
    if x[1] > 0.0:
        t = x
    else:
        t = -x
    if y[0] > 0.0:
        out = y[1]
    else:
        out = t[0]
    return out


x, y = np.array([0.2, 0.3, -0.2]), np.array([1.4, 1.2])
for label, call in [("grad of f wrt x", lambda: srcad.grad(f)(x, y)),
                    ("vjp of f wrt x", lambda: srcad.vjp(f, wrt=(0, 1))(x, y, 1.0)[0]),
                    ("hvp of f wrt x", lambda: srcad.hvp(f)(x, y, np.ones(3)))]:
    got = runs(label, call)
    if got is not None:
        expect(label, isinstance(got, np.ndarray) and got.shape == x.shape,
               f"{got!r} (the argument has shape {x.shape})")
done()
