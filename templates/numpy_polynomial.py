"""NumPy polynomials (coefficients highest power first): polyval, polyadd, polysub, polymul,
polyder, polyint, vander."""
import numpy as np

from srcad.rules.registry import adjoint, d, non_differentiable, tangent
from srcad.runtime import helper

from .numpy_signal import convolve_by, full_conv_adjoint


@helper(tangent="linear")
def poly_derivative(p, m=1):
    """The coefficients of the m-th derivative of the polynomial p (highest power first), as
    np.polyder computes them; linear in p."""
    p = np.asarray(p)
    for _ in range(m):
        p = p[:-1] * np.arange(np.shape(p)[0] - 1, 0, -1)
    return p


@helper(tangent="linear")
def poly_derivative_transpose(g, p, m=1):
    """The adjoint of poly_derivative(p, m): g back to p's coefficients."""
    lengths = [np.shape(p)[0]]
    for _ in range(m):
        lengths.append(max(lengths[-1] - 1, 0))
    g = np.asarray(g)
    for n in reversed(lengths[:-1]):
        if n > 0:
            g = np.concatenate([g * np.arange(n - 1, 0, -1), np.zeros(1, dtype=g.dtype)])
    return np.reshape(g, np.shape(p))


@helper(linear=False)
def poly_powers(x, n, m=0):
    """[..., k] = the m-th derivative of x^(n-1-k) (k = 0 .. n-1, the columns of a Vandermonde
    matrix, highest power first): e (e-1) ... (e-m+1) x^(e-m) with e = n-1-k, 0 for e < m."""
    e = np.arange(n - 1, -1, -1)
    coef = np.ones(n)
    for i in range(m):
        coef = coef * (e - i)
    return coef * np.expand_dims(np.asarray(x), -1) ** np.maximum(e - m, 0)


@helper
def polyval_by(c, x):
    """np.polyval(c, x), linear in c."""
    return np.polyval(c, x)


@helper(tangent="linear")
def poly_in_front(t, a, b):
    """t (the coefficients of a) with zeros in front up to the length of b, as np.polyadd and
    np.polysub align their operands."""
    t = np.atleast_1d(t)
    n = max(np.shape(np.atleast_1d(b))[0] - np.shape(np.atleast_1d(a))[0], 0)
    return np.concatenate([np.zeros(n, dtype=np.result_type(t, float)), t])


@helper(tangent="linear")
def poly_tail(g, a):
    """The adjoint of poly_in_front: the last len(a) entries of g, shaped like a."""
    n = np.shape(np.atleast_1d(a))[0]
    return np.reshape(np.asarray(g)[np.shape(g)[0] - n:], np.shape(a))


@helper(linear=False)
def poly_leading_zeros(a):
    """How many leading zeros np.polymul drops from a (np.poly1d keeps one of all-zero a)."""
    a = np.atleast_1d(a)
    nonzero = np.flatnonzero(a)
    return int(nonzero[0]) if nonzero.size else max(a.shape[0] - 1, 0)


@helper(tangent="linear")
def poly_trim(t, a):
    """t without the places of a's leading zeros (np.polymul's operand)."""
    return np.atleast_1d(t)[poly_leading_zeros(a):]


@helper(tangent="linear")
def poly_untrim(g, a):
    """The adjoint of poly_trim: zeros for a's leading zeros, shaped like a."""
    g = np.asarray(g)
    return np.reshape(np.concatenate([np.zeros(poly_leading_zeros(a), dtype=g.dtype), g]),
                      np.shape(a))


@helper(linear=False)
def poly_integral_constants(k, m):
    """The m constants np.polyint(p, m, k) adds (k None: zeros; one value: repeated)."""
    if k is None:
        return np.zeros(m)
    k = np.atleast_1d(k)
    if k.shape[0] == 1 and m > 1:
        return k[0] * np.ones(m)
    return k[:m]


@helper(tangent="linear")
def polyint_share(t, p, m=1, k=None, which=0):
    """np.polyint with t in the place of p (which=0) or of k (which=1) and zeros in the other:
    one operand's share of the tangent."""
    q = np.atleast_1d(t) if which == 0 else np.zeros(np.shape(np.atleast_1d(p))[0])
    ks = poly_integral_constants(t, m) if which == 1 else np.zeros(m)
    for i in range(m):
        q = np.concatenate([q / np.arange(q.shape[0], 0, -1), ks[i:i + 1]])
    return q


