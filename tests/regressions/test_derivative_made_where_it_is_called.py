"""grad(f)(x) written inside a function that is differentiated (the slope of a likelihood along
a profile, r -> grad(loglike)(r, p(r)), handed to Newton's method with its own derivative) was
refused: "srcad cannot tell which function this function is". A derivative bound to a name at
module level was already differentiated as the function it stands for; one made in the
expression was a call of a call's result. srcad.grad, value_and_grad, vjp and jvp called on a
function the name denotes where the caller is built, with literal options, are now made then
(frontend/statements.py) and called as a derivative bound to a name is."""
import numpy as np
import pytest

import srcad
from srcad import grad
from tests.regressions.numeric import central_gradient

DATA = np.array([3.0, 0.0, 7.0, 2.0, 5.0, 1.0])


def loglike(r, p):
    return np.sum(np.log(r + DATA) * p - r * np.log1p(p * p))


def p_of(r):
    return np.sum(DATA) / np.sum(r + DATA)


def profile_slope(r):
    return grad(loglike)(r, p_of(r))


profile_slope_lambda = lambda r: grad(loglike)(r, p_of(r))  # noqa: E731


def both_slopes(r):
    dr, dp = srcad.grad(loglike, wrt=(0, 1))(r, 0.3)
    value, slope = srcad.value_and_grad(loglike, wrt=1)(r, 0.6)
    return dr * dp + value * slope + srcad.jvp(loglike)(r, 0.2, 1.5)


@pytest.mark.parametrize("f", [profile_slope, profile_slope_lambda, both_slopes])
def test_derivative_made_in_the_expression(f):
    got = srcad.grad(f)(1.7)
    np.testing.assert_allclose(got, central_gradient(f, (1.7,), h=1e-5), rtol=1e-6)
    np.testing.assert_allclose(srcad.jvp(f)(1.7, 1.0), got, rtol=1e-10)
    np.testing.assert_allclose(srcad.grad(srcad.grad(f))(1.7),
                               central_gradient(srcad.grad(f), (1.7,), h=1e-5), rtol=1e-5)
