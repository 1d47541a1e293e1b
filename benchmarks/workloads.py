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
'''

FUNCTION_NAMES = ("helmholtz", "logistic", "mlp", "rnn", "batchnorm",
                  "tiny_var", "tiny_log", "tiny_mlp", "gp_nll", "rosenbrock", "logreg",
                  "pair_energy", "ode_rk4")

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
                                          "(N x N x 3 differences), d/dx", tags=("new",)))
    rng = np.random.default_rng(13)
    A = rng.normal(size=(8, 8)) * 0.3 - 0.2 * np.eye(8)
    out.append(Workload("ode_rk4", "ode_rk4", (0, 1), (rng.normal(size=8), 0.4, A, 50),
                        ode_rk4_grad, "RK4, 50 steps, right-hand side A y + k tanh(y) in a "
                                      "helper, 8 states, d/d(y0, k)", tags=("new",)))
    return out
