"""Fortran-ordered broadcast results (srcad/optimize/layout.py): where the rewrite is made, the
same numbers as without it and as central differences; where a use could tell the layouts apart
(a reshape, a return, a helper srcad does not see, a second binding), it is not made."""
import textwrap

import gast
import numpy as np
import pytest

import srcad
from srcad.optimize import layout
from srcad.optimize.manager import facts_for
from tests.regressions.numeric import central

REWRITTEN = "order='F'"


def pair_energy(x):
    diff = x[:, None, :] - x[None, :, :]
    d2 = np.sum(diff ** 2, axis=2)
    return np.sum(np.exp(-d2))


def mixture(mu, logs, X):
    z = (X[:, None, :] - mu[None, :, :]) / np.exp(logs)
    logp = -np.sum(logs, axis=1) - 0.5 * np.sum(z ** 2, axis=2)
    m = np.max(logp, axis=1, keepdims=True)
    return np.sum(m[:, 0] + np.log(np.sum(np.exp(logp - m), axis=1)))


SHAPES = {"t1": (64, 1, 3), "t2": (1, 64, 3), "diff": (64, 64, 3), "w": (3, 5), "s": None,
          "v": (3,), "r": (3,), "small1": (8, 1, 3), "small2": (1, 8, 3), "small": (8, 8, 3)}
# (the statements of generated code the pass reads: a result followed, or a use that stops it)
PASS_CASES = [
    ("diff = t1 - t2\nreturn np.sum(diff)", True),  # (a number: the same in either layout)
    ("diff = t1 - t2\nreturn np.sum(diff ** 2, axis=None)", True),
    ("diff = t1 - t2\nm = np.matmul(diff, w)\nreturn m", True),  # (a new C-ordered product)
    ("diff = t1 - t2\nm = diff @ w\nreturn m", True),
    ("diff = t1 - t2\nm = diff.dot(w)\nreturn m", True),  # (x.dot(w): a product too)
    ("diff = t1 - t2\nv = diff.sum(axis=(0, 1))\nreturn v", True),  # (a new vector)
    ("diff = t1 - t2\ns = np.exp(-diff)\nreturn s.sum()", True),
    ("diff = t1 - t2\ns = safe_mul(diff, diff)[..., 0].T\nreturn s.max()", True),
    ("diff = t1 - t2\ndiff[0] = 1.0\nreturn diff.sum()", True),  # (a store into it)
    ("diff = t1 - t2\nreturn diff", False),
    ("diff = t1 - t2\nreturn diff, 1.0", False),
    ("diff = t1 - t2\ns = diff[0]\nreturn s", False),  # (a view, returned)
    ("diff = t1 - t2\nr = diff[0, 0]\nreturn r", False),  # (a vector, but a view of it)
    ("diff = t1 - t2\ns = diff.sum(axis=2)\nreturn s", False),  # (a new matrix, returned)
    ("diff = t1 - t2\ns = diff.reshape(-1)\nreturn np.sum(s)", False),
    ("diff = t1 - t2\ns = np.reshape(diff, (-1,))\nreturn np.sum(s)", False),
    ("diff = t1 - t2\ns = helper(diff)\nreturn np.sum(s)", False),
    ("diff = t1 - t2\ns = np.exp(diff, out=t1)\nreturn np.sum(s)", False),
    ("diff = t1 - t2\ns = [diff]\nreturn np.sum(s[0])", False),
    ("diff = t1 - t2\ns = t1[diff]\nreturn np.sum(s)", False),  # (an array as an index)
    ("diff = t1 - t2\ns = diff[w]\nreturn np.sum(s)", False),  # (maybe an array index)
    ("diff = t1 - t2\ns = diff * 2\ns = s + 1\nreturn np.sum(s)", False),  # (bound twice)
    ("diff = t1 - t2\ns = diff.sum(axis=k)\nreturn np.sum(s)", False),  # (an unknown axis)
    ("diff = t1 - t1\nreturn np.sum(diff)", False),  # (no operand broadcasts)
    ("small = small1 - small2\nreturn np.sum(small)", False),  # (8 x 8 x 3: too small)
]


