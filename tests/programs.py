"""Ordinary Python the way scientists write it: branches, loops, state. Each function is
differentiated by tests/modes/test_control_flow.py in both modes (finite differences, dot-product test)."""
import math

import numpy as np


def branch_on_sign(x):
    if x > 0:
        y = x * x
    elif x > -1.0:
        y = np.sin(x)
    else:
        y = -x
    return y


def branch_on_array(x, w):
    if np.all(x > -5) and not np.any(x > 50):
        y = np.sum(x * w)
    else:
        y = np.sum(x)
    return y * 2.0


def nested_branches(x, a):
    s = 0.0
    if a > 0:
        if x[0] < 0.5 < x[1]:
            s = np.sum(x ** 2)
        else:
            s = np.sum(np.exp(x))
    return s + x[0]


def conditional_expression(x):
    y = x * 3.0 if x > 0 else x * x
    return y + (1.0 if x < 0 else math.sin(x))


def range_loop(x, n):
    s = 0.0
    for i in range(1, n, 2):
        s = s + x[i] * x[i - 1]
    return s


def loop_over_shape(x):
    total = 0.0
    for i in range(x.shape[0]):
        for j in range(len(x[i])):
            total += x[i, j] * (i + j)
    return total


def loop_over_rows(x, w):
    s = 0.0
    for row in x:
        s = s + np.tanh(row @ w)
    return s


def enumerate_and_zip(x, y):
    s = 0.0
    for i, v in enumerate(x):
        s = s + v * i
    for a, b in zip(x, y):
        s = s + a * b
    return s


def zip_with_reversed(x, w):
    s = 0.0
    for row in x:
        s = s + np.tanh(row @ w)
    for a, b in zip(w, w[::-1]):
        s = s + a * b
    return s


def while_loop(x):
    y = x
    k = 0
    while y < 10.0:
        y = y * 1.5 + 0.1
        k += 1
    return y * k


def loop_with_break(x):
    s = 0.0
    for i in range(len(x)):
        if s > 2.0:
            break
        s = s + x[i] * x[i]
    return s


def loop_with_continue(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] < 0:
            continue
        s = s + np.sqrt(x[i])
    return s


def early_return(x):
    for i in range(len(x)):
        if x[i] > 1.0:
            return x[i] * np.sum(x)
    return np.sum(x ** 3)


def reassigned_state(x):
    h = x
    for _ in range(3):
        h = np.tanh(h)
        h *= 1.5
    h -= 0.1
    return np.sum(h * h)


def swaps(a, b):
    for _ in range(4):
        a, b = b, a + b * 0.5
    return a * b


def element_stores(x):
    y = np.zeros(len(x))
    for i in range(len(x)):
        y[i] = x[i] ** 2
        if i > 0:
            y[i] += y[i - 1] * x[i]
    return np.sum(y)


def column_and_mask_stores(x, c):
    y = x.copy()
    y[:, 1] = c * 2.0
    y[y > 1.5] = 0.0
    y[0] *= 3.0
    return np.sum(y * y)


def list_append_stack(x):
    rows = []
    for i in range(3):
        rows.append(np.sin(x * (i + 1)))
    return np.sum(np.stack(rows) ** 2)


def non_differentiable_parts(x):
    k = int(np.argmax(x))
    m = np.floor(x) + np.round(x) + np.sign(x)
    n = len(x) + x.shape[0] // 2
    mask = (x > 0.2) * 1.0
    return np.sum(x * m) + x[k] * n + np.sum(x * mask)


def logistic_map(x, k):
    for _ in range(k):
        x = 4.0 * x * (1.0 - x)
    return x


def rnn(h, W, U, xs):
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h)


def logistic(x, k):
    for _ in range(k):
        x = 3.7 * x * (1.0 - x)
    return x


def logistic_grad(x, k):
    d = 1.0
    for _ in range(k):
        d *= 3.7 - 7.4 * x
        x = 3.7 * x * (1.0 - x)
    return d
