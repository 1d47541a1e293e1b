"""Numerical conventions of the elementwise templates (docs/numerics.md), pinned down by exact
values at the points where the spec rows' random draws never land: kinks, ties, domain edges,
untaken np.where branches, overflow, and float32 inputs."""
import math
import warnings

import numpy as np
import pytest

import srcad
from generated import function_of
from srcad.runtime import HELPERS


def grads(f, *args, wrt=0):
    """(reverse, forward) derivatives of a scalar-valued f of one array argument, elementwise."""
    rev = srcad.vjp(f, wrt=wrt)(*args, np.ones_like(f(*args)))
    x = args[wrt]
    jvp = srcad.jvp(f, wrt=wrt)
    fwd = np.array([jvp(*args, e) for e in np.eye(np.size(x)).reshape((-1,) + np.shape(x))])
    return rev, fwd


def diagonal(f, x):
    """d f_i / d x_i of an elementwise f, by reverse mode and by forward mode (one jvp)."""
    rev = srcad.vjp(f)(x, np.ones_like(x))
    fwd = srcad.jvp(f)(x, np.ones_like(x))
    return rev, fwd


# --- kinks -------------------------------------------------------------------------------------

def abs_(x):
    return np.abs(x)


def fabs(x):
    return np.fabs(x)


def math_fabs(x):
    return math.fabs(x)


def test_abs_takes_the_subgradient_zero_at_zero():
    x = np.array([-2.0, 0.0, 3.0])
    for f in (abs_, fabs):
        rev, fwd = diagonal(f, x)
        np.testing.assert_array_equal(rev, [-1.0, 0.0, 1.0])
        np.testing.assert_array_equal(fwd, [-1.0, 0.0, 1.0])
    assert srcad.grad(math_fabs)(0.0) == 0.0
    assert srcad.jvp(math_fabs)(0.0, 1.0) == 0.0


def copysign(x, y):
    return np.copysign(x, y)


def test_copysign_at_zero_and_in_the_sign_operand():
    x = np.array([0.0, 2.0, -2.0, 3.0])
    y = np.array([1.0, -1.0, -1.0, 1.0])
    rev = srcad.vjp(copysign)(x, y, np.ones(4))
    fwd = srcad.jvp(copysign)(x, y, np.ones(4))
    np.testing.assert_array_equal(rev, [0.0, -1.0, 1.0, 1.0])
    np.testing.assert_array_equal(fwd, [0.0, -1.0, 1.0, 1.0])
    np.testing.assert_array_equal(srcad.vjp(copysign, wrt=1)(x, y, np.ones(4)), np.zeros(4))


def maximum(x, y):
    return np.maximum(x, y)


def minimum(x, y):
    return np.minimum(x, y)


def fmax(x, y):
    return np.fmax(x, y)


def fmin(x, y):
    return np.fmin(x, y)


@pytest.mark.parametrize("f", [maximum, minimum, fmax, fmin])
def test_ties_split_the_derivative_evenly(f):
    x = np.array([1.0, 2.0, 3.0])
    y = np.array([1.0, 0.0, 5.0])
    gx, gy = srcad.vjp(f, wrt=(0, 1))(x, y, np.ones(3))
    big = f is maximum or f is fmax
    np.testing.assert_array_equal(gx, [0.5, 1.0, 0.0] if big else [0.5, 0.0, 1.0])
    np.testing.assert_array_equal(gx + gy, [1.0, 1.0, 1.0])
    # forward mode: moving both operands together moves the result as fast
    np.testing.assert_array_equal(srcad.jvp(f, wrt=(0, 1))(x, y, np.ones(3), np.ones(3)),
                                  np.ones(3))
    np.testing.assert_array_equal(srcad.jvp(f, wrt=(0, 1))(x, y, np.ones(3), np.zeros(3)), gx)


def relu_sum(x):
    return np.sum(np.maximum(x, 0.0))


