"""A name a loop carries, overwritten in the loop by a value no derivative flows through
(`a = np.ones(n)`, `a = x.shape`, a comparison, a runtime helper's `zero_gradient(a)`): the
adjoint sweep kept what the name's adjoint held when it met that statement, so the adjoint of
the overwritten value reached the turn before. Top-level code renames such values apart, a loop
cannot, so only loops showed it: the unoptimized (and every generic, not unrolled) gradient was
wrong without an error. Found by the fuzzer (seed 54107, hvp_reverse: the backward half of a
helper resets an adjoint with zero_gradient inside its reversed loop, and reverse over reverse
crashed on the stale adjoint's shape)."""
import numpy as np
import pytest

import srcad

from .numeric import central, central_gradient


def overwritten_by_ones(x):
    a = x * 3.0
    s = 0.0
    for i in range(2):
        s = s + np.sum(a * a)
        a = np.ones(np.shape(x))
    return s


def overwritten_in_a_while_loop(x):
    a = x * 3.0
    s = 0.0
    n = 0
    while n < 3:
        s = s + np.sum(a * a)
        a = np.ones(np.shape(x)) * 2.0
        n = n + 1
    return s


def overwritten_by_a_comparison(x):
    a = x * 1.0
    s = 0.0
    for i in range(3):
        s = s + np.sum(a * x)
        a = x > 0.5
    return s


@pytest.mark.parametrize("f", [overwritten_by_ones, overwritten_in_a_while_loop,
                               overwritten_by_a_comparison])
@pytest.mark.parametrize("disable", [None, "all"])
def test_the_overwritten_values_adjoint_does_not_reach_the_turn_before(f, disable):
    x = np.array([0.3, 0.9, 1.4])
    expected = central(f, x)
    if disable is None:
        got = srcad.grad(f)(x)
    else:  # the unoptimized derivative, built as it is: the loop kept whole
        got = srcad.value_and_grad(f, disable=disable)(x)[1]
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)


def test_all_modes_agree_on_a_loop_overwritten_by_a_constant():
    srcad.check_grads(overwritten_in_a_while_loop, (np.array([0.3, 0.9, 1.4]),), order=2)


def helper_rebinding_its_parameter(a, b, c):
    for a, b in zip(a, a):
        pass
    return -0.9 * a


def calls_the_rebinding_helper(A, m):
    t2 = helper_rebinding_its_parameter(np.sqrt(1.5 + np.tanh(A)), A, A)
    return t2 + np.sin(A[0, 0])


def test_reverse_over_reverse_of_a_helper_whose_adjoint_resets_in_a_loop():
    A = np.array([[0.55], [0.61], [1.44], [0.27]])
    w = np.array([[0.88], [1.28], [0.57], [0.75]])
    gradient = srcad.grad(calls_the_rebinding_helper, wrt=0)
    got = srcad.vjp(gradient, wrt=0)(A, 4, w)
    # d/dA <grad f(A), w>, by central differences of the first-order gradient
    expected = central_gradient(lambda B: float(np.sum(gradient(B, 4) * w)), (A,))
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)


def mask_carried_by_a_loop(x, n):
    acc = np.zeros(n)
    m = x - acc * 1.0
    for i in range(n):
        acc = acc + m * np.cos(x)
        m = m > 0.89
    return acc.sum()


def test_a_mask_times_one_is_not_the_mask():
    """The optimizer took a comparison's dtype from its operands (x > 0.89 as a float64, like x),
    so `1.0 * mask` became `mask` and `-mask * s` raised on a bool array; and two contributions
    1.0 * m1 + 1.0 * m2 were factored into 1.0 * (m1 + m2), an `or` of masks, not their sum."""
    x = np.array([0.5, 1.0, 2.0])
    expected = central_gradient(mask_carried_by_a_loop, (x, 3))
    np.testing.assert_allclose(srcad.grad(mask_carried_by_a_loop)(x, 3), expected, rtol=1e-6)
    srcad.check_grads(mask_carried_by_a_loop, (x, 3))
