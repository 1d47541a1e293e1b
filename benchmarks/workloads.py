"""Benchmark workloads: plain NumPy functions and their hand-written gradients.

The functions are kept as *source text* (FUNCTIONS_SOURCE) so that the benchmark can create a
fresh function object at will (exec of the text written to a new temp file): that is how the
cold build time is measured without any in-memory cache entry for the function.

Every hand-written gradient below was derived by hand for this benchmark and is written the way a
careful NumPy programmer would: reuse forward intermediates, no redundant temporaries, in-place
updates where that is natural. They are checked against srcad's gradients (and the other way
round) at the start of every run.
"""
import atexit
import linecache
import os
import shutil
import tempfile

import numpy as np

# --------------------------------------------------------------------------------------------
# The differentiated functions, as source text (see module docstring).
# --------------------------------------------------------------------------------------------

FUNCTIONS_SOURCE = '''\
import numpy as np


def helmholtz(x, A, b):
    R = 8.314
    T = 300.0
    bx = np.dot(b, x)
    t1 = R * T * np.sum(x * np.log(x / (1.0 - bx)))
    xAx = np.dot(x, np.dot(A, x))
    s2 = np.sqrt(2.0)
    t2 = xAx / (np.sqrt(8.0) * bx) * np.log((1.0 + (1.0 + s2) * bx) / (1.0 + (1.0 - s2) * bx))
    return t1 - t2


def logistic(x, k):
    for _ in range(k):
        x = 3.7 * x * (1.0 - x)
    return x


def mlp(W1, b1, W2, b2, x, y):
    h = np.tanh(np.dot(x, W1) + b1)
    z = np.dot(h, W2) + b2
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.sum(y * logp) / x.shape[0]


def rnn(W, U, b, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(np.dot(W, h) + np.dot(U, xs[t]) + b)
    return np.sum(h ** 2)


def batchnorm(x, w, eps):
    mu = np.mean(x, 0)
    A = x - mu
    B = A ** 2
    var = np.mean(B, 0)
    C = var + eps
    D = np.sqrt(C)
    y = A / D
    return np.sum(y * w)


def tiny_var(a, c):
    z = a / c
    return np.var(z)


def tiny_log(a, c):
    return np.sum(np.log(a[:, :3] * c))


def tiny_mlp(a, b, d, e, f):
    h = np.maximum(np.dot(a, b) + d, 0.0)
    z = np.dot(h, e) + f
    z = z - np.max(z, axis=1, keepdims=True)
    ez = np.exp(z)
    p = ez / np.sum(ez, axis=1, keepdims=True)
    return np.sum(p) / 3.0


def gp_nll(theta, X, y):
    s2 = np.exp(2.0 * theta[0])
    l2 = np.exp(2.0 * theta[1])
    noise = np.exp(2.0 * theta[2])
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=2)
    K = s2 * np.exp(-0.5 * d2 / l2) + noise * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(K, y)
    return 0.5 * np.dot(y, alpha) + np.sum(np.log(np.diag(L)))


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def logreg(w, X, y, lam):
    z = X @ w
    return np.sum(np.logaddexp(0.0, -y * z)) + 0.5 * lam * np.dot(w, w)


def pair_energy(x):
    diff = x[:, None, :] - x[None, :, :]
    d2 = np.sum(diff ** 2, axis=2)
    return np.sum(np.exp(-d2))


def ode_rhs(y, k, A):
    return A @ y + k * np.tanh(y)


def ode_rk4(y0, k, A, steps):
    y = y0
    h = 0.05
    for i in range(steps):
        k1 = ode_rhs(y, k, A)
        k2 = ode_rhs(y + 0.5 * h * k1, k, A)
        k3 = ode_rhs(y + 0.5 * h * k2, k, A)
        k4 = ode_rhs(y + h * k3, k, A)
        y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(y ** 2)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def lstm(W, U, b, xs, h0, c0):
    H = h0.shape[0]
    h = h0
    c = c0
    for t in range(xs.shape[0]):
        g = np.dot(W, h) + np.dot(U, xs[t]) + b
        i = sigmoid(g[:H])
        f = sigmoid(g[H:2 * H])
        o = sigmoid(g[2 * H:3 * H])
        u = np.tanh(g[3 * H:])
        c = f * c + i * u
        h = o * np.tanh(c)
    return np.sum(h ** 2)


def logsumexp(a):
    m = np.max(a, axis=-1, keepdims=True)
    return m[..., 0] + np.log(np.sum(np.exp(a - m), axis=-1))


def mixture(mu, logw, logs, X):
    N, D = X.shape
    logpi = logw - logsumexp(logw)
    z = (X[:, None, :] - mu[None, :, :]) / np.exp(logs)
    logp = logpi - np.sum(logs, axis=1) - 0.5 * np.sum(z ** 2, axis=2) \
        - 0.5 * D * np.log(2.0 * np.pi)
    return np.sum(logsumexp(logp))


def relu_mlp(W1, b1, W2, b2, x, y):
    h = np.maximum(x @ W1 + b1, 0.0)
    out = h @ W2 + b2
    return np.mean((out - y) ** 2)
'''

