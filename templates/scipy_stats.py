"""scipy.stats distributions: their log-densities, densities and distribution functions (this
module: norm, t, gamma, beta and lognorm, and what the others share; scipy_stats_families.py:
expon, laplace, cauchy, logistic and uniform; scipy_stats_discrete.py: poisson and binom;
scipy_stats_multivariate.py: multivariate_normal and dirichlet). Registered only when scipy
imports: srcad itself does not need scipy.

Each template belongs to one distribution's method: scipy.stats.norm.logpdf is a bound method of
the instance scipy.stats.norm (srcad keys it by that instance and the method), so norm.logpdf and
t.logpdf have templates of their own although scipy shares the code. The parameters are the
method's as scipy binds them, the shape parameters then loc=0 and scale=1:
norm.logpdf(x, mu, 2.0), norm.logpdf(x, loc=mu) and t.logpdf(x, df=3.0, scale=s) all bind. Every
argument that can be an array is differentiable and broadcasts (broadcasts=True: a scalar loc's
adjoint is summed over x's entries).

The math. The continuous distributions here are location-scale families: with z = (x - loc) /
scale, logpdf(x) = l(z) - log(scale) for the standard log-density l, so

    d/dx = l'(z) / scale,   d/dloc = -l'(z) / scale,   d/dscale = -(1 + z l'(z)) / scale,

and a shape parameter's derivative is that of l at fixed z. pdf = e^logpdf: the same times y.
For the distribution function F(z): dF/dx = pdf(x), dF/dloc = -pdf(x), dF/dscale = -z pdf(x);
sf = 1 - F flips the signs, and logcdf (logsf) divides by cdf (sf): exp(logpdf - y), which stays
finite far in the tails where pdf and cdf both underflow (y is scipy's log_ndtr there). For norm
and lognorm, whose logpdf grows like z^2 / 2, that quotient is sqrt(2 / pi) / erfcx(-z / sqrt(2))
(sf: erfcx(z / sqrt(2))) instead: exp(logpdf - y) takes the rounding of two numbers of size
z^2 / 2 into its exponent (at z = -1e6 its relative error was 1e-4, at -1e7 0.7 %). The
templates call the distribution's own logpdf for it, which srcad differentiates again (Hessians).

t, gamma and beta: cdf and sf are differentiated in x, loc and scale; their derivative in the
shape parameter (of an incomplete beta or gamma function in it) has no closed form, and a
gradient that needs it stops with a ValueError that says so.

Derivatives are those inside the support; where logpdf is -inf they are not defined (NaN or
0). rvs, fit, ppf, entropy and the other methods have no template: a call whose arguments carry
derivatives is refused (a random draw from constants is a constant).
"""
import numpy as np

from srcad.rules.registry import adjoint, d, tangent
from srcad.runtime import helper

try:
    import scipy.special
    import scipy.stats
except ImportError:  # pragma: no cover - without scipy nothing here is registered
    scipy = None


def _unregistered(func):
    return func


def adjoint_of(dist, method, broadcasts=True):
    """@adjoint(scipy.stats.<dist>.<method>), or nothing when scipy is missing."""
    if scipy is None:
        return _unregistered
    return adjoint(getattr(getattr(scipy.stats, dist), method), broadcasts=broadcasts)


def tangent_of(dist, method, broadcasts=True):
    """@tangent(scipy.stats.<dist>.<method>), or nothing when scipy is missing."""
    if scipy is None:
        return _unregistered
    return tangent(getattr(getattr(scipy.stats, dist), method), broadcasts=broadcasts)


@helper(tangent="linear")
def no_shape_derivative(g, method, parameter):
    """Raised where a gradient needs the derivative of method in a shape parameter that has
    none in closed form (reached only when that parameter carries a derivative)."""
    raise ValueError(f"srcad differentiates scipy.stats.{method} in x, loc and scale, not in the "
                     f"shape parameter {parameter} (no closed form): pass {parameter} as a "
                     f"constant, or register your own template with "
                     f"@srcad.adjoint(scipy.stats.{method})")


