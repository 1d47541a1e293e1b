"""Found by writing examples/ as scientists write them (each a mechanism):
- a default that is a name (def f(x, eps=EPS), activation=sigmoid) was repeated in the
  generated def, where the name is not defined (NameError): defaults are written as the values
  Python computed at the def, and set from the function's own where they are not literals; a
  helper's function-valued default that the call leaves out specializes the helper like a
  passed function;
- reversed(range(n)) and reversed(xs) crashed (len of an iterator): they are xs[::-1];
- forward mode made the tangent of [y0] grown by append a tuple (no .append): a display that is
  appended to has a list of tangents;
- a tuple spread into a helper's *args in a loop: its adjoint from tuple(rates) was added with
  + to a tuple (crash) and the gradient came back as a list: the argument of list()/tuple() may
  be a sequence, and such a parameter's gradient is returned in its structure;
- a trajectory in a preallocated array (ys = np.empty(..); ys[0] = y0; ys[i + 1] = ...) was
  refused as a store into an argument: the mutation fence took ys[0] = y0 for a reference to
  y0 kept in ys, as a list would keep it; an array numpy made copies what is stored."""
import numpy as np
import pytest

import srcad

EPS = 1e-3


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def gate(W, x, activation=sigmoid):
    return activation(W @ x)


def name_default(x, eps=EPS):
    return np.sum(x ** 2) + eps * np.sum(x)


def helper_function_default(W, x):
    return np.sum(gate(W, x) ** 2)


def reversed_loops(x, W):
    h = np.zeros(2)
    for t in reversed(range(3)):
        h = np.tanh(W @ h + x * t)
    for v in reversed([x, 2.0 * x]):
        h = h * v
    return np.sum(h)


def appended_display(y0, c):
    y = y0
    states = [y0, c * y0]
    for n in range(3):
        y = 2.0 * y * c
        states.append(y)
    return np.sum(np.stack(states) ** 2)


def step(y, *args):
    a, b = args
    return y * a + b


def tuple_into_star_args(rates, y):
    for n in range(2):
        y = step(y, *rates)
    return np.sum(y ** 2)


def rhs(y, a):
    return np.array([y[1], -a * y[0]])


def trajectory(y0, a):
    ys = np.empty((6, 2))
    ys[0] = y0
    for i in range(5):
        ys[i + 1] = ys[i] + 0.1 * rhs(ys[i], a)
    return np.sum(ys[:, 0] ** 2)


X = np.array([0.3, -0.5])
W = np.array([[0.5, -0.2], [0.1, 0.4]])


@pytest.mark.parametrize("func, args, wrt", [
    (name_default, (X,), 0), (helper_function_default, (W, X), (0, 1)),
    (reversed_loops, (X, W), (0, 1)), (appended_display, (X, 0.7), (0, 1)),
    (trajectory, (X, 2.0), (0, 1))])
def test_example_programs_found(func, args, wrt):
    srcad.check_grads(func, args, wrt=wrt, order=2)


def test_a_non_literal_default_is_the_functions_own():
    def scaled(x, w=np.array([2.0, 3.0])):
        return np.sum(w * x)
    np.testing.assert_allclose(srcad.grad(scaled)(X), [2.0, 3.0])
    assert "def scaled_grad(x, w=None)" in srcad.source(scaled)


def test_tuple_into_star_args_gradient_is_a_tuple():
    g = srcad.grad(tuple_into_star_args)((1.1, 0.3), X)
    assert isinstance(g, tuple) and len(g) == 2
    srcad.check_grads(tuple_into_star_args, ((1.1, 0.3), X), wrt=(0, 1))
