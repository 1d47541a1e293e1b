"""scipy.stats multivariate distributions. Registered only when scipy imports.

multivariate_normal.logpdf(x, mean, cov): in x, mean and cov, with cov given as scipy takes it
(a number times the identity, the diagonal, or the matrix, of which scipy reads only the lower
triangle: a derivative in an entry above the diagonal is 0, and for a symmetric direction this
agrees with the symmetric gradient). cov must be nonsingular (the derivative uses its inverse).
dirichlet.logpdf(x, alpha) in x and alpha, x with all k components on its first axis.
"""
import numpy as np

from srcad.rules.registry import d
from srcad.runtime import helper

from .scipy_stats import adjoint_of, tangent_of

try:
    import scipy.special
    import scipy.stats
except ImportError:  # pragma: no cover - without scipy nothing here is registered
    scipy = None


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
