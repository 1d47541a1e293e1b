"""srcad.jacobian (and hessian) in one sweep: the derivative code run once on a stack of all
basis vectors (srcad/api/batched.py) must give what one sweep per vector gives, for the ops
srcad has templates for (the spec rows), in both modes; code with an op that has no batching
rule falls back to the sweep per vector.

The suite takes every third spec row (SRCAD_ALL_SPECS=1: every row; all rows pass at the
commit that added this file, 2,400 checks in about two minutes)."""
import os

import numpy as np
import pytest

import srcad
from srcad.api.batched import Batched, NotBatchable
from srcad.api.derivatives import derivative
from srcad.api.matrices import _in_one_sweep
from specs import all_specs, make_function

from regressions.numeric import central_gradient

SPECS = [s for s in all_specs() if s.order == 1 and any(not a.const for a in s.args.values())]
SPECS = SPECS if os.environ.get("SRCAD_ALL_SPECS") else SPECS[::3]


def per_vector(func, args, position, mode):
    """The Jacobian block of output by args[position], one jvp or vjp per basis vector (what
    jacobian did before it had one sweep), shaped out.shape + x.shape."""
    x = np.asarray(args[position], dtype=float)
    out = np.asarray(func(*args), dtype=float)
    if mode == "forward":
        jvp = srcad.jvp(func, wrt=position, verify=False)
        columns = [np.asarray(jvp(*args, e.reshape(x.shape) if x.shape else float(e[0])),
                              dtype=float) for e in np.eye(x.size)]
        return np.stack(columns, axis=-1).reshape(out.shape + x.shape)
    vjp = srcad.vjp(func, wrt=position, verify=False)
    rows = [np.asarray(vjp(*args, w.reshape(out.shape) if out.shape else float(w[0])), dtype=float)
            for w in np.eye(out.size)]
    return np.array(rows).reshape(out.shape + x.shape)


def one_sweep(func, args, position, mode):
    inner = derivative(func, mode, "jvp" if mode == "forward" else "vjp", (position,), None,
                       False)
    swept = _in_one_sweep(inner, func, mode, (position,), args, {}, set())
    return None if swept is None else swept[0]


def _cases():
    for spec in SPECS:
        for mode in spec.modes:
            yield pytest.param(spec, mode, id=f"{mode}: {spec.id}")


BATCHED = {"forward": [], "reverse": []}
CASES = list(_cases())
RAN = []  # (one item per row run: two rows may have one id)


@pytest.mark.parametrize("spec, mode", CASES)
def test_one_sweep_equals_a_sweep_per_vector_for_every_template(spec, mode):
    RAN.append((spec.id, mode))
    rng = np.random.default_rng(0)
    func = make_function(spec)
    values = tuple(arg.draw(rng) for arg in spec.args.values())
    out = func(*values)
    plain = isinstance(out, (np.ndarray, float, np.floating)) and (
        np.asarray(out).dtype.kind == "f")
    for position, arg in enumerate(spec.args.values()):
        if arg.const or np.asarray(values[position]).dtype.kind != "f":
            continue
        swept = one_sweep(func, values, position, mode)
        if not plain:  # a tuple or an int output: the one sweep declines, jacobian takes the
            assert swept is None  # sweep per vector (trees of outputs: tests/api/test_trees.py)
            continue
        BATCHED[mode].append(swept is not None)
        if swept is None:
            continue  # (an op without a batching rule: jacobian takes the sweep per vector)
        expected = per_vector(func, values, position, mode)
        scale = max(float(np.max(np.abs(expected), initial=0.0)), 1.0)
        assert swept.shape == expected.shape
        assert np.allclose(swept, expected, rtol=1e-10, atol=1e-12 * scale), (swept, expected)


def test_most_templates_run_in_one_sweep():
    """(After the rows above.) A rule missing for a common op would make jacobian slow
    silently: most rows must batch."""
    if len(RAN) < len(CASES):  # (make test runs a file in one process: --dist loadfile)
        pytest.skip("only part of the spec rows ran in this process (-k, or pytest-xdist "
                    "spreading this file's tests over processes): there is no count to check")
    for mode, batched in BATCHED.items():
        if batched:
            assert sum(batched) >= 0.8 * len(batched), (mode, sum(batched), len(batched))


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def logistic_loss(w, X, y):
    z = X @ w
    return np.sum(np.logaddexp(0.0, -y * z)) + 0.5 * np.dot(w, w)


def two_layers(x, W1, W2):
    return np.tanh(W2 @ np.tanh(W1 @ x))


@pytest.fixture
def problems():
    rng = np.random.default_rng(1)
    return [(rosenbrock, (rng.normal(size=12),)),
            (logistic_loss, (rng.normal(size=5), rng.normal(size=(30, 5)),
                             np.sign(rng.normal(size=30))))]


