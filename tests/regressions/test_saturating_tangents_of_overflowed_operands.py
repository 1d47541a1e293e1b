"""The tangent of a saturating op at an operand that overflowed upstream: np.arctan,
np.logaddexp (and logaddexp2), scipy.special.expit, erf and erfc reach a slope of exactly 0
there, and the overflowed operand's tangent is inf: inf * 0 (or inf / inf for arctan's
d / (1 + x^2)) made the jvp nan where the derivative is 0 (reverse mode gave 0). Their
tangents now multiply through slope_mul, as np.tanh's (test_saturated_tanh_of_an_overflowed_
tangent.py); their adjoints are unchanged. Listed as a known gap in docs/numerics.md, found
again by a sweep of saturating ops after an overflowing exp."""
import numpy as np
import pytest

import srcad

special = pytest.importorskip("scipy.special", reason="scipy.special's ops need SciPy")


def arctan_of_exp(x):
    return np.sum(np.arctan(np.exp(x)))


def logaddexp_of_exp(x):
    return np.sum(np.logaddexp(0.0, -np.exp(x)) + np.logaddexp2(1.0, -np.exp(x)))


def expit_of_exp(x):
    return np.sum(special.expit(np.exp(x)))


def erf_of_exp(x):
    return np.sum(special.erf(np.exp(x)) - special.erfc(np.exp(x)))


@pytest.mark.parametrize("func", [arctan_of_exp, logaddexp_of_exp, expit_of_exp, erf_of_exp],
                         ids=lambda f: f.__name__)
def test_a_saturating_op_gives_a_zero_tangent_through_an_infinite_one(func):
    x = np.array([800.0, 0.5])
    with np.errstate(over="ignore"):
        gradient = srcad.grad(func)(x)
        tangent = srcad.jvp(func)(x, np.array([1.0, 0.0]))
        both = srcad.jvp(func)(x, np.array([1.0, -2.0]))
    assert gradient[0] == 0.0 and tangent == 0.0
    np.testing.assert_allclose(both, -2.0 * gradient[1], rtol=1e-12)
