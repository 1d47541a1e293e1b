"""Singular points (srcad/singular.py): in a gradient specialized to its arguments' shapes,
safe_div(g, d) is a plain g / d when every zero or nan of d makes the output inf or nan (there
the gradient is not defined); anywhere else the guard stays. Numbers are checked against
central differences and the dot-product test (srcad.check_grads)."""
import textwrap
import warnings

import gast
import numpy as np
import pytest

import srcad
from generated import check, code
from srcad.optimize.singular import Singular


def batchnorm(x, w, eps):
    mu = np.mean(x, 0)
    a = x - mu
    d = np.sqrt(np.mean(a ** 2, 0) + eps)
    return np.sum(a / d * w)


def log_of_ratio(x, y):
    return np.sum(np.log(x / y) * 2.0)


def inverse_root(x):
    return np.sum(1.0 / np.sqrt(x))


def test_a_divisor_of_the_function_divides_plainly(rng):
    x, w = rng.normal(size=(8, 3)), rng.normal(size=(8, 3))
    text = code(batchnorm, (x, w, 1e-5))
    assert "safe_div" not in text and "/ (2.0 * d)" in text
    check(batchnorm, (x, w, 1e-5), (0, 1))


@pytest.mark.parametrize("func, args", [
    (log_of_ratio, lambda rng: (rng.uniform(1, 2, size=4), rng.uniform(1, 2, size=4))),
    (inverse_root, lambda rng: (rng.uniform(1, 2, size=(2, 3)),)),
])
def test_logarithms_and_divisors_are_singular_at_zero(func, args, rng):
    args = args(rng)
    wrt = tuple(range(len(args)))
    assert "safe_div(" in srcad.source(func, wrt=wrt)  # (the generic code: guarded)
    assert "safe_div" not in code(func, args, wrt)
    check(func, args, wrt)


def sqrt_weighted(x, w):
    return np.sum(np.sqrt(x) * w)


def guarded_log(x):
    return np.sum(np.where(x > 0, np.log(np.abs(x) + (x == 0)), 0.0))


def tanh_of_log(x):
    return np.sum(np.tanh(np.log(x)))


def test_where_the_output_stays_finite_the_guard_stays(rng):
    """sqrt at 0 is 0 (the output is finite there): a zero weight keeps a zero derivative."""
    x, w = np.array([0.0, 4.0, 1.0]), np.array([0.0, 1.0, 2.0])
    assert "safe_div" in code(sqrt_weighted, (x, w))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(srcad.grad(sqrt_weighted)(x, w), [0.0, 0.25, 1.0])
    x = np.array([-1.0, 0.0, 2.0])  # log of an untaken branch, and log through tanh (finite)
    assert "safe_div" in code(guarded_log, (x,))
    assert "safe_div" in code(tanh_of_log, (np.array([1.0, 2.0]),))


def test_at_a_singular_point_the_function_is_not_finite(rng):
    """The points where the guard would have mattered: the output itself is nan there."""
    x, w = rng.normal(size=(8, 3)), rng.normal(size=(8, 3))
    x[:, 1] = 2.0  # a constant column: zero variance, and eps = 0
    with np.errstate(invalid="ignore", divide="ignore"):
        assert np.isnan(batchnorm(x, w, 0.0))


def test_python_float_divisors_keep_the_guard():
    """1.0 / x1 by a Python float 0.0 would raise ZeroDivisionError: safe_div gives inf."""
    def f(x1, x2):
        return np.log(x1) + x1 * x2
    with np.errstate(divide="ignore"):
        assert srcad.grad(f)(0.0, 5.0) == np.inf


def facts(source, shapes=None):
    fdef = gast.parse(textwrap.dedent(source)).body[0]
    names = {n.id for n in gast.walk(fdef) if isinstance(n, gast.Name)} - {"np"}
    shapes = shapes or {v: (3,) for v in names}
    floats = {v: "d" for v in names}
    return {v: sorted(f) for v, f in Singular(fdef, shapes, floats).find(fdef).items()}


def test_the_rules():
    found = facts("""
        def f(a, b, c, d, e, k):
            u = a / b
            v = np.log(c)
            w = d * e
            s = u + v
            t = s * w
            z = k ** -1.0
            r = t - z
            out = np.sum(r)
            return out
        """)
    assert found["b"] == ["ZN"] and found["a"] == ["N"]  # a divisor: its zeros and nans
    assert found["c"] == ["N", "ZN"]  # log: log(0) = -inf
    assert found["d"] == ["N"] and found["e"] == ["N"]
    assert found["k"] == ["ZN"]  # 0 ** -1 is inf


