"""Wrong number: a parameter named like a runtime helper hid the helper. The derivative calls
its helpers by name, and in the generated function that name was the parameter: a function
passed as `logistic` was called for np.logaddexp's slopes (the gradient of
sum(logaddexp(x, 0)) * logistic(1.0) with logistic = 2z came out [2, -4], not
2 / (1 + exp(-x))). The parameter keeps its name (a keyword of the derivative), the body reads
a copy of it, and a derivative that still calls the helper of that name is refused at the
parameter, with what to do. Where the derivative calls no such helper, the gradient is right
(every mode, keyword arguments too)."""
import numpy as np
import pytest

import srcad

from regressions.numeric import central_gradient


def softplus_scaled(x, logistic):
    return np.sum(np.logaddexp(x, 0.0)) * logistic(1.0)


def masked_sum(x, masked):
    return np.sum(np.sin(x) * masked) + np.sum(masked * x)


def weighted(x, safe_mul, triangle=2.0):
    return np.sum(np.sqrt(x * x + 1.0) * safe_mul) * triangle


X = np.array([0.5, -1.0, 2.0])


@pytest.mark.parametrize("disable", [None, "specialize", "all"])
def test_a_derivative_that_calls_the_hidden_helper_is_refused_at_the_parameter(disable):
    with pytest.raises(srcad.SrcadError) as raised:
        srcad.grad(softplus_scaled, disable=disable)(X, lambda z: 2.0 * z)
    text = str(raised.value)
    assert "the parameter `logistic` has the name of one of srcad's runtime helpers" in text
    assert "def softplus_scaled(x, logistic):" in text and "rename the parameter" in text


@pytest.mark.parametrize("disable", [None, "specialize", "all"])
def test_a_parameter_named_like_a_helper_the_derivative_does_not_call(disable):
    w = np.array([1.5, -0.5, 0.25])
    for func, args in ((weighted, (X, w)), (weighted, (X, w, 3.0)), (masked_sum, (X, w))):
        want = central_gradient(func, args)
        np.testing.assert_allclose(srcad.grad(func, disable=disable)(*args), want, rtol=1e-8)
        value, grad = srcad.value_and_grad(func, disable=disable)(*args)
        assert value == func(*args)
        np.testing.assert_allclose(grad, want, rtol=1e-8)
        np.testing.assert_allclose(srcad.jvp(func, disable=disable)(*args, np.ones(3)),
                                   np.sum(want), rtol=1e-8)
    np.testing.assert_allclose(srcad.grad(weighted, disable=disable)(X, safe_mul=w, triangle=3.0),
                               central_gradient(weighted, (X, w, 3.0)), rtol=1e-8)
    wrt_parameter = srcad.grad(weighted, wrt=1, disable=disable)(X, w)
    np.testing.assert_allclose(wrt_parameter, central_gradient(weighted, (X, w), 1), rtol=1e-8)