def test_hessians_in_one_sweep_against_central_differences(problems):
    for func, args in problems:
        gradient = srcad.grad(func)
        assert one_sweep(gradient, args, 0, "forward") is not None, func.__name__
        H = srcad.hessian(func)(*args)
        numeric = np.array([central_gradient(lambda *a: gradient(*a)[j], args, 0, h=1e-5)
                            for j in range(args[0].size)])
        np.testing.assert_allclose(H, numeric, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(H, H.T, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_jacobian_of_a_network_in_one_sweep(mode):
    rng = np.random.default_rng(2)
    args = (rng.normal(size=6), rng.normal(size=(7, 6)) * 0.5, rng.normal(size=(4, 7)) * 0.5)
    for position in range(3):
        swept = one_sweep(two_layers, args, position, mode)
        assert swept is not None
        np.testing.assert_allclose(swept, per_vector(two_layers, args, position, mode),
                                   rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(srcad.jacobian(two_layers, wrt=position, mode=mode)(*args),
                                   swept, rtol=1e-12, atol=1e-14)


def sorted_sum(x):
    return np.sum(np.sort(x) * np.arange(x.size))


def test_code_without_batching_rules_takes_a_sweep_per_vector():
    x = np.array([0.3, -1.2, 0.8, 2.0])
    for mode in ("forward", "reverse"):
        J = srcad.jacobian(sorted_sum, mode=mode)(x)
        np.testing.assert_allclose(J, central_gradient(sorted_sum, (x,)), rtol=1e-7)


def test_a_stack_refuses_what_it_cannot_mean():
    stack = Batched(np.ones((3, 2)))
    for attempt in (lambda: np.asarray(stack), lambda: bool(stack), lambda: stack > 0,
                    lambda: float(stack[0]), lambda: np.sort(stack), lambda: stack @ stack,
                    lambda: np.where(stack, 1.0, 0.0)):
        with pytest.raises(NotBatchable):
            attempt()


@pytest.mark.parametrize("operation", [
    lambda v, A, M: A @ v, lambda v, A, M: v @ A.T, lambda v, A, M: np.dot(A, v),
    lambda v, A, M: np.einsum("i,ijk->jk", v, M), lambda v, A, M: np.tensordot(v, M, axes=1),
    lambda v, A, M: np.outer(v, A[0]), lambda v, A, M: np.vdot(A[1], v),
    lambda v, A, M: np.stack([v, 2 * v], axis=1), lambda v, A, M: np.concatenate([v, A[0]]),
    lambda v, A, M: np.reshape(v, (2, 2)).T, lambda v, A, M: v[np.array([0, 0, 3])],
    lambda v, A, M: v[1:3], lambda v, A, M: np.cumsum(v), lambda v, A, M: np.flip(v),
    lambda v, A, M: np.broadcast_to(v, (3, 4)), lambda v, A, M: np.linalg.solve(A[:4], v),
    lambda v, A, M: np.where(A[0] > 0, v, 0.0), lambda v, A, M: np.sum(v * A[:4], axis=0),
    lambda v, A, M: np.mean(M * v[:, None, None], axis=(0, 2)),
    lambda v, A, M: np.triu(np.outer(v, A[0])), lambda v, A, M: np.squeeze(v[None, :, None]),
])
def test_each_rule_applies_the_operation_to_every_tangent(operation):
    rng = np.random.default_rng(3)
    A, M = rng.normal(size=(5, 4)), rng.normal(size=(4, 3, 2))
    data = rng.normal(size=(6, 4))
    got = operation(Batched(data), A, M)
    expected = np.array([operation(v, A, M) for v in data])
    assert isinstance(got, Batched)
    np.testing.assert_allclose(got.data, expected, rtol=1e-12, atol=1e-14)


def test_stores_into_a_stack_reach_every_tangent():
    rng = np.random.default_rng(4)
    data = rng.normal(size=(3, 4))
    out = np.zeros_like(Batched(data), shape=(6,))
    out[1:5] = Batched(data)
    out[0] = 2.0
    view = out[4:]
    view[1] = Batched(data[:, 0].copy())
    expected = np.zeros((3, 6))
    expected[:, 1:5] = data
    expected[:, 0] = 2.0
    expected[:, 5] = data[:, 0]
    np.testing.assert_array_equal(out.data, expected)


@pytest.mark.parametrize("operation", [
    lambda v: np.diff(v, axis=0), lambda v: np.diagonal(v), lambda v: np.trace(v, 1),
    lambda v: np.atleast_2d(v[0]), lambda v: np.hstack([v, v[:, :1] * 0 + 1.0]),
    lambda v: np.vstack([v[0], v[1]]), lambda v: np.column_stack([v[:, 0], v[:, 1]]),
    lambda v: np.roll(v, 1, axis=1), lambda v: np.roll(v, 2), lambda v: np.repeat(v, 2),
    lambda v: np.repeat(v, [1, 2, 0], axis=1), lambda v: np.tile(v, (2, 1)),
    lambda v: np.append(v, 1.0), lambda v: np.append(v, v[:1] * 0 + 2.0, axis=0),
    lambda v: np.inner(v[0], np.arange(3.0)), lambda v: np.rollaxis(v, 1),
    lambda v: np.cross(v, np.arange(3.0)), lambda v: np.diag(v[0]), lambda v: np.diag(v),
    lambda v: np.einsum("ij,jk->ik", v, np.ones((3, 2)), optimize=True),
])
def test_each_shape_rule_applies_the_operation_to_every_tangent(operation):
    data = np.random.default_rng(5).normal(size=(4, 3, 3))
    got = operation(Batched(data))
    expected = np.array([operation(v) for v in data])
    assert isinstance(got, Batched)
    np.testing.assert_allclose(got.data, expected, rtol=1e-12, atol=1e-14)


def test_repeated_indices_add_up_in_every_tangent():
    data = np.random.default_rng(6).normal(size=(3, 4))
    out = np.zeros_like(Batched(data), shape=(5,))
    np.add.at(out, np.array([0, 2, 0, 4]), Batched(data))
    expected = np.zeros((3, 5))
    for k in range(3):
        np.add.at(expected[k], np.array([0, 2, 0, 4]), data[k])
    np.testing.assert_array_equal(out.data, expected)
    parts = np.split(Batched(data), 2)
    np.testing.assert_array_equal(parts[1].data, data[:, 2:])
