"""PyTorch versions of some benchmark workloads (benchmarks/workloads.py), for the torch column.

torch has no NumPy namespace, so these are written again, as a torch user writes them: float64
tensors, the same arithmetic, torch's own functions where a torch user reaches for one
(torch.log_softmax in mlp, torch.logsumexp in mixture, torch.relu, torch.sigmoid), and the
gradient by torch.autograd.grad. Each computes the same function as its NumPy workload (the run
checks the gradients against the hand-written ones, as srcad's). A workload with no version here
(logistic: a loop on a Python float; batchnorm, tiny_*) gets no torch column.

Imported only when torch is (benchmarks/adapters.py).
"""
import math

import torch


def helmholtz(x, A, b):
    R = 8.314
    T = 300.0
    bx = torch.dot(b, x)
    t1 = R * T * torch.sum(x * torch.log(x / (1.0 - bx)))
    xAx = torch.dot(x, A @ x)
    s2 = 2.0 ** 0.5
    t2 = xAx / (8.0 ** 0.5 * bx) * torch.log((1.0 + (1.0 + s2) * bx) / (1.0 + (1.0 - s2) * bx))
    return t1 - t2


def mlp(W1, b1, W2, b2, x, y):
    h = torch.tanh(x @ W1 + b1)
    z = h @ W2 + b2
    return -torch.sum(y * torch.log_softmax(z, dim=1)) / x.shape[0]


def rnn(W, U, b, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = torch.tanh(W @ h + U @ xs[t] + b)
    return torch.sum(h ** 2)


def gp_nll(theta, X, y):
    s2 = torch.exp(2.0 * theta[0])
    l2 = torch.exp(2.0 * theta[1])
    noise = torch.exp(2.0 * theta[2])
    d2 = torch.sum((X[:, None, :] - X[None, :, :]) ** 2, dim=2)
    K = s2 * torch.exp(-0.5 * d2 / l2) + noise * torch.eye(X.shape[0], dtype=X.dtype)
    L = torch.linalg.cholesky(K)
    alpha = torch.linalg.solve(K, y)
    return 0.5 * torch.dot(y, alpha) + torch.sum(torch.log(torch.diagonal(L)))


def rosenbrock(x):
    return torch.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def logreg(w, X, y, lam):
    z = X @ w
    return torch.sum(torch.logaddexp(torch.zeros_like(z), -y * z)) + 0.5 * lam * torch.dot(w, w)


def pair_energy(x):
    diff = x[:, None, :] - x[None, :, :]
    d2 = torch.sum(diff ** 2, dim=2)
    return torch.sum(torch.exp(-d2))


def ode_rhs(y, k, A):
    return A @ y + k * torch.tanh(y)


def ode_rk4(y0, k, A, steps):
    y = y0
    h = 0.05
    for i in range(steps):
        k1 = ode_rhs(y, k, A)
        k2 = ode_rhs(y + 0.5 * h * k1, k, A)
        k3 = ode_rhs(y + 0.5 * h * k2, k, A)
        k4 = ode_rhs(y + h * k3, k, A)
        y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return torch.sum(y ** 2)


def lstm(W, U, b, xs, h0, c0):
    H = h0.shape[0]
    h = h0
    c = c0
    for t in range(xs.shape[0]):
        g = W @ h + U @ xs[t] + b
        i = torch.sigmoid(g[:H])
        f = torch.sigmoid(g[H:2 * H])
        o = torch.sigmoid(g[2 * H:3 * H])
        u = torch.tanh(g[3 * H:])
        c = f * c + i * u
        h = o * torch.tanh(c)
    return torch.sum(h ** 2)


def mixture(mu, logw, logs, X):
    N, D = X.shape
    logpi = logw - torch.logsumexp(logw, dim=0)
    z = (X[:, None, :] - mu[None, :, :]) / torch.exp(logs)
    logp = logpi - torch.sum(logs, dim=1) - 0.5 * torch.sum(z ** 2, dim=2) \
        - 0.5 * D * math.log(2.0 * math.pi)
    return torch.sum(torch.logsumexp(logp, dim=1))


def relu_mlp(W1, b1, W2, b2, x, y):
    h = torch.relu(x @ W1 + b1)
    out = h @ W2 + b2
    return torch.mean((out - y) ** 2)


FUNCTIONS = {f.__name__: f for f in (helmholtz, mlp, rnn, gp_nll, rosenbrock, logreg,
                                     pair_energy, ode_rk4, lstm, mixture, relu_mlp)}