# where the code returns f's values, a sum that adds in another order in the other layout
# stops the rewrite (f's values are f's to the bit); over a last axis of at most 7 items numpy
# adds in the same order in both
EXACT_CASES = [
    ("diff = t1 - t2\nreturn np.sum(diff)", False),
    ("diff = t1 - t2\nreturn diff.sum(axis=(0, 1)).max()", False),
    ("diff = t1 - t2\nreturn np.mean(diff, axis=0).max()", False),
    ("diff = t1 - t2\ns = diff.sum(axis=2)\nreturn s.max()", True),
    ("diff = t1 - t2\ns = diff.sum(axis=-1)\nreturn np.max(s)", True),
    ("diff = t1 - t2\nreturn diff.max()", True),  # (a maximum is exact in any order)
    ("diff = t1 - t2\nm = diff @ w\nreturn m", False),  # (BLAS rounds a product of a
    ("diff = t1 - t2\nm = np.matmul(diff, w)\nreturn m", False),  # Fortran-ordered matrix
    ("diff = t1 - t2\nm = diff.dot(w)\nreturn m", False),  # otherwise)
]


def _laid_out(body, exact):
    source = "def g(t1, t2, w, small1, small2, k):\n" + textwrap.indent(body, "    ")
    fdef = gast.parse(source).body[0]
    shapes = dict(SHAPES, **{"t1": (64, 1, 3)})
    if "diff = t1 - t1" in body:
        shapes["t1"] = (64, 64, 3)
    layout.lay_out(fdef, facts_for(fdef, arrays={"t1", "t2", "w", "small1", "small2"},
                                   shape_of=shapes.get, shapes=shapes, returns_values=exact))
    return fdef


@pytest.mark.parametrize("body, rewritten", EXACT_CASES)
def test_where_f_s_values_are_returned_no_sum_changes_order(body, rewritten):
    first = _laid_out(body, True).body[0].value
    assert isinstance(first, gast.Call) is rewritten, gast.dump(first)


@pytest.mark.parametrize("body, rewritten", PASS_CASES)
def test_the_pass_follows_the_result_to_every_use(body, rewritten):
    fdef = _laid_out(body, False)
    first = fdef.body[0].value
    assert isinstance(first, gast.Call) is rewritten, gast.dump(first)
    if rewritten:
        assert first.func.attr == "subtract" and first.keywords[0].value.value == "F"


