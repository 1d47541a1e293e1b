"""frontend/slices.py: one elementwise function of adjacent slices of one array is applied once
to their union (the gates of an LSTM stacked in one vector). The same operations on the same
numbers: values and gradients are the same bits as without the rewrite (disable="slices"), in
every mode; a group whose bounds, function or targets the pass cannot vouch for is left as
written."""

import numpy as np
import pytest

import srcad
from srcad import d
from srcad.rules.registry import REGISTRY

from regressions.numeric import central_gradient
from workload_functions import fresh_functions


RNG = np.random.default_rng(21)
H, D, T = 4, 3, 3
ARGS = (RNG.normal(size=(4 * H, H)) * 0.5, RNG.normal(size=(4 * H, D)) * 0.5,
        RNG.normal(size=4 * H) * 0.1, RNG.normal(size=(T, D)), RNG.normal(size=H) * 0.1,
        RNG.normal(size=H) * 0.1)
lstm = fresh_functions()["lstm"]  # (the benchmark's: i, f, o = sigmoid of g's first 3H rows)


def sigmoid(z):
    """The logistic function, written out."""
    return 1.0 / (1.0 + np.exp(-z))


def gru_like(W, h0):
    n = len(h0)
    half = n + n
    g = W @ h0
    r = np.tanh(g[:n])
    z = np.tanh(g[n:half])
    rest = np.tanh(g[half:])
    return np.sum(r * z) + np.sum(rest)



def _batched(func, **options):
    return srcad.source(func, stage="slices", disable=options.get("off", ()))


def test_gates_are_one_call_of_their_union():
    text = _batched(lstm)
    assert "sigmoid_g = sigmoid(g[:3 * H])" in text
    assert "i = sigmoid_g[:H]" in text and "o = sigmoid_g[2 * H:3 * H]" in text
    assert "u = np.tanh(g[3 * H:])" in text  # (another function: not in the group)
    assert "sigmoid(g[:H])" in _batched(lstm, off=("slices",))


@pytest.mark.parametrize("wrt", [(0, 1, 2), 4])
def test_batched_gates_give_the_same_bits_in_every_mode(wrt):
    for make in (srcad.grad, srcad.value_and_grad):
        on = make(lstm, wrt=wrt)(*ARGS)
        off = make(lstm, wrt=wrt, disable="slices")(*ARGS)
        for a, b in zip(np.atleast_1d(on) if not isinstance(on, tuple) else on,
                        np.atleast_1d(off) if not isinstance(off, tuple) else off):
            for x, y in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple)
                            else (b,)):
                np.testing.assert_array_equal(x, y)
    v = RNG.normal(size=H)
    np.testing.assert_array_equal(srcad.jvp(lstm, wrt=4)(*ARGS, v),
                                  srcad.jvp(lstm, wrt=4, disable="slices")(*ARGS, v))


def test_batched_gates_match_differences():
    want = central_gradient(lambda h0: lstm(*ARGS[:4], h0, ARGS[5]), (ARGS[4],))
    np.testing.assert_allclose(srcad.grad(lstm, wrt=4)(*ARGS), want, rtol=1e-7, atol=1e-10)
    srcad.check_grads(lstm, ARGS, wrt=(0, 4), order=2)


def test_a_ufunc_of_slices_bounded_by_len_and_an_open_last_slice():
    text = _batched(gru_like)
    assert "tanh_g = np.tanh(g[:])" in text and "rest = tanh_g[half:]" in text
    w, h0 = RNG.normal(size=(6, 2)), RNG.normal(size=2)
    np.testing.assert_array_equal(srcad.grad(gru_like)(w, h0),
                                  srcad.grad(gru_like, disable="slices")(w, h0))
    np.testing.assert_allclose(srcad.grad(gru_like)(w, h0),
                               central_gradient(gru_like, (w, h0)), rtol=1e-7, atol=1e-10)


def not_contiguous(g, x):
    n = x.shape[0]
    a = np.exp(g[:n])
    b = np.exp(g[n + 1:2 * n])
    return np.sum(a) + np.sum(b * b)


def other_functions(g, x):
    n = x.shape[0]
    a = np.exp(g[:n])
    b = np.tanh(g[n:2 * n])
    return np.sum(a * b)


