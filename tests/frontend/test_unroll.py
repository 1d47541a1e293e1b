"""Unrolling (srcad/unroll.py): in code specialized to the arguments' signature, a loop of a few
turns over a range the signature fixes is written out; anything else stays a loop. Numbers are
checked against central differences and the dot-product test (srcad.check_grads)."""
import numpy as np
import pytest

import srcad
from generated import check, code
from programs import logistic, logistic_grad


def recurrence(xs, h):
    for x in xs:
        h = np.tanh(h * x + 0.5)
    return np.sum(h)


def stepped(x, n):
    s = 0.0
    for i in range(1, 2 * n - 1, 2):
        s = s + x ** i
    return s * i  # the loop variable keeps its last value


def by_rows(a, w):
    total = 0.0
    for r in range(a.shape[0] - 1):
        total = total + np.sum(np.sin(a[r] * a[r + 1]) * w)
    return total


def test_a_short_scalar_loop_is_written_out():
    text = srcad.source(logistic, args=(0.3, 3))
    body = text[text.index("def logistic_grad"):]
    assert "for " not in body and "range" not in body
    assert body.count("# tangent of: x = 3.7 * x * (1.0 - x)") == 3  # one per turn
    for k in (0, 1, 3, 16, 17, 40):  # 17 and 40 turns: a loop
        assert srcad.grad(logistic)(0.3, k) == pytest.approx(logistic_grad(0.3, k), rel=1e-12)
    assert "for _ in" in srcad.source(logistic, args=(0.3, 17))


@pytest.mark.parametrize("func, args", [
    (recurrence, lambda rng: (rng.normal(size=(4, 3)), rng.normal(size=3))),
    (stepped, lambda rng: (1.3, 4)),
    (by_rows, lambda rng: (rng.normal(size=(5, 2)), rng.normal(size=2))),
])
def test_reverse_mode_loops_over_signature_ranges(func, args, rng):
    args = args(rng)
    wrt = 0
    text = code(func, args, wrt)
    assert "for " not in text and "stack" not in text
    check(func, args, wrt)


def data_bound(x, a):
    s = 0.0
    for i in range(int(a[0])):
        s = s + np.sum(x * i)
    return s


def with_break(x, k):
    s = 0.0
    for i in range(k):
        if s > 2.0:
            break
        s = s + x * i
    return s


def big_body(x, k):
    for _ in range(k):
        x = np.sin(x) + np.cos(x) * 0.5
        x = np.tanh(x) * 0.9 + 0.1 * x
        x = x * x * 0.3 + np.exp(-x)
    return np.sum(x)


@pytest.mark.parametrize("func, args", [
    (data_bound, (np.array([0.5, 1.5]), np.array([3.0]))),  # a count read from data
    (with_break, (0.7, 5)),
    (big_body, (np.array([0.1, 0.2]), 8)),  # 8 turns of 11 statements: too long written out
])
def test_loops_that_stay_loops(func, args):
    assert "for " in code(func, args, 0)
    check(func, args, 0)


def test_the_count_is_the_signature_not_the_probe():
    """The same function called with another count gets code of its own (ints are keyed by
    value); one whose count comes from data keeps the loop, so a new count is still right."""
    x, a = np.array([0.5, 1.5]), np.array([3.0])
    g = srcad.grad(data_bound)
    np.testing.assert_allclose(g(x, a), [3.0, 3.0])
    np.testing.assert_allclose(g(x, np.array([5.0])), [10.0, 10.0])


def appends(x, k):
    rows = []
    for i in range(k):
        rows.append(np.sin(x * i))
    return np.sum(np.stack(rows) ** 2)


def test_a_loop_that_appends_stays_a_loop(rng):
    x = rng.normal(size=3)
    assert "for " in code(appends, (x, 3))
    srcad.check_grads(appends, (x, 3), wrt=0)  # (second order: builtins.list has no tangent)
