"""The math module: scalar functions of Python floats. Adjoint and tangent of each op side by side.

The conventions are numpy_elementwise's (docs/numerics.md): where a slope is infinite (sqrt at 0,
asin at +-1) a nonzero derivative is inf and a zero one stays exactly 0 (safe_div, safe_mul),
rather than Python's ZeroDivisionError; kinks take the subgradient 0 (fabs, copysign at 0).
Those few results are numpy float64 scalars (a subclass of float); the rest stay Python floats.
"""
import math

import numpy as np

from srcad.rules.registry import adjoint, d, diagonal, linear, non_differentiable, tangent
from srcad.runtime import helper

from .builtins import unsum
from .numpy_elementwise import safe_div, safe_mul  # noqa: F401  (helpers used by templates)


# --- runtime helpers: the polygamma functions (slopes of gamma and lgamma), log of a base --------

@helper(linear=False)
def polygamma_n(n, x):
    """psi^(n)(x), the n-th derivative of the digamma function psi = (log gamma)' (n = 0: psi
    itself), for real x off the poles 0, -1, -2, ...

    x < 0.5 is reflected: psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) cot^(n)(pi x), with the
    n-th derivative of cot a polynomial in cot. Then psi^(n)(x) = psi^(n)(x + 1) - (-1)^n n! /
    x^(n+1) moves the argument past 16, where the asymptotic series is accurate to rounding.
    """
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        reflect = x < 0.5
        z = np.where(reflect, 1.0 - x, x)
        steps = np.zeros_like(z)  # sum of 1 / (z + j)^(n+1) over the shifts
        short = z < 16.0
        while np.any(short):
            steps = steps + np.where(short, 1.0 / z ** (n + 1), 0.0)
            z = np.where(short, z + 1.0, z)
            short = z < 16.0
        # asymptotic series at z >= 16, with the Bernoulli numbers B_2 .. B_16
        fact = float(np.prod(np.arange(1.0, n + 1.0)))  # n!
        w = 1.0 / z
        series = np.zeros_like(z)
        bernoulli = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510]
        for k, b in enumerate(bernoulli, start=1):
            # B_2k (2k + n - 1)! / (2k)! / z^(2k + n)
            coef = b * float(np.prod(np.arange(2.0 * k, 2.0 * k + n))) / (2.0 * k)
            series = series + coef * w ** (2 * k + n)
        if n == 0:
            value = np.log(z) - 0.5 * w - series
        else:
            value = (-1.0) ** (n + 1) * (fact / n * w ** n + 0.5 * fact * w ** (n + 1) + series)
        value = value - (-1.0) ** n * fact * steps
        if np.any(reflect):
            poly = np.array([1.0, 0.0])  # cot^(k) as a polynomial in c = cot: c, -(1 + c^2), ...
            for _ in range(n):
                poly = -np.polymul([1.0, 0.0, 1.0], np.polyder(poly))
            c = 1.0 / np.tan(np.pi * (x - np.round(x)))  # cot has period pi: reduce first
            mirrored = (-1.0) ** n * value - np.pi ** (n + 1) * np.polyval(poly, c)
            value = np.where(reflect, mirrored, value)
    return value[()] if np.ndim(value) == 0 else value


@tangent(polygamma_n)
def polygamma_n(z, n, x):
    d[z] = d[x] * polygamma_n(n + 1, x)


@helper(linear=False)
def log_base(base):
    """ln(base), the divisor of math.log(x, base); 1.0 when the call gives no base."""
    return 1.0 if base is None else np.log(base)


@tangent(log_base)
def log_base(y, base):
    d[y] = d[base] / base


# --- trigonometric -------------------------------------------------------------------------------

@diagonal(math.sin)
def sin(y, x):
    d[y] = d[x] * math.cos(x)


@diagonal(math.cos)
def cos(y, x):
    d[y] = -d[x] * math.sin(x)


@diagonal(math.tan)
def tan(y, x):
    d[y] = d[x] * (1.0 + y * y)


