"""Cancelling factors made an adjoint the very array of a value the code stores into: the
adjoint of np.mean(y ** 2) over 2 entries is 0.5 * 2 * y, which cancel wrote as `by = y`;
the reverse sweep then restored y[1:] from the tape, in place, and by (and the adjoints read
from it) changed with it: a wrong gradient without an error (fuzz seed 88267). A statement
whose value was a new array keeps making one where either name is stored into later."""
import numpy as np
import pytest

import srcad

from regressions.numeric import central_gradient


def restored_after_the_mean(x):
    y = np.copy(x)
    y[1:] *= x[1]
    return np.mean(y ** 2)


def restored_after_half_the_square(x):
    y = x * 1.0
    y[:1] = y[:1] * x[0]
    return 0.5 * np.sum(y * y)


@pytest.mark.parametrize("f", [restored_after_the_mean, restored_after_half_the_square])
def test_an_adjoint_that_cancels_to_a_stored_array_stays_a_new_array(f):
    x = np.array([1.3, -1.5])
    want = central_gradient(f, (x,))
    np.testing.assert_allclose(srcad.grad(f)(x), want, rtol=1e-7)
    np.testing.assert_allclose(srcad.grad(f, disable="all")(x), want, rtol=1e-7)
    text = srcad.source(f, args=(x,))
    assert "by = y\n" not in text
