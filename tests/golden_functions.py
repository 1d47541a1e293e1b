"""Functions whose generated derivatives are kept as golden files (tests/test_golden.py).

Changing a line here shifts the line numbers in the golden files: regenerate them with
`make golden` and read the diff.
"""
import numpy as np


def worked_example(x1, x2):
    return np.log(x1) + x1 * x2 - np.sin(x2)


def softmax_like(x):
    z = x - np.max(x, axis=1, keepdims=True)
    e = np.exp(z)
    p = e / np.sum(e, axis=1, keepdims=True)
    return np.sum(p * p)


def mlp_layer_loss(x, W, b):
    h = np.tanh(x @ W + b)
    return np.mean(h ** 2)


def batchnorm(x, w, eps=1e-5):
    mu = np.mean(x, 0)
    A = x - mu
    B = A ** 2
    var = np.mean(B, 0)
    C = var + eps
    D = np.sqrt(C)
    y = A / D
    return np.sum(y * w)


def running_sum_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.sin(x[i]) * x[i]
    return s


def while_with_break(x):
    y = x
    k = 0
    while y < 100.0:
        y = y * y + 1.0
        k += 1
        if k >= 10:
            break
    return y


def branches(x):
    if np.sum(x) > 0:
        y = np.tanh(x)
    else:
        y = x * x
    return np.sum(y)


def element_loop(x):
    y = np.zeros(len(x))
    for i in range(1, len(x)):
        y[i] = y[i - 1] * 0.5 + x[i]
    return np.sum(y ** 2)


def scaled_tanh(x, w):
    return np.tanh(w * x)


def helper_call(x, w):
    return np.sum(scaled_tanh(x, w) ** 2) + np.sum(scaled_tanh(x, 2.0))


def rnn(W, U, b, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(np.dot(W, h) + np.dot(U, xs[t]) + b)
    return np.sum(h ** 2)


def log_product(a, c):
    return np.sum(np.log(a[:, :3] * c))


# two of issue 15's workloads (benchmarks/workloads.py): their gradients should read like the
# hand-written ones
def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


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