FUNCTION_NAMES = ("helmholtz", "logistic", "mlp", "rnn", "batchnorm",
                  "tiny_var", "tiny_log", "tiny_mlp", "gp_nll", "rosenbrock", "logreg",
                  "pair_energy", "ode_rk4", "lstm", "mixture", "relu_mlp")

_TEMP_DIR = None
_COUNTER = [0]


def fresh_functions(path=None):
    """A new namespace of freshly created function objects, compiled from a new temp file.

    Each call writes FUNCTIONS_SOURCE to a new file (srcad reads sources through inspect, which
    needs a real file) and execs it, so the function objects, their code objects and their
    globals dict are all new: no srcad cache entry can match them. With path=an earlier
    namespace's __file__, the functions are new objects compiled from that same file (what a
    new process importing the same module would get: used to measure the on-disk cache).
    """
    global _TEMP_DIR
    if path is None:
        if _TEMP_DIR is None:
            _TEMP_DIR = tempfile.mkdtemp(prefix="srcad-bench-")
            atexit.register(shutil.rmtree, _TEMP_DIR, True)
        _COUNTER[0] += 1
        path = os.path.join(_TEMP_DIR, f"bench_workloads_{_COUNTER[0]}.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(FUNCTIONS_SOURCE)
        linecache.checkcache(path)
    module_name = os.path.splitext(os.path.basename(path))[0]
    namespace = {"__name__": module_name, "__file__": path}
    exec(compile(FUNCTIONS_SOURCE, path, "exec"), namespace)
    return namespace


# --------------------------------------------------------------------------------------------
# Hand-written gradients.
# --------------------------------------------------------------------------------------------

_SQRT2 = np.sqrt(2.0)
_SQRT8 = np.sqrt(8.0)


def helmholtz_grad(x, A, b, symmetric=False):
    """d/dx of helmholtz, for any square A (the function does not ask for a symmetric one).

    With s = b.x, q = x^T A x, L = log((1 + (1+sqrt2) s) / (1 + (1-sqrt2) s)):
      f  = R T sum(x_i log x_i) - R T sum(x) log(1 - s) - q L / (sqrt8 s)
      df = R T (log(x / (1 - s)) + 1) + R T sum(x) / (1 - s) b
           - (A x + A^T x) L / (sqrt8 s)
           - q / sqrt8 * (dL/ds / s - L / s^2) b
      dL/ds = (1+sqrt2) / (1 + (1+sqrt2) s) - (1-sqrt2) / (1 + (1-sqrt2) s)

    symmetric=True (helmholtz_grad_symmetric) is right only for A = A^T: then A x + A^T x = 2 A x
    and the forward A x is reused, one matrix-vector product instead of two. No AD tool can take
    that shortcut (it cannot know A is symmetric), so it is reported beside the reference.
    """
    RT = 8.314 * 300.0
    s = np.dot(b, x)
    Ax = np.dot(A, x)
    q = np.dot(x, Ax)
    one_minus = 1.0 - s
    up = 1.0 + (1.0 + _SQRT2) * s
    dn = 1.0 + (1.0 - _SQRT2) * s
    L = np.log(up / dn)
    dLds = (1.0 + _SQRT2) / up - (1.0 - _SQRT2) / dn
    g = np.log(x / one_minus)
    g += 1.0
    g *= RT
    coef_b = RT * x.sum() / one_minus - q / _SQRT8 * (dLds / s - L / (s * s))
    g += coef_b * b
    if symmetric:
        g -= (2.0 * L / (_SQRT8 * s)) * Ax
    else:
        Ax += np.dot(x, A)  # A^T x
        g -= (L / (_SQRT8 * s)) * Ax
    return g


def helmholtz_grad_symmetric(x, A, b):
    """helmholtz_grad for a symmetric A only (see there)."""
    return helmholtz_grad(x, A, b, symmetric=True)


def logistic_grad(x, k):
    """d/dx0 of the logistic map iterated k times: product of 3.7 (1 - 2 x_t)."""
    d = 1.0
    for _ in range(k):
        d *= 3.7 - 7.4 * x
        x = 3.7 * x * (1.0 - x)
    return d


def mlp_grad(W1, b1, W2, b2, x, y):
    """d/d(W1, b1, W2, b2) of the mean softmax cross-entropy of a one-hidden-layer tanh MLP."""
    n = x.shape[0]
    h = np.tanh(np.dot(x, W1) + b1)
    z = np.dot(h, W2) + b2
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    # d/dz of -sum(y * log softmax(z)) / n, using sum(y, axis=1) == 1 for one-hot rows
    # (general: p * sum(y, 1) - y; the labels here are one-hot, and the workload says so)
    dz = p - y
    dz /= n
    dW2 = np.dot(h.T, dz)
    db2 = dz.sum(axis=0)
    dh = np.dot(dz, W2.T)
    dh *= 1.0 - h * h
    dW1 = np.dot(x.T, dh)
    db1 = dh.sum(axis=0)
    return dW1, db1, dW2, db2


def rnn_grad(W, U, b, xs, h0):
    """Backpropagation through time for h_{t+1} = tanh(W h_t + U x_t + b), loss sum(h_T^2).

    Stores the T+1 hidden states in one array, runs the reverse loop for the pre-activation
    adjoints only, then forms dW, dU, db with one matrix product (or sum) each.
    """
    T = xs.shape[0]
    hs = np.empty((T + 1, h0.shape[0]))
    hs[0] = h0
    for t in range(T):
        hs[t + 1] = np.tanh(np.dot(W, hs[t]) + np.dot(U, xs[t]) + b)
    da_all = np.empty((T, h0.shape[0]))
    dh = 2.0 * hs[T]
    WT = W.T
    for t in range(T - 1, -1, -1):
        h = hs[t + 1]
        da = dh * (1.0 - h * h)
        da_all[t] = da
        dh = np.dot(WT, da)
    dW = np.dot(da_all.T, hs[:T])
    dU = np.dot(da_all.T, xs)
    db = da_all.sum(axis=0)
    return dW, dU, db


def batchnorm_grad(x, w, eps):
    """Closed form: dx = (1/N) / D * (N w - sum(w) - y sum(w y)), per column."""
    n = x.shape[0]
    A = x - x.sum(axis=0) / n
    D = np.sqrt((A * A).sum(axis=0) / n + eps)
    y = A / D
    g = n * w
    g -= w.sum(axis=0)
    g -= y * (w * y).sum(axis=0)
    g *= (1.0 / n) / D
    return g


def tiny_var_grad(a, c):
    """z = a / c, f = mean((z - mean z)^2): dz = 2 (z - mean z) / size; da = dz / c,
    dc = -sum_rows(dz * z) / c."""
    z = a / c
    dz = z - z.mean()
    dz *= 2.0 / z.size
    da = dz / c
    dc = (dz * z).sum(axis=0)
    dc /= -c
    return da, dc


def tiny_log_grad(a, c):
    """f = sum(log(a[:, :3] * c)) = sum(log a[:, :3]) + rows * sum(log c): da = 1/a on the
    first three columns, dc = rows / c."""
    da = np.zeros_like(a)
    np.divide(1.0, a[:, :3], out=da[:, :3])
    dc = a.shape[0] / c
    return da, dc


def tiny_mlp_grad(a, b, d, e, f):
    """Backprop through relu(a b + d) e + f -> softmax -> sum / 3.

    sum(softmax) == 1 per row, so dp = 1/3 everywhere and dz = p * (dp - sum(dp p)) = 0: the
    exact gradient is zero; it is computed the general way (as a careful programmer who does
    not special-case it would), so the timing reflects real backprop work."""
    pre = np.dot(a, b) + d
    h = np.maximum(pre, 0.0)
    z = np.dot(h, e) + f
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    dp = 1.0 / 3.0  # d(sum(p) / 3)/dp, the same for every entry
    dz = p * (dp - dp * p.sum(axis=1, keepdims=True))
    de = np.dot(h.T, dz)
    df = dz.sum(axis=0)
    dh = np.dot(dz, e.T)
    dh *= pre > 0
    da = np.dot(dh, b.T)
    db = np.dot(a.T, dh)
    dd = dh.sum(axis=0)
    return da, db, dd, de, df


def gp_nll_grad(theta, X, y):
    """d nll / d theta = 1/2 tr((K^-1 - a a^T) dK/dtheta), a = K^-1 y, for the log-amplitude,
    log-length-scale and log-noise of an RBF kernel."""
    s2, l2, noise = np.exp(2.0 * theta)
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=2)
    E = np.exp(-0.5 * d2 / l2)
    K = s2 * E + noise * np.eye(X.shape[0])
    Kinv = np.linalg.inv(K)
    alpha = Kinv @ y
    W = Kinv - np.outer(alpha, alpha)
    SE = s2 * E
    return 0.5 * np.array([np.sum(W * 2.0 * SE), np.sum(W * SE * (d2 / l2)),
                           2.0 * noise * np.trace(W)])


