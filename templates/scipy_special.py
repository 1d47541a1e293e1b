"""scipy.special: expit, logit, erf, erfc, erfcx, gammaln, digamma (psi), polygamma, entr,
logsumexp, softmax, log_softmax. Registered only when scipy imports: srcad itself does not
need scipy.

Stability: logsumexp, softmax and log_softmax use the weights exp(a - logsumexp(a)) <= 1/b,
which never overflow; entries equal to -inf get weight exactly 0, computed without inf - inf
(a lane of only -inf entries has gradient 0). logsumexp's weights are computed from each lane's
maximum, exact for inputs of any size.
"""
import numpy as np

from srcad.rules.registry import adjoint, by_name, d, tangent
from srcad.runtime import helper, unreduce
from srcad.templates.numpy_elementwise import safe_div, safe_mul, slope_mul

try:
    import scipy.special
except ImportError:  # pragma: no cover - without scipy nothing here is registered
    scipy = None


adjoint_of = by_name(adjoint, scipy.special if scipy else None)
tangent_of = by_name(tangent, scipy.special if scipy else None)


@helper
def times_weights(w, b):
    """w * b, or w when b is None (logsumexp's weights b are optional)."""
    return w if b is None else w * b


@tangent(times_weights)
def times_weights_tangent(z, w, b):
    d[z] = times_weights(d[w], b) + d[b] * w


# y = expit(x) = 1 / (1 + e^-x):  dy = y (1 - y) dx, with 1 - y = expit(-x) (exact for large x)
@adjoint_of("expit")
def expit(y, x):
    d[x] = d[y] * y * scipy.special.expit(-x)


@tangent_of("expit")  # (its slope is 0 at an overflowed operand, whose tangent is inf)
def expit(y, x):
    d[y] = slope_mul(d[x], y * scipy.special.expit(-x))


# y = logit(x) = log(x / (1 - x)):  dy = dx / (x (1 - x)); (the adjoint's zero stays 0 over
# x = 0 or 1, where an untaken np.where branch may reach)
@adjoint_of("logit")
def logit(y, x):
    d[x] = safe_div(d[y], x * (1.0 - x))


@tangent_of("logit")
def logit(y, x):
    d[y] = d[x] / (x * (1.0 - x))


# d erf(x) = 2 / sqrt(pi) e^(-x^2) dx = -d erfc(x)
@adjoint_of("erf")
def erf(y, x):
    d[x] = d[y] * 1.1283791670955126 * np.exp(-x * x)


@tangent_of("erf")
def erf(y, x):
    d[y] = slope_mul(d[x], 1.1283791670955126 * np.exp(-x * x))


@adjoint_of("erfc")
def erfc(y, x):
    d[x] = -d[y] * 1.1283791670955126 * np.exp(-x * x)


@tangent_of("erfc")
def erfc(y, x):
    d[y] = -slope_mul(d[x], 1.1283791670955126 * np.exp(-x * x))


# erfcx(x) = e^(x^2) erfc(x):  d erfcx(x) = (2 x erfcx(x) - 2 / sqrt(pi)) dx
@adjoint_of("erfcx")
def erfcx(y, x):
    d[x] = d[y] * 2.0 * (x * y - 0.5641895835477563)


@tangent_of("erfcx")
def erfcx(y, x):
    d[y] = d[x] * 2.0 * (x * y - 0.5641895835477563)


# d log|Gamma(x)| = psi(x) dx,  d psi(x) = psi'(x) dx,  d psi^(n)(x) = psi^(n+1)(x) dx
@adjoint_of("gammaln")  # (digamma is inf or nan at 0 and the negative integers: safe_mul)
def gammaln(y, x):
    d[x] = safe_mul(d[y], scipy.special.digamma(x))


@tangent_of("gammaln")
def gammaln(y, x):
    d[y] = d[x] * scipy.special.digamma(x)


@adjoint_of("digamma")
def digamma(y, x):
    d[x] = safe_mul(d[y], scipy.special.polygamma(1, x))