@adjoint(no_shape_derivative)  # (it raises: so does its adjoint, in a gradient of a gradient)
def no_shape_derivative_adjoint(z, g, method, parameter):
    d[g] = no_shape_derivative(d[z], method, parameter)


# ---------------------------------------------------------------------------------------------
# norm: l(z) = -z^2 / 2 - log(2 pi) / 2, l'(z) = -z

@adjoint_of("norm", "logpdf")
def norm_logpdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    d[x] = -d[y] * z / scale
    d[loc] = d[y] * z / scale
    d[scale] = d[y] * (z * z - 1.0) / scale


@tangent_of("norm", "logpdf")
def norm_logpdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    d[y] = ((d[loc] - d[x]) * z + d[scale] * (z * z - 1.0)) / scale


@adjoint_of("norm", "pdf")
def norm_pdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    d[x] = -d[y] * y * z / scale
    d[loc] = d[y] * y * z / scale
    d[scale] = d[y] * y * (z * z - 1.0) / scale


@tangent_of("norm", "pdf")
def norm_pdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    d[y] = y * ((d[loc] - d[x]) * z + d[scale] * (z * z - 1.0)) / scale


@adjoint_of("norm", "cdf")
def norm_cdf(y, x, loc=0, scale=1):
    p = scipy.stats.norm.pdf(x, loc, scale)
    d[x] = d[y] * p
    d[loc] = -d[y] * p
    d[scale] = -d[y] * p * (x - loc) / scale


@tangent_of("norm", "cdf")
def norm_cdf(y, x, loc=0, scale=1):
    d[y] = scipy.stats.norm.pdf(x, loc, scale) * (d[x] - d[loc] - d[scale] * (x - loc) / scale)


@adjoint_of("norm", "logcdf")
def norm_logcdf(y, x, loc=0, scale=1):
    r = 0.7978845608028654 / (scipy.special.erfcx(-(x - loc) / scale * 0.7071067811865476)
                              * scale)
    d[x] = d[y] * r
    d[loc] = -d[y] * r
    d[scale] = -d[y] * r * (x - loc) / scale


@tangent_of("norm", "logcdf")
def norm_logcdf(y, x, loc=0, scale=1):
    d[y] = 0.7978845608028654 / (scipy.special.erfcx(
        -(x - loc) / scale * 0.7071067811865476) * scale) * (
        d[x] - d[loc] - d[scale] * (x - loc) / scale)


@adjoint_of("norm", "sf")
def norm_sf(y, x, loc=0, scale=1):
    p = scipy.stats.norm.pdf(x, loc, scale)
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale


@tangent_of("norm", "sf")
def norm_sf(y, x, loc=0, scale=1):
    d[y] = scipy.stats.norm.pdf(x, loc, scale) * (d[loc] - d[x] + d[scale] * (x - loc) / scale)


@adjoint_of("norm", "logsf")
def norm_logsf(y, x, loc=0, scale=1):
    r = 0.7978845608028654 / (scipy.special.erfcx((x - loc) / scale * 0.7071067811865476)
                              * scale)
    d[x] = -d[y] * r
    d[loc] = d[y] * r
    d[scale] = d[y] * r * (x - loc) / scale


@tangent_of("norm", "logsf")
def norm_logsf(y, x, loc=0, scale=1):
    d[y] = 0.7978845608028654 / (scipy.special.erfcx(
        (x - loc) / scale * 0.7071067811865476) * scale) * (
        d[loc] - d[x] + d[scale] * (x - loc) / scale)


# ---------------------------------------------------------------------------------------------
# t(df): l(z) = log G((df + 1) / 2) - log G(df / 2) - log(df pi) / 2
#               - (df + 1) / 2 log(1 + z^2 / df)
#   l'(z) = -(df + 1) z / (df + z^2)
#   dl/ddf = (psi((df + 1) / 2) - psi(df / 2) - 1 / df - log(1 + z^2 / df)
#             + (df + 1) z^2 / (df (df + z^2))) / 2