def rosenbrock_grad(x):
    r = x[1:] - x[:-1] ** 2
    g = np.zeros_like(x)
    g[1:] = 200.0 * r
    g[:-1] += -400.0 * x[:-1] * r - 2.0 * (1.0 - x[:-1])
    return g


def logreg_grad(w, X, y, lam):
    t = -y * (X @ w)
    return X.T @ (-y * (0.5 * (1.0 + np.tanh(0.5 * t)))) + lam * w  # sigma(t) = d/dt log(1+e^t)


def ode_rk4_grad(y0, k, A, steps):
    """d/d(y0, k) of ode_rk4: the RK4 steps run forward keeping each stage's state, then back,
    each stage's adjoint through rhs's Jacobian, J(u)^T v = A^T v + k (1 - tanh(u)^2) v."""
    h = 0.05
    y = y0
    saved = []
    for _ in range(steps):
        u1 = y
        t1 = np.tanh(u1)
        k1 = A @ u1 + k * t1
        u2 = y + 0.5 * h * k1
        t2 = np.tanh(u2)
        k2 = A @ u2 + k * t2
        u3 = y + 0.5 * h * k2
        t3 = np.tanh(u3)
        k3 = A @ u3 + k * t3
        u4 = y + h * k3
        t4 = np.tanh(u4)
        k4 = A @ u4 + k * t4
        saved.append((t1, t2, t3, t4))
        y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    by = 2.0 * y
    bk = 0.0
    AT = A.T
    for t1, t2, t3, t4 in reversed(saved):
        c = h / 6.0 * by
        b4 = c
        u = AT @ b4 + k * (1.0 - t4 * t4) * b4
        bk += t4 @ b4
        b3 = 2.0 * c + h * u
        by = by + u
        u = AT @ b3 + k * (1.0 - t3 * t3) * b3
        bk += t3 @ b3
        b2 = 2.0 * c + 0.5 * h * u
        by = by + u
        u = AT @ b2 + k * (1.0 - t2 * t2) * b2
        bk += t2 @ b2
        b1 = c + 0.5 * h * u
        by = by + u
        by = by + AT @ b1 + k * (1.0 - t1 * t1) * b1
        bk += t1 @ b1
    return by, bk