@tangent_of("digamma")
def digamma(y, x):
    d[y] = d[x] * scipy.special.polygamma(1, x)


@adjoint_of("polygamma", broadcasts=True)
def polygamma(y, n, x):
    d[x] = safe_mul(d[y], scipy.special.polygamma(n + 1, x))


@tangent_of("polygamma")
def polygamma(y, n, x):
    d[y] = d[x] * scipy.special.polygamma(n + 1, x)


# entr(x) = -x log(x) (0 at x = 0, -inf below):  d entr(x) = -(log(x) + 1) dx, and 0 at x = 0,
# where the function's value is its own (as np.where(p > 0, -p * np.log(p), 0.0)'s derivative)
@adjoint_of("entr")
def entr(z, x):
    d[x] = -(d[z] * np.where(x != 0, np.log(np.where(x != 0, x, 1.0)) + 1.0, 0.0))


@tangent_of("entr")
def entr(z, x):
    d[z] = -(d[x] * np.where(x != 0, np.log(np.where(x != 0, x, 1.0)) + 1.0, 0.0))


# y = log sum(b e^a) over axis:  dy = sum(w (b da + db)), w = e^a / |sum(b e^a)| = e^(a - y),
# times the sign of the sum when return_sign=True (then y is (log|sum|, sign), the sign
# piecewise constant). w is computed from the lane's maximum m, as e^(a - m) / |sum(b e^(a - m))|,
# not as e^(a - y): y's rounding is an absolute error of a - y, and at a = (1e16, 1e16, 1e16)
# the weights came out 0.135 each, not 1/3. A lane of only -inf entries (or a zero sum) has
# weights 0.
@adjoint_of("logsumexp", broadcasts=True, tuple_result=True)
def logsumexp(y, a, axis=None, b=None, keepdims=False, return_sign=False):
    if return_sign:
        g = d[y][0] * y[1]
    else:
        g = d[y]
    m = np.max(a, axis=axis, keepdims=True)
    e = np.exp(a - np.where(np.isfinite(m), m, 0.0))
    total = np.abs(np.sum(times_weights(e, b), axis=axis, keepdims=True))
    ge = unreduce(g, a, axis, keepdims) * (e / np.where(total == 0.0, 1.0, total))
    d[a] = times_weights(ge, b)
    d[b] = ge


@tangent_of("logsumexp")
def logsumexp(y, a, axis=None, b=None, keepdims=False, return_sign=False):
    m = np.max(a, axis=axis, keepdims=True)
    e = np.exp(a - np.where(np.isfinite(m), m, 0.0))
    total = np.abs(np.sum(times_weights(e, b), axis=axis, keepdims=True))
    w = e / np.where(total == 0.0, 1.0, total)
    t = np.sum(w * (times_weights(d[a], b) + d[b]), axis=axis, keepdims=keepdims)
    if return_sign:
        d[y] = (y[1] * t, np.zeros_like(y[1]))
    else:
        d[y] = t


# y = softmax(x):  dy = y (dx - sum(y dx)),  x_bar = y (y_bar - sum(y y_bar))
@adjoint_of("softmax")
def softmax(y, x, axis=None):
    d[x] = y * (d[y] - np.sum(y * d[y], axis=axis, keepdims=True))


@tangent_of("softmax")
def softmax(y, x, axis=None):
    d[y] = y * (d[x] - np.sum(y * d[x], axis=axis, keepdims=True))


# y = x - logsumexp(x):  dy = dx - sum(e^y dx),  x_bar = y_bar - e^y sum(y_bar)
@adjoint_of("log_softmax")
def log_softmax(y, x, axis=None):
    d[x] = d[y] - np.exp(y) * np.sum(d[y], axis=axis, keepdims=True)


@tangent_of("log_softmax")
def log_softmax(y, x, axis=None):
    d[y] = d[x] - np.sum(np.exp(y) * d[x], axis=axis, keepdims=True)
