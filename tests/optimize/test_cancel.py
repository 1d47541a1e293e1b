"""Cancelling common factors (srcad/cancel.py): what the pass writes into shape-specialized
gradients, that the numbers stay right (central differences and the dot-product test, through
srcad.check_grads), and where it must not act (the function's own values, names rebound in
loops) or must keep a strong zero."""
import numpy as np
import pytest

import srcad
from generated import check, code
from srcad.pipeline import build




def log_of_product(a, c):
    return np.sum(np.log(a[:, :3] * c))


def test_log_of_a_product_cancels_each_factor(rng):
    """d/dt log(t c) = c / (t c) = 1 / t, and the column sum of t / (t c) over 3 rows is 3 / c."""
    a, c = rng.uniform(0.5, 2.0, size=(3, 4)), rng.uniform(0.5, 2.0, size=(1, 3))
    text = code(log_of_product, (a, c), (0, 1))
    assert "bc = 3.0 / c" in text
    assert "1.0 / t1" in text and "safe_div" not in text and ".sum(" not in text
    check(log_of_product, (a, c), (0, 1))
    da, dc = srcad.grad(log_of_product, wrt=(0, 1))(a, c)
    np.testing.assert_allclose(da[:, :3], 1.0 / a[:, :3], rtol=1e-15)
    assert not da[:, 3:].any()
    np.testing.assert_allclose(dc, 3.0 / c, rtol=1e-15)


def entropy_term(x, s):
    return np.sum(x * np.log(x / (1.0 - s)))


def test_a_quotient_by_the_same_quotient_becomes_a_number(rng):
    """x log(x / u): the log's slope times x is x / (x / u) = u, a number: the adjoint is not an
    array quotient (no safe_div), and its dot product with x / u is a number times a sum."""
    x, s = rng.uniform(0.1, 1.0, size=7), 0.3
    text = code(entropy_term, (x, s), (0, 1))
    assert "safe_div" not in text and "np.full" not in text and ".sum()" in text
    check(entropy_term, (x, s), (0, 1))
    dx, ds = srcad.grad(entropy_term, wrt=(0, 1))(x, s)
    np.testing.assert_allclose(dx, np.log(x / (1.0 - s)) + 1.0, rtol=1e-14)
    np.testing.assert_allclose(ds, np.sum(x) / (1.0 - s), rtol=1e-14)


def guarded_log(x, c, y):
    return np.sum(np.where(y > 0, np.log(x * c), 0.0))


def test_a_strong_zero_of_the_remaining_factors_is_kept():
    """Where the branch is not taken the adjoint is an exact 0; after c cancels, 0 / x must stay
    0 at x = 0 (safe_div), not nan."""
    x = np.array([0.0, 0.5, 2.0])
    c = np.array([1.5, 2.0, 0.25])
    y = np.array([-1.0, 1.0, 1.0])
    text = code(guarded_log, (x, c, y), (0, 1))
    assert "safe_div(" in text
    dx, dc = srcad.grad(guarded_log, wrt=(0, 1))(x, c, y)
    np.testing.assert_array_equal(dx, [0.0, 2.0, 0.5])
    np.testing.assert_array_equal(dc, [0.0, 0.5, 4.0])
    x = np.array([0.25, 0.5, 2.0])
    check(guarded_log, (x, c, y), (0, 1))


def ratio(a, b):
    return np.sum(a * b / b)


def test_the_function_values_are_not_rewritten():
    """a * b / b is a, but not where b is 0: the value the function returns stays nan there."""
    a, b = np.array([1.0, 2.0]), np.array([0.0, 3.0])
    value, _ = srcad.value_and_grad(ratio)(a, b)
    with np.errstate(invalid="ignore"):
        assert np.isnan(value) and np.isnan(ratio(a, b))


def rebound_in_a_loop(x, c, n):
    t = x * c
    total = 0.0
    for _ in range(n):
        u = t * c
        total = total + np.sum(np.log(u))
        t = u / c + x
    return total


def test_names_rebound_in_a_loop_are_not_expanded(rng):
    x, c = rng.uniform(0.5, 1.5, size=4), rng.uniform(0.5, 1.5, size=4)
    check(rebound_in_a_loop, (x, c, 3), (0, 1))
    generic = build(rebound_in_a_loop, wrt=(0, 1))  # no shapes: nothing cancelled
    assert "safe_div" in generic.source


def chained(x, w):
    y = w * x
    z = y / w
    return np.sum(np.log(z * w) * x)


@pytest.mark.parametrize("shape_w", [(5,), (1,), ()])
def test_cancelled_values_broadcast_back_to_their_shape(shape_w, rng):
    x = rng.uniform(0.5, 1.5, size=5)
    w = rng.uniform(0.5, 1.5, size=shape_w) if shape_w else 1.3
    check(chained, (x, w), (0, 1))
    generic = srcad.grad(chained, wrt=(0, 1))
    got = generic(x, w)
    step = 1e-6
    for i, arg in enumerate((x, w)):
        flat = np.atleast_1d(np.array(arg, dtype=float)).ravel()
        for k in range(flat.size):
            def at(delta):
                moved = flat.copy()
                moved[k] += delta
                value = moved.reshape(np.shape(arg)) if np.ndim(arg) else moved[0]
                args = (value, w) if i == 0 else (x, value)
                return chained(*args)
            fd = (at(step) - at(-step)) / (2 * step)
            assert abs(np.ravel(got[i])[k] - fd) <= 1e-6 * max(1.0, abs(fd))


def dot_of_spread(x, s):
    return s * np.sum(x) * np.dot(x, x)


def test_the_dot_product_of_a_spread_number_is_a_sum(rng):
    x = rng.uniform(0.5, 1.5, size=6)
    check(dot_of_spread, (x, 1.7), (0, 1))


@pytest.mark.parametrize("dtypes", [(np.float32, np.float64), (np.float32, np.float32),
                                    (np.float64, np.float32)])
def test_the_dtypes_stay_those_of_the_code_without_cancelling(dtypes, rng):
    """1 / (t c) * c is 1 / t only where that keeps the dtype: with t float32 and c float64 the
    product is float64, and so stays the gradient."""
    a = rng.uniform(0.5, 2.0, size=(3, 4)).astype(dtypes[0])
    c = rng.uniform(0.5, 2.0, size=(1, 3)).astype(dtypes[1])
    got = srcad.grad(log_of_product, wrt=(0, 1))(a, c)
    vjp = srcad.vjp(log_of_product, wrt=(0, 1))
    seed = log_of_product(a, c).dtype.type(1.0)  # (a gradient's seed has the output's dtype)
    generic = vjp.generated(a, c, **{vjp.generated.__code__.co_varnames[2]: seed})
    assert [g.dtype for g in got] == [g.dtype for g in generic]
    for g, h in zip(got, generic):
        np.testing.assert_allclose(g, h, rtol=1e-6)
