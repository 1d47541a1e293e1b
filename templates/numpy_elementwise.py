"""NumPy's elementwise functions (ufuncs and kin) of one or two operands, by the slope of each:
trigonometric, hyperbolic, exponentials and logarithms, powers and roots, sign and magnitude
(maximum, minimum, where, clip and the other selections are in numpy_selections.py). Adjoint and
tangent of each op side by side (the linear ones, ldexp and real, declared @linear: the registry
writes their tangents; an op of one operand is @diagonal: one template, its own transpose).

Conventions (docs/numerics.md has the details and the tests that pin them down):
- kinks take a subgradient: abs and copysign take 0 at 0;
- a zero derivative is a strong zero: where a slope is infinite or undefined (sqrt and log at 0,
  arcsin at +-1, exp overflowed to inf), a zero adjoint or tangent still gives exactly 0, never
  0 * inf = nan. safe_mul and safe_div below do this; ops whose slope is finite wherever their
  value is finite use plain products;
- a nonzero derivative through an infinite slope is inf (sqrt at 0 gives inf, the true one-sided
  slope);
- constants are Python floats (0.6931471805599453, not np.log(2.0)) so float32 stays float32.
"""
import numpy as np

from srcad.rules.registry import adjoint, d, diagonal, linear, non_differentiable, tangent
from srcad.runtime import helper, on_host


# --- runtime helpers -----------------------------------------------------------------------------

@helper
def safe_mul(a, b):
    """a * b, except that a zero factor gives an exact 0 even against inf or nan (0 * inf = 0):
    a zero derivative stays zero through an infinite or undefined slope."""
    if isinstance(b, float) and b != 0.0 and -np.inf < b < np.inf:  # finite, nonzero float
        return a * b  # (Python or np.float64)
    if isinstance(a, float) and a != 0.0 and -np.inf < a < np.inf:  # the same, either side
        return a * b  # (a scalar adjoint times a slope: no errstate, no look at b's values)
    if type(a) is np.ndarray and type(b) is np.ndarray:
        # finite only if every product is (same shapes), or if every factor is: nothing to guard
        check = float(np.vdot(a, b).real if a.shape == b.shape else (
            np.vdot(a, a).real + np.vdot(b, b).real))
        if check - check == 0.0:  # finite (a Python float: inf - inf is nan, with no warning)
            return a * b
    with np.errstate(invalid="ignore"):
        out = np.multiply(a, b)
    if not on_host(out):  # a dask or CuPy array: no look at its values, the same numbers
        return np.where(np.isnan(out) & (np.equal(a, 0) | np.equal(b, 0)), 0, out)
    check = np.vdot(out, out).real  # NaN when an entry is NaN (or inf when one is inf): cheap
    if not -np.inf < check < np.inf and np.isnan(out).any():  # rare: look for zero factors
        lost = np.isnan(out) & (np.equal(a, 0) | np.equal(b, 0))
        out = np.where(lost, 0, out)
        return out[()] if np.ndim(out) == 0 else out
    return out


@helper
def slope_mul(g, s):
    """safe_mul(g, s) for a slope s that is finite wherever the function is (a gradient's
    singular points, srcad/singular.py; a saturating op's tangent, registry.SaturatingTangent):
    only g's infs and nans need the guard (a zero slope gives 0 against them), so only g is
    checked."""
    if not on_host(g):  # a dask or CuPy array: safe_mul's np.where form, the same numbers
        return safe_mul(g, s)  # (no look at g's values: its vdot would be computed)
    check = float(np.vdot(g, g).real)  # finite unless an entry of g is inf or nan (or overflows)
    if check - check == 0.0:
        return g * s
    return safe_mul(g, s)


