"""np.tanh(np.expm1(a)) at a = 800: expm1 overflows to inf and its tangent is inf (a strong
zero keeps only a zero tangent zero); tanh's slope there is exactly 0 (1 - 1 * 1), and the
plain product inf * 0 made the jvp nan where the derivative is 0 (reverse mode gave 0). Found by
the fuzzer (seed 410836: an accumulation growing to ~900 inside np.tanh(np.expm1(acc))). tanh
is declared saturating (@diagonal(np.tanh, saturates=True)): its tangent multiplies through
slope_mul; its adjoint stays a plain product."""
import numpy as np

import srcad
from tests.regressions.numeric import central


def saturated(a):
    return np.sum(np.tanh(np.expm1(a)) * a)


def accumulated(a):
    acc = a * 1.0
    for _ in range(3):
        acc = acc * 0.5 + np.tanh(np.expm1(acc)) + 500.0  # (expm1 overflows in turn 3)
    return np.sum(acc)


def test_a_saturated_tanh_gives_a_zero_tangent_through_an_infinite_one():
    a = np.array([0.3, 800.0])
    tangent = srcad.jvp(saturated)(a, np.ones(2))
    gradient = srcad.grad(saturated)(a)
    assert np.isfinite(tangent) and np.isfinite(gradient).all()
    np.testing.assert_allclose(tangent, gradient.sum(), rtol=1e-12)
    np.testing.assert_allclose(gradient[1], np.tanh(np.expm1(800.0)))  # (only the a factor)


def test_forward_and_reverse_agree_after_the_loop_overflows():
    a = np.array([0.5, -0.2])
    v = np.array([1.0, -2.0])
    with np.errstate(over="ignore"):
        tangent = srcad.jvp(accumulated)(a, v)
        gradient = srcad.grad(accumulated)(a)
        forward = srcad.jacobian(accumulated, mode="forward")(a)
        right = central(accumulated, a)
    np.testing.assert_allclose(gradient, right, rtol=1e-6)
    np.testing.assert_allclose(tangent, gradient @ v, rtol=1e-12)
    np.testing.assert_allclose(forward, gradient, rtol=1e-12)