def test_relu_at_zero_takes_half():
    rev = srcad.grad(relu_sum)(np.array([-1.0, 0.0, 1.0]))
    np.testing.assert_array_equal(rev, [0.0, 0.5, 1.0])


def test_fmax_and_fmin_ignore_nan():
    x = np.array([np.nan, 1.0, np.nan])
    y = np.array([2.0, np.nan, np.nan])
    for f in (fmax, fmin):
        gx, gy = srcad.vjp(f, wrt=(0, 1))(x, y, np.ones(3))
        np.testing.assert_array_equal(gx[:2], [0.0, 1.0])
        np.testing.assert_array_equal(gy[:2], [1.0, 0.0])
        fwd = srcad.jvp(f, wrt=(0, 1))(x, y, np.array([np.nan, 3.0, 0.0]),
                                       np.array([4.0, np.nan, 0.0]))
        np.testing.assert_array_equal(fwd[:2], [4.0, 3.0])  # the nan side's tangent is not read


def clip(x, lo, hi):
    return np.clip(x, lo, hi)


def clip_below(x):
    return np.clip(x, -1.0, None)


def clip_above(x):
    return np.clip(x, None, 1.0)


def clip_keywords(x, lo, hi):
    return np.clip(x, min=lo, max=hi)


def test_clip_passes_the_derivative_on_the_closed_interval():
    x = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])
    for f in (clip, clip_keywords):
        ga, glo, ghi = srcad.vjp(f, wrt=(0, 1, 2))(x, -1.0, 1.0, np.ones(5))
        np.testing.assert_array_equal(ga, [0.0, 1.0, 1.0, 1.0, 0.0])
        assert glo == 1.0 and ghi == 1.0
        fwd = srcad.jvp(f, wrt=(0, 1, 2))(x, -1.0, 1.0, np.ones(5), 10.0, 100.0)
        np.testing.assert_array_equal(fwd, [10.0, 1.0, 1.0, 1.0, 100.0])
    np.testing.assert_array_equal(diagonal(clip_below, x)[0], [0.0, 1.0, 1.0, 1.0, 1.0])
    np.testing.assert_array_equal(diagonal(clip_above, x)[1], [1.0, 1.0, 1.0, 1.0, 0.0])


def test_clip_with_array_bounds_and_crossed_bounds():
    x = np.array([[-2.0, 0.0, 2.0]])
    lo = np.array([[-1.0], [0.5]])   # broadcast to (2, 3)
    ga, glo, ghi = srcad.vjp(clip, wrt=(0, 1, 2))(x, lo, 1.0, np.ones((2, 3)))
    np.testing.assert_array_equal(ga, [[0.0, 1.0, 0.0]])
    np.testing.assert_array_equal(glo, [[1.0], [2.0]])
    assert ghi == 2.0
    # lo > hi: numpy's result is hi everywhere, and so is the derivative
    ga, glo, ghi = srcad.vjp(clip, wrt=(0, 1, 2))(np.array([-3.0, 0.0, 3.0]), 1.0, -1.0,
                                                np.ones(3))
    np.testing.assert_array_equal(ga, np.zeros(3))
    assert glo == 0.0 and ghi == 3.0


# --- infinite slopes and untaken branches --------------------------------------------------------

def sqrt(x):
    return np.sqrt(x)


def test_sqrt_at_zero_is_inf_but_a_zero_derivative_stays_zero():
    x = np.array([0.0, 4.0])
    rev, fwd = diagonal(sqrt, x)
    np.testing.assert_array_equal(rev, [np.inf, 0.25])
    np.testing.assert_array_equal(fwd, [np.inf, 0.25])
    # a zero cotangent / tangent at the singular entry: 0, not 0 * inf = nan
    np.testing.assert_array_equal(srcad.vjp(sqrt)(x, np.array([0.0, 1.0])), [0.0, 0.25])
    np.testing.assert_array_equal(srcad.jvp(sqrt)(x, np.array([0.0, 1.0])), [0.0, 0.25])


def math_sqrt(x):
    return math.sqrt(x)