@helper
def strong_mul(g, s):
    """g * s, except that a zero g gives an exact 0 even against an inf or nan s: the adjoint of
    a product, whose zero (an untaken np.where branch's) stays zero through a factor that is
    inf or nan there (p * np.log(p) at p = 0; modes/strong_zeros.py). Only g's zeros are
    strong: an inf g against a zero s is nan, as g * s (safe_mul is strong both ways)."""
    if isinstance(s, (float, int)) and -np.inf < s < np.inf:  # a finite number: no guard
        return g * s
    if isinstance(g, float) and g != 0.0 and -np.inf < g < np.inf:  # a finite number, not 0:
        return g * s  # no zero to keep, nor an invalid product to silence
    if type(s) is np.ndarray:
        check = float(np.vdot(s, s).real) if s.dtype.kind in "fc" else 0.0
        if check - check == 0.0:  # every entry finite (a Python float: inf - inf is nan)
            return g * s
    with np.errstate(invalid="ignore"):
        out = np.multiply(g, s)
    if not on_host(out):  # a dask or CuPy array: no look at its values, the same numbers
        return np.where(np.isnan(out) & np.equal(g, 0), 0, out)
    check = np.vdot(out, out).real  # NaN when an entry is NaN (or inf when one is inf): cheap
    if not -np.inf < check < np.inf and np.isnan(out).any():  # rare: look for g's zeros
        lost = np.isnan(out) & np.equal(g, 0)
        out = np.where(lost, 0, out)
        return out[()] if np.ndim(out) == 0 else out
    return out


@helper
def safe_div(a, b):
    """a / b, except that a zero numerator gives an exact 0 even over 0, inf or nan (0 / 0 = 0);
    a nonzero numerator over 0 gives inf, as np.divide does (without the warning)."""
    if isinstance(b, float) and b != 0.0 and -np.inf < b < np.inf:  # a finite nonzero float
        return a / b
    if type(b) is np.ndarray and np.count_nonzero(b) == b.size:
        out = a / b  # no zero divisor: no warning to silence (but for inf / inf)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.divide(a, b)
    if not on_host(out):  # a dask or CuPy array: no look at its values, the same numbers
        return np.where(np.isnan(out) & np.equal(a, 0), 0, out)
    check = np.vdot(out, out).real  # NaN when an entry is NaN (or inf when one is inf): cheap
    if not -np.inf < check < np.inf and np.isnan(out).any():  # rare: only then look for 0 / 0
        lost = np.isnan(out) & np.equal(a, 0)
        out = np.where(lost, 0, out)
        return out[()] if np.ndim(out) == 0 else out
    return out


# helpers' tangents (generated gradients are differentiated again: hessians, grad(grad(f))). The masks of
# safe_mul/slope_mul/safe_div are piecewise constant, so these are the product and quotient
# rules. (Named apart from the helpers: slope_mul calls safe_mul by this module's name.)
@tangent(safe_mul)
def safe_mul_tangent(z, a, b):
    d[z] = safe_mul(d[a], b) + safe_mul(d[b], a)


@tangent(slope_mul)
def slope_mul_tangent(z, g, s):
    d[z] = safe_mul(d[g], s) + safe_mul(d[s], g)


@tangent(strong_mul)
def strong_mul_tangent(z, g, s):
    d[z] = strong_mul(d[g], s) + strong_mul(g, d[s])


@tangent(safe_div)
def safe_div_tangent(z, a, b):
    d[z] = safe_div(d[a] - safe_mul(d[b], z), b)


# and their adjoints (generated gradients differentiated in reverse mode: grad(grad(f)))
@adjoint(safe_mul, broadcasts=True)
def safe_mul_adjoint(z, a, b):
    d[a] = safe_mul(d[z], b)
    d[b] = safe_mul(d[z], a)


@adjoint(strong_mul, broadcasts=True)
def strong_mul_adjoint(z, g, s):
    d[g] = strong_mul(d[z], s)
    d[s] = strong_mul(d[z], g)


@adjoint(slope_mul, broadcasts=True)
def slope_mul_adjoint(z, g, s):
    d[g] = safe_mul(d[z], s)
    d[s] = safe_mul(d[z], g)