@adjoint_of("t", "logpdf")
def t_logpdf(y, x, df, loc=0, scale=1):
    z = (x - loc) / scale
    w = (df + 1.0) * z / (df + z * z)
    d[x] = -d[y] * w / scale
    d[loc] = d[y] * w / scale
    d[scale] = d[y] * (z * w - 1.0) / scale
    d[df] = d[y] * 0.5 * (scipy.special.digamma(0.5 * (df + 1.0)) - scipy.special.digamma(
        0.5 * df) - 1.0 / df - np.log1p(z * z / df) + z * w / df)


@tangent_of("t", "logpdf")
def t_logpdf(y, x, df, loc=0, scale=1):
    z = (x - loc) / scale
    w = (df + 1.0) * z / (df + z * z)
    d[y] = ((d[loc] - d[x]) * w + d[scale] * (z * w - 1.0)) / scale + d[df] * 0.5 * (
        scipy.special.digamma(0.5 * (df + 1.0)) - scipy.special.digamma(0.5 * df) - 1.0 / df
        - np.log1p(z * z / df) + z * w / df)


@adjoint_of("t", "pdf")
def t_pdf(y, x, df, loc=0, scale=1):
    z = (x - loc) / scale
    w = (df + 1.0) * z / (df + z * z)
    d[x] = -d[y] * y * w / scale
    d[loc] = d[y] * y * w / scale
    d[scale] = d[y] * y * (z * w - 1.0) / scale
    d[df] = d[y] * y * 0.5 * (scipy.special.digamma(0.5 * (df + 1.0)) - scipy.special.digamma(
        0.5 * df) - 1.0 / df - np.log1p(z * z / df) + z * w / df)


@tangent_of("t", "pdf")
def t_pdf(y, x, df, loc=0, scale=1):
    z = (x - loc) / scale
    w = (df + 1.0) * z / (df + z * z)
    d[y] = y * (((d[loc] - d[x]) * w + d[scale] * (z * w - 1.0)) / scale + d[df] * 0.5 * (
        scipy.special.digamma(0.5 * (df + 1.0)) - scipy.special.digamma(0.5 * df) - 1.0 / df
        - np.log1p(z * z / df) + z * w / df))


@adjoint_of("t", "cdf")
def t_cdf(y, x, df, loc=0, scale=1):
    p = scipy.stats.t.pdf(x, df, loc, scale)
    d[x] = d[y] * p
    d[loc] = -d[y] * p
    d[scale] = -d[y] * p * (x - loc) / scale
    d[df] = no_shape_derivative(d[y], "t.cdf", "df")


@tangent_of("t", "cdf")
def t_cdf(y, x, df, loc=0, scale=1):
    d[y] = scipy.stats.t.pdf(x, df, loc, scale) * (d[x] - d[loc] - d[scale] * (x - loc) / scale
                                                  ) + no_shape_derivative(d[df], "t.cdf", "df")


@adjoint_of("t", "sf")
def t_sf(y, x, df, loc=0, scale=1):
    p = scipy.stats.t.pdf(x, df, loc, scale)
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale
    d[df] = no_shape_derivative(d[y], "t.sf", "df")


@tangent_of("t", "sf")
def t_sf(y, x, df, loc=0, scale=1):
    d[y] = scipy.stats.t.pdf(x, df, loc, scale) * (d[loc] - d[x] + d[scale] * (x - loc) / scale
                                                  ) + no_shape_derivative(d[df], "t.sf", "df")


# ---------------------------------------------------------------------------------------------
# gamma(a), z > 0: l(z) = (a - 1) log z - z - log G(a), l'(z) = (a - 1) / z - 1,
#   -(1 + z l'(z)) = z - a, dl/da = log z - psi(a)

@adjoint_of("gamma", "logpdf")
def gamma_logpdf(y, x, a, loc=0, scale=1):
    z = (x - loc) / scale
    w = (a - 1.0) / z - 1.0
    d[x] = d[y] * w / scale
    d[loc] = -d[y] * w / scale
    d[scale] = d[y] * (z - a) / scale
    d[a] = d[y] * (np.log(z) - scipy.special.digamma(a))


