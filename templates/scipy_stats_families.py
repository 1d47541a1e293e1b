"""scipy.stats location-scale families without shape parameters: logpdf, pdf, cdf, logcdf,
sf and logsf of expon, laplace, cauchy, logistic and uniform, in x, loc and scale (the math
and the conventions are in scipy_stats.py). Registered only when scipy imports.
"""
import numpy as np

from srcad.rules.registry import d

from .scipy_stats import adjoint_of, tangent_of

try:
    import scipy.special
    import scipy.stats
except ImportError:  # pragma: no cover - without scipy nothing here is registered
    scipy = None


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
    p = np.where(x < loc, 0.0, 1.0 / scale)
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale


@tangent_of("expon", "logsf")
def expon_logsf(y, x, loc=0, scale=1):
    d[y] = (np.where(x < loc, 0.0, 1.0 / scale)) * (
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
    p = np.where(x < loc, 1.0, np.exp(-np.abs(x - loc) / scale) / (
        2.0 - np.exp(-np.abs(x - loc) / scale))) / scale
    d[x] = d[y] * p
    d[loc] = -d[y] * p
    d[scale] = -d[y] * p * (x - loc) / scale


@tangent_of("laplace", "logcdf")
def laplace_logcdf(y, x, loc=0, scale=1):
    d[y] = (np.where(x < loc, 1.0, np.exp(-np.abs(x - loc) / scale) / (
        2.0 - np.exp(-np.abs(x - loc) / scale))) / scale) * (
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
    p = np.where(x > loc, 1.0, np.exp(-np.abs(x - loc) / scale) / (
        2.0 - np.exp(-np.abs(x - loc) / scale))) / scale
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale


@tangent_of("laplace", "logsf")
def laplace_logsf(y, x, loc=0, scale=1):
    d[y] = (np.where(x > loc, 1.0, np.exp(-np.abs(x - loc) / scale) / (
        2.0 - np.exp(-np.abs(x - loc) / scale))) / scale) * (
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
    p = scipy.special.expit((loc - x) / scale) / scale
    d[x] = d[y] * p
    d[loc] = -d[y] * p
    d[scale] = -d[y] * p * (x - loc) / scale


@tangent_of("logistic", "logcdf")
def logistic_logcdf(y, x, loc=0, scale=1):
    d[y] = (scipy.special.expit((loc - x) / scale) / scale) * (
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
    p = scipy.special.expit((x - loc) / scale) / scale
    d[x] = -d[y] * p
    d[loc] = d[y] * p
    d[scale] = d[y] * p * (x - loc) / scale


@tangent_of("logistic", "logsf")
def logistic_logsf(y, x, loc=0, scale=1):
    d[y] = (scipy.special.expit((x - loc) / scale) / scale) * (
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