# (as truediv's: d[b] = -(d[z] / b) z, not -d[z] (z / b), which underflowed to 0 where d[z]
# is huge and z tiny: 1e256 * (1e-256 / 1e256) is 0, (1e256 / 1e256) * 1e-256 is not)
@adjoint(safe_div, broadcasts=True)
def safe_div_adjoint(z, a, b):
    share = safe_div(d[z], b)
    d[a] = share
    d[b] = -safe_mul(share, z)


# --- trigonometric -------------------------------------------------------------------------------

@diagonal(np.sin)
def sin(y, x):
    d[y] = d[x] * np.cos(x)


@diagonal(np.cos)
def cos(y, x):
    d[y] = -d[x] * np.sin(x)


@diagonal(np.tan)
def tan(y, x):
    d[y] = d[x] * (1.0 + y * y)


# arcsin' = 1 / sqrt(1 - x^2), written (1 - x)(1 + x) to keep its digits near |x| = 1
@diagonal(np.arcsin)
def arcsin(y, x):
    d[y] = safe_div(d[x], np.sqrt((1.0 - x) * (1.0 + x)))


@diagonal(np.arccos)
def arccos(y, x):
    d[y] = -safe_div(d[x], np.sqrt((1.0 - x) * (1.0 + x)))


# (the tangent saturates: 1 / (1 + x^2) is 0 at x = inf, where an overflowed operand's
# tangent is inf, and inf / inf was nan: it multiplies through slope_mul)
@adjoint(np.arctan)
def arctan(y, x):
    d[x] = d[y] / (1.0 + x * x)


@tangent(np.arctan)
def arctan(y, x):
    d[y] = slope_mul(d[x], 1.0 / (1.0 + x * x))


# arctan2(y, x) is the angle of the point (x, y); at the origin we take the slope 0
@adjoint(np.arctan2, broadcasts=True)
def arctan2(z, y, x):
    d[y] = safe_div(d[z] * x, x * x + y * y)
    d[x] = -safe_div(d[z] * y, x * x + y * y)


@tangent(np.arctan2, broadcasts=True)
def arctan2(z, y, x):
    d[z] = safe_div(d[y] * x - d[x] * y, x * x + y * y)


@adjoint(np.hypot, broadcasts=True)
def hypot(z, x, y):
    d[x] = safe_div(d[z] * x, z)
    d[y] = safe_div(d[z] * y, z)


@tangent(np.hypot, broadcasts=True)
def hypot(z, x, y):
    d[z] = safe_div(d[x] * x + d[y] * y, z)


@diagonal(np.deg2rad, np.radians)
def deg2rad(y, x):
    d[y] = d[x] * 0.017453292519943295


@diagonal(np.rad2deg, np.degrees)
def rad2deg(y, x):
    d[y] = d[x] * 57.29577951308232


# sinc(x) = sin(t) / t with t = pi x (pix below). Its slope pi (t cos t - sin t) / t^2 cancels
# badly near t = 0, where the Taylor series -t/3 + t^3/30 - t^5/840 + t^7/45360 takes over.
@adjoint(np.sinc)
def sinc(y, x):
    pix = 3.141592653589793 * x
    near = np.abs(pix) < 0.1
    far = np.where(near, 1.0, pix)  # pix, kept off 0 where the series is used
    sq = pix * pix
    series = pix * (-0.3333333333333333 + sq * (0.03333333333333333 + sq * (
        -0.0011904761904761906 + sq * 2.2045855379188713e-05)))
    slope = 3.141592653589793 * np.where(near, series,
                                         (far * np.cos(far) - np.sin(far)) / (far * far))
    d[x] = d[y] * slope


@tangent(np.sinc)
def sinc(y, x):
    pix = 3.141592653589793 * x
    near = np.abs(pix) < 0.1
    far = np.where(near, 1.0, pix)  # pix, kept off 0 where the series is used
    sq = pix * pix
    series = pix * (-0.3333333333333333 + sq * (0.03333333333333333 + sq * (
        -0.0011904761904761906 + sq * 2.2045855379188713e-05)))
    slope = 3.141592653589793 * np.where(near, series,
                                         (far * np.cos(far) - np.sin(far)) / (far * far))
    d[y] = d[x] * slope


