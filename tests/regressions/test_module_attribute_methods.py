"""A module attribute that is another object's bound method (random.shuffle is
random._inst.shuffle; here exposed_methods.apply is _default.apply) is called with that object
as its self. srcad wrote the call as Scaler.apply(exposed_methods, x): self was the module, and
self.factor read the module's own `factor` (3.0) for the object's (2.0), silently; and
random.shuffle raised an AttributeError (the module has no _randbelow)."""
import random

import numpy as np
import pytest

import srcad
from tests.regressions import exposed_methods
from tests.regressions.numeric import central


def scaled(x):
    return np.sum(exposed_methods.apply(x))


def shuffled(x):
    y = [x[0], x[1], x[2]]
    random.shuffle(y)  # (permutes y in place: refused, as any helper that writes into an argument)
    return y[0] + 2.0 * y[1]


def test_the_method_gets_its_own_object_as_self():
    x = np.array([0.1, 0.2, -0.4])
    np.testing.assert_allclose(srcad.grad(scaled)(x), 2.0 * np.cos(x), rtol=1e-12)
    np.testing.assert_allclose(srcad.grad(scaled)(x), central(scaled, x), rtol=1e-6)


def test_random_shuffle_is_refused_at_the_users_line_not_a_crash():
    with pytest.raises(srcad.SrcadError, match="changes an argument in place") as caught:
        srcad.grad(shuffled)(np.array([1.0, 2.0, 3.0]))
    assert "random.shuffle(y)" in str(caught.value)


class Home:
    def __init__(self, scale):
        self.scale = scale

    def apply(self, a):
        return self.scale * np.sin(a)

    @classmethod
    def make(cls, a):
        return 2.0 * np.cos(a)


step = Home(3.0).apply  # a bound method held by a name: its object is its self
build = Home.make


def through_held_methods(x):
    return np.sum(step(x)) + np.sum(build(x))


def test_a_bound_method_held_by_a_name_is_differentiated():
    # (was refused: "no adjoint template for ...Home.apply")
    x = np.array([0.2, 0.5])
    np.testing.assert_allclose(srcad.grad(through_held_methods)(x),
                               3.0 * np.cos(x) - 2.0 * np.sin(x), rtol=1e-12)
    tangent = srcad.jvp(through_held_methods)(x, np.ones(2))
    np.testing.assert_allclose(tangent, np.sum(3.0 * np.cos(x) - 2.0 * np.sin(x)), rtol=1e-12)


class Base:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.tanh(self.w * x)


class ThroughSuper(Base):
    def __call__(self, x):
        return 2.0 * super().__call__(x)


class ByName(Base):
    def __call__(self, x):
        return 2.0 * Base.__call__(self, x)


through_super, by_name = ThroughSuper(0.5), ByName(0.5)


def calls_through_super(x):
    return np.sum(through_super(x))


def calls_by_name(x):
    return np.sum(by_name(x))


def test_super_is_refused_with_what_to_write_and_that_works():
    x = np.array([0.3, -0.2])
    with pytest.raises(srcad.SrcadError, match=r"does not follow super\(\)") as caught:
        srcad.grad(calls_through_super)(x)
    assert "Base.__call__(self, ...)" in str(caught.value)  # (was: "which function this
    # function is", and a hint about methods of values)
    np.testing.assert_allclose(srcad.grad(calls_by_name)(x), 1.0 - np.tanh(0.5 * x) ** 2,
                               rtol=1e-12)


def held_method_in_a_loop(x):
    total = 0.0
    for k in range(3):
        total = total + np.sum(step(x * (k + 1.0)) ** 2)
    return total


def test_a_held_methods_object_in_a_loop_is_a_constant_at_second_order():
    # (read as step.__self__ in the loop, the object was kept on the tape with the turn's
    # values, and the Hessian-vector product gave it a tangent: an AttributeError)
    x, v = np.array([0.2, -0.4, 0.7]), np.array([1.0, 0.5, -0.3])
    grad = srcad.grad(held_method_in_a_loop)
    h = 1e-5
    want = (grad(x + h * v) - grad(x - h * v)) / (2 * h)
    np.testing.assert_allclose(srcad.hvp(held_method_in_a_loop)(x, v), want, rtol=1e-6)