def pair_energy_grad(x):
    """-4 (x_k sum_j E_kj - (E x)_k): the broadcast N x N x 3 differences summed by a matrix
    product."""
    d2 = np.sum(x * x, axis=1)
    E = np.exp(-(d2[:, None] + d2[None, :] - 2.0 * (x @ x.T)))
    return -4.0 * (x * np.sum(E, axis=1)[:, None] - E @ x)


def pair_energy_grad_broadcast(x):
    """pair_energy_grad in the function's own formulation: the differences x_i - x_j themselves,
    one N x N plane per coordinate (the fastest way to NumPy we found: an N x N x 3 array's short
    last axis costs numpy per row), E = exp(-sum of their squares), -4 sum_j E_ij (x_i - x_j).
    Timed beside the reference to tell the cost of the formulation from AD's: the reference's
    expanded square |x_i|^2 + |x_j|^2 - 2 x_i.x_j loses digits as the points move away from the
    origin (3.6e-10 relative error at an offset of 1,000 where this one keeps 4e-16;
    docs/performance.md)."""
    planes = [x[:, k, None] - x[None, :, k] for k in range(x.shape[1])]
    d2 = planes[0] * planes[0]
    for plane in planes[1:]:
        d2 += plane * plane
    E = np.exp(-d2)
    return -4.0 * np.stack([(E * plane).sum(axis=1) for plane in planes], axis=1)


