"""NumPy covariance and correlation: cov, corrcoef. C = Xc Xc^T / f, Xc the rows of X minus
their means, f = observations - ddof."""
import numpy as np

from srcad.rules.registry import adjoint, d, non_differentiable, tangent
from srcad.runtime import helper


@helper(linear=False, tangent="linear")
def cov_rows(v, rowvar=True, second=False):
    """The variables-by-observations rows np.cov makes of its first (second=False) or second
    operand v (linear in v; not folded on zeros, whose shape differs)."""
    x = np.array(v, ndmin=2)
    flip = (np.ndim(v) != 1) if not second else (x.shape[0] != 1)
    return x.T if not rowvar and flip else x


@helper(tangent="linear")
def cov_unrows(g, v, rowvar=True, second=False):
    """The adjoint of cov_rows: g (rows) back in v's layout."""
    x = np.array(v, ndmin=2)
    flip = (np.ndim(v) != 1) if not second else (x.shape[0] != 1)
    return np.reshape(np.transpose(g) if not rowvar and flip else g, np.shape(v))


@helper(linear=False)
def cov_divisor(x, bias=False, ddof=None):
    """np.cov's normalization: observations minus ddof (default 1, or 0 with bias), at least
    0."""
    if ddof is None:
        ddof = 0 if bias else 1
    return float(max(np.shape(x)[1] - ddof, 0))


# ---------------------------------------------------------------------------------------------
# cov: C = Xc Xc^T / f, Xc the rows of X minus their means, f = observations - ddof:
#   dC = (dXc Xc^T + Xc dXc^T) / f,  X_bar = (C_bar + C_bar^T) Xc / f  (Xc's rows sum to 0)
# (fweights and aweights are not supported.)
@adjoint(np.cov)
def cov(c, m, y=None, rowvar=True, bias=False, ddof=None, *, dtype=None):
    if y is None:
        x = cov_rows(m, rowvar, False)
    else:
        x = np.concatenate([cov_rows(m, rowvar, False), cov_rows(y, rowvar, True)], axis=0)
    xc = x - np.mean(x, axis=1, keepdims=True)
    g = np.reshape(d[c], (np.shape(x)[0], np.shape(x)[0]))
    gx = (g + np.swapaxes(g, 0, 1)) @ xc / cov_divisor(x, bias, ddof)
    if y is None:
        d[m] = cov_unrows(gx, m, rowvar, False)
    else:
        d[m] = cov_unrows(gx[:np.shape(cov_rows(m, rowvar, False))[0]], m, rowvar, False)
        d[y] = cov_unrows(gx[np.shape(cov_rows(m, rowvar, False))[0]:], y, rowvar, True)


@tangent(np.cov)
def cov(c, m, y=None, rowvar=True, bias=False, ddof=None, *, dtype=None):
    if y is None:
        x = cov_rows(m, rowvar, False)
        dx = cov_rows(d[m], rowvar, False)
    else:
        x = np.concatenate([cov_rows(m, rowvar, False), cov_rows(y, rowvar, True)], axis=0)
        dx = np.concatenate([cov_rows(d[m], rowvar, False), cov_rows(d[y], rowvar, True)],
                            axis=0)
    xc = x - np.mean(x, axis=1, keepdims=True)
    p = (dx - np.mean(dx, axis=1, keepdims=True)) @ np.swapaxes(xc, 0, 1) / cov_divisor(
        x, bias, ddof)
    d[c] = np.reshape(p + np.swapaxes(p, 0, 1), np.shape(c))


# corrcoef: R = C / (s s^T), s = sqrt(diag C) (numpy's clip to [-1, 1] only rounds):
#   dR = dC / (s s^T) - R (q_i + q_j) / 2 with q = diag(dC) / diag(C), and with H = G + G^T,
#   C_bar + C_bar^T = H / (s s^T) - diag(rowsum(H R) / diag C)
@adjoint(np.corrcoef)
def corrcoef(r, x, y=None, rowvar=True, *, dtype=None):
    if y is None:
        rows = cov_rows(x, rowvar, False)
    else:
        rows = np.concatenate([cov_rows(x, rowvar, False), cov_rows(y, rowvar, True)], axis=0)
    xc = rows - np.mean(rows, axis=1, keepdims=True)
    f = cov_divisor(rows, False, None)
    cm = xc @ np.swapaxes(xc, 0, 1) / f
    s = np.sqrt(np.diagonal(cm))
    rm = cm / np.outer(s, s)
    g = np.reshape(d[r], (np.shape(rows)[0], np.shape(rows)[0]))
    h = g + np.swapaxes(g, 0, 1)
    gx = (h / np.outer(s, s) - np.diag(np.sum(h * rm, axis=1) / np.diagonal(cm))) @ xc / f
    if y is None:
        d[x] = cov_unrows(gx, x, rowvar, False)
    else:
        d[x] = cov_unrows(gx[:np.shape(cov_rows(x, rowvar, False))[0]], x, rowvar, False)
        d[y] = cov_unrows(gx[np.shape(cov_rows(x, rowvar, False))[0]:], y, rowvar, True)


@tangent(np.corrcoef)
def corrcoef(r, x, y=None, rowvar=True, *, dtype=None):
    if y is None:
        rows = cov_rows(x, rowvar, False)
        drows = cov_rows(d[x], rowvar, False)
    else:
        rows = np.concatenate([cov_rows(x, rowvar, False), cov_rows(y, rowvar, True)], axis=0)
        drows = np.concatenate([cov_rows(d[x], rowvar, False), cov_rows(d[y], rowvar, True)],
                               axis=0)
    xc = rows - np.mean(rows, axis=1, keepdims=True)
    f = cov_divisor(rows, False, None)
    cm = xc @ np.swapaxes(xc, 0, 1) / f
    s = np.sqrt(np.diagonal(cm))
    rm = cm / np.outer(s, s)
    p = (drows - np.mean(drows, axis=1, keepdims=True)) @ np.swapaxes(xc, 0, 1) / f
    dc = p + np.swapaxes(p, 0, 1)
    q = np.diagonal(dc) / np.diagonal(cm)
    d[r] = np.reshape(dc / np.outer(s, s) - rm * (np.expand_dims(q, 0) + np.expand_dims(q, 1))
                      * 0.5, np.shape(r))


non_differentiable(cov_divisor)