def with_a_step(g, x):
    n = x.shape[0]
    a = np.exp(g[:n:2])
    b = np.exp(g[n:2 * n])
    return np.sum(a) + np.sum(b)


def parameter_bounds(g, m, k):
    a = np.exp(g[:m])  # (g[:5], g[5:3] are not g[:3]: ints of unknown sign and order)
    b = np.exp(g[m:k])
    return np.sum(a) + np.sum(b)


def not_from_zero(g, x):
    n = x.shape[0]
    a = np.exp(g[n:2 * n])
    b = np.exp(g[2 * n:3 * n])
    return np.sum(a) + np.sum(b * b)


def decreasing(g, x):
    n = x.shape[0]
    a = np.exp(g[:2 * n])
    b = np.exp(g[2 * n:n])  # (empty: g[:2 * n] and g[2 * n:n] are not g[:n])
    return np.sum(a) + np.sum(b)


def changed_target(g, x):
    n = x.shape[0]
    a = np.exp(g[:n])
    b = np.exp(g[n:2 * n])
    a += 1.0
    return np.sum(a * b)


def rebound_size(g, x):
    n = x.shape[0]
    x = x[:1]  # (x.shape[0] is another number from here on)
    a = np.exp(g[:n])
    b = np.exp(g[n:n + x.shape[0]])
    return np.sum(a) + np.sum(b)


SCALE = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])


def scaled(z):
    return np.exp(z) * SCALE[:len(z)]  # (reads another array: not elementwise in z)


BIAS = np.array([0.1, 0.2, 0.3])


def offset(z):
    return z + BIAS  # (another array: z + BIAS of the union would not even broadcast)


def reads_another_array(g, x):
    n = x.shape[0]
    a = offset(g[:n])
    b = offset(g[n:2 * n])
    return np.sum(a * b)


def resized(g, x):
    y = x * 1.0
    n = y.shape[0]
    y.shape = (y.size,)  # (y changed in place: its shape read later is not vouched for)
    a = np.exp(g[:n])
    b = np.exp(g[n:n + y.shape[0]])
    return np.sum(a * b)


def not_elementwise(g, x):
    n = x.shape[0]
    a = scaled(g[:n])
    b = scaled(g[n:2 * n])
    return np.sum(a * b)


def in_a_try(g, x):
    n = x.shape[0]
    try:
        a = np.exp(g[:n])
        b = np.exp(g[n:2 * n])
    except FloatingPointError:
        a = b = g[:n]
    return np.sum(a * b)


@pytest.mark.parametrize("func", [not_contiguous, other_functions, with_a_step,
                                  not_from_zero, decreasing, changed_target, rebound_size,
                                  not_elementwise, reads_another_array, resized, in_a_try])
def test_groups_it_cannot_vouch_for_are_left_as_written(func):
    assert _batched(func) == _batched(func, off=("slices",))
    if func in (in_a_try, resized):
        return  # (srcad refuses a try that computes differentiated values, and a shape set)
    g, x = RNG.normal(size=6), np.ones(3)
    np.testing.assert_allclose(srcad.grad(func)(g, x),
                               central_gradient(lambda g: func(g, x), (g,)), rtol=1e-7,
                               atol=1e-10)


def test_int_parameters_of_unknown_order_are_not_bounds():
    assert _batched(parameter_bounds) == _batched(parameter_bounds, off=("slices",))
    g = RNG.normal(size=6)
    for m, k in ((2, 5), (5, 3), (-2, 4)):
        np.testing.assert_allclose(srcad.grad(parameter_bounds)(g, m, k), central_gradient(
            lambda g: parameter_bounds(g, m, k), (g,)), rtol=1e-7, atol=1e-10)


def clipped(z):
    return z * 1.0


def clipped_adjoint(y, z):  # (a rule of the user's: srcad cannot tell it is elementwise)
    d[z] = d[y] * 0.5


def with_a_rule(g, x):
    n = x.shape[0]
    a = clipped(g[:n])
    b = clipped(g[n:2 * n])
    return np.sum(a * a) + np.sum(b)


def test_a_function_with_a_rule_of_its_own_is_left_alone():
    assert "clipped_g" in _batched(with_a_rule)  # (its body is elementwise: batched)
    srcad.adjoint(clipped)(clipped_adjoint)
    try:
        assert "clipped_g" not in _batched(with_a_rule)
    finally:
        REGISTRY.forget(clipped)