# --- hyperbolic ----------------------------------------------------------------------------------

@diagonal(np.sinh)
def sinh(y, x):
    d[y] = safe_mul(d[x], np.cosh(x))


@diagonal(np.cosh)
def cosh(y, x):
    d[y] = safe_mul(d[x], np.sinh(x))


# (saturates: 1 - y * y is exactly 0 past |x| ~ 19, where an overflowed operand's tangent is
# inf: the tangent multiplies through slope_mul)
@diagonal(np.tanh, saturates=True)
def tanh(y, x):
    d[y] = d[x] * (1.0 - y * y)


# arcsinh' = 1 / sqrt(1 + x^2) = 1 / hypot(1, x), which does not overflow for large x
@diagonal(np.arcsinh)
def arcsinh(y, x):
    d[y] = d[x] / np.hypot(1.0, x)


@diagonal(np.arccosh)
def arccosh(y, x):
    d[y] = safe_div(d[x], np.sqrt((x - 1.0) * (x + 1.0)))


@diagonal(np.arctanh)
def arctanh(y, x):
    d[y] = safe_div(d[x], (1.0 - x) * (1.0 + x))


# --- exponentials and logarithms -----------------------------------------------------------------
# exp overflows to inf where its argument is large: safe_mul keeps a zero adjoint zero there

@diagonal(np.exp)
def exp(y, x):
    d[y] = safe_mul(d[x], y)


@diagonal(np.exp2)
def exp2(y, x):
    d[y] = safe_mul(d[x], y * 0.6931471805599453)


# expm1' = exp(x), not y + 1: y + 1 loses every digit of exp(x) when x is very negative
@diagonal(np.expm1)
def expm1(y, x):
    d[y] = safe_mul(d[x], np.exp(x))


@diagonal(np.log)
def log(y, x):
    d[y] = safe_div(d[x], x)


@diagonal(np.log2)
def log2(y, x):
    d[y] = safe_div(d[x], x * 0.6931471805599453)


@diagonal(np.log10)
def log10(y, x):
    d[y] = safe_div(d[x], x * 2.302585092994046)


@diagonal(np.log1p)
def log1p(y, x):
    d[y] = safe_div(d[x], 1.0 + x)


@helper(linear=False)
def logistic(x):
    """1 / (1 + e^-x): the slope of logaddexp(a, x) in x is logistic(x - a). Computed so in
    three operations for a float64 array whose entries are all above -700 (e^-x cannot overflow
    there; each operation is correctly rounded but exp, which is within an ulp: the result is
    within two); else e^-|x|, which never overflows, and each side's accurate form
    (e^x / (1 + e^x) below 0)."""
    if type(x) is np.ndarray and x.dtype == np.float64 and x.ndim and x.size and (
            x.min() > -700.0):
        e = np.negative(x)
        np.exp(e, out=e)
        e += 1.0
        return np.divide(1.0, e, out=e)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0, e) / (1.0 + e)


@diagonal(logistic)
def logistic_slope(y, x):  # (y (1 - y), with 1 - y = logistic(-x): exact in both tails)
    d[y] = d[x] * y * logistic(-x)


# logaddexp(x, y) = log(e^x + e^y): its slopes e^x / e^z are the logistic function of the
# operands' difference, x - y: exact for any x and y (exp(x - z) was not where z is large: its
# rounding is an absolute error of x - z, and at x = y = 1e16 the slope came out 1.0, not 0.5),
# never overflowing, and z is not read (a gradient that does not return it does not compute
# it). logaddexp2's are the same of (x - y) ln 2.
@adjoint(np.logaddexp, broadcasts=True)
def logaddexp(z, x, y):
    d[x] = d[z] * logistic(x - y)
    d[y] = d[z] * logistic(y - x)