@tangent_of("gamma", "logpdf")
def gamma_logpdf(y, x, a, loc=0, scale=1):
    z = (x - loc) / scale
    d[y] = ((d[x] - d[loc]) * ((a - 1.0) / z - 1.0) + d[scale] * (z - a)) / scale + d[a] * (
        np.log(z) - scipy.special.digamma(a))


@adjoint_of("gamma", "pdf")
def gamma_pdf(y, x, a, loc=0, scale=1):
    z = (x - loc) / scale
    w = (a - 1.0) / z - 1.0
    d[x] = d[y] * y * w / scale
    d[loc] = -d[y] * y * w / scale
    d[scale] = d[y] * y * (z - a) / scale
    d[a] = d[y] * y * (np.log(z) - scipy.special.digamma(a))


@tangent_of("gamma", "pdf")
def gamma_pdf(y, x, a, loc=0, scale=1):
    z = (x - loc) / scale
    d[y] = y * (((d[x] - d[loc]) * ((a - 1.0) / z - 1.0) + d[scale] * (z - a)) / scale + d[a] * (
        np.log(z) - scipy.special.digamma(a)))


@adjoint_of("gamma", "cdf")
def gamma_cdf(y, x, a, loc=0, scale=1):
    p = scipy.stats.gamma.pdf(x, a, loc, scale)
    d[x] = d[y] * p
    d[loc] = -d[y] * p
    d[scale] = -d[y] * p * (x - loc) / scale
    d[a] = no_shape_derivative(d[y], "gamma.cdf", "a")


@tangent_of("gamma", "cdf")
def gamma_cdf(y, x, a, loc=0, scale=1):
    d[y] = scipy.stats.gamma.pdf(x, a, loc, scale) * (
        d[x] - d[loc] - d[scale] * (x - loc) / scale) + no_shape_derivative(d[a], "gamma.cdf", "a")


@adjoint_of("gamma", "sf")
def gamma_sf(y, x, a, loc=0, scale=1):
    p = scipy.stats.gamma.pdf(x, a, loc, scale)
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale
    d[a] = no_shape_derivative(d[y], "gamma.sf", "a")


@tangent_of("gamma", "sf")
def gamma_sf(y, x, a, loc=0, scale=1):
    d[y] = scipy.stats.gamma.pdf(x, a, loc, scale) * (
        d[loc] - d[x] + d[scale] * (x - loc) / scale) + no_shape_derivative(d[a], "gamma.sf", "a")


# ---------------------------------------------------------------------------------------------
# beta(a, b), 0 < z < 1: l(z) = (a - 1) log z + (b - 1) log(1 - z) - log B(a, b),
#   l'(z) = (a - 1) / z - (b - 1) / (1 - z),
#   dl/da = log z - psi(a) + psi(a + b), dl/db = log(1 - z) - psi(b) + psi(a + b)

@adjoint_of("beta", "logpdf")
def beta_logpdf(y, x, a, b, loc=0, scale=1):
    z = (x - loc) / scale
    w = (a - 1.0) / z - (b - 1.0) / (1.0 - z)
    d[x] = d[y] * w / scale
    d[loc] = -d[y] * w / scale
    d[scale] = -d[y] * (1.0 + z * w) / scale
    d[a] = d[y] * (np.log(z) - scipy.special.digamma(a) + scipy.special.digamma(a + b))
    d[b] = d[y] * (np.log1p(-z) - scipy.special.digamma(b) + scipy.special.digamma(a + b))


@tangent_of("beta", "logpdf")
def beta_logpdf(y, x, a, b, loc=0, scale=1):
    z = (x - loc) / scale
    w = (a - 1.0) / z - (b - 1.0) / (1.0 - z)
    d[y] = ((d[x] - d[loc]) * w - d[scale] * (1.0 + z * w)) / scale + d[a] * (
        np.log(z) - scipy.special.digamma(a) + scipy.special.digamma(a + b)) + d[b] * (
        np.log1p(-z) - scipy.special.digamma(b) + scipy.special.digamma(a + b))


