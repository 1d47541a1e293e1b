"""Derivatives pickle by reference to the function and the options, so multiprocessing and
concurrent.futures can ship them; the code is built again where they are loaded."""
import concurrent.futures
import multiprocessing
import pickle

import numpy as np
import pytest

import srcad


def loss(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


def with_aux(w, x):
    return loss(w, x), {"n": x.shape[0]}


W = np.array([0.3, -0.2, 0.5])
X = np.array([[1.0, 2.0, 0.5], [0.1, -0.3, 0.7]])


def _same(a, b):
    if isinstance(a, tuple):
        return all(_same(p, q) for p, q in zip(a, b))
    if isinstance(a, dict):
        return a == b
    return np.array_equal(np.asarray(a), np.asarray(b))


MADE = {
    "grad": lambda: srcad.grad(loss),
    "grad_tuple_aux": lambda: srcad.grad(with_aux, wrt=(0, 1), has_aux=True),
    "value_and_grad": lambda: srcad.value_and_grad(loss, disable="cancel"),
    "vjp": lambda: srcad.vjp(loss),
    "jvp": lambda: srcad.jvp(loss, wrt=1),
    "hvp": lambda: srcad.hvp(loss),
    "grad_of_grad": lambda: srcad.jvp(srcad.grad(loss)),
    "hessian": lambda: srcad.hessian(loss, mode="reverse-over-reverse"),
    "hessp": lambda: srcad.hessp(loss),
    "jacobian": lambda: srcad.jacobian(loss, wrt=(0, 1)),
}
EXTRA = {"vjp": (2.0,), "jvp": (np.ones_like(X),), "hvp": (W,), "grad_of_grad": (W,),
         "hessp": (W,)}


def _call(name, derivative):
    if name == "hessp":
        return derivative(W, W, X)
    return derivative(W, X, *EXTRA.get(name, ()))


@pytest.mark.parametrize("name", sorted(MADE))
def test_a_derivative_survives_pickling(name):
    made = MADE[name]()
    again = pickle.loads(pickle.dumps(made))
    assert _same(_call(name, again), _call(name, made))


def _run(derivative):
    return derivative(W, X)


def test_a_process_pool_runs_derivatives():
    gradient = srcad.grad(loss)
    context = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
        results = list(pool.map(_run, [gradient, gradient]))
    for result in results:
        np.testing.assert_array_equal(result, gradient(W, X))
