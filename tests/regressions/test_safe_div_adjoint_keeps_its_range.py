"""The adjoint of safe_div(a, b) in b was -d[z] * (z / b): where d[z] is huge and z tiny (the
adjoint of log1p(u) at u = cosh(t)^2 ~ 1e256, differentiated again in reverse mode), z / b
underflowed to 0 and the term went missing: the reverse-over-reverse Hessian of
log1p(cosh(t)^2) at t = -295 was 4 for 0, and of a GP-like program through np.linalg.inv
84,999 for 527 (fuzz seed 139515). It is now -(d[z] / b) * z, as truediv's adjoint: d[z] / b is
the adjoint of a, of its size."""
import numpy as np
import pytest

import srcad


def softplus_of_squares(t):
    return np.sum(np.log1p(np.cosh(t) * np.cosh(t)))


def softplus(t):
    return np.sum(np.log1p(np.exp(t)))


@pytest.mark.parametrize("f, t", [(softplus_of_squares, np.array([-295.0, -20.0, 3.0])),
                                  (softplus, np.array([600.0, 20.0, -3.0]))])
def test_reverse_over_reverse_hessian_at_large_arguments(f, t):
    v = np.ones(3)
    reverse = srcad.vjp(srcad.grad(f))(t, v)
    forward = srcad.jvp(srcad.grad(f))(t, v)
    gradient = srcad.grad(f)
    numeric = (gradient(t + 1e-5) - gradient(t - 1e-5)) / 2e-5
    np.testing.assert_allclose(reverse, forward, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(reverse, numeric, rtol=1e-5, atol=1e-9)