@adjoint_of("beta", "pdf")
def beta_pdf(y, x, a, b, loc=0, scale=1):
    z = (x - loc) / scale
    w = (a - 1.0) / z - (b - 1.0) / (1.0 - z)
    d[x] = d[y] * y * w / scale
    d[loc] = -d[y] * y * w / scale
    d[scale] = -d[y] * y * (1.0 + z * w) / scale
    d[a] = d[y] * y * (np.log(z) - scipy.special.digamma(a) + scipy.special.digamma(a + b))
    d[b] = d[y] * y * (np.log1p(-z) - scipy.special.digamma(b) + scipy.special.digamma(a + b))


@tangent_of("beta", "pdf")
def beta_pdf(y, x, a, b, loc=0, scale=1):
    z = (x - loc) / scale
    w = (a - 1.0) / z - (b - 1.0) / (1.0 - z)
    d[y] = y * (((d[x] - d[loc]) * w - d[scale] * (1.0 + z * w)) / scale + d[a] * (
        np.log(z) - scipy.special.digamma(a) + scipy.special.digamma(a + b)) + d[b] * (
        np.log1p(-z) - scipy.special.digamma(b) + scipy.special.digamma(a + b)))


@adjoint_of("beta", "cdf")
def beta_cdf(y, x, a, b, loc=0, scale=1):
    p = scipy.stats.beta.pdf(x, a, b, loc, scale)
    d[x] = d[y] * p
    d[loc] = -d[y] * p
    d[scale] = -d[y] * p * (x - loc) / scale
    d[a] = no_shape_derivative(d[y], "beta.cdf", "a")
    d[b] = no_shape_derivative(d[y], "beta.cdf", "b")


@tangent_of("beta", "cdf")
def beta_cdf(y, x, a, b, loc=0, scale=1):
    d[y] = scipy.stats.beta.pdf(x, a, b, loc, scale) * (
        d[x] - d[loc] - d[scale] * (x - loc) / scale) + no_shape_derivative(
        d[a], "beta.cdf", "a") + no_shape_derivative(d[b], "beta.cdf", "b")


@adjoint_of("beta", "sf")
def beta_sf(y, x, a, b, loc=0, scale=1):
    p = scipy.stats.beta.pdf(x, a, b, loc, scale)
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale
    d[a] = no_shape_derivative(d[y], "beta.sf", "a")
    d[b] = no_shape_derivative(d[y], "beta.sf", "b")


@tangent_of("beta", "sf")
def beta_sf(y, x, a, b, loc=0, scale=1):
    d[y] = scipy.stats.beta.pdf(x, a, b, loc, scale) * (
        d[loc] - d[x] + d[scale] * (x - loc) / scale) + no_shape_derivative(
        d[a], "beta.sf", "a") + no_shape_derivative(d[b], "beta.sf", "b")


# ---------------------------------------------------------------------------------------------
# lognorm(s), z > 0, u = log(z) / s: l(z) = -log(s z sqrt(2 pi)) - u^2 / 2,
#   l'(z) = -(1 + u / s) / z, -(1 + z l'(z)) = u / s, dl/ds = (u^2 - 1) / s;
#   cdf = Phi(u): dcdf/ds = -phi(u) u / s = -pdf(x) u z scale

@adjoint_of("lognorm", "logpdf")
def lognorm_logpdf(y, x, s, loc=0, scale=1):
    z = (x - loc) / scale
    u = np.log(z) / s
    d[x] = -d[y] * (1.0 + u / s) / (z * scale)
    d[loc] = d[y] * (1.0 + u / s) / (z * scale)
    d[scale] = d[y] * u / (s * scale)
    d[s] = d[y] * (u * u - 1.0) / s


@tangent_of("lognorm", "logpdf")
def lognorm_logpdf(y, x, s, loc=0, scale=1):
    z = (x - loc) / scale
    u = np.log(z) / s
    d[y] = ((d[loc] - d[x]) * (1.0 + u / s) / z + d[scale] * u / s) / scale + d[s] * (
        u * u - 1.0) / s


