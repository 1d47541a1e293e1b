"""The derivative of a bound method (srcad.grad(model.loss)) was the derivative of its function
with self an argument: a call of another method of self (self.predict(x), self.parser.get(w))
was refused, since srcad cannot tell an argument's class at build time, though a bound method's
self is known then. And the transforms built on a derivative of a bound method failed:
srcad.hessian, srcad.hvp and srcad.hessp refused it as "not a Python function", srcad.jacobian
raised an AttributeError. Now a bound method of an object of the user's classes is
differentiated as its function's copy that knows self's class (and the classes of self's
attributes that are the user's objects), checked before every call; and every transform of a
bound method, or of a transform of one, is the transform of the function with self first."""
import pickle

import numpy as np
import pytest

import srcad


class Parser:
    def __init__(self, k):
        self.k = k

    def get(self, w):
        return w[:self.k]


class ScaledParser(Parser):
    def get(self, w):
        return 2.0 * w[:self.k]


class Model:
    def __init__(self, W, b):
        self.W, self.b = W, b
        self.parser = Parser(2)

    def predict(self, x):
        return np.tanh(self.W @ x + self.b)

    def loss(self, x):
        return np.sum(self.predict(x) ** 2) + np.sum(self.parser.get(x) ** 3)

    def curve(self, t):
        return np.sin(self.b[0] * t) * t


class Sine(Model):
    def predict(self, x):
        return np.sin(self.W @ x)


def _central(f, x, eps=1e-6):
    """The Jacobian of f at x by central differences, shaped f(x).shape + x.shape."""
    x = np.asarray(x, dtype=float)
    columns = []
    for k in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[k] += eps
        minus[k] -= eps
        columns.append((np.asarray(f(plus)) - np.asarray(f(minus))) / (2 * eps))
    return np.moveaxis(np.reshape(np.stack(columns), x.shape + np.shape(columns[0])),
                       tuple(range(x.ndim)), tuple(range(-x.ndim, 0)))


@pytest.fixture
def model():
    rng = np.random.default_rng(1)
    return Model(rng.normal(size=(3, 4)), rng.normal(size=3))


X = np.array([0.3, -0.7, 1.1, 0.4])


def test_a_method_calling_other_methods_of_self_is_differentiated(model):
    value, gradient = srcad.value_and_grad(model.loss)(X)
    assert value == model.loss(X)
    np.testing.assert_allclose(gradient, _central(model.loss, X), rtol=1e-6)
    np.testing.assert_allclose(srcad.jvp(model.loss)(X, np.ones(4)),
                               np.sum(_central(model.loss, X)), rtol=1e-6)
    w = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(srcad.vjp(model.predict)(X, w),
                               w @ _central(model.predict, X), rtol=1e-6)


def test_another_class_or_attribute_gets_its_own_derivative(model):
    gradient = srcad.grad(model.loss)
    gradient(X)
    model.parser = ScaledParser(3)
    np.testing.assert_allclose(gradient(X), _central(model.loss, X), rtol=1e-6)
    model.__class__ = Sine
    np.testing.assert_allclose(gradient(X), _central(model.loss, X), rtol=1e-6)


def test_transforms_of_bound_methods_compose(model):
    hessian = srcad.hessian(model.loss)(X)
    expected = _central(srcad.grad(model.loss), X)
    np.testing.assert_allclose(hessian, expected, rtol=1e-5, atol=1e-8)
    v = np.array([1.0, -2.0, 0.5, 0.3])
    np.testing.assert_allclose(srcad.hvp(model.loss)(X, v), hessian @ v, rtol=1e-7)
    np.testing.assert_allclose(srcad.hessp(model.loss)(X, v), hessian @ v, rtol=1e-7)
    np.testing.assert_allclose(srcad.jacobian(model.predict)(X),
                               _central(model.predict, X), rtol=1e-6)
    np.testing.assert_allclose(srcad.jacobian(model.predict, mode="forward")(X),
                               _central(model.predict, X), rtol=1e-6)
    second = srcad.grad(srcad.grad(model.curve))
    b = model.b[0]
    t = 0.7  # d2/dt2 of t sin(b t) = 2 b cos(b t) - b^2 t sin(b t)
    assert np.isclose(second(t), 2 * b * np.cos(b * t) - b * b * t * np.sin(b * t))


def test_a_derivative_of_a_bound_method_pickles(model):
    gradient = srcad.grad(model.loss)
    again = pickle.loads(pickle.dumps(gradient))
    np.testing.assert_allclose(again(X), gradient(X))
