"""scipy.stats distributions: their log-densities, densities and distribution functions.
Registered only when scipy imports: srcad itself does not need scipy.

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
finite far in the tails where pdf and cdf both underflow (y is scipy's log_ndtr there). The
templates call the distribution's own logpdf for it, which srcad differentiates again (Hessians).

t, gamma and beta: cdf and sf are differentiated in x, loc and scale; their derivative in the
shape parameter (of an incomplete beta or gamma function in it) has no closed form, and a
gradient that needs it stops with a ValueError that says so.

Discrete: poisson and binom's logpmf and pmf are differentiated in the rate mu and the
probability p; the count k, n and loc are integers (a pmf is zero between them): no derivative.

multivariate_normal.logpdf(x, mean, cov): in x, mean and cov, with cov given as scipy takes it
(a number times the identity, the diagonal, or the matrix, of which scipy reads only the lower
triangle: a derivative in an entry above the diagonal is 0, and for a symmetric direction this
agrees with the symmetric gradient). cov must be nonsingular (the derivative uses its inverse).
dirichlet.logpdf(x, alpha) in x and alpha, x with all k components on its first axis.

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
    r = np.exp(scipy.stats.norm.logpdf(x, loc, scale) - y)
    d[x] = d[y] * r
    d[loc] = -d[y] * r
    d[scale] = -d[y] * r * (x - loc) / scale


@tangent_of("norm", "logcdf")
def norm_logcdf(y, x, loc=0, scale=1):
    d[y] = np.exp(scipy.stats.norm.logpdf(x, loc, scale) - y) * (
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
    r = np.exp(scipy.stats.norm.logpdf(x, loc, scale) - y)
    d[x] = -d[y] * r
    d[loc] = d[y] * r
    d[scale] = d[y] * r * (x - loc) / scale


@tangent_of("norm", "logsf")
def norm_logsf(y, x, loc=0, scale=1):
    d[y] = np.exp(scipy.stats.norm.logpdf(x, loc, scale) - y) * (
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
# expon: z >= 0, l(z) = -z, l'(z) = -1, -(1 + z l'(z)) = z - 1

@adjoint_of("expon", "logpdf")
def expon_logpdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    d[x] = -d[y] / scale
    d[loc] = d[y] / scale
    d[scale] = d[y] * (z - 1.0) / scale


@tangent_of("expon", "logpdf")
def expon_logpdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    d[y] = (d[loc] - d[x] + d[scale] * (z - 1.0)) / scale


@adjoint_of("expon", "pdf")
def expon_pdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    d[x] = -d[y] * y / scale
    d[loc] = d[y] * y / scale
    d[scale] = d[y] * y * (z - 1.0) / scale


@tangent_of("expon", "pdf")
def expon_pdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    d[y] = y * ((d[loc] - d[x] + d[scale] * (z - 1.0)) / scale)


@adjoint_of("expon", "cdf")
def expon_cdf(y, x, loc=0, scale=1):
    p = scipy.stats.expon.pdf(x, loc, scale)
    d[x] = d[y] * p
    d[loc] = -d[y] * p
    d[scale] = -d[y] * p * (x - loc) / scale


@tangent_of("expon", "cdf")
def expon_cdf(y, x, loc=0, scale=1):
    d[y] = scipy.stats.expon.pdf(x, loc, scale) * (
        d[x] - d[loc] - d[scale] * (x - loc) / scale)


@adjoint_of("expon", "logcdf")
def expon_logcdf(y, x, loc=0, scale=1):
    p = np.exp(scipy.stats.expon.logpdf(x, loc, scale) - y)
    d[x] = d[y] * p
    d[loc] = -d[y] * p
    d[scale] = -d[y] * p * (x - loc) / scale


@tangent_of("expon", "logcdf")
def expon_logcdf(y, x, loc=0, scale=1):
    d[y] = np.exp(scipy.stats.expon.logpdf(x, loc, scale) - y) * (
        d[x] - d[loc] - d[scale] * (x - loc) / scale)


@adjoint_of("expon", "sf")
def expon_sf(y, x, loc=0, scale=1):
    p = scipy.stats.expon.pdf(x, loc, scale)
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale


@tangent_of("expon", "sf")
def expon_sf(y, x, loc=0, scale=1):
    d[y] = scipy.stats.expon.pdf(x, loc, scale) * (
        d[loc] - d[x] + d[scale] * (x - loc) / scale)


@adjoint_of("expon", "logsf")
def expon_logsf(y, x, loc=0, scale=1):
    p = np.exp(scipy.stats.expon.logpdf(x, loc, scale) - y)
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale


@tangent_of("expon", "logsf")
def expon_logsf(y, x, loc=0, scale=1):
    d[y] = np.exp(scipy.stats.expon.logpdf(x, loc, scale) - y) * (
        d[loc] - d[x] + d[scale] * (x - loc) / scale)



# ---------------------------------------------------------------------------------------------
# laplace: l(z) = -|z| - log 2, l'(z) = -sign(z), -(1 + z l'(z)) = |z| - 1

@adjoint_of("laplace", "logpdf")
def laplace_logpdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    d[x] = -d[y] * np.sign(z) / scale
    d[loc] = d[y] * np.sign(z) / scale
    d[scale] = d[y] * (np.abs(z) - 1.0) / scale


@tangent_of("laplace", "logpdf")
def laplace_logpdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    d[y] = ((d[loc] - d[x]) * np.sign(z) + d[scale] * (np.abs(z) - 1.0)) / scale


@adjoint_of("laplace", "pdf")
def laplace_pdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    d[x] = -d[y] * y * np.sign(z) / scale
    d[loc] = d[y] * y * np.sign(z) / scale
    d[scale] = d[y] * y * (np.abs(z) - 1.0) / scale


@tangent_of("laplace", "pdf")
def laplace_pdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    d[y] = y * (((d[loc] - d[x]) * np.sign(z) + d[scale] * (np.abs(z) - 1.0)) / scale)


@adjoint_of("laplace", "cdf")
def laplace_cdf(y, x, loc=0, scale=1):
    p = scipy.stats.laplace.pdf(x, loc, scale)
    d[x] = d[y] * p
    d[loc] = -d[y] * p
    d[scale] = -d[y] * p * (x - loc) / scale


@tangent_of("laplace", "cdf")
def laplace_cdf(y, x, loc=0, scale=1):
    d[y] = scipy.stats.laplace.pdf(x, loc, scale) * (
        d[x] - d[loc] - d[scale] * (x - loc) / scale)


@adjoint_of("laplace", "logcdf")
def laplace_logcdf(y, x, loc=0, scale=1):
    p = np.exp(scipy.stats.laplace.logpdf(x, loc, scale) - y)
    d[x] = d[y] * p
    d[loc] = -d[y] * p
    d[scale] = -d[y] * p * (x - loc) / scale


@tangent_of("laplace", "logcdf")
def laplace_logcdf(y, x, loc=0, scale=1):
    d[y] = np.exp(scipy.stats.laplace.logpdf(x, loc, scale) - y) * (
        d[x] - d[loc] - d[scale] * (x - loc) / scale)


@adjoint_of("laplace", "sf")
def laplace_sf(y, x, loc=0, scale=1):
    p = scipy.stats.laplace.pdf(x, loc, scale)
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale


@tangent_of("laplace", "sf")
def laplace_sf(y, x, loc=0, scale=1):
    d[y] = scipy.stats.laplace.pdf(x, loc, scale) * (
        d[loc] - d[x] + d[scale] * (x - loc) / scale)


@adjoint_of("laplace", "logsf")
def laplace_logsf(y, x, loc=0, scale=1):
    p = np.exp(scipy.stats.laplace.logpdf(x, loc, scale) - y)
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale


@tangent_of("laplace", "logsf")
def laplace_logsf(y, x, loc=0, scale=1):
    d[y] = np.exp(scipy.stats.laplace.logpdf(x, loc, scale) - y) * (
        d[loc] - d[x] + d[scale] * (x - loc) / scale)



# ---------------------------------------------------------------------------------------------
# cauchy: l(z) = -log(pi (1 + z^2)), l'(z) = -w with w = 2 z / (1 + z^2)

@adjoint_of("cauchy", "logpdf")
def cauchy_logpdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    w = 2.0 * z / (1.0 + z * z)
    d[x] = -d[y] * w / scale
    d[loc] = d[y] * w / scale
    d[scale] = d[y] * (z * w - 1.0) / scale


@tangent_of("cauchy", "logpdf")
def cauchy_logpdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    w = 2.0 * z / (1.0 + z * z)
    d[y] = ((d[loc] - d[x]) * w + d[scale] * (z * w - 1.0)) / scale


@adjoint_of("cauchy", "pdf")
def cauchy_pdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    w = 2.0 * z / (1.0 + z * z)
    d[x] = -d[y] * y * w / scale
    d[loc] = d[y] * y * w / scale
    d[scale] = d[y] * y * (z * w - 1.0) / scale


@tangent_of("cauchy", "pdf")
def cauchy_pdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    w = 2.0 * z / (1.0 + z * z)
    d[y] = y * (((d[loc] - d[x]) * w + d[scale] * (z * w - 1.0)) / scale)


@adjoint_of("cauchy", "cdf")
def cauchy_cdf(y, x, loc=0, scale=1):
    p = scipy.stats.cauchy.pdf(x, loc, scale)
    d[x] = d[y] * p
    d[loc] = -d[y] * p
    d[scale] = -d[y] * p * (x - loc) / scale


@tangent_of("cauchy", "cdf")
def cauchy_cdf(y, x, loc=0, scale=1):
    d[y] = scipy.stats.cauchy.pdf(x, loc, scale) * (
        d[x] - d[loc] - d[scale] * (x - loc) / scale)


@adjoint_of("cauchy", "logcdf")
def cauchy_logcdf(y, x, loc=0, scale=1):
    p = np.exp(scipy.stats.cauchy.logpdf(x, loc, scale) - y)
    d[x] = d[y] * p
    d[loc] = -d[y] * p
    d[scale] = -d[y] * p * (x - loc) / scale


@tangent_of("cauchy", "logcdf")
def cauchy_logcdf(y, x, loc=0, scale=1):
    d[y] = np.exp(scipy.stats.cauchy.logpdf(x, loc, scale) - y) * (
        d[x] - d[loc] - d[scale] * (x - loc) / scale)


@adjoint_of("cauchy", "sf")
def cauchy_sf(y, x, loc=0, scale=1):
    p = scipy.stats.cauchy.pdf(x, loc, scale)
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale


@tangent_of("cauchy", "sf")
def cauchy_sf(y, x, loc=0, scale=1):
    d[y] = scipy.stats.cauchy.pdf(x, loc, scale) * (
        d[loc] - d[x] + d[scale] * (x - loc) / scale)


@adjoint_of("cauchy", "logsf")
def cauchy_logsf(y, x, loc=0, scale=1):
    p = np.exp(scipy.stats.cauchy.logpdf(x, loc, scale) - y)
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale


@tangent_of("cauchy", "logsf")
def cauchy_logsf(y, x, loc=0, scale=1):
    d[y] = np.exp(scipy.stats.cauchy.logpdf(x, loc, scale) - y) * (
        d[loc] - d[x] + d[scale] * (x - loc) / scale)



# ---------------------------------------------------------------------------------------------
# logistic: l(z) = -z - 2 log(1 + e^-z), l'(z) = -w with w = tanh(z / 2)

@adjoint_of("logistic", "logpdf")
def logistic_logpdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    w = np.tanh(0.5 * z)
    d[x] = -d[y] * w / scale
    d[loc] = d[y] * w / scale
    d[scale] = d[y] * (z * w - 1.0) / scale


@tangent_of("logistic", "logpdf")
def logistic_logpdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    w = np.tanh(0.5 * z)
    d[y] = ((d[loc] - d[x]) * w + d[scale] * (z * w - 1.0)) / scale


@adjoint_of("logistic", "pdf")
def logistic_pdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    w = np.tanh(0.5 * z)
    d[x] = -d[y] * y * w / scale
    d[loc] = d[y] * y * w / scale
    d[scale] = d[y] * y * (z * w - 1.0) / scale


@tangent_of("logistic", "pdf")
def logistic_pdf(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    w = np.tanh(0.5 * z)
    d[y] = y * (((d[loc] - d[x]) * w + d[scale] * (z * w - 1.0)) / scale)


@adjoint_of("logistic", "cdf")
def logistic_cdf(y, x, loc=0, scale=1):
    p = scipy.stats.logistic.pdf(x, loc, scale)
    d[x] = d[y] * p
    d[loc] = -d[y] * p
    d[scale] = -d[y] * p * (x - loc) / scale


@tangent_of("logistic", "cdf")
def logistic_cdf(y, x, loc=0, scale=1):
    d[y] = scipy.stats.logistic.pdf(x, loc, scale) * (
        d[x] - d[loc] - d[scale] * (x - loc) / scale)


@adjoint_of("logistic", "logcdf")
def logistic_logcdf(y, x, loc=0, scale=1):
    p = np.exp(scipy.stats.logistic.logpdf(x, loc, scale) - y)
    d[x] = d[y] * p
    d[loc] = -d[y] * p
    d[scale] = -d[y] * p * (x - loc) / scale


@tangent_of("logistic", "logcdf")
def logistic_logcdf(y, x, loc=0, scale=1):
    d[y] = np.exp(scipy.stats.logistic.logpdf(x, loc, scale) - y) * (
        d[x] - d[loc] - d[scale] * (x - loc) / scale)


@adjoint_of("logistic", "sf")
def logistic_sf(y, x, loc=0, scale=1):
    p = scipy.stats.logistic.pdf(x, loc, scale)
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale


@tangent_of("logistic", "sf")
def logistic_sf(y, x, loc=0, scale=1):
    d[y] = scipy.stats.logistic.pdf(x, loc, scale) * (
        d[loc] - d[x] + d[scale] * (x - loc) / scale)


@adjoint_of("logistic", "logsf")
def logistic_logsf(y, x, loc=0, scale=1):
    p = np.exp(scipy.stats.logistic.logpdf(x, loc, scale) - y)
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale


@tangent_of("logistic", "logsf")
def logistic_logsf(y, x, loc=0, scale=1):
    d[y] = np.exp(scipy.stats.logistic.logpdf(x, loc, scale) - y) * (
        d[loc] - d[x] + d[scale] * (x - loc) / scale)



# ---------------------------------------------------------------------------------------------
# uniform: on [loc, loc + scale] logpdf = -log(scale): constant in x and loc

@adjoint_of("uniform", "logpdf")
def uniform_logpdf(y, x, loc=0, scale=1):
    d[scale] = -d[y] / scale


@tangent_of("uniform", "logpdf")
def uniform_logpdf(y, x, loc=0, scale=1):
    d[y] = -d[scale] / scale * np.ones_like(y)  # (y has the broadcast shape; d[scale] may not)


@adjoint_of("uniform", "pdf")
def uniform_pdf(y, x, loc=0, scale=1):
    d[scale] = -d[y] * y / scale


@tangent_of("uniform", "pdf")
def uniform_pdf(y, x, loc=0, scale=1):
    d[y] = y * (-d[scale] / scale)


@adjoint_of("uniform", "cdf")
def uniform_cdf(y, x, loc=0, scale=1):
    p = scipy.stats.uniform.pdf(x, loc, scale)
    d[x] = d[y] * p
    d[loc] = -d[y] * p
    d[scale] = -d[y] * p * (x - loc) / scale


@tangent_of("uniform", "cdf")
def uniform_cdf(y, x, loc=0, scale=1):
    d[y] = scipy.stats.uniform.pdf(x, loc, scale) * (
        d[x] - d[loc] - d[scale] * (x - loc) / scale)


@adjoint_of("uniform", "logcdf")
def uniform_logcdf(y, x, loc=0, scale=1):
    p = np.exp(scipy.stats.uniform.logpdf(x, loc, scale) - y)
    d[x] = d[y] * p
    d[loc] = -d[y] * p
    d[scale] = -d[y] * p * (x - loc) / scale


@tangent_of("uniform", "logcdf")
def uniform_logcdf(y, x, loc=0, scale=1):
    d[y] = np.exp(scipy.stats.uniform.logpdf(x, loc, scale) - y) * (
        d[x] - d[loc] - d[scale] * (x - loc) / scale)


@adjoint_of("uniform", "sf")
def uniform_sf(y, x, loc=0, scale=1):
    p = scipy.stats.uniform.pdf(x, loc, scale)
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale


@tangent_of("uniform", "sf")
def uniform_sf(y, x, loc=0, scale=1):
    d[y] = scipy.stats.uniform.pdf(x, loc, scale) * (
        d[loc] - d[x] + d[scale] * (x - loc) / scale)


@adjoint_of("uniform", "logsf")
def uniform_logsf(y, x, loc=0, scale=1):
    p = np.exp(scipy.stats.uniform.logpdf(x, loc, scale) - y)
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale


@tangent_of("uniform", "logsf")
def uniform_logsf(y, x, loc=0, scale=1):
    d[y] = np.exp(scipy.stats.uniform.logpdf(x, loc, scale) - y) * (
        d[loc] - d[x] + d[scale] * (x - loc) / scale)


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
    p = np.exp(scipy.stats.lognorm.logpdf(x, s, loc, scale) - y)
    d[x] = d[y] * p
    d[loc] = -d[y] * p
    d[scale] = -d[y] * p * (x - loc) / scale
    d[s] = -d[y] * p * (x - loc) * np.log((x - loc) / scale) / s


@tangent_of("lognorm", "logcdf")
def lognorm_logcdf(y, x, s, loc=0, scale=1):
    d[y] = np.exp(scipy.stats.lognorm.logpdf(x, s, loc, scale) - y) * (
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
    p = np.exp(scipy.stats.lognorm.logpdf(x, s, loc, scale) - y)
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale
    d[s] = d[y] * p * (x - loc) * np.log((x - loc) / scale) / s


@tangent_of("lognorm", "logsf")
def lognorm_logsf(y, x, s, loc=0, scale=1):
    d[y] = np.exp(scipy.stats.lognorm.logpdf(x, s, loc, scale) - y) * (
        d[loc] - d[x] + d[scale] * (x - loc) / scale
        + d[s] * (x - loc) * np.log((x - loc) / scale) / s)


# ---------------------------------------------------------------------------------------------
# poisson(mu): logpmf = j log mu - mu - log j! with j = k - loc;  binom(n, p): logpmf =
# log C(n, j) + j log p + (n - j) log(1 - p). k, n and loc are integers: no derivative.

@adjoint_of("poisson", "logpmf")
def poisson_logpmf(y, k, mu, loc=0):
    d[mu] = d[y] * ((k - loc) / mu - 1.0)


@tangent_of("poisson", "logpmf")
def poisson_logpmf(y, k, mu, loc=0):
    d[y] = d[mu] * ((k - loc) / mu - 1.0)


@adjoint_of("poisson", "pmf")
def poisson_pmf(y, k, mu, loc=0):
    d[mu] = d[y] * y * ((k - loc) / mu - 1.0)


@tangent_of("poisson", "pmf")
def poisson_pmf(y, k, mu, loc=0):
    d[y] = d[mu] * y * ((k - loc) / mu - 1.0)


@adjoint_of("binom", "logpmf")
def binom_logpmf(y, k, n, p, loc=0):
    d[p] = d[y] * ((k - loc) / p - (n - k + loc) / (1.0 - p))


@tangent_of("binom", "logpmf")
def binom_logpmf(y, k, n, p, loc=0):
    d[y] = d[p] * ((k - loc) / p - (n - k + loc) / (1.0 - p))


@adjoint_of("binom", "pmf")
def binom_pmf(y, k, n, p, loc=0):
    d[p] = d[y] * y * ((k - loc) / p - (n - k + loc) / (1.0 - p))


@tangent_of("binom", "pmf")
def binom_pmf(y, k, n, p, loc=0):
    d[y] = d[p] * y * ((k - loc) / p - (n - k + loc) / (1.0 - p))


# ---------------------------------------------------------------------------------------------
# multivariate_normal: for each point r = x - mean (rows of X, k components),
#   logpdf = -(k log(2 pi) + log det S + r' P r) / 2 with S the covariance and P = S^-1:
#   d/dx = -P r,  d/dmean = P r,  d/dS = (P r r' P - P) / 2
# and dlogpdf = -tr(P dS) / 2 - (P r)' dr + (P r)' dS (P r) / 2. W holds the rows (P r)'.

@helper(tangent="linear")
def mvn_covariance(cov, mean):
    """The k x k covariance matrix scipy.stats.multivariate_normal makes of `cov` (with
    `mean`): a number times the identity, a vector on the diagonal, a matrix of which scipy
    reads the lower triangle (its eigh does), mirrored. Linear in cov."""
    if mean is not None:
        k = np.size(mean)
    else:
        k = 1 if np.ndim(cov) < 2 else np.shape(cov)[0]
    if k == 1:
        return np.reshape(cov, (1, 1))
    if np.ndim(cov) == 0:
        return cov * np.eye(k)
    if np.ndim(cov) == 1:
        return np.diag(cov)
    return np.tril(cov) + np.transpose(np.tril(cov, -1))


@helper(tangent="linear")
def mvn_covariance_adjoint(g, cov):
    """The adjoint of mvn_covariance: g (k x k) back onto `cov` as scipy reads it."""
    if np.ndim(cov) == 0:
        return np.trace(g)
    if np.ndim(cov) == 1:
        return np.diagonal(g).copy()
    return np.tril(g + np.transpose(g)) - np.diag(np.diagonal(g))  # lower: g_ij + g_ji


@adjoint_of("multivariate_normal", "logpdf", broadcasts=False)
def multivariate_normal_logpdf(y, x, mean=None, cov=1, allow_singular=False):
    S = mvn_covariance(cov, mean)
    P = np.linalg.inv(S)
    if mean is None:
        W = np.reshape(x, (-1, np.shape(S)[0])) @ P
    else:
        W = (np.reshape(x, (-1, np.shape(S)[0])) - np.reshape(mean, (-1,))) @ P
    g = np.reshape(d[y], (-1, 1))
    gW = g * W
    d[x] = -np.reshape(gW, np.shape(x))
    d[mean] = np.reshape(np.sum(gW, axis=0), np.shape(mean))
    d[cov] = mvn_covariance_adjoint(0.5 * (np.transpose(W) @ gW - np.sum(g) * P), cov)


@tangent_of("multivariate_normal", "logpdf", broadcasts=False)
def multivariate_normal_logpdf(y, x, mean=None, cov=1, allow_singular=False):
    S = mvn_covariance(cov, mean)
    P = np.linalg.inv(S)
    if mean is None:
        W = np.reshape(x, (-1, np.shape(S)[0])) @ P
    else:
        W = (np.reshape(x, (-1, np.shape(S)[0])) - np.reshape(mean, (-1,))) @ P
    d[y] = np.reshape(
        0.5 * np.sum((W @ mvn_covariance(d[cov], mean)) * W, axis=1)
        - np.sum(W * (np.reshape(d[x], (-1, np.shape(S)[0])) - np.reshape(d[mean], (-1,))), axis=1)
        - 0.5 * np.sum(P * mvn_covariance(d[cov], mean)), np.shape(y))


# ---------------------------------------------------------------------------------------------
# dirichlet(alpha): logpdf = sum((alpha - 1) log x) - sum(log G(alpha)) + log G(sum(alpha)) over
# the k components (x's first axis): d/dx = (alpha - 1) / x,
# d/dalpha = log x - psi(alpha) + psi(sum(alpha)). X holds the points as columns.

@helper(tangent="linear")
def dirichlet_columns(x, alpha):
    """x as a k x m matrix of m points (scipy puts the components on the first axis). Refuses
    x with k - 1 components (scipy completes it; srcad does not differentiate that)."""
    if np.shape(x)[0] != np.size(alpha):
        raise ValueError(f"srcad differentiates scipy.stats.dirichlet.logpdf with x holding all "
                         f"{np.size(alpha)} components on its first axis, not {np.shape(x)[0]}")
    return np.reshape(x, (np.size(alpha), -1))


@adjoint_of("dirichlet", "logpdf", broadcasts=False)
def dirichlet_logpdf(y, x, alpha):
    X = dirichlet_columns(x, alpha)
    g = np.reshape(d[y], (-1,))
    d[x] = np.reshape(np.reshape(alpha - 1.0, (-1, 1)) / X * g, np.shape(x))
    d[alpha] = np.log(X) @ g + (scipy.special.digamma(np.sum(alpha)) - scipy.special.digamma(
        alpha)) * np.sum(g)


@tangent_of("dirichlet", "logpdf", broadcasts=False)
def dirichlet_logpdf(y, x, alpha):
    X = dirichlet_columns(x, alpha)
    d[y] = np.reshape(
        np.sum(np.reshape(alpha - 1.0, (-1, 1)) * dirichlet_columns(d[x], alpha) / X, axis=0)
        + d[alpha] @ np.log(X) + np.sum(d[alpha] * (scipy.special.digamma(np.sum(alpha))
                                                    - scipy.special.digamma(alpha))),
        np.shape(y))