# asin' = 1 / sqrt((1 - x)(1 + x)): inf at x = +-1 (the true one-sided slope)
@diagonal(math.asin)
def asin(y, x):
    d[y] = safe_div(d[x], math.sqrt((1.0 - x) * (1.0 + x)))


@diagonal(math.acos)
def acos(y, x):
    d[y] = -safe_div(d[x], math.sqrt((1.0 - x) * (1.0 + x)))


@diagonal(math.atan)
def atan(y, x):
    d[y] = d[x] / (1.0 + x * x)


# atan2 and hypot take the slope 0 at the origin
@adjoint(math.atan2)
def atan2(z, y, x):
    d[y] = safe_div(d[z] * x, x * x + y * y)
    d[x] = -safe_div(d[z] * y, x * x + y * y)


@tangent(math.atan2)
def atan2(z, y, x):
    d[z] = safe_div(d[y] * x - d[x] * y, x * x + y * y)


# hypot(*coordinates) = sqrt(sum c^2): slope c / z in each coordinate
@adjoint(math.hypot)
def hypot(z, *coordinates):
    d[coordinates] = safe_div(d[z] * np.stack(coordinates), z)


@tangent(math.hypot)
def hypot(z, *coordinates):
    d[z] = safe_div(np.sum(np.stack(d[coordinates]) * np.stack(coordinates)), z)


@diagonal(math.degrees)
def degrees(y, x):
    d[y] = d[x] * 57.29577951308232


@diagonal(math.radians)
def radians(y, x):
    d[y] = d[x] * 0.017453292519943295


# --- hyperbolic ----------------------------------------------------------------------------------

@diagonal(math.sinh)
def sinh(y, x):
    d[y] = d[x] * math.cosh(x)


@diagonal(math.cosh)
def cosh(y, x):
    d[y] = d[x] * math.sinh(x)


@diagonal(math.tanh)
def tanh(y, x):
    d[y] = d[x] * (1.0 - y * y)


@diagonal(math.asinh)
def asinh(y, x):
    d[y] = d[x] / math.hypot(1.0, x)


@diagonal(math.acosh)
def acosh(y, x):
    d[y] = safe_div(d[x], math.sqrt((x - 1.0) * (x + 1.0)))


@diagonal(math.atanh)
def atanh(y, x):
    d[y] = d[x] / ((1.0 - x) * (1.0 + x))


# --- exponentials and logarithms -----------------------------------------------------------------

@diagonal(math.exp)
def exp(y, x):
    d[y] = d[x] * y


@diagonal(math.exp2)
def exp2(y, x):
    d[y] = d[x] * y * 0.6931471805599453


# expm1' = exp(x), not y + 1 (which loses every digit of exp(x) for very negative x)
@diagonal(math.expm1)
def expm1(y, x):
    d[y] = d[x] * math.exp(x)


# log(x, base) = ln x / ln base. (log_base, not a template `if base is None`: the `if` could not
# be decided when base is a variable rather than a constant.)
@adjoint(math.log)
def log(y, x, base=None):
    d[x] = d[y] / (x * log_base(base))
    d[base] = -d[y] * y / (base * log_base(base))


@tangent(math.log)
def log(y, x, base=None):
    d[y] = (d[x] / x - d[base] * y / base) / log_base(base)


@diagonal(math.log1p)
def log1p(y, x):
    d[y] = d[x] / (1.0 + x)


@diagonal(math.log2)
def log2(y, x):
    d[y] = d[x] / (x * 0.6931471805599453)


@diagonal(math.log10)
def log10(y, x):
    d[y] = d[x] / (x * 2.302585092994046)


# --- powers and roots ----------------------------------------------------------------------------

@diagonal(math.sqrt)
def sqrt(y, x):
    d[y] = safe_div(d[x], 2.0 * y)


@diagonal(math.cbrt)
def cbrt(y, x):
    d[y] = safe_div(d[x], 3.0 * y * y)


