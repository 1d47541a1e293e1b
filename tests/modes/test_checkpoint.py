"""srcad.checkpoint: reverse mode of a marked loop keeps every k-th turn's state and runs each
stretch of turns again in the adjoint sweep (srcad/modes/checkpoints.py). The numbers must be
those of the same loop unmarked (and of central differences); the tape must stay small."""
import tracemalloc

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError

from regressions.numeric import central_gradient


def rnn(W, h0, xs):
    h = h0
    for t in srcad.checkpoint(range(xs.shape[0])):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h ** 2)


def rnn_plain(W, h0, xs):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h ** 2)


def cell(W, h, x):
    return np.tanh(W @ h + x)


def branches_and_helpers(W, h0, xs, scale):
    h = h0
    s = 0.0  # bound before the loop and again in it: the adjoint before it reads the old value
    total = 0.0
    for t in srcad.checkpoint(range(len(xs)), every=3):
        s = np.sum(h) * scale
        if s > 0.2:
            h = cell(W, h, xs[t])
        else:
            h = cell(W, h * 0.5, xs[t]) + 0.1
        for j in range(2):
            total = total + np.sin(s) * h[j]
    return total + np.sum(h) + s


def carried_without_a_value_before(x, xs):
    for t in srcad.checkpoint(range(len(xs)), every=2):
        if t > 0:
            x = x + np.cos(last) * xs[t]  # noqa: F821 - bound by the turn before
        last = x * xs[t]
    return np.sum(x * x)


def scalar_ode(k, y0):
    y = y0
    for t in srcad.checkpoint(range(25), every=4):
        y = y + 0.05 * (-k * y + np.sin(0.1 * t))
    return y


@pytest.fixture
def net():
    rng = np.random.default_rng(0)
    return rng.normal(size=(4, 4)) * 0.5, rng.normal(size=4), rng.normal(size=(23, 4))


@pytest.mark.parametrize("wrt", [0, 1, 2])
def test_checkpointed_gradient_equals_the_plain_loops(net, wrt):
    np.testing.assert_allclose(srcad.grad(rnn, wrt=wrt)(*net),
                               srcad.grad(rnn_plain, wrt=wrt)(*net), rtol=1e-12, atol=1e-14)


def test_checkpointed_gradient_of_a_build_for_any_shapes(net):
    got = srcad.value_and_grad(rnn, disable="all")(*net)
    np.testing.assert_allclose(got[1], central_gradient(rnn, net, 0), rtol=1e-6, atol=1e-9)


def every_1(W, h0, xs):
    h = h0
    for t in srcad.checkpoint(range(xs.shape[0]), every=1):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h ** 2)


def every_5(W, h0, xs):
    h = h0
    for t in srcad.checkpoint(range(xs.shape[0]), 5):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h ** 2)


def every_40(W, h0, xs):
    h = h0
    for t in srcad.checkpoint(range(xs.shape[0]), every=40):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h ** 2)


@pytest.mark.parametrize("f", [every_1, every_5, every_40])
def test_any_stretch_length_gives_the_same_gradient(net, f):
    np.testing.assert_allclose(srcad.grad(f)(*net), srcad.grad(rnn_plain)(*net), rtol=1e-12,
                               atol=1e-14)


def test_every_must_be_written_as_a_number(net):
    every = 5

    def marked(W, h0, xs):
        h = h0
        for t in srcad.checkpoint(range(xs.shape[0]), every=every):
            h = np.tanh(W @ h + xs[t])
        return np.sum(h ** 2)
    with pytest.raises(SrcadError, match="every= must be a positive whole number"):
        srcad.grad(marked)(*net)


@pytest.mark.parametrize("turns", [0, 1, 2, 3, 7])
def test_few_turns(net, turns):
    W, h0, xs = net
    np.testing.assert_allclose(srcad.grad(branches_and_helpers)(W, h0, xs[:turns], 0.7),
                               central_gradient(branches_and_helpers, (W, h0, xs[:turns], 0.7)),
                               rtol=1e-6, atol=1e-8)