def math_asin(x):
    return math.asin(x)


def test_math_infinite_slopes_are_inf_not_zero_division():
    assert srcad.grad(math_sqrt)(0.0) == np.inf
    assert srcad.jvp(math_sqrt)(0.0, 1.0) == np.inf
    assert srcad.jvp(math_sqrt)(0.0, 0.0) == 0.0
    assert srcad.grad(math_asin)(1.0) == np.inf


def where_sqrt(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def where_log(x):
    return np.sum(np.where(x > 0, np.log(x), x))


def where_arcsin(x):
    return np.sum(np.where(np.abs(x) < 1, np.arcsin(x), 0.0))


def where_exp(x):
    return np.sum(np.where(x < 100, np.exp(x), 0.0))


def where_reciprocal(x):
    return np.sum(np.where(x != 0, np.reciprocal(x), 0.0))


def where_arccosh(x):
    return np.sum(np.where(x > 1, np.arccosh(x), 0.0))


def where_cbrt(x):
    return np.sum(np.where(x != 0, np.cbrt(x), 0.0))


@pytest.mark.parametrize("f, x, want", [
    (where_sqrt, [-1.0, 0.0, 4.0], [0.0, 0.0, 0.25]),
    (where_log, [-1.0, 0.0, 2.0], [1.0, 1.0, 0.5]),
    (where_arcsin, [-2.0, 1.0, 0.0], [0.0, 0.0, 1.0]),
    (where_exp, [1000.0, 0.0, 800.0], [0.0, 1.0, 0.0]),
    (where_reciprocal, [0.0, 2.0, 0.0], [0.0, -0.25, 0.0]),
    (where_arccosh, [1.0, 0.5, 2.0], [0.0, 0.0, 1 / math.sqrt(3.0)]),
    (where_cbrt, [0.0, 8.0, 0.0], [0.0, 1 / 12, 0.0]),
])
def test_an_untaken_singular_branch_gives_zero_not_nan(f, x, want):
    x = np.array(x)
    with np.errstate(all="ignore"):  # the function itself evaluates sqrt(-1), exp(1000), ...
        rev = srcad.grad(f)(x)
        fwd = np.array([srcad.jvp(f)(x, e) for e in np.eye(3)])
        hessian = srcad.hessian(f)(x)
    np.testing.assert_allclose(rev, want, rtol=1e-15)
    np.testing.assert_allclose(fwd, want, rtol=1e-15)
    assert np.all(np.isfinite(hessian)), hessian


def double_where_sqrt(x):
    return np.sum(np.where(x > 0, np.sqrt(np.where(x > 0, x, 1.0)), 0.0))


def test_the_double_where_form_works_too():
    x = np.array([-1.0, 0.0, 4.0])
    np.testing.assert_array_equal(srcad.grad(double_where_sqrt)(x), [0.0, 0.0, 0.25])
    np.testing.assert_array_equal(srcad.hessian(double_where_sqrt)(x),
                                  np.diag([0.0, 0.0, -1 / 32]))


def test_where_sqrt_hessian_is_zero_off_the_taken_branch():
    with np.errstate(all="ignore"):
        hessian = srcad.hessian(where_sqrt)(np.array([-1.0, 0.0, 4.0]))
    np.testing.assert_array_equal(hessian, np.diag([0.0, 0.0, -1 / 32]))


def hypot(x, y):
    return np.hypot(x, y)


def arctan2(y, x):
    return np.arctan2(y, x)


def math_hypot(x, y):
    return math.hypot(x, y)


def math_atan2(y, x):
    return math.atan2(y, x)


def test_hypot_and_arctan2_take_slope_zero_at_the_origin():
    zero = np.zeros(1)
    for f in (hypot, arctan2):
        gx, gy = srcad.vjp(f, wrt=(0, 1))(zero, zero, np.ones(1))
        np.testing.assert_array_equal(gx, [0.0])
        np.testing.assert_array_equal(gy, [0.0])
        np.testing.assert_array_equal(srcad.jvp(f, wrt=(0, 1))(zero, zero, zero + 1, zero + 1),
                                      [0.0])
    for f in (math_hypot, math_atan2):
        assert srcad.grad(f, wrt=(0, 1))(0.0, 0.0) == (0.0, 0.0)


# --- powers with a zero base ---------------------------------------------------------------------

def square_pow(x):
    return x ** 2


def square_pow_sum(x):
    return np.sum(x ** 2)


def sqrt_pow_sum(x):
    return np.sum(x ** 0.5)


def pow_xy(x, y):
    return x ** y


def float_power(x, y):
    return np.float_power(x, y)


def math_pow(x, y):
    return math.pow(x, y)


def test_power_with_a_zero_base():
    # x ** 2 at 0: slope 0
    assert srcad.grad(square_pow)(0.0) == 0.0
    np.testing.assert_array_equal(srcad.grad(square_pow_sum)(np.zeros(2)), [0.0, 0.0])
    for f in (pow_xy, float_power, math_pow):
        # 0 ** y for y > 0 is 0 for every y: slope 0 in y; 2 x at x = 0: slope 0 in x
        assert srcad.grad(f, wrt=(0, 1))(0.0, 2.0) == (0.0, 0.0)
        assert srcad.jvp(f, wrt=(0, 1))(0.0, 2.0, 1.0, 1.0) == 0.0
        # x ** 1 at 0: slope 1
        assert srcad.grad(f, wrt=(0, 1))(0.0, 1.0) == (1.0, 0.0)
    for f in (float_power, math_pow):
        # x ** 0 == 1 for every x: slope 0 at x = 0 too (not 0 * 0 ** -1 = nan)
        assert srcad.grad(f, wrt=(0, 1))(0.0, 0.0)[0] == 0.0
        # x ** 0.5 at 0: the one-sided slope inf
        with np.errstate(divide="ignore"):
            assert srcad.grad(f, wrt=(0, 1))(0.0, 0.5) == (np.inf, 0.0)


def test_array_power_with_a_zero_base():
    x = np.zeros(2)
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(srcad.grad(sqrt_pow_sum)(x), [np.inf] * 2)


def test_python_float_power_with_a_zero_base_and_fractional_exponent():
    """x ** 0.5 at the Python float 0.0 has the one-sided slope inf, as for arrays."""
    with np.errstate(divide="ignore"):
        got = srcad.grad(pow_xy, wrt=(0, 1))(0.0, 0.5)
    assert got == (np.inf, 0.0)


# --- overflow ------------------------------------------------------------------------------------

def logaddexp(x, y):
    return np.logaddexp(x, y)


def logaddexp2(x, y):
    return np.logaddexp2(x, y)


def test_logistic_is_within_two_ulps_in_both_of_its_forms():
    """The runtime's logistic (logaddexp's slopes) takes 1 / (1 + e^-x) for a float64 array
    whose entries are all above -700, and e^-|x| with each side's form otherwise: both within
    two ulps of the exact value, against a long double reference, in float64's normal range."""
    logistic = HELPERS["logistic"]
    x = np.concatenate([np.linspace(-699.0, 700.0, 20001), [-36.7, -1e-300, 0.0, 36.7, 745.0]])
    wide = x.astype(np.longdouble)
    exact = (1 / (1 + np.exp(-wide))).astype(np.float64)
    for values in (x, np.append(x, -701.0)):  # (all above -700: 1 / (1 + e^-x); not all)
        got = logistic(values)[:x.size]
        assert np.all(np.abs(got - exact) <= 2 * np.spacing(exact)), values[-1]
    assert logistic(np.array([-701.0, np.nan]))[1] != logistic(np.array([-701.0, np.nan]))[1]
    with warnings.catch_warnings(), np.errstate(over="raise", under="ignore"):
        warnings.simplefilter("error")  # (no overflow in either form)
        assert logistic(np.array([-800.0, 800.0]))[1] == 1.0
        assert logistic(np.array([-699.9, 800.0]))[1] == 1.0


def test_logaddexp_does_not_overflow():
    x = np.array([1000.0, 1000.0, -1000.0, 1e300])
    y = np.array([1000.0, -1000.0, -1000.0, 0.0])
    with warnings.catch_warnings(), np.errstate(over="raise", divide="raise", invalid="raise"):
        warnings.simplefilter("error")
        for f in (logaddexp, logaddexp2):
            gx, gy = srcad.vjp(f, wrt=(0, 1))(x, y, np.ones(4))
            fwd = srcad.jvp(f, wrt=(0, 1))(x, y, np.ones(4), np.zeros(4))
            np.testing.assert_allclose(gx, [0.5, 1.0, 0.5, 1.0], rtol=1e-13)
            np.testing.assert_allclose(gy, [0.5, 0.0, 0.5, 0.0], rtol=1e-13, atol=1e-300)
            np.testing.assert_allclose(fwd, gx, rtol=1e-15)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def sigmoid_sum(x):
    return np.sum(1.0 / (1.0 + np.exp(-x)))


X_SIGMOID = np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0])
SLOPE_SIGMOID = np.array([0.0, math.exp(-50.0), 0.25, math.exp(-50.0), 0.0])


