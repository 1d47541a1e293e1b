"""A broadcasting call whose operands are keywords (scipy.stats.expon.logpdf(x, loc=m,
scale=s)): forward mode decides whether a tangent must be broadcast up to the result's shape
from the operands' shapes, and looked at the positional ones only. The tangent in loc alone,
dloc / scale, kept loc's shape (1, 4) for a (3, 4) result: a jvp of the wrong shape (found by
the one-sweep Jacobian's test against a sweep per vector)."""
import numpy as np
import pytest

import srcad

scipy_stats = pytest.importorskip("scipy.stats", reason="scipy is an optional extra")


def expon_logpdf(x, loc, scale):
    return scipy_stats.expon.logpdf(x, scale=scale, loc=loc)


def test_a_tangent_in_a_keyword_operand_has_the_results_shape():
    rng = np.random.default_rng(0)
    x, loc = rng.uniform(1, 2, (3, 1)), rng.uniform(-1, 0, 4)
    scale = rng.uniform(0.5, 2, (1, 4))
    for position, tangent in ((1, np.ones(4)), (2, np.ones((1, 4)))):
        got = srcad.jvp(expon_logpdf, wrt=position)(x, loc, scale, tangent)
        assert np.shape(got) == (3, 4)
        J = srcad.jacobian(expon_logpdf, wrt=position, mode="forward")(x, loc, scale)
        np.testing.assert_allclose(got, np.tensordot(J, tangent, axes=tangent.ndim))