@pytest.mark.parametrize("source, name", [
    ("def f(a, b):\n    u = np.exp(a)\n    v = u / b\n    out = np.sum(v)\n    return out\n", "a"),
    ("def f(a, b):\n    u = np.tanh(a)\n    v = u / b\n    out = np.sum(v)\n    return out\n", "a"),
    ("def f(a, b):\n    u = np.dot(a, b)\n    out = np.sum(u)\n    return out\n", "b"),
    ("def f(a, b):\n    u = a / b\n    return np.sum(u)\n", "b"),
    ("def f(a, b):\n    if a[0] > 0:\n        return a[0]\n    u = a / b\n    out = np.sum(u)\n"
     "    return out\n", "b"),
])
def test_what_is_not_followed(source, name):
    """exp(-inf) and tanh(inf) are finite, a matrix product may skip zero terms, a returned
    expression is not followed (ANF returns names), an early return may leave the rest unrun."""
    found = facts(source)
    assert name not in found
    if "u / b" in source and "return out" in source and source.count("return") == 1:
        assert found["b"] == ["ZN"]  # (the divisor is followed)


def test_empty_arrays_are_not_followed():
    """Dividing an empty array by zeros makes no inf: nothing is singular."""
    source = "def f(a, b):\n    u = a / b\n    out = np.sum(u)\n    return out\n"
    assert "b" not in facts(source, {"a": (0, 3), "b": (3,), "u": (0, 3), "out": ()})
    assert "b" in facts(source, {"a": (1, 3), "b": (3,), "u": (1, 3), "out": ()})


# --- slopes: safe_mul(g, s) by a slope s whose infs and nans make the output inf or nan -------

def softmax_weighted(z, w):
    ez = np.exp(z - np.max(z, axis=1, keepdims=True))
    return np.sum(ez / np.sum(ez, axis=1, keepdims=True) * w)


def exp_under_where(x):
    return np.sum(np.where(x < 700.0, np.exp(x), 0.0))


def root_of_exp(x):
    return np.sum(np.sqrt(np.exp(x)))


def test_a_slope_that_reaches_the_output_guards_the_adjoint_alone(rng):
    z, w = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    text = srcad.source(softmax_weighted, args=(z, w), disable="guards")
    assert "slope_mul(" in text and "safe_mul(bez" not in text
    # (with the guards pass: no guard at all, every value is finite where the output is:
    # tests/optimize/test_guards.py)
    assert "slope_mul(" not in code(softmax_weighted, (z, w))
    check(softmax_weighted, (z, w), (0, 1))
    x = np.array([1.0, 800.0])  # exp(800) = inf in the untaken branch: a zero adjoint stays 0
    assert "safe_mul(" in code(exp_under_where, (x,))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(srcad.grad(exp_under_where)(x), [np.e, 0.0])


def test_an_infinite_adjoint_through_a_zero_slope_is_zero():
    """sqrt(exp(x)) at x = -1000: exp underflows to 0, sqrt's slope there is inf, and the zero
    slope of exp still wins (the true derivative, exp(x / 2) / 2, is 0 in floating point)."""
    x = np.array([-1000.0, 0.0])
    assert "slope_mul(" in code(root_of_exp, (x,))
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(srcad.grad(root_of_exp)(x), [0.0, 0.5])


def test_slope_mul_is_safe_mul_for_finite_slopes():
    from srcad.runtime import HELPERS
    safe_mul, slope_mul = HELPERS["safe_mul"], HELPERS["slope_mul"]
    g = np.array([1.5, 0.0, -0.0, np.inf, np.nan, -np.inf, 2.0])
    for s in (np.array([2.0, 0.0, -0.0, 0.0, 0.0, 3.0, -1.0]), np.array([[0.0], [4.0]]), 0.0,
              np.float64(2.5)):
        with np.errstate(invalid="ignore"):
            want = safe_mul(g, s)
        got = slope_mul(g, s)
        assert type(got) is type(want) and np.shape(got) == np.shape(want)
        np.testing.assert_array_equal(got, want)
    assert slope_mul(2.0, 3.0) == 6.0 and slope_mul(np.inf, 0.0) == 0.0