def lstm_grad(W, U, b, xs, h0, c0):
    """Backpropagation through time for one LSTM layer with stacked gates (rows i, f, o, u of
    W, U, b), c' = f c + i u, h' = o tanh(c'), loss sum(h_T^2).

    Forward: the input products of all steps in one matrix product (U x_t + b for every t);
    per step one matrix-vector product, the three sigmoids in one pass over 3H entries, the
    activations, c and h stored in (T, .) arrays. The gates' local slopes (s (1 - s),
    1 - u^2) and o (1 - tanh(c)^2) are then formed for all steps at once. Backward, per step:
      dc += dh o (1 - tanh(c)^2);  di = dc u, df = dc c_prev, do = dh tanh(c), du = dc i,
      each written into its rows of dG[t] and scaled by the slopes; dc *= f; dh = W^T dG[t];
    then dW, dU, db are one matrix product (or sum) each over the stacked dG.
    """
    T = xs.shape[0]
    H = h0.shape[0]
    H2 = 2 * H
    H3 = 3 * H
    XU = np.dot(xs, U.T)
    XU += b
    A = np.empty((T, 4 * H))  # gate activations i, f, o, u per step
    cs = np.empty((T + 1, H))
    hs = np.empty((T + 1, H))
    tcs = np.empty((T, H))
    cs[0] = c0
    hs[0] = h0
    h = h0
    c = c0
    for t in range(T):
        g = np.dot(W, h)
        g += XU[t]
        a = A[t]
        s = a[:H3]
        np.negative(g[:H3], out=s)
        np.exp(s, out=s)
        s += 1.0
        np.divide(1.0, s, out=s)
        np.tanh(g[H3:], out=a[H3:])
        c = a[H:H2] * c
        c += a[:H] * a[H3:]
        tc = np.tanh(c)
        h = a[H2:H3] * tc
        cs[t + 1] = c
        hs[t + 1] = h
        tcs[t] = tc
    S = 1.0 - A
    S[:, :H3] *= A[:, :H3]                      # s (1 - s)
    S[:, H3:] *= 1.0 + A[:, H3:]                # 1 - u^2
    OC = 1.0 - tcs * tcs
    OC *= A[:, H2:H3]                           # o (1 - tanh(c)^2)
    dG = np.empty((T, 4 * H))
    dh = 2.0 * h
    dc = np.zeros(H)
    WT = W.T
    for t in range(T - 1, -1, -1):
        a = A[t]
        dg = dG[t]
        dc += dh * OC[t]
        np.multiply(dc, a[H3:], out=dg[:H])      # di
        np.multiply(dc, cs[t], out=dg[H:H2])     # df
        np.multiply(dh, tcs[t], out=dg[H2:H3])   # do
        np.multiply(dc, a[:H], out=dg[H3:])      # du
        dg *= S[t]
        dc *= a[H:H2]
        dh = np.dot(WT, dg)
    dW = np.dot(dG.T, hs[:T])
    dU = np.dot(dG.T, xs)
    db = dG.sum(axis=0)
    return dW, dU, db