def test_user_sigmoid_at_large_inputs_reverse():
    with np.errstate(over="ignore"):  # exp(1000) in the user's own function
        rev = srcad.vjp(sigmoid)(X_SIGMOID, np.ones(5))
        grad = srcad.grad(sigmoid_sum)(X_SIGMOID)
    np.testing.assert_allclose(rev, SLOPE_SIGMOID, rtol=1e-14, atol=0.0)
    np.testing.assert_allclose(grad, SLOPE_SIGMOID, rtol=1e-14, atol=0.0)


def test_user_sigmoid_at_large_inputs_forward():
    """Forward mode at x = -1000: exp(1000) = inf is the tangent of exp, and the quotient rule
    then meets 0 * inf."""
    with np.errstate(over="ignore", invalid="ignore"):
        fwd = srcad.jvp(sigmoid)(X_SIGMOID, np.ones(5))
    np.testing.assert_allclose(fwd[1:], SLOPE_SIGMOID[1:], rtol=1e-14, atol=0.0)
    assert fwd[0] == 0.0


def exp_(x):
    return np.exp(x)


def sinh_(x):
    return np.sinh(x)


def test_overflowed_exp_has_slope_inf_and_zero_derivative_zero():
    x = np.array([1000.0, 1.0])
    with np.errstate(over="ignore"):
        for f in (exp_, sinh_):
            np.testing.assert_array_equal(srcad.vjp(f)(x, np.array([0.0, 1.0]))[0], 0.0)
            assert srcad.vjp(f)(x, np.array([1.0, 0.0]))[0] == np.inf