def test_branches_helpers_inner_loops_and_values_bound_before(net):
    W, h0, xs = net
    srcad.check_grads(branches_and_helpers, (W, h0, xs[:10], 0.7), wrt=(0, 1, 3))


def test_a_value_the_turn_before_bound_is_kept(net):
    x = np.array([0.3, -0.2, 0.5])
    xs = np.array([0.5, 1.2, -0.7, 0.9, 0.4])
    srcad.check_grads(carried_without_a_value_before, (x, xs))


def test_second_order_through_a_checkpointed_loop():
    srcad.check_grads(scalar_ode, (0.7, 1.3), order=2)
    for mode in ("forward-over-reverse", "reverse-over-reverse"):
        h = srcad.hessian(scalar_ode, mode=mode)(0.7, 1.3)
        g = srcad.grad(scalar_ode)
        numeric = (g(0.7 + 1e-5, 1.3) - g(0.7 - 1e-5, 1.3)) / 2e-5
        np.testing.assert_allclose(h, numeric, rtol=1e-6)


def test_vjp_and_the_dot_product_test(net):
    W, h0, xs = net

    def states(W, h0, xs):
        h = h0
        for t in srcad.checkpoint(range(xs.shape[0]), every=4):
            h = np.tanh(W @ h + xs[t])
        return h
    srcad.check_grads(states, (W, h0, xs))


def test_a_helper_with_a_checkpointed_loop_keeps_every_turn_when_called(net):
    """The halves of a callee's adjoint read their tape by position: no checkpointing there,
    the same numbers."""
    def caller(W, h0, xs):
        return rnn(W, h0, xs) * 2.0
    np.testing.assert_allclose(srcad.grad(caller)(*net), 2 * srcad.grad(rnn_plain)(*net),
                               rtol=1e-12)


def _peak(function, *args):
    function(*args)  # (built and warm)
    tracemalloc.start()
    function(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_the_tape_holds_about_the_square_root_of_the_turns():
    rng = np.random.default_rng(1)
    W, h0, xs = rng.normal(size=(8, 8)) * 0.3, rng.normal(size=8), rng.normal(size=(2500, 8))
    plain = _peak(srcad.grad(rnn_plain), W, h0, xs)
    marked = _peak(srcad.grad(rnn), W, h0, xs)
    assert marked * 8 < plain, (marked, plain)  # sqrt(2500) = 50: about 2 * 50 of 2500 turns


def rnn_with_break(W, h0, xs):
    h = h0
    for t in srcad.checkpoint(range(xs.shape[0])):
        h = np.tanh(W @ h + xs[t])
        if np.sum(h) > 10.0:
            break
    return np.sum(h)


def rnn_storing(W, h0, xs):
    h = h0
    out = np.zeros(xs.shape[0])
    for t in srcad.checkpoint(range(xs.shape[0])):
        h = np.tanh(W @ h + xs[t])
        out[t] = np.sum(h)
    return np.sum(out)


def rnn_nested(W, h0, xs):
    h = h0
    for k in range(2):
        for t in srcad.checkpoint(range(xs.shape[0])):
            h = np.tanh(W @ h + xs[t])
    return np.sum(h)


def checkpoint_outside_a_loop(W, h0, xs):
    steps = srcad.checkpoint(range(3))
    h = h0
    for t in steps:
        h = np.tanh(W @ h + xs[t])
    return np.sum(h)


@pytest.mark.parametrize("f, message", [
    (rnn_with_break, "without break"), (rnn_storing, "writes into an array"),
    (rnn_nested, "not inside another loop"), (checkpoint_outside_a_loop, "iterable of a for")])
def test_what_cannot_be_checkpointed_is_refused_at_the_users_line(net, f, message):
    with pytest.raises(SrcadError, match=message) as info:
        srcad.grad(f)(*net)
    assert "test_checkpoint.py" in str(info.value)


def test_forward_mode_runs_the_marked_loop_as_it_is(net):
    W, h0, xs = net
    v = np.ones_like(W)
    assert np.isclose(srcad.jvp(rnn)(W, h0, xs, v), np.sum(srcad.grad(rnn_plain)(W, h0, xs) * v))
    assert rnn(W, h0, xs) == rnn_plain(W, h0, xs)