def mixture_grad(mu, logw, logs, X):
    """d/d(mu, logw, logs) of the log-likelihood of a diagonal Gaussian mixture, written as
    scikit-learn's GaussianMixture does it: no (N, K, D) array; with P = 1/sigma^2 (K, D),
      sum_d (x_d - mu_kd)^2 P_kd = (X^2) P^T - 2 X (mu P)^T + sum_d mu_kd^2 P_kd,
    the responsibilities r = softmax over k of log p_nk, S_k = sum_n r_nk, and the weighted
    moments R1 = r^T X, R2 = r^T X^2 (K, D):
      dmu   = (R1 - S mu) P
      dlogs = (R2 - 2 mu R1 + S mu^2) P - S        (sum_n r_nk ((x - mu)^2 P - 1))
      dlogw = S - N softmax(logw)
    (The expansion loses accuracy for points far from the origin compared with sigma; with
    this data it agrees with the direct form to ~1e-14.)"""
    N = X.shape[0]
    P = np.exp(-2.0 * logs)
    MP = mu * P
    X2 = X * X
    logp = np.dot(X, MP.T)
    logp *= 2.0
    logp -= np.dot(X2, P.T)
    logp -= (mu * MP).sum(axis=1)
    logp *= 0.5
    pi = np.exp(logw - logw.max())
    pi /= pi.sum()
    logp += np.log(pi) - logs.sum(axis=1)
    r = logp - logp.max(axis=1, keepdims=True)
    np.exp(r, out=r)
    r /= r.sum(axis=1, keepdims=True)
    S = r.sum(axis=0)
    R1 = np.dot(r.T, X)
    R2 = np.dot(r.T, X2)
    SM = S[:, None] * mu
    dmu = (R1 - SM) * P
    R1 *= 2.0
    R1 -= SM
    R1 *= mu
    R2 -= R1
    R2 *= P
    R2 -= S[:, None]
    return dmu, S - N * pi, R2


def mixture_grad_broadcast(mu, logw, logs, X):
    """mixture_grad in the function's own formulation: the (N, K, D) standardized differences
    z = (x - mu) / sigma, dmu = sum_n r z / sigma, dlogs = sum_n r z^2 - S. Timed beside the
    reference (right for any arguments too) to tell the cost of the formulation from AD's."""
    N = X.shape[0]
    inv = np.exp(-logs)
    z = X[:, None, :] - mu
    z *= inv
    pi = np.exp(logw - logw.max())
    pi /= pi.sum()
    logp = np.log(pi) - logs.sum(axis=1) - 0.5 * (z * z).sum(axis=2)
    r = logp - logp.max(axis=1, keepdims=True)
    np.exp(r, out=r)
    r /= r.sum(axis=1, keepdims=True)
    S = r.sum(axis=0)
    rz = r[:, :, None] * z
    dmu = rz.sum(axis=0)
    dmu *= inv
    rz *= z
    dlogs = rz.sum(axis=0)
    dlogs -= S[:, None]
    return dmu, S - N * pi, dlogs


def relu_mlp_grad(W1, b1, W2, b2, x, y):
    """d/d(W1, b1, W2, b2) of mean((relu(x W1 + b1) W2 + b2 - y)^2): d = 2 (out - y) / size,
    dW2 = h^T d, dh = d W2^T masked by pre > 0 (0 at ties), dW1 = x^T dh."""
    pre = np.dot(x, W1)
    pre += b1
    h = np.maximum(pre, 0.0)
    d = np.dot(h, W2)
    d += b2
    d -= y
    d *= 2.0 / d.size
    dW2 = np.dot(h.T, d)
    db2 = d.sum(axis=0)
    dh = np.dot(d, W2.T)
    dh *= pre > 0.0
    dW1 = np.dot(x.T, dh)
    db1 = dh.sum(axis=0)
    return dW1, db1, dW2, db2


# --------------------------------------------------------------------------------------------
# Workload table: name, function, wrt, arguments, hand-written gradient.
# --------------------------------------------------------------------------------------------

