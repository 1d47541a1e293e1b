"""A loop over a list of layer objects that are not callable, calling a method of each
(for layer in layers: h = layer.forward(h, theta)), was refused ("srcad cannot tell which
function layer.forward is"): frontend/object_loops.py wrote such loops out only for functions
and callable objects. And a method reaching another object through an attribute of its self
(self.parser.get(theta, "W"), a helper object that slices a parameter vector) was refused inside
the method's copy, which knew its self's class but not its attributes'. Loops over objects of
the user's classes whose body calls a method of the item are now written out too, and the copy
of a method knows the classes of its self's attributes that are objects of the user's classes
(one level), which the written-out loop checks when it runs, as it checks the items' classes."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient


class Slicer:
    def __init__(self):
        self.where = {}
        self.size = 0

    def add(self, key, shape):
        start = self.size
        self.size += int(np.prod(shape))
        self.where[key] = (slice(start, self.size), shape)

    def get(self, theta, key):
        index, shape = self.where[key]
        return np.reshape(theta[index], shape)


class OtherSlicer(Slicer):
    pass


class Affine:
    def __init__(self, n_in, n_out, offset):
        self.parser = Slicer()
        self.parser.add("W", (n_in, n_out))
        self.parser.add("b", (n_out,))
        self.offset = offset

    def forward(self, h, theta):
        part = theta[self.offset:self.offset + self.parser.size]
        W = self.parser.get(part, "W")
        b = self.parser.get(part, "b")
        return self.activation(h @ W + b)


class TanhAffine(Affine):
    def activation(self, z):
        return np.tanh(z)


class SquareAffine(Affine):
    def activation(self, z):
        return z * z


class Pool:
    def forward(self, h, theta):
        return 0.5 * (h[:, ::2] + h[:, 1::2])


LAYERS = [TanhAffine(3, 4, 0), Pool(), SquareAffine(2, 2, 16)]


def network(theta, x):
    h = x
    for layer in LAYERS:
        h = layer.forward(h, theta)
    return np.sum(h ** 2)


def not_called(theta, x):
    total = 0.0
    for layer in LAYERS:  # (objects, no method called: left as a loop)
        total = total + 1.0
    return total * np.sum(theta * theta) + np.sum(x)


THETA = np.linspace(-0.9, 0.8, 22)
X = np.array([[0.5, -0.3, 0.8], [0.1, 0.7, -0.4]])


@pytest.mark.parametrize("disable", [None, "all"])
def test_methods_of_objects_and_of_their_attributes(disable):
    got = srcad.grad(network, disable=disable)(THETA, X)
    np.testing.assert_allclose(got, central_gradient(network, (THETA, X)), rtol=1e-6,
                               atol=1e-9)
    v = np.cos(np.arange(22.0))
    np.testing.assert_allclose(srcad.jvp(network, disable=disable)(THETA, X, v), got @ v,
                               rtol=1e-10)


def test_a_loop_that_calls_no_method_is_left_alone():
    np.testing.assert_allclose(srcad.grad(not_called)(THETA, X), 6.0 * THETA, rtol=1e-13)


def test_the_attributes_classes_are_checked_when_the_code_runs():
    df = srcad.grad(network)
    before = df(THETA, X)
    kept = LAYERS[0].parser
    try:
        other = OtherSlicer()
        other.where, other.size = dict(kept.where), kept.size
        LAYERS[0].parser = other  # another class: the code written for Slicer refuses to run
        with pytest.raises(RuntimeError, match="srcad wrote this loop out"):
            df(THETA, X)
    finally:
        LAYERS[0].parser = kept
    np.testing.assert_array_equal(df(THETA, X), before)
