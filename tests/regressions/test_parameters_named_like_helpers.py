"""Wrong numbers: a parameter, or a function of the module, named like a runtime helper hid the
helper. The derivative calls
its helpers by name, and in the generated function that name was the parameter: a function
passed as `logistic` was called for np.logaddexp's slopes (the gradient of
sum(logaddexp(x, 0)) * logistic(1.0) with logistic = 2z came out [2, -4], not
2 / (1 + exp(-x))). The parameter keeps its name (a keyword of the derivative), the body reads
a copy of it, and a derivative that still calls the helper of that name is refused at the
parameter, with what to do. Where the derivative calls no such helper, the gradient is right
(every mode, keyword arguments too).

A function of the module called `logistic` (or a closure's) was bound by that name where the
generated code runs, over the runtime's: written into the caller (inlined), its name was still
bound (to watch it for changes), and logaddexp's slopes called it (4.0 off). The names the
code reads are bound now, the helpers written in only watched; a free name called like a
helper is read under a fresh name while the derivative is built, and a derivative that also
calls the helper is refused at the user's read."""
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


def logistic(z):
    return 2.0 * z + np.sin(z)


def masked(z):
    return z * z


def softplus_and_module_function(x):
    return np.sum(np.logaddexp(x, 0.0)) + np.sum(logistic(x) ** 2)


def module_function_only(x):
    return np.sum(masked(x) * np.sin(x))


def closure_named_like_a_helper():
    def triangle(z):
        return np.cos(z) * 3.0

    def f(x):
        return np.sum(np.logaddexp(x, 1.0)) + np.sum(triangle(x))
    return f


X = np.array([0.5, -1.0, 2.0])


@pytest.mark.parametrize("func", [softplus_and_module_function, module_function_only,
                                  closure_named_like_a_helper()])
def test_a_module_function_named_like_a_helper_written_in(func):
    want = central_gradient(func, (X,))
    np.testing.assert_allclose(srcad.grad(func)(X), want, rtol=1e-7)
    np.testing.assert_allclose(srcad.jvp(func)(X, np.ones(3)), np.sum(want), rtol=1e-7)
    value, grad = srcad.value_and_grad(func)(X)
    assert value == func(X)


@pytest.mark.parametrize("disable", ["inline", "all"])
def test_a_module_function_named_like_a_helper_kept_as_a_call(disable):
    with pytest.raises(srcad.SrcadError) as raised:
        srcad.grad(softplus_and_module_function, disable=disable)(X)
    text = str(raised.value)
    assert "`logistic`, a name of the function's module, has the name of one of srcad's" in text
    assert "np.sum(logistic(x) ** 2)" in text and "rename it" in text
    np.testing.assert_allclose(srcad.grad(module_function_only, disable=disable)(X),
                               central_gradient(module_function_only, (X,)), rtol=1e-7)


@pytest.mark.parametrize("disable", [None, "specialize", "all"])
def test_a_derivative_that_calls_the_hidden_helper_is_refused_at_the_parameter(disable):
    with pytest.raises(srcad.SrcadError) as raised:
        srcad.grad(softplus_scaled, disable=disable)(X, lambda z: 2.0 * z)
    text = str(raised.value)
    assert "`logistic`, a parameter, has the name of one of srcad's runtime helpers" in text
    assert "def softplus_scaled(x, logistic):" in text and "rename it" in text


def scaled_exp(x, slope_mul):
    return np.sum(np.exp(x) * x) * slope_mul


def test_a_helper_a_pass_writes_is_refused_too():
    """singular.py writes slope_mul for the guarded product of exp's adjoint: a call no
    template wrote, after the copy of the parameter was read as the parameter again. (With
    the guards pass, which finds exp(x) finite wherever the output is, the product is plain
    and no helper is called: nothing to refuse.)"""
    with pytest.raises(srcad.SrcadError, match="`slope_mul`, a parameter, has the name"):
        srcad.grad(scaled_exp, disable="guards")(X, 2.0)
    for disable in ("singular", None):
        np.testing.assert_allclose(srcad.grad(scaled_exp, disable=disable)(X, 2.0),
                                   central_gradient(scaled_exp, (X, 2.0)), rtol=1e-7)


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