@helper(tangent="linear")
def polyint_piece(g, p, m=1, k=None, which=0):
    """The adjoint of np.polyint(p, m, k) for p (which=0) or k (which=1), shaped like it."""
    g = np.asarray(g, dtype=np.result_type(g, float))
    ks = np.zeros(m, dtype=g.dtype)
    for i in reversed(range(m)):
        ks[i] = g[-1]
        g = g[:-1] / np.arange(g.shape[0] - 1, 0, -1)
    if which == 0:
        return np.reshape(g, np.shape(p))
    if np.size(k) == 1 and m > 1:
        return np.reshape(np.sum(ks), np.shape(k))
    return np.reshape(np.concatenate([ks, np.zeros(np.size(k) - m, dtype=g.dtype)]),
                      np.shape(k))


@helper(tangent="linear")
def vander_order(v, increasing=False):
    """Vandermonde columns (highest power first) in np.vander's order."""
    return np.flip(v, -1) if increasing else v


@helper(linear=False)
def vander_columns(x, N=None):
    """The number of columns of np.vander(x, N)."""
    return np.shape(x)[0] if N is None else N


# d/dx of the m-th derivatives of the powers are the (m+1)-th
@tangent(poly_powers)
def poly_powers_tangent(z, x, n, m=0):
    d[z] = np.expand_dims(d[x], -1) * poly_powers(x, n, m + 1)


@tangent(polyval_by)
def polyval_by_tangent(z, c, x):
    d[z] = polyval_by(d[c], x) + d[x] * polyval_by(poly_derivative(c, 1), x)


# ---------------------------------------------------------------------------------------------
# polynomials (coefficients highest power first)

# y = sum_k p_k x^(n-1-k):  dy/dp_k = x^(n-1-k),  dy/dx = polyval(polyder(p), x)
@adjoint(np.polyval)
def polyval(y, p, x):
    d[p] = np.tensordot(d[y], poly_powers(x, np.size(p), 0), np.ndim(x))
    d[x] = d[y] * polyval_by(poly_derivative(p, 1), x)


@tangent(np.polyval)
def polyval(y, p, x):
    d[y] = polyval_by(d[p], x) + d[x] * polyval_by(poly_derivative(p, 1), x)


@adjoint(np.polyadd)
def polyadd(y, a1, a2):
    d[a1] = poly_tail(d[y], a1)
    d[a2] = poly_tail(d[y], a2)


@tangent(np.polyadd)
def polyadd(y, a1, a2):
    d[y] = poly_in_front(d[a1], a1, a2) + poly_in_front(d[a2], a2, a1)


@adjoint(np.polysub)
def polysub(y, a1, a2):
    d[a1] = poly_tail(d[y], a1)
    d[a2] = -poly_tail(d[y], a2)


@tangent(np.polysub)
def polysub(y, a1, a2):
    d[y] = poly_in_front(d[a1], a1, a2) - poly_in_front(d[a2], a2, a1)


# polymul = the full convolution of the operands without their leading zeros (np.poly1d drops
# them: they get derivative 0, the product's length does not depend on them)
@adjoint(np.polymul)
def polymul(y, a1, a2):
    d[a1] = poly_untrim(full_conv_adjoint(d[y], poly_trim(a2, a2), poly_trim(a1, a1), 0), a1)
    d[a2] = poly_untrim(full_conv_adjoint(d[y], poly_trim(a1, a1), poly_trim(a2, a2), 0), a2)


@tangent(np.polymul)
def polymul(y, a1, a2):
    d[y] = (convolve_by(poly_trim(d[a1], a1), poly_trim(a2, a2), "full")
            + convolve_by(poly_trim(d[a2], a2), poly_trim(a1, a1), "full"))


@adjoint(np.polyder)
def polyder(y, p, m=1):
    d[p] = poly_derivative_transpose(d[y], p, m)


@tangent(np.polyder)
def polyder(y, p, m=1):
    d[y] = poly_derivative(d[p], m)


@adjoint(np.polyint)
def polyint(y, p, m=1, k=None):
    d[p] = polyint_piece(d[y], p, m, k, 0)
    d[k] = polyint_piece(d[y], p, m, k, 1)


@tangent(np.polyint)
def polyint(y, p, m=1, k=None):
    d[y] = polyint_share(d[p], p, m, k, 0) + polyint_share(d[k], p, m, k, 1)


# vander(x, N)[i, k] = x_i^(N-1-k) (increasing: x_i^k)
@adjoint(np.vander)
def vander(y, x, N=None, increasing=False):
    d[x] = np.sum(d[y] * vander_order(poly_powers(x, vander_columns(x, N), 1), increasing),
                  axis=-1)


@tangent(np.vander)
def vander(y, x, N=None, increasing=False):
    d[y] = np.expand_dims(d[x], -1) * vander_order(poly_powers(x, vander_columns(x, N), 1),
                                                   increasing)


non_differentiable(poly_leading_zeros, poly_integral_constants, vander_columns)
