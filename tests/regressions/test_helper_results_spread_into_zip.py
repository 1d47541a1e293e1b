"""for a, b, c in zip(*unpack(params)), a helper that returns a tuple of arrays transposed into
its rows, was refused at the fence ("calls with *args unpacking where it cannot tell how many
items they pass"): srcad counts the items of a * argument only for a name bound to a tuple
display. The helper's every return is a display of the same length, so the count is known where
the function is built: the call is bound to a name before the loop and its items passed to zip
one by one (frontend/starred.py), which the loop lowering indexes like any zip. A helper whose
returns differ in length, or are not displays, is refused as before."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient


def unpack(params):
    weights = params[:3] - np.max(params[:3])
    return weights, params[3:9].reshape(3, 2), np.exp(params[9:12])


def mixture_like(params, x):
    total = 0.0
    for w, mean, scale in zip(*unpack(params)):
        total = total + np.sum(w * np.tanh((x - mean) * scale))
    for i, (w, mean, scale) in enumerate(zip(*unpack(2.0 * params))):
        total = total + (i + 1) * w * np.sum(mean) * scale
    return total


def in_a_branch(params, x):
    out = 0.0
    if x[0] > -10.0:
        for w, mean, scale in zip(*unpack(params)):
            out = out + w * np.sum(mean * x) + scale
    return out


def uneven(params):
    if params[0] > 0:
        return params[:2], params[2:4]
    return params[:2], params[2:4], params[4:6]


def spread_uneven(params, x):
    total = 0.0
    for a, b in zip(*uneven(params)):
        total = total + a * b
    return total + np.sum(x)


P = np.linspace(-0.8, 1.1, 12)
X = np.array([0.3, -0.4])


@pytest.mark.parametrize("f", [mixture_like, in_a_branch])
@pytest.mark.parametrize("disable", [None, "all"])
def test_helper_results_spread_into_zip(f, disable):
    got = srcad.grad(f, disable=disable)(P, X)
    expected = central_gradient(f, (P, X))
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-9)
    v = np.cos(np.arange(12.0))
    np.testing.assert_allclose(srcad.jvp(f, disable=disable)(P, X, v), got @ v, rtol=1e-10)


def test_returns_of_different_lengths_are_refused():
    with pytest.raises(srcad.SrcadError, match=r"\*args unpacking"):
        srcad.grad(spread_uneven)(P, X)