# --- accuracy where the textbook formula cancels -------------------------------------------------

def expm1(x):
    return np.expm1(x)


def sinc(x):
    return np.sinc(x)


def sinc_sum(x):
    return np.sum(np.sinc(x))


def arcsinh(x):
    return np.arcsinh(x)


def test_expm1_slope_keeps_its_digits_for_very_negative_x():
    x = np.array([-40.0, -700.0])
    rev, fwd = diagonal(expm1, x)
    np.testing.assert_allclose(rev, np.exp(x), rtol=1e-15)
    np.testing.assert_allclose(fwd, np.exp(x), rtol=1e-15)


def test_sinc_slope_near_zero():
    x = np.array([0.0, 1e-9, -1e-4, 0.02, 0.5, 1.0])
    t = np.pi * x
    # reference: d/dt sin(t)/t = sum_k (-1)^k 2k t^(2k-1) / (2k+1)! (15 terms: exact for |t| < 1),
    # else (t cos t - sin t) / t^2, which has lost little to cancellation at |t| >= 1
    series = sum((-1) ** k * 2 * k * t ** (2 * k - 1) / math.factorial(2 * k + 1)
                 for k in range(1, 16))
    exact = np.pi * np.where(np.abs(t) < 1, series,
                             (t * np.cos(t) - np.sin(t)) / np.where(t == 0, 1.0, t) ** 2)
    rev, fwd = diagonal(sinc, x)
    np.testing.assert_allclose(rev, exact, rtol=1e-13, atol=0.0)
    np.testing.assert_allclose(fwd, exact, rtol=1e-13, atol=0.0)
    assert rev[0] == 0.0
    # the second derivative at 0 is -pi^2 / 3
    h = srcad.hessian(sinc_sum)(np.zeros(1))
    np.testing.assert_allclose(h, [[-np.pi ** 2 / 3]], rtol=1e-14)


