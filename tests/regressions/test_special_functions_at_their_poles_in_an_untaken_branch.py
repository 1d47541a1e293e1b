"""scipy.special.gammaln, digamma, polygamma and logit under an untaken np.where branch, at
their poles (0 and the negative integers; logit's 0 and 1): the gradient was nan where the
derivative is 0. Their adjoints multiplied (or divided) the untaken branch's zero adjoint by a
slope that is inf or nan there (digamma(0), polygamma(1, -1), 1 / (0 * 1)); they now go
through safe_mul / safe_div, as the adjoints of log and sqrt do (docs/numerics.md, section 1),
which the guards pass drops where the slope cannot be so. Found by a sweep of the templates'
singular points under np.where, after the division's fix
(test_division_under_an_untaken_branch.py). Forward mode was right."""
import numpy as np
import pytest

import srcad

special = pytest.importorskip("scipy.special", reason="scipy.special's ops need SciPy")

MASK = np.array([True, False, True])


def gammaln_where(x):
    return np.sum(np.where(MASK, special.gammaln(x), 0.0))


def digamma_where(x):
    return np.sum(np.where(MASK, special.digamma(x), 0.0))


def polygamma_where(x):
    return np.sum(np.where(MASK, special.polygamma(1, x), 0.0))


def logit_where(x):
    return np.sum(np.where(MASK, special.logit(x), 0.0))


@pytest.mark.parametrize("func, pole", [(gammaln_where, 0.0), (gammaln_where, -1.0),
                                        (digamma_where, 0.0), (digamma_where, -2.0),
                                        (polygamma_where, 0.0), (logit_where, 0.0),
                                        (logit_where, 1.0)],
                         ids=lambda v: getattr(v, "__name__", repr(v)))
@pytest.mark.parametrize("disable", [None, "specialize"])
def test_a_pole_in_the_untaken_branch_gives_zero(func, pole, disable):
    x = np.array([0.3, pole, 0.7])
    with np.errstate(all="ignore"):
        grad = srcad.grad(func, disable=disable)(x)
        tangents = [srcad.jvp(func)(x, e) for e in np.eye(3)]
    assert grad[1] == 0.0
    np.testing.assert_allclose(grad, tangents, rtol=1e-12)
