"""Functions passed as values (rules/calls.with_function_arguments, frontend/lift.py): a
helper called with a function it knows is differentiated as a copy of it in which the
parameter denotes that function, through any depth of helpers; a nested function may be
passed as a value if it reads nothing of the enclosing function's, and a default computed
from the enclosing function's values is computed where the def is."""
import numpy as np
import pytest

import srcad

R = np.random.RandomState(5)
PARAMS = [R.randn(3, 2), R.randn(2)]
X = R.randn(4, 3)


def predict(params, x):
    return np.tanh(x @ params[0] + params[1])


def predict_sin(params, x):
    return np.sin(x @ params[0])


def loss(model, params, x):
    return np.sum(model(params, x) ** 2)


def both(model, params, x):
    return loss(model, params, x) + 0.5 * loss(predict_sin, params, x)


def model_passed_down(params, x):
    return loss(predict, params, x) + both(predict, params, x)


def apply(fn, v):
    return fn(v)


def library_functions_passed(params, x):
    return np.sum(apply(np.tanh, params[1]) * apply(np.exp, params[1]))


def nested_function_passed(params, x):
    def square(v):
        return v * v
    return np.sum(apply(square, x @ params[0]))


def computed_default(params, x):
    scale = np.sum(params[1])

    def scaled(v, s=scale):
        return np.sum(np.sin(v) * s)
    scale = 10.0  # (the default is the value at the def)
    return scaled(x @ params[0]) + scaled(params[1], 2.0) * scale


@pytest.mark.parametrize("func", [model_passed_down, library_functions_passed,
                                  nested_function_passed, computed_default])
def test_functions_passed_as_values(func):
    srcad.check_grads(func, (PARAMS, X), order=2)


def test_two_functions_give_two_derivatives():
    g1 = srcad.grad(lambda_loss_predict)(PARAMS, X)
    g2 = srcad.grad(lambda_loss_sin)(PARAMS, X)
    assert not np.allclose(g1[0], g2[0])


def lambda_loss_predict(params, x):
    return loss(predict, params, x)


def lambda_loss_sin(params, x):
    return loss(predict_sin, params, x)


def test_a_function_argument_of_f_itself_is_refused_with_what_to_write():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(loss, wrt=1)(predict, PARAMS, X)
    message = str(info.value)
    assert "argument of the function srcad differentiates" in message
    assert "loss(model=my_model" in message


class Layer:
    def __init__(self, scale):
        self.scale = scale

    def forward(self, W, x):
        return self.scale * np.tanh(x @ W)

    def __call__(self, W, x):
        return self.forward(W, x) * 2.0  # (a method calling another on its self)


LAYER = Layer(1.5)


def objects_and_methods(params, x):
    return np.sum(LAYER(params[0], x)) + np.sum(LAYER.forward(params[0], x) ** 2)


def test_callable_objects_and_methods_of_known_objects():
    srcad.check_grads(objects_and_methods, (PARAMS, X), order=2)
    assert "Layer_call_forward" in srcad.source(objects_and_methods)