# pow(x, y) = x ** y. d/dx = y x^(y-1): 0 (not 0 * inf) at y == 0, inf at x == 0 < y < 1 (through
# np.power: math.pow refuses 0 ** negative). d/dy = z log x, taken as 0 where x <= 0 (x ** y has
# no real slope in y there, or the slope 0 of 0 ** y)
@adjoint(math.pow)
def pow(z, x, y):
    d[x] = safe_mul(d[z], safe_mul(y, np.power(x, y - 1.0)))
    d[y] = d[z] * z * np.log(np.where(x > 0, x, 1.0))


@tangent(math.pow)
def pow(z, x, y):
    d[z] = (safe_mul(d[x], safe_mul(y, np.power(x, y - 1.0)))
            + d[y] * z * np.log(np.where(x > 0, x, 1.0)))


# ldexp(x, i) = x * 2**i, linear in x (i is an int)
@linear(math.ldexp)
def ldexp(y, x, i):
    d[x] = math.ldexp(d[y], i)


# --- sign, magnitude, remainders -----------------------------------------------------------------
# |x|: the subgradient 0 is taken at the kink x == 0 (math.copysign would give +-1)

@diagonal(math.fabs)
def fabs(y, x):
    d[y] = d[x] * (float(x > 0) - float(x < 0))


# copysign(x, y) = |x| with the sign of y: slope sign(x) * (+-1) in x, none in y
@adjoint(math.copysign)
def copysign(z, x, y):
    d[x] = d[z] * (float(x > 0) - float(x < 0)) * math.copysign(1.0, y)


@tangent(math.copysign)
def copysign(z, x, y):
    d[z] = d[x] * (float(x > 0) - float(x < 0)) * math.copysign(1.0, y)


# fmod(x, y) = x - n y and remainder(x, y) = x - m y, with integers n = trunc(x / y) and
# m = round-half-even(x / y) constant between their jumps; recovered as round((x - z) / y)
@adjoint(math.fmod)
def fmod(z, x, y):
    d[x] = d[z]
    d[y] = -d[z] * np.round((x - z) / y)


@tangent(math.fmod)
def fmod(z, x, y):
    d[z] = d[x] - d[y] * np.round((x - z) / y)


@adjoint(math.remainder)
def remainder(z, x, y):
    d[x] = d[z]
    d[y] = -d[z] * np.round((x - z) / y)


@tangent(math.remainder)
def remainder(z, x, y):
    d[z] = d[x] - d[y] * np.round((x - z) / y)


# --- special functions ---------------------------------------------------------------------------

@diagonal(math.erf)
def erf(y, x):
    d[y] = d[x] * 1.1283791670955126 * math.exp(-x * x)


@diagonal(math.erfc)
def erfc(y, x):
    d[y] = -d[x] * 1.1283791670955126 * math.exp(-x * x)


# gamma' = gamma * digamma; lgamma = log|gamma|, so lgamma' = digamma on both sides of 0
@diagonal(math.gamma)
def gamma(y, x):
    d[y] = d[x] * y * polygamma_n(0, x)


@diagonal(math.lgamma)
def lgamma(y, x):
    d[y] = d[x] * polygamma_n(0, x)


non_differentiable(math.floor, math.ceil, math.trunc, math.isfinite, math.isnan, math.isinf,
                   math.isclose, math.ulp)
# functions of integers: an integer result, no derivative (k! in a series' terms; their
# arguments reach a second-order derivative through its tape, whatever they are)
non_differentiable(math.factorial, math.comb, math.perm, math.gcd, math.lcm, math.isqrt)


# fsum(items): a sum (correctly rounded); every item gets d[y], as for sum(items)
@adjoint(math.fsum)
def fsum(y, iterable):
    d[iterable] = unsum(d[y], iterable)


@tangent(math.fsum)
def fsum_tangent(y, iterable):
    d[y] = math.fsum(d[iterable])
