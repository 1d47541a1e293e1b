"""A nested function defined twice under one name (def g ...; a = g(x); def g ...; b = g(x))
gave a wrong gradient: lift.py takes nested functions out of the function by name, and kept the
last definition, so the first call ran the second function (5 where Python's derivative is 5
and srcad's was 6). Each definition after the first is now renamed fresh with the reads that
follow it, so each call calls the definition before it, as Python does; whether the function is
then written into its caller or stays a call. Found by trying the ways a nested function can be
bound (in a branch or a loop: refused; rebound to another value: refused where it is read)."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient

X = np.array([0.3, -0.5, 1.2])


def redefined(x):
    def g(v):
        return v * 2.0
    a = g(x)
    def g(v):  # noqa: F811 (the point of the test)
        return np.sin(v) * 3.0
    b = g(x)
    return np.sum(a + b * g(a))


def redefined_lambda(x):
    g = lambda v: v * 2.0  # noqa: E731
    a = g(x)
    g = lambda v: np.sin(v) * 3.0  # noqa: E731
    return np.sum(a + g(x))


@pytest.mark.parametrize("f", [redefined, redefined_lambda])
@pytest.mark.parametrize("disable", [(), ("inline",)])
def test_each_call_calls_the_definition_before_it(f, disable):
    got = srcad.grad(f, disable=disable)(X)
    np.testing.assert_allclose(got, central_gradient(f, (X,), 0), rtol=1e-7, atol=1e-9)
    tangent = srcad.jvp(f, disable=disable)(X, np.ones_like(X))
    np.testing.assert_allclose(tangent[1] if isinstance(tangent, tuple) else tangent,
                               np.sum(got), rtol=1e-10)
