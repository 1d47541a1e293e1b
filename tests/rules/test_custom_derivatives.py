"""Custom derivatives from user code, the shape of JAX's custom_vjp/custom_jvp: a function of the
user's gets its adjoint and tangent as templates (ordinary Python over d[...]), which srcad uses
instead of differentiating the function's source, in every mode and at every order (the
templates' expressions are differentiated again for Hessians).

Two uses the issue names: a numerically stable rule for a function srcad could differentiate
(log(1 + e^x), whose derivative from its source is inf/inf = nan for large x), and an
implicit-function rule for a fixed-point solver (the derivative of the solution from the
equation it solves, not from the iterations)."""
import numpy as np
import pytest

import srcad
from srcad import d
from srcad.rules.registry import REGISTRY
from srcad.runtime import HELPERS


def log1pexp(x):
    return np.log1p(np.exp(x))


def stable_sigmoid(x):
    """1 / (1 + e^-x) without overflow."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


# the helper's own rules (a derivative of the generated gradient calls it): written as math, not
# taken from its source, whose |x| has a kink at 0 that the smooth sigmoid does not
def stable_sigmoid_tangent(s, x):
    d[s] = d[x] * s * (1.0 - s)


def stable_sigmoid_adjoint(s, x):
    d[x] = d[s] * s * (1.0 - s)


def log1pexp_adjoint(y, x):
    d[x] = d[y] * stable_sigmoid(x)


def log1pexp_tangent(y, x):
    d[y] = d[x] * stable_sigmoid(x)


def softplus_loss(x):
    return np.sum(log1pexp(x))


def test_a_stable_rule_replaces_the_derivative_of_the_source():
    x = np.array([1000.0, -1000.0, 0.0, 2.0])
    expected = np.array([1.0, 0.0, 0.5, 1.0 / (1.0 + np.exp(-2.0))])
    with np.errstate(over="ignore"):
        np.testing.assert_allclose(srcad.grad(softplus_loss)(x), expected, rtol=1e-15)
        np.testing.assert_allclose(srcad.jvp(softplus_loss)(x, np.ones(4)), np.sum(expected),
                                   rtol=1e-15)
        s = expected
        H = srcad.hessian(softplus_loss)(x)
        np.testing.assert_allclose(H, np.diag(s * (1 - s)), rtol=1e-12, atol=1e-300)
        H_rr = srcad.hessian(softplus_loss, mode="reverse-over-reverse")(x)
        np.testing.assert_allclose(H_rr, H, rtol=1e-12, atol=1e-300)


def fixed_point(a):
    """The x with x = cos(a x), by iteration (the iterations are not what to differentiate)."""
    x = 0.5
    for i in range(200):
        x = np.cos(a * x)
    return x


# implicit function theorem: F(x, a) = cos(a x) - x = 0, so
# dx/da = -F_a / F_x = -x sin(a x) / (1 + a sin(a x))
def fixed_point_adjoint(x, a):
    d[a] = d[x] * (-x * np.sin(a * x)) / (1.0 + a * np.sin(a * x))


def fixed_point_tangent(x, a):
    d[x] = d[a] * (-x * np.sin(a * x)) / (1.0 + a * np.sin(a * x))


def energy(a):
    x = fixed_point(a)
    return np.sum(x ** 2 + a * x)


@pytest.mark.parametrize("a", [0.5, 1.2, np.array([0.3, 0.9])])
def test_an_implicit_function_rule_for_a_fixed_point_solver(a):
    srcad.check_grads(energy, (a,), order=2)
    h = 1e-6
    central = (energy(a + h) - energy(a - h)) / (2 * h)  # (along all of a at once)
    np.testing.assert_allclose(np.sum(srcad.grad(energy)(a)), central, rtol=1e-6, atol=1e-9)


def test_the_rule_is_what_the_generated_code_runs():
    text = srcad.grad(energy).source
    assert "fixed_point_forward" not in text and "fixed_point_backward" not in text
    assert "np.sin(a * x)" in text or "np.sin(t" in text  # the implicit rule's expression


@pytest.fixture(autouse=True, scope="module")
def _rules():
    """The rules above, registered as a user registers them (@srcad.runtime.helper,
    @srcad.adjoint, @srcad.tangent) while this module's tests run, and dropped afterwards: the
    coverage tests count srcad's own (registering at import would show them to every test)."""
    srcad.runtime.helper(linear=False)(stable_sigmoid)
    srcad.tangent(stable_sigmoid)(stable_sigmoid_tangent)
    srcad.adjoint(stable_sigmoid)(stable_sigmoid_adjoint)
    srcad.adjoint(log1pexp)(log1pexp_adjoint)
    srcad.tangent(log1pexp)(log1pexp_tangent)
    srcad.adjoint(fixed_point)(fixed_point_adjoint)
    srcad.tangent(fixed_point)(fixed_point_tangent)
    yield
    REGISTRY.forget(log1pexp, fixed_point, stable_sigmoid)
    HELPERS.pop("stable_sigmoid", None)
