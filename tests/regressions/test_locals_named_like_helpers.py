"""Crash: a local variable named like a runtime helper hid the helper. The derivative calls
its helpers by name, so `logistic = x * 2.0` with a logaddexp after it made the gradient call
the local's array (TypeError: 'numpy.ndarray' object is not callable), and a local called
`unbroadcast` or `safe_mul` broke the code for any shapes. Such a local is renamed fresh
(logistic_1) before the derivative is written; parameters keep their names (they are the
derivative's keywords)."""
import numpy as np
import pytest

import srcad

from regressions.numeric import central_gradient


def softplus_of_double(x):
    logistic = x * 2.0
    return np.sum(np.logaddexp(0.0, logistic))


def helper_names(x):
    unbroadcast = x * 2.0
    safe_mul = unbroadcast + 1.0
    masked = np.sqrt(safe_mul) * unbroadcast
    return np.sum(masked)


@pytest.mark.parametrize("func", [softplus_of_double, helper_names])
@pytest.mark.parametrize("disable", [None, "specialize", "all"])
def test_a_local_named_like_a_helper_does_not_hide_it(func, disable):
    x = np.array([0.5, 1.5, -0.25])
    want = central_gradient(func, (x,))
    np.testing.assert_allclose(srcad.grad(func, disable=disable)(x), want, rtol=1e-8)
    value, grad = srcad.value_and_grad(func, disable=disable)(x)
    assert value == func(x)
    np.testing.assert_allclose(srcad.jvp(func, disable=disable)(x, np.ones(3)), np.sum(want),
                               rtol=1e-8)


def test_the_renamed_local_keeps_its_name_in_the_comments():
    text = srcad.source(softplus_of_double)
    assert "logistic_1 = x * 2.0" in text and "# grad of: logistic = x * 2.0" in text