def test_arcsinh_slope_does_not_overflow():
    x = np.array([1e200, -1e300])
    rev, fwd = diagonal(arcsinh, x)
    np.testing.assert_allclose(rev, 1 / np.abs(x), rtol=1e-15)
    np.testing.assert_allclose(fwd, 1 / np.abs(x), rtol=1e-15)


# --- math special functions ----------------------------------------------------------------------

def test_polygamma_helper_known_values():
    polygamma = HELPERS["polygamma_n"]
    euler = 0.5772156649015329
    zeta3 = 1.2020569031595942
    cases = [
        (0, 1.0, -euler), (0, 0.5, -euler - 2 * math.log(2.0)), (0, 2.0, 1 - euler),
        (0, -0.5, -euler - 2 * math.log(2.0) + 2.0),  # psi(x + 1) = psi(x) + 1 / x
        (1, 1.0, math.pi ** 2 / 6), (1, 0.5, math.pi ** 2 / 2), (2, 1.0, -2 * zeta3),
        (1, -0.5, math.pi ** 2 / 2 + 4.0),  # psi'(x) = psi'(x + 1) + 1 / x^2
        (0, 1e6, math.log(1e6) - 0.5e-6 - 1 / 12e12),
    ]
    for n, x, want in cases:
        assert polygamma(n, x) == pytest.approx(want, rel=1e-14, abs=1e-15), (n, x)
    xs = np.array([0.5, 1.0, -0.5])
    np.testing.assert_allclose(polygamma(0, xs), [cases[1][2], -euler, cases[3][2]], rtol=1e-14)


def lgamma(x):
    return math.lgamma(x)


def gamma(x):
    return math.gamma(x)


def test_lgamma_and_gamma_slopes():
    for x in (0.1, 1.0, 3.7, 20.5, -0.5, -2.3, 170.2):
        h = 1e-6 * max(1.0, abs(x))
        fd = (math.lgamma(x + h) - math.lgamma(x - h)) / (2 * h)
        assert srcad.grad(lgamma)(x) == pytest.approx(fd, rel=1e-8)
        assert srcad.jvp(lgamma)(x, 1.0) == srcad.grad(lgamma)(x)
    assert srcad.grad(lgamma)(1.0) == pytest.approx(-0.5772156649015329, rel=1e-15)
    assert srcad.grad(gamma)(2.0) == pytest.approx(1 - 0.5772156649015329, rel=1e-15)
    assert srcad.hessian(lgamma)(1.0) == pytest.approx(math.pi ** 2 / 6, rel=1e-15)


def math_log_base(x, b):
    return math.log(x, b)


def test_math_log_with_a_variable_base():
    x, b = 8.0, 2.0
    gx, gb = srcad.grad(math_log_base, wrt=(0, 1))(x, b)
    assert gx == pytest.approx(1 / (x * math.log(b)), rel=1e-15)
    assert gb == pytest.approx(-math.log(x) / (b * math.log(b) ** 2), rel=1e-15)


# --- float32 stays float32 -----------------------------------------------------------------------