@tangent(np.logaddexp, broadcasts=True)  # (slopes 0 and 1 at an overflowed operand: slope_mul)
def logaddexp(z, x, y):
    d[z] = slope_mul(d[x], logistic(x - y)) + slope_mul(d[y], logistic(y - x))


@adjoint(np.logaddexp2, broadcasts=True)
def logaddexp2(z, x, y):
    d[x] = d[z] * logistic((x - y) * 0.6931471805599453)
    d[y] = d[z] * logistic((y - x) * 0.6931471805599453)


@tangent(np.logaddexp2, broadcasts=True)
def logaddexp2(z, x, y):
    d[z] = (slope_mul(d[x], logistic((x - y) * 0.6931471805599453))
            + slope_mul(d[y], logistic((y - x) * 0.6931471805599453)))


# --- powers and roots ----------------------------------------------------------------------------

@diagonal(np.sqrt)
def sqrt(y, x):
    d[y] = safe_div(d[x], 2.0 * y)


@diagonal(np.cbrt)
def cbrt(y, x):
    d[y] = safe_div(d[x], 3.0 * y * y)


@diagonal(np.square)
def square(y, x):
    d[y] = d[x] * 2.0 * x


@diagonal(np.reciprocal)
def reciprocal(y, x):
    d[y] = -safe_mul(d[x], y * y)


# z = x ** y in float64. d/dx = y x^(y-1), which is 0 (not 0 * inf) at y == 0; d/dy = z log x,
# taken as 0 where x <= 0 (there x ** y has no real slope in y, or the slope 0 of 0 ** y)
@adjoint(np.float_power, broadcasts=True)
def float_power(z, x, y):
    d[x] = safe_mul(d[z], safe_mul(y, np.float_power(x, y - 1.0)))
    d[y] = safe_mul(d[z], safe_mul(z, np.log(np.where(x > 0, x, 1.0))))


@tangent(np.float_power, broadcasts=True)
def float_power(z, x, y):
    d[z] = (safe_mul(d[x], safe_mul(y, np.float_power(x, y - 1.0)))
            + safe_mul(d[y], safe_mul(z, np.log(np.where(x > 0, x, 1.0)))))


# ldexp(x, i) = x * 2**i, linear in x (i is an integer exponent)
@linear(np.ldexp, broadcasts=True)
def ldexp(y, x1, x2):
    d[x1] = np.ldexp(d[y], x2)


# --- sign and magnitude --------------------------------------------------------------------------
# |x|: the subgradient 0 at the kink x == 0 (np.sign(0) == 0)

@diagonal(np.abs, np.fabs)
def abs(y, x):
    d[y] = d[x] * np.sign(x)


# copysign(x1, x2) = |x1| with the sign of x2: slope sign(x1) sign(z) in x1 (0 at x1 == 0),
# none in x2 (the result only jumps where x2 changes sign)
@adjoint(np.copysign, broadcasts=True)
def copysign(z, x1, x2):
    d[x1] = d[z] * (np.sign(x1) * np.sign(z))


@tangent(np.copysign, broadcasts=True)
def copysign(z, x1, x2):
    d[z] = d[x1] * (np.sign(x1) * np.sign(z))


# fmod(x1, x2) = x1 - n x2 with the integer n = trunc(x1 / x2), constant between its jumps;
# n is recovered as round((x1 - z) / x2), which is exact where x1 / x2 would round up
@adjoint(np.fmod, broadcasts=True)
def fmod(z, x1, x2):
    d[x1] = d[z]
    d[x2] = -d[z] * np.round((x1 - z) / x2)


@tangent(np.fmod, broadcasts=True)
def fmod(z, x1, x2):
    d[z] = d[x1] - d[x2] * np.round((x1 - z) / x2)


# real and conj: the identity on real values, and right for complex ones in srcad's convention
# (numpy_fft.py, which has imag)
@linear(np.real)
def real(y, val):
    d[val] = np.real(d[y])


@diagonal(np.conj)
def conj(y, x):
    d[y] = np.conj(d[x])