def _points(n=40, d=3, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


def test_pairwise_differences_are_made_in_fortran_order_with_the_same_gradient():
    x = _points()
    assert REWRITTEN in srcad.source(pair_energy, args=(x,))
    made = srcad.grad(pair_energy)(x)
    plain = srcad.grad(pair_energy, disable="layout")(x)
    np.testing.assert_allclose(made, plain, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(made, central(pair_energy, x), rtol=1e-6, atol=1e-8)


def test_forward_mode_too_and_the_dot_product_test():
    x, v = _points(seed=1), _points(seed=2)
    assert REWRITTEN in srcad.source(pair_energy, args=(x,), mode="forward")
    tangent = srcad.jvp(pair_energy)(x, v)
    tangent = tangent[1] if isinstance(tangent, tuple) else tangent
    np.testing.assert_allclose(tangent, np.vdot(srcad.grad(pair_energy)(x), v), rtol=1e-12)


def test_a_mixture_follows_the_layout_through_divisions_reductions_and_views():
    rng = np.random.default_rng(3)
    mu, logs, X = rng.normal(size=(8, 4)), 0.1 * rng.normal(size=(8, 4)), rng.normal(
        size=(200, 4))
    text = srcad.source(mixture, wrt=(0, 1), args=(mu, logs, X))
    assert text.count(REWRITTEN) >= 2, text
    made = srcad.grad(mixture, wrt=(0, 1))(mu, logs, X)
    plain = srcad.grad(mixture, wrt=(0, 1), disable="layout")(mu, logs, X)
    for a, b in zip(made, plain):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(made[0], central(lambda m: mixture(m, logs, X), mu), rtol=1e-6,
                               atol=1e-6)


def reshaped(x):
    diff = x[:, None, :] - x[None, :, :]
    flat = diff.reshape(-1)  # a view of a C-ordered array, a copy of a Fortran-ordered one
    return np.sum(flat ** 2)


def raveled(x):
    diff = x[:, None, :] - x[None, :, :]
    return np.sum(np.sin(np.ravel(diff)) * np.arange(diff.size))




def listed(x):
    diff = x[:, None, :] - x[None, :, :]
    parts = [diff, diff]
    return np.sum(parts[0] * parts[1])


def _norm_of(diff):
    if diff.ndim > 3:  # (recursive: kept a call, not written into its caller)
        return _norm_of(diff[0])
    return np.sum(diff * diff)


def through_a_helper(x):
    diff = x[:, None, :] - x[None, :, :]
    return _norm_of(diff)


def rebound(x):
    diff = x[:, None, :] - x[None, :, :]
    total = np.sum(diff ** 2)
    diff = x[:, None, :] * x[None, :, :]
    return total + np.sum(diff)


@pytest.mark.parametrize("func", [reshaped, raveled, listed, through_a_helper, rebound])
def test_a_use_that_could_tell_the_layouts_apart_keeps_the_operation_as_written(func):
    x = _points()
    text = srcad.source(func, args=(x,))
    if func is rebound:  # (the second binding keeps its name's uses apart: only the first may
        assert text.count(REWRITTEN) <= 1  # not be rewritten)
    else:
        assert REWRITTEN not in text, text
    np.testing.assert_allclose(srcad.grad(func)(x), central(func, x), rtol=1e-6, atol=1e-6)


def test_value_and_grad_returns_f_s_value_to_the_bit():
    def offset_energy(x, y):  # (not symmetric: a sum in the other order rounds otherwise)
        diff = x[:, None, :] - y[None, :, :]
        return np.sum(np.exp(-np.sum(diff ** 2, axis=2)))
    for seed in range(10):
        rng = np.random.default_rng(seed)
        x, y = rng.normal(size=(40, 3)), rng.normal(size=(40, 3))
        value, gradient = srcad.value_and_grad(offset_energy)(x, y)
        assert value == offset_energy(x, y)
        np.testing.assert_allclose(gradient, srcad.grad(offset_energy)(x, y), rtol=1e-12)
    assert REWRITTEN in srcad.source(offset_energy, args=(x, y))  # (a gradient's sum may)


def test_a_gradient_returned_keeps_numpys_layout():
    x, c = _points(n=600), _points(n=1)[0]

    def gaussian(x, c):
        d = x - c  # (600, 3): the operand c broadcasts
        return np.sum(np.exp(-d * d))
    assert REWRITTEN not in srcad.source(gaussian, args=(x, c))  # (d reaches bx)
    assert srcad.grad(gaussian)(x, c).flags.c_contiguous


def test_small_or_long_last_axes_stay_as_written():
    assert REWRITTEN not in srcad.source(pair_energy, args=(_points(n=8),))  # 8 x 8 x 3
    assert REWRITTEN not in srcad.source(pair_energy, args=(_points(n=64, d=16),))


def test_the_thresholds_are_where_fortran_order_pays():
    # (measured: module docstring; the fuzzer lowers LONG_FIRST and MIN_ITEMS to 1)
    assert (layout.SHORT_LAST, layout.LONG_FIRST, layout.MIN_ITEMS) == (8, 16, 512)


def test_numba_builds_switch_the_pass_off():
    # (numba's ufuncs take no order=: "unsupported keyword arguments")
    pytest.importorskip("numba", reason="numba is an optional extra")
    assert "layout" in srcad.grad(pair_energy, jit="numba").disabled
    assert "layout" not in srcad.grad(pair_energy).disabled
