"""A derivative that calls a method through a global (a callable object, obj(x); a bound method
held by a name, step = model.apply) notices at its next call that the global holds another
object whose method is other code, and is built again, as it does for a redefined function.
Without the watch, a callable object rebound to another class ran the first class's derivative
on it (an AttributeError, or with the same attribute names a wrong gradient), and a bound method
held by a name, read from its object when the derivative was built, kept the first object's
values (the gradient 2 cos x after step = Home(5.0).apply)."""
import numpy as np

import srcad


class Home:
    def __init__(self, s):
        self.s = s

    def apply(self, a):
        return self.s * np.sin(a)

    def __call__(self, a):
        return self.s * np.sin(a)


class Other:
    def __init__(self, s):
        self.s = s

    def __call__(self, a):  # (the same attribute name: a wrong gradient, not an error)
        return self.s * np.cos(a)


step = Home(2.0).apply
obj = Home(2.0)
X = np.array([0.3, -0.4])


def through_a_bound_method(x):
    return np.sum(step(x))


def through_an_object(x):
    return np.sum(obj(x))


def test_a_bound_method_rebound_to_another_object():
    global step
    step = Home(2.0).apply
    derivative = srcad.grad(through_a_bound_method)
    np.testing.assert_allclose(derivative(X), 2.0 * np.cos(X), rtol=1e-12)
    step = Home(5.0).apply
    np.testing.assert_allclose(derivative(X), 5.0 * np.cos(X), rtol=1e-12)


def test_a_callable_object_rebound_to_another_class():
    global obj
    obj = Home(2.0)
    derivative = srcad.grad(through_an_object)
    np.testing.assert_allclose(derivative(X), 2.0 * np.cos(X), rtol=1e-12)
    obj.s = 7.0  # (its attributes are read at each call)
    np.testing.assert_allclose(derivative(X), 7.0 * np.cos(X), rtol=1e-12)
    obj = Other(3.0)
    np.testing.assert_allclose(derivative(X), -3.0 * np.sin(X), rtol=1e-12)


def make_scaled(s):
    def scaled(a):  # (every closure of the factory has this code; the cell s differs)
        if a[0] > 1e9:  # (a branch: kept a call, not written into its caller)
            return a
        return s * np.sin(a)
    return scaled


scaled = make_scaled(2.0)


def through_a_closure(x):
    return np.sum(scaled(x))


def test_a_closure_rebound_to_another_of_its_factory():
    global scaled
    scaled = make_scaled(2.0)
    derivative = srcad.grad(through_a_closure)
    np.testing.assert_allclose(derivative(X), 2.0 * np.cos(X), rtol=1e-12)
    scaled = make_scaled(5.0)  # (the same code: only its cell tells them apart)
    np.testing.assert_allclose(derivative(X), 5.0 * np.cos(X), rtol=1e-12)
