"""A helper's derivative (a callee that is not written into its caller: a closure, a long or
recursive helper, or any helper with inlining switched off) takes its caller's values as its
parameters, and those may be inf or nan where the caller's arguments are finite: the untaken
branch of an np.where, `np.sqrt(x)` at x < 0. The guards pass took a callee's parameters for
the user's arguments, finite by the assumption of docs/numerics.md section 1, and dropped the
guard of 1 / (1 + exp(u)) (a divisor that is at least 1 for finite u): the gradient was nan
where the derivative is 0. A callee's parameters are any real numbers to the pass now."""
import warnings

import numpy as np
import pytest

import srcad


def _helper(u):
    return 1.0 / (1.0 + np.exp(u))


def _calls_the_helper(x):
    return np.sum(np.where(x > 0, _helper(np.sqrt(x)), 0.0))


def _closure(x):
    def helper(u):
        return 1.0 / (1.0 + np.exp(u))
    return np.sum(np.where(x > 0, helper(np.sqrt(x)), 0.0))


X = np.array([1.0, -1.0, 4.0])


def _expected(x):
    s = np.sqrt(np.maximum(x, 0.0))
    e = np.exp(s)
    slope = -e / (1.0 + e) ** 2 * 0.5 / np.where(x > 0, s, 1.0)
    return np.where(x > 0, slope, 0.0)


@pytest.mark.parametrize("f, disabled", [(_calls_the_helper, ("inline",)), (_closure, ())],
                         ids=["not-inlined", "closure"])
@pytest.mark.parametrize("kind", ["grad", "value_and_grad"])
def test_a_callee_parameter_may_be_nan_where_the_arguments_are_finite(f, disabled, kind):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (np.sqrt(-1.0) in the forward)
        out = getattr(srcad, kind)(f, disable=disabled)(X)
    gradient = out[1] if kind == "value_and_grad" else out
    assert np.all(np.isfinite(gradient)), gradient
    np.testing.assert_allclose(gradient, _expected(X), rtol=1e-12, atol=0)
    assert gradient[1] == 0.0
