"""A loop's counter read after its loop (x[i] after `for i in ...`) and bound again later: by
`i = 0`, by another loop (the unroller writes a one-turn loop as i = 0), or by the next turn
of an outer loop (an inner loop's counter). The adjoint of the read used the counter's later
value: the counter was not counted as bound by its loop, so `i = 0` overwrote nothing to
restore, and an inner loop's adjoint left i at its first value for the outer turn before.
Gradients [0.34, 0, 0] for [0, 0, 0.34] and [1.26, 0, 1, 0] for [0, 0, 2.26, 0], with no
error, in both builds (found by a focused fuzzer). A loop binds its counter (tape.py
overwritten_names, reverse.py), and an inner loop's counter read outside it is restored
after the inner loop's adjoint (rebound_targets)."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient


def bound_again(x, n):
    z = x
    for i in range(len(z)):
        z = z * 2.0
    s = x[i] ** 2
    i = 0
    return s + np.sum(z) * 0.1


def reused_as_a_while_counter(x, n):
    z = x
    for i in range(len(z)):
        z = z * 2.0
    s = x[i] ** 2
    i = 0
    while i < n:
        i += 1
        s = s * 0.5
    return s


def a_second_loop(x, n):
    z = x
    for i in range(len(z)):
        z = z * 2.0
    s = x[i] ** 2
    for i in range(1):
        s = s * 1.5
    return s


def inner_counter(x, n):
    c = x[0] * 0.0
    for j in range(n):
        for i in range(n):
            c = c * 0.9
        c = c + x[i]
    return c


def helper(c, x, n):
    for i in range(n):
        c = c * 0.9
    return c + x[i]


def inner_counter_in_a_helper(x, n):
    c = x[0] * 0.0
    for j in range(n):
        c = helper(c, x, n)
    return c


@pytest.mark.parametrize("f", [bound_again, reused_as_a_while_counter, a_second_loop,
                               inner_counter, inner_counter_in_a_helper])
@pytest.mark.parametrize("disable", [None, "all"])
def test_gradient(f, disable):
    x = np.array([0.45, 0.29, 0.17, 0.6])
    got = srcad.grad(f, disable=disable)(x, 3)
    np.testing.assert_allclose(got, central_gradient(f, (x, 3)), rtol=1e-6, atol=1e-9)
    v = np.array([0.3, -0.8, 0.5, 0.2])
    np.testing.assert_allclose(srcad.jvp(f, disable=disable)(x, 3, v), got @ v, rtol=1e-10)
