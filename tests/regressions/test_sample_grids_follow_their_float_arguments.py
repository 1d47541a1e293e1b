"""np.linspace, np.arange and np.fft.fftfreq were registered as constants (non-differentiable,
like np.zeros), but their values follow their float arguments: np.linspace(x[0], x[1], 5) is
x[0] (1 - t) + x[1] t, np.arange(a, b, s) is a + k s, fftfreq(n, d) is k / (n d). A grid built
from differentiated values got a zero derivative: sum(linspace(x0, x1, 5) ** 2) had the
gradient [0, 0] at (0.3, 0.8) where it is [2.125, 3.375]. They have templates now (linear in start and stop;
1 and k in arange's start and step; -y / d in fftfreq's spacing)."""
import numpy as np
import pytest

import srcad


def grid_energy(x):
    return np.sum(np.linspace(x[0], x[1], 5) ** 2)


def stepped(x):
    return np.sum(np.arange(x[0], x[0] + 2.0, x[1]) ** 2)


def spectrum_weights(x):
    return np.sum(np.fft.fftfreq(6, x[0]) ** 2 * np.arange(6.0))


def constant_grid(x):
    return np.sum(np.linspace(0.0, 1.0, 3) * x[0]) + np.sum(np.arange(3) * x[1])


def _central(f, x, eps=1e-6):
    grad = np.zeros_like(x)
    for k in range(x.size):
        plus, minus = x.copy(), x.copy()
        plus[k] += eps
        minus[k] -= eps
        grad[k] = (f(plus) - f(minus)) / (2 * eps)
    return grad


@pytest.mark.parametrize("f", [grid_energy, stepped, spectrum_weights, constant_grid])
def test_a_grid_of_differentiated_values_has_their_derivative(f):
    x = np.array([0.3, 0.45])
    value, gradient = srcad.value_and_grad(f)(x)
    assert value == f(x)
    np.testing.assert_allclose(gradient, _central(f, x), rtol=1e-6)
    assert np.isclose(srcad.jvp(f)(x, np.array([1.0, -2.0])),
                      _central(f, x) @ np.array([1.0, -2.0]), rtol=1e-6)
    if f is grid_energy:  # sum((a (1 - t) + b t)^2): 2 y (1 - t) and 2 y t summed
        t = np.linspace(0.0, 1.0, 5)
        y = x[0] * (1 - t) + x[1] * t
        np.testing.assert_allclose(gradient, [np.sum(2 * y * (1 - t)), np.sum(2 * y * t)],
                                   rtol=1e-12)
