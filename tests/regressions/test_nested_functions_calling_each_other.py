"""A function nested in the differentiated one that calls another nested one (def sigmoid ...;
def layer(v): return sigmoid(v @ W)) was refused ("srcad lifts one level of nesting"). lift.py
now passes a nested function the nested functions it calls, at each call, as it passes the
values it reads of the function around it (and, through those, what they read): so each call
sees what Python's would. Written into the caller, the chain is inlined whole. Refused, at the
line, where Python would fail or where the functions cannot be lifted: a call made before a
function it reaches is defined (NameError in Python), and functions that call each other."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient

RNG = np.random.default_rng(3)
X = RNG.normal(size=(3, 4))
W = RNG.normal(size=(4, 4)) * 0.5


def two_layers(x, w):
    def sigmoid(z):
        return 1.0 / (1.0 + np.exp(-z))
    def layer(v):
        return sigmoid(v @ w)
    h = layer(x)
    return np.sum(layer(h) * h)


def three_deep(x, w):
    def f1(v):
        return np.sin(v @ w)
    def f2(v):
        return f1(v) * 2.0
    act = lambda v: f2(v) + f1(v)  # noqa: E731
    return np.sum(act(x) * act(x * 0.5))


def defined_after_its_caller(x, w):
    def layer(v):
        return act(v @ w)
    act = lambda z: np.tanh(z) * 2.0  # noqa: E731
    return np.sum(layer(x))


@pytest.mark.parametrize("f", [two_layers, three_deep, defined_after_its_caller])
@pytest.mark.parametrize("disable", [(), ("inline",)])
def test_gradients_through_nested_functions_calling_each_other(f, disable):
    got = srcad.grad(f, wrt=(0, 1), disable=disable)(X, W)
    for i in (0, 1):
        np.testing.assert_allclose(got[i], central_gradient(f, (X, W), i), rtol=1e-6,
                                   atol=1e-8)


def test_written_in_whole():
    text = srcad.source(three_deep, wrt=(0, 1), args=(X, W))
    assert "_forward" not in text and "_backward" not in text


def called_too_early(x, w):
    def layer(v):
        return act(v @ w)
    h = layer(x)
    def act(z):
        return np.tanh(z)
    return np.sum(h)


def call_each_other(x):
    def a(v, n):
        return v if n == 0 else b(v * 0.5, n - 1)
    def b(v, n):
        return a(np.sin(v), n)
    return np.sum(a(x, 2))


def test_refused_where_python_fails_or_the_functions_call_each_other():
    with pytest.raises(NameError):
        called_too_early(X, W)
    with pytest.raises(srcad.SrcadError, match="reads the nested function act, which is "
                                               "defined after this line"):
        srcad.grad(called_too_early)(X, W)
    with pytest.raises(srcad.SrcadError, match="call each other"):
        srcad.grad(call_each_other)(X)
