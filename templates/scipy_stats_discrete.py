"""scipy.stats discrete distributions: logpmf and pmf of poisson and binom, in the rate mu and
the probability p (the counts k and n and loc are integers: a pmf is zero between them, so
they carry no derivative). Registered only when scipy imports. (np.subtract: k and n may be
lists, as scipy takes them.)
"""
import numpy as np

from srcad.rules.registry import d

from .scipy_stats import adjoint_of, tangent_of


# ---------------------------------------------------------------------------------------------
# poisson(mu): logpmf = j log mu - mu - log j! with j = k - loc;  binom(n, p): logpmf =
# log C(n, j) + j log p + (n - j) log(1 - p). k, n and loc are integers: no derivative.

@adjoint_of("poisson", "logpmf")
def poisson_logpmf(y, k, mu, loc=0):
    d[mu] = d[y] * (np.subtract(k, loc) / mu - 1.0)


@tangent_of("poisson", "logpmf")
def poisson_logpmf(y, k, mu, loc=0):
    d[y] = d[mu] * (np.subtract(k, loc) / mu - 1.0)


@adjoint_of("poisson", "pmf")
def poisson_pmf(y, k, mu, loc=0):
    d[mu] = d[y] * y * (np.subtract(k, loc) / mu - 1.0)


@tangent_of("poisson", "pmf")
def poisson_pmf(y, k, mu, loc=0):
    d[y] = d[mu] * y * (np.subtract(k, loc) / mu - 1.0)


@adjoint_of("binom", "logpmf")
def binom_logpmf(y, k, n, p, loc=0):
    d[p] = d[y] * (np.subtract(k, loc) / p - (np.subtract(n, k) + loc) / (1.0 - p))


@tangent_of("binom", "logpmf")
def binom_logpmf(y, k, n, p, loc=0):
    d[y] = d[p] * (np.subtract(k, loc) / p - (np.subtract(n, k) + loc) / (1.0 - p))


@adjoint_of("binom", "pmf")
def binom_pmf(y, k, n, p, loc=0):
    d[p] = d[y] * y * (np.subtract(k, loc) / p - (np.subtract(n, k) + loc) / (1.0 - p))


@tangent_of("binom", "pmf")
def binom_pmf(y, k, n, p, loc=0):
    d[y] = d[p] * y * (np.subtract(k, loc) / p - (np.subtract(n, k) + loc) / (1.0 - p))