@adjoint_of("lognorm", "pdf")
def lognorm_pdf(y, x, s, loc=0, scale=1):
    z = (x - loc) / scale
    u = np.log(z) / s
    d[x] = -d[y] * y * (1.0 + u / s) / (z * scale)
    d[loc] = d[y] * y * (1.0 + u / s) / (z * scale)
    d[scale] = d[y] * y * u / (s * scale)
    d[s] = d[y] * y * (u * u - 1.0) / s


@tangent_of("lognorm", "pdf")
def lognorm_pdf(y, x, s, loc=0, scale=1):
    z = (x - loc) / scale
    u = np.log(z) / s
    d[y] = y * (((d[loc] - d[x]) * (1.0 + u / s) / z + d[scale] * u / s) / scale + d[s] * (
        u * u - 1.0) / s)


@adjoint_of("lognorm", "cdf")
def lognorm_cdf(y, x, s, loc=0, scale=1):
    p = scipy.stats.lognorm.pdf(x, s, loc, scale)
    d[x] = d[y] * p
    d[loc] = -d[y] * p
    d[scale] = -d[y] * p * (x - loc) / scale
    d[s] = -d[y] * p * (x - loc) * np.log((x - loc) / scale) / s


@tangent_of("lognorm", "cdf")
def lognorm_cdf(y, x, s, loc=0, scale=1):
    d[y] = scipy.stats.lognorm.pdf(x, s, loc, scale) * (
        d[x] - d[loc] - d[scale] * (x - loc) / scale
        - d[s] * (x - loc) * np.log((x - loc) / scale) / s)


@adjoint_of("lognorm", "logcdf")
def lognorm_logcdf(y, x, s, loc=0, scale=1):
    p = 0.7978845608028654 / (scipy.special.erfcx(
        -np.log((x - loc) / scale) / s * 0.7071067811865476) * s * (x - loc))
    d[x] = d[y] * p
    d[loc] = -d[y] * p
    d[scale] = -d[y] * p * (x - loc) / scale
    d[s] = -d[y] * p * (x - loc) * np.log((x - loc) / scale) / s


@tangent_of("lognorm", "logcdf")
def lognorm_logcdf(y, x, s, loc=0, scale=1):
    d[y] = 0.7978845608028654 / (scipy.special.erfcx(
        -np.log((x - loc) / scale) / s * 0.7071067811865476) * s * (x - loc)) * (
        d[x] - d[loc] - d[scale] * (x - loc) / scale
        - d[s] * (x - loc) * np.log((x - loc) / scale) / s)


@adjoint_of("lognorm", "sf")
def lognorm_sf(y, x, s, loc=0, scale=1):
    p = scipy.stats.lognorm.pdf(x, s, loc, scale)
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale
    d[s] = d[y] * p * (x - loc) * np.log((x - loc) / scale) / s


@tangent_of("lognorm", "sf")
def lognorm_sf(y, x, s, loc=0, scale=1):
    d[y] = scipy.stats.lognorm.pdf(x, s, loc, scale) * (
        d[loc] - d[x] + d[scale] * (x - loc) / scale
        + d[s] * (x - loc) * np.log((x - loc) / scale) / s)


@adjoint_of("lognorm", "logsf")
def lognorm_logsf(y, x, s, loc=0, scale=1):
    p = 0.7978845608028654 / (scipy.special.erfcx(
        np.log((x - loc) / scale) / s * 0.7071067811865476) * s * (x - loc))
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale
    d[s] = d[y] * p * (x - loc) * np.log((x - loc) / scale) / s


@tangent_of("lognorm", "logsf")
def lognorm_logsf(y, x, s, loc=0, scale=1):
    d[y] = 0.7978845608028654 / (scipy.special.erfcx(
        np.log((x - loc) / scale) / s * 0.7071067811865476) * s * (x - loc)) * (
        d[loc] - d[x] + d[scale] * (x - loc) / scale
        + d[s] * (x - loc) * np.log((x - loc) / scale) / s)
