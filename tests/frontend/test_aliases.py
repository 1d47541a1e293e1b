"""frontend/aliases.py: a local name bound once, at the top of f, to a function named by a free
name or an attribute chain (act = np.tanh, g = helper) is that function in its calls after it.
Before, `act(x)` was refused (srcad could not tell which function act is); the fuzzer's
closures family bound a numpy function to a name in 26 of 400 programs, refused every time."""
import math

import numpy as np
import pytest

import srcad

from regressions.numeric import central_gradient

X = np.array([0.3, -0.5, 0.9])
W = np.random.default_rng(3).normal(size=(3, 3))


def helper(z):
    return z * z + 1.0


def aliased(x, W):
    act = np.tanh
    g = helper
    h = act(W @ x)
    s = 0.0
    for i in range(2):
        s = s + np.sum(g(h) * act(x[i]))
    return s + math.exp(0.1) * np.sum(act(h))


def test_calls_through_a_function_alias_are_differentiated():
    want = central_gradient(aliased, (X, W))
    np.testing.assert_allclose(srcad.grad(aliased)(X, W), want, rtol=1e-7)
    np.testing.assert_allclose(srcad.jvp(aliased)(X, W, np.ones(3)), np.sum(want), rtol=1e-7)
    srcad.check_grads(aliased, (X, W), wrt=(0, 1), order=2)
    text = srcad.source(aliased)
    assert "np.tanh(" in text


def chosen_by_a_branch(x, W):
    act = np.tanh
    if np.sum(x) > 0.0:
        act = np.sin
    return np.sum(act(W @ x))


def test_a_name_bound_twice_is_not_read_as_either_function():
    with pytest.raises(srcad.SrcadError, match="cannot tell which function act is"):
        srcad.grad(chosen_by_a_branch)(X, W)
