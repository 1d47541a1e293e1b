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