UNARY32 = {
    "np.sin(x)": {}, "np.cos(x)": {}, "np.tan(x)": {}, "np.arcsin(x)": dict(scale=0.9),
    "np.arccos(x)": dict(scale=0.9), "np.arctan(x)": {}, "np.sinh(x)": {}, "np.cosh(x)": {},
    "np.tanh(x)": {}, "np.arcsinh(x)": {}, "np.arccosh(x)": dict(shift=2.0),
    "np.arctanh(x)": dict(scale=0.9), "np.exp(x)": {}, "np.exp2(x)": {}, "np.expm1(x)": {},
    "np.log(x)": dict(shift=2.0), "np.log2(x)": dict(shift=2.0), "np.log10(x)": dict(shift=2.0),
    "np.log1p(x)": dict(shift=1.0), "np.sqrt(x)": dict(shift=2.0), "np.cbrt(x)": {},
    "np.square(x)": {}, "np.reciprocal(x)": dict(shift=2.0), "np.abs(x)": {}, "np.fabs(x)": {},
    "np.sinc(x)": {}, "np.deg2rad(x)": {}, "np.rad2deg(x)": {}, "np.conj(x)": {},
    "np.real(x)": {}, "np.nan_to_num(x)": {}, "np.clip(x, -0.5, 0.5)": {},
    "np.clip(x, None, 0.5)": {}, "np.where(x > 0, x, 0.0)": {}, "np.maximum(x, 0.0)": {},
    "np.where(x > 0, np.sqrt(x), 0.0)": {}, "1.0 / (1.0 + np.exp(-x))": {},
    "np.ldexp(x, 3)": {}, "np.fmin(x, 0.5)": {},
}
BINARY32 = ["np.arctan2(x, y)", "np.hypot(x, y)", "np.maximum(x, y)", "np.minimum(x, y)",
            "np.fmax(x, y)", "np.fmin(x, y)", "np.logaddexp(x, y)", "np.logaddexp2(x, y)",
            "np.copysign(x, y)", "np.fmod(x, y)", "np.where(x > y, x, y)", "np.clip(x, y, 2.0)"]


@pytest.mark.parametrize("expr", sorted(UNARY32))
def test_float32_unary(expr, tmp_path):
    f = function_of(expr, "x", tmp_path)
    domain = UNARY32[expr]
    x = (domain.get("shift", 0.0)
         + domain.get("scale", 1.0) * np.linspace(-0.95, 0.95, 6)).astype(np.float32)
    w = np.ones(6, dtype=np.float32)
    with np.errstate(invalid="ignore"):
        rev = srcad.vjp(f)(x, w)
        fwd = srcad.jvp(f)(x, w)
    assert rev.dtype == np.float32, rev.dtype
    assert fwd.dtype == np.float32, fwd.dtype


@pytest.mark.parametrize("expr", BINARY32)
def test_float32_binary(expr, tmp_path):
    f = function_of(expr, "x, y", tmp_path)
    x = np.linspace(-1.0, 1.0, 6).astype(np.float32).reshape(2, 3)
    y = np.array([0.7, -0.3, 1.5], dtype=np.float32)
    w = np.ones((2, 3), dtype=np.float32)
    gx, gy = srcad.vjp(f, wrt=(0, 1))(x, y, w)
    fwd = srcad.jvp(f, wrt=(0, 1))(x, y, np.ones_like(x), np.ones_like(y))
    assert (gx.dtype, gy.dtype, fwd.dtype) == (np.float32,) * 3


def test_safe_mul_by_a_float_zero_is_a_strong_zero():
    """A finite float factor took the plain product, 0.0 too: inf * 0.0 = nan (and a warning)."""
    safe_mul = HELPERS["safe_mul"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(safe_mul(np.array([np.inf, np.nan, 2.0]), 0.0), 0.0)
        assert safe_mul(np.inf, 0.0) == 0.0 and safe_mul(np.float64(np.nan), -0.0) == 0.0
        np.testing.assert_array_equal(safe_mul(np.array([np.inf, 2.0]), 1.5), [np.inf, 3.0])
