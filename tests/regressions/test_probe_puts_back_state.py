"""A specialized build runs f once on the call's arguments before the derivative runs (the shape
probe), and a callee's specialization runs the callee so in the middle of its caller's
derivative. Their arguments were copies, but the state f reaches through its globals, closure
cells and the objects it is passed was not: the first call with new shapes drew noise from a
module-level generator twice (the value and gradient of the second draw: value_and_grad gave
3.04 where f gave 5.50), left the generator one draw further on, and appended to a global list
twice. The probe now puts back the random generators, lists, dicts and objects f reaches
(analysis/isolation.py), and so does verify mode's reference run."""
import random

import numpy as np
import pytest

import srcad

RS = np.random.RandomState(0)
CALLS = []
X = np.arange(1.0, 4.0)


def noisy(x):
    CALLS.append(x.shape)
    return np.sum(x * RS.randn(3))


def test_first_call_draws_what_f_draws():
    vg = srcad.value_and_grad(noisy)
    RS.seed(0)
    want_value = noisy(X)
    want_state = RS.get_state()[1].copy()
    RS.seed(0)
    CALLS.clear()
    value, gradient = vg(X)
    assert value == want_value
    np.testing.assert_array_equal(gradient, np.random.RandomState(0).randn(3))
    np.testing.assert_array_equal(RS.get_state()[1], want_state)  # one draw further on
    assert CALLS == [(3,)]  # one append, as one call of f


def make_sampler():
    rng = np.random.default_rng(5)
    history = []

    def draw(v):  # a closure of its own: a callee, specialized at its call
        history.append(v.shape)
        if v.shape[0] > 100:
            return v
        return v * rng.normal(size=v.shape)

    def loss(x):
        return np.sum(draw(x)) + np.sum(draw(x[:2]) ** 2)
    return rng, history, draw, loss


@pytest.mark.parametrize("disable", [None, "callees"])
def test_callee_drawing_noise_draws_once_per_call(disable):
    rng, history, _, loss = make_sampler()
    state = rng.bit_generator.state
    grad = srcad.grad(loss, disable=disable)
    first = grad(X)
    after_first = rng.bit_generator.state
    assert history == [(3,), (2,)]
    rng.bit_generator.state = state
    np.testing.assert_array_equal(grad(X), first)  # the same draws as the first call
    assert rng.bit_generator.state == after_first
    rng.bit_generator.state = state
    loss(X)
    assert rng.bit_generator.state == after_first  # as far on as one call of f


class Model:
    def __init__(self):
        self.rng = np.random.RandomState(3)

    def loss(self, w):
        return np.sum(np.tanh(w) * self.rng.randn(w.shape[0]))


def test_state_of_objects_passed_in():
    model = Model()
    got = srcad.grad(Model.loss, wrt=1)(model, X)
    want = (1.0 - np.tanh(X) ** 2) * np.random.RandomState(3).randn(3)
    np.testing.assert_allclose(got, want, rtol=1e-15)
    np.testing.assert_array_equal(model.rng.get_state()[1], _after_one_draw(3, 3))


def _after_one_draw(seed, count):
    rs = np.random.RandomState(seed)
    rs.randn(count)
    return rs.get_state()[1]


def python_random(x):
    return np.sum(x) * random.random()


def test_python_random_module():
    random.seed(11)
    got = srcad.grad(python_random)(X)
    random.seed(11)
    np.testing.assert_array_equal(got, np.full(3, random.random()))


def chatty(x):
    print("f ran")
    return np.sum(np.sin(x))


def test_probe_prints_nothing(capsys):
    srcad.grad(chatty)(X)
    assert capsys.readouterr().out == "f ran\n"
