"""np.where(x > 0, x ** 0.5, 0.0) at x < 0 had a nan gradient (the function is 0 around that
point: the derivative is 0), and so did x ** -1 under np.where at x = 0: the power's adjoint
multiplied the zero adjoint of the untaken branch by the slope c * x ** (c - 1), nan or inf
there. A power with a non-integer or negative exponent now multiplies through safe_mul (a
zero adjoint stays zero); integer powers >= 1 have finite slopes and stay plain products.
(Forward mode was right: np.where's tangent picks the taken branch's.)"""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central


def square_root_where_positive(x):
    return np.sum(np.where(x > 0, x ** 0.5, 0.0))


def inverse_where_nonzero(x):
    return np.sum(np.where(x != 0, x ** -1.0, 0.0) * 0.5) + np.sum(x ** 3)


def python_float_power(x):
    s = float(x[0])
    return (s ** 1.5 if s > 0 else 0.0) + x[1]


@pytest.mark.parametrize("func, point", [
    (square_root_where_positive, [-0.4, 1.7, -2.0]),
    (inverse_where_nonzero, [0.0, 1.7, -2.0]),
    (python_float_power, [-0.4, 1.7, 0.3]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_zero_adjoint_stays_zero_through_a_power(func, point):
    x = np.array(point)
    grad = srcad.grad(func)(x)
    assert np.all(np.isfinite(grad)), grad
    away = x[np.abs(x) > 0.1]  # (the entries away from the kink at 0: central differences hold)
    right = central(func, x)
    np.testing.assert_allclose(grad[np.abs(x) > 0.1], right[np.abs(x) > 0.1], rtol=1e-6)
    assert away.size
    np.testing.assert_allclose(srcad.jvp(func)(x, np.eye(3)[1]), right[1], rtol=1e-6)
