"""The adjoint sweep undoes a store into an array (y[0] = s) by writing the saved values back,
y[0] = stack.pop(), into the array the name y holds at that point of the sweep. When y was
bound again after the store (y = -(-y + c), in a branch or a later turn) and the adjoint read
nothing of the new binding's old value, the binding was not restored: the restore wrote into
the new array, and the array stored into (still held by another name, the operand of an earlier
einsum whose adjoint reads it) kept the stored value. The gradient was wrong with no error
(fuzz seed 133437: 0.88 for -0.75). A kept slice restore now reads the binding of its name, so
the rebinding is undone before it."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient


def rebound_in_a_branch(s, x):
    g = np.concatenate([np.sin(x)])
    t = g
    c = np.einsum('i,i->', t, x)
    y = t
    y[0] = s
    if c > -0.6:
        y = -(-y + c)
    return np.sum(np.sin(y))


def rebound_after_a_read_the_build_drops(s, x):
    g = np.concatenate([np.sin(x)])
    c = np.einsum('i,i->', g, x)
    y = g
    y[0] = s
    if c > -0.6:
        y = y + c  # (the generic adjoint reads y's shape here; the specialized one does not)
    return np.sum(np.sin(y))


def rebound_in_later_turns(s, x):
    g = np.sin(x) * 1.0
    c = np.sum(g * x)
    y = g
    for i in range(3):
        y[0] = s * i
        y = -y * 0.5
    return np.sum(np.sin(y)) + c * c


@pytest.mark.parametrize("f", [rebound_in_a_branch, rebound_after_a_read_the_build_drops,
                               rebound_in_later_turns])
@pytest.mark.parametrize("disable", [None, "all"])
def test_gradient(f, disable):
    s, x = 1.2, np.array([-0.38, -0.45, 1.28])
    grads = srcad.grad(f, wrt=(0, 1), disable=disable)(s, x)
    for i in (0, 1):
        np.testing.assert_allclose(grads[i], central_gradient(f, (s, x), i), rtol=1e-6,
                                   atol=1e-9)
