"""srcad.jacobian, srcad.hessian and srcad.check_grads run the derivative code several times (a
sweep per row or column, f itself for the output's shape, central differences), and each run
drew f's noise anew from a generator f reaches through its globals: the rows of a reverse-mode
Jacobian came from different draws (1.59 off for tanh(W x) with W drawn inside f), a correct
gradient failed check_grads, and the generator ended several draws on. Every run now sees the
state as one call of f would, and they leave it as one call does (isolation.Replayed)."""
import numpy as np
import pytest

import srcad

RS = np.random.RandomState(0)
X = np.array([0.1, 0.2, 0.3])


def layer(x):
    w = RS.randn(3, 3)
    return np.tanh(w @ x)


def sorted_layer(x):  # (np.sort: no batching rule, so a sweep per row)
    w = RS.randn(3, 3)
    return np.sort(np.tanh(w @ x))


def energy(x):
    w = RS.randn(3)
    return np.sum(np.sin(w * x) * x)


def _one_call_state(f, x):
    RS.seed(0)
    f(x)
    return RS.get_state()[1].copy(), RS.get_state()[2]


def _drawn(*shape):
    return np.random.RandomState(0).randn(*shape)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("vectorize", [True, False])
@pytest.mark.parametrize("f", [layer, sorted_layer])
def test_jacobian_rows_of_one_draw(f, mode, vectorize):
    w = _drawn(3, 3)
    y = np.tanh(w @ X)
    want = (1.0 - y ** 2)[:, None] * w
    if f is sorted_layer:
        want = want[np.argsort(y)]
    RS.seed(0)
    got = srcad.jacobian(f, mode=mode, vectorize=vectorize)(X)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    state, position = _one_call_state(f, X)
    RS.seed(0)
    srcad.jacobian(f, mode=mode, vectorize=vectorize)(X)
    np.testing.assert_array_equal(RS.get_state()[1], state)
    assert RS.get_state()[2] == position


@pytest.mark.parametrize("mode", ["forward-over-reverse", "reverse-over-reverse",
                                  "reverse-over-forward", "forward-over-forward"])
def test_hessian_of_one_draw(mode):
    w = _drawn(3)
    want = np.diag(2.0 * w * np.cos(w * X) - w * w * X * np.sin(w * X))
    RS.seed(0)
    got = srcad.hessian(energy, mode=mode)(X)
    after = RS.get_state()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    state, position = _one_call_state(energy, X)
    assert after[2] == position
    np.testing.assert_array_equal(after[1], state)


@pytest.mark.parametrize("order", [1, 2, 3])
def test_check_grads_evaluates_f_on_one_draw(order):
    """check_grads evaluates f and its derivatives many times (central differences, both modes,
    Hessian-vector products): each drew anew, so a correct gradient of a function drawing noise
    failed the check. Each run now starts from the same state."""
    RS.seed(0)
    srcad.check_grads(energy, (X,), order=order)
    after = RS.get_state()
    state, position = _one_call_state(energy, X)
    assert after[2] == position
    np.testing.assert_array_equal(after[1], state)


def noisy_with_aux(x):
    w = RS.randn(3)
    return np.sum(np.sin(w * x)), w


def test_check_grads_with_aux_on_one_draw():
    RS.seed(0)
    srcad.check_grads(noisy_with_aux, (X,), has_aux=True)