class Workload:
    def __init__(self, name, func_name, wrt, args, hand, description, tags=(), grad_floor=0.0,
                 variants=None):
        self.name = name
        # other hand-written gradients timed beside the reference (name -> function), e.g. one
        # that is right only for these particular arguments: reported, never the reference
        self.variants = variants or {}
        # verification: max|srcad - hand| <= 1e-10 * max(max|hand|, grad_floor); grad_floor is
        # only set where the exact gradient is zero (then both are rounding noise)
        self.grad_floor = grad_floor
        self.func_name = func_name
        self.wrt = wrt
        self.args = args
        self.hand = hand
        self.description = description
        self.tags = tags


def _helmholtz_args(n, seed):
    rng = np.random.default_rng(seed)
    b = rng.uniform(0.5, 1.5, size=n)
    M = rng.normal(size=(n, n))
    A = (M + M.T) / 2.0
    # x positive and small: b.x <= 0.5
    x = rng.uniform(0.1, 1.0, size=n)
    x *= 0.5 / np.dot(b, x)
    return (x, A, b)


def make_workloads():
    out = []
    for n in (1, 10, 100, 1000):
        out.append(Workload(f"helmholtz_n{n}", "helmholtz", 0, _helmholtz_args(n, 100 + n),
                            helmholtz_grad, f"Helmholtz free energy, n={n}, d/dx",
                            tags=("helmholtz",),
                            variants={"hand_sym": helmholtz_grad_symmetric}))
    for k in (10, 100, 1000):
        out.append(Workload(f"logistic_k{k}", "logistic", 0, (0.3141592653589793, k),
                            logistic_grad, f"logistic map r=3.7, K={k}, d/dx0"))
    rng = np.random.default_rng(3)
    x = rng.normal(size=(64, 784))
    W1 = rng.normal(size=(784, 128)) / np.sqrt(784.0)
    b1 = rng.normal(size=128) * 0.1
    W2 = rng.normal(size=(128, 10)) / np.sqrt(128.0)
    b2 = rng.normal(size=10) * 0.1
    y = np.eye(10)[rng.integers(0, 10, size=64)]
    out.append(Workload("mlp", "mlp", (0, 1, 2, 3), (W1, b1, W2, b2, x, y), mlp_grad,
                        "MLP 784-128(tanh)-10 softmax xent, batch 64, d/d(W1,b1,W2,b2)"))
    for T in (10, 50):
        rng = np.random.default_rng(40 + T)
        W = rng.normal(size=(32, 32)) / np.sqrt(32.0)
        U = rng.normal(size=(32, 16)) / np.sqrt(16.0)
        b = rng.normal(size=32) * 0.1
        xs = rng.normal(size=(T, 16))
        h0 = np.zeros(32)
        out.append(Workload(f"rnn_T{T}", "rnn", (0, 1, 2), (W, U, b, xs, h0), rnn_grad,
                            f"tanh RNN hidden 32, input 16, T={T}, d/d(W,U,b)",
                            tags=("rnn",)))
    rng = np.random.default_rng(5)
    out.append(Workload("batchnorm", "batchnorm", 0,
                        (rng.normal(3.0, 2.0, size=(64, 3)), rng.normal(size=(64, 3)), 1e-5),
                        batchnorm_grad, "batch norm (64,3) decomposed, d/dx"))
    rng = np.random.default_rng(6)
    out.append(Workload("tiny_var", "tiny_var", (0, 1),
                        (rng.normal(size=(3, 4)), rng.uniform(0.5, 2.0, size=4)),
                        tiny_var_grad, "var(a / c), a (3,4), c (4,), d/d(a,c)"))
    rng = np.random.default_rng(7)
    out.append(Workload("tiny_log", "tiny_log", (0, 1),
                        (rng.uniform(0.5, 2.0, size=(3, 4)), rng.uniform(0.5, 2.0, size=(1, 3))),
                        tiny_log_grad, "sum(log(a[:, :3] * c)), a (3,4), c (1,3), d/d(a,c)"))
    rng = np.random.default_rng(8)
    out.append(Workload("tiny_mlp", "tiny_mlp", (0, 1, 2, 3, 4),
                        (rng.normal(size=(15, 8)), rng.normal(size=(8, 16)),
                         rng.normal(size=16), rng.normal(size=(16, 3)), rng.normal(size=3)),
                        tiny_mlp_grad, "relu(a@b+d)@e+f, softmax, sum/3; d/d(all)",
                        grad_floor=1.0))
    # the kinds of code issue 15 named (scientists' workloads nobody tuned srcad for)
    rng = np.random.default_rng(9)
    out.append(Workload("gp_nll", "gp_nll", 0,
                        (np.array([0.1, -0.3, -1.0]), rng.uniform(-2, 2, size=(64, 2)),
                         rng.normal(size=64)),
                        gp_nll_grad, "GP marginal likelihood, RBF, 64 points (Cholesky), "
                                     "d/d(log amplitude, length, noise)", tags=("new",)))
    for n in (10, 1000):
        rng = np.random.default_rng(10 + n)
        out.append(Workload(f"rosenbrock_n{n}", "rosenbrock", 0, (rng.uniform(-1, 1, size=n),),
                            rosenbrock_grad, f"Rosenbrock in {n} dimensions", tags=("new",)))
    rng = np.random.default_rng(11)
    X = rng.normal(size=(500, 20))
    out.append(Workload("logreg", "logreg", 0,
                        (rng.normal(size=20) * 0.1, X, np.sign(rng.normal(size=500)), 0.1),
                        logreg_grad, "L2-regularized logistic regression, 500 x 20, d/dw",
                        tags=("new",)))
    rng = np.random.default_rng(12)
    out.append(Workload("pair_energy", "pair_energy", 0, (rng.normal(size=(64, 3)),),
                        pair_energy_grad, "pairwise Gaussian energy of 64 points in 3-D "
                                          "(N x N x 3 differences), d/dx", tags=("new",),
                        variants={"hand_bcast": pair_energy_grad_broadcast}))
    rng = np.random.default_rng(13)
    A = rng.normal(size=(8, 8)) * 0.3 - 0.2 * np.eye(8)
    out.append(Workload("ode_rk4", "ode_rk4", (0, 1), (rng.normal(size=8), 0.4, A, 50),
                        ode_rk4_grad, "RK4, 50 steps, right-hand side A y + k tanh(y) in a "
                                      "helper, 8 states, d/d(y0, k)", tags=("new",)))
    rng = np.random.default_rng(14)
    H, D, T = 32, 16, 20
    out.append(Workload("lstm", "lstm", (0, 1, 2),
                        (rng.normal(size=(4 * H, H)) / np.sqrt(H),
                         rng.normal(size=(4 * H, D)) / np.sqrt(D), rng.normal(size=4 * H) * 0.1,
                         rng.normal(size=(T, D)), np.zeros(H), np.zeros(H)),
                        lstm_grad, "LSTM, stacked gates, hidden 32, input 16, T=20, loss "
                                   "sum(h_T^2), d/d(W,U,b)", tags=("new",)))
    rng = np.random.default_rng(15)
    K, D, N = 8, 4, 512
    centers = rng.normal(size=(K, D)) * 3.0
    X = centers[rng.integers(0, K, size=N)] + rng.normal(size=(N, D))
    out.append(Workload("mixture", "mixture", (0, 1, 2),
                        (centers + rng.normal(size=(K, D)) * 0.5, rng.normal(size=K) * 0.3,
                         np.log(rng.uniform(0.5, 1.5, size=(K, D))), X),
                        mixture_grad, "diagonal Gaussian mixture log-likelihood, K=8, N=512, "
                                      "D=4, logsumexp by max, d/d(means, log-weights, "
                                      "log-scales)", tags=("new",),
                        variants={"hand_bcast": mixture_grad_broadcast}))
    rng = np.random.default_rng(16)
    out.append(Workload("relu_mlp", "relu_mlp", (0, 1, 2, 3),
                        (rng.normal(size=(64, 128)) / 8.0, rng.normal(size=128) * 0.1,
                         rng.normal(size=(128, 10)) / np.sqrt(128.0), rng.normal(size=10) * 0.1,
                         rng.normal(size=(256, 64)), rng.normal(size=(256, 10))),
                        relu_mlp_grad, "ReLU MLP 64-128-10, batch 256, mean squared error, "
                                       "d/d(W1,b1,W2,b2)", tags=("new",)))
    return out
