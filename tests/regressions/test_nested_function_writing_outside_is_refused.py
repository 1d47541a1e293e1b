"""A nested function that rebinds a variable of the function around it (nonlocal) or writes
into one (s[0] = ...): srcad lifts nested functions and passes them the values they read, so
the write could not reach the outer function. The build raised SyntaxError (no binding for
nonlocal) or the derivative NameError: crashes, not SrcadErrors (found by a focused fuzzer).
They are now refused at the write, with what to do (frontend/lift.py); a nested function that
writes into its own arrays is still differentiated."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient


def rebinds(x):
    s = 0.0

    def add(v):
        nonlocal s
        s = s + np.sum(v)
    add(np.sin(x))
    return s


def writes_into(x):
    s = [0.0]

    def add(v):
        s[0] = s[0] + np.sum(v)
    add(np.sin(x))
    return s[0]


def writes_into_its_own(x):
    def scaled(v):
        out = v * 1.0
        out[0] = v[0] * 3.0
        return out
    return np.sum(np.sin(scaled(x)))


X = np.array([0.3, -0.5, 0.7])


@pytest.mark.parametrize("f, what", [(rebinds, "rebinds"), (writes_into, "writes into s")])
def test_refused_at_the_write(f, what):
    with pytest.raises(srcad.SrcadError, match=what):
        srcad.grad(f)(X)


def test_its_own_arrays_are_differentiated():
    np.testing.assert_allclose(srcad.grad(writes_into_its_own)(X),
                               central_gradient(writes_into_its_own, (X,)), rtol=1e-6)
