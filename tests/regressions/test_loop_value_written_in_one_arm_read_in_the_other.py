"""A loop body whose if writes a name in one arm and, in the other, reads it (the value of a
turn before) and then writes it: the reverse sweep took the name for each turn's own value,
because the first arm in source order writes it before any read, and started its adjoint at
zero before the loop's adjoint. The unoptimized derivative (and every build for any shapes: a
helper's, reverse over reverse's) returned 0.0 without an error. Found by the fuzzer in reverse
over reverse (seed 56015, hvp_reverse: the generated gradient's adjoint loop has exactly that
shape, `if t3: t = stack.pop() else: ... t * t ...; t = stack.pop()`)."""
import numpy as np
import pytest

import srcad

from .numeric import central_gradient


def one_arm_reads_the_turn_before(x):
    t = x * 1.5
    s = 0.0
    for i in range(4):
        if i == 1:
            t = x * 2.0
        else:
            s = s + t * t
            t = np.sin(x)
    return s


def written_only_in_an_inner_loop(x, n):
    t = x * 1.5
    s = 0.0
    for i in range(3):
        s = s + t * t
        for j in range(n):
            t = np.sin(x) * (j + 1.0)
    return s


@pytest.mark.parametrize("disable", [None, "all"])
def test_a_value_one_arm_reads_keeps_its_adjoint_across_turns(disable):
    got = srcad.value_and_grad(one_arm_reads_the_turn_before, disable=disable)(0.7)[1]
    assert np.isclose(got, central_gradient(one_arm_reads_the_turn_before, (0.7,)), rtol=1e-7)


@pytest.mark.parametrize("n", [0, 1, 2])
def test_a_value_an_inner_loop_may_not_write_keeps_its_adjoint(n):
    got = srcad.value_and_grad(written_only_in_an_inner_loop, disable="all")(0.7, n)[1]
    assert np.isclose(got, central_gradient(written_only_in_an_inner_loop, (0.7, n)), rtol=1e-7)
    srcad.check_grads(written_only_in_an_inner_loop, (0.7, n))


def ifexp_in_a_loop(x, s, r):
    s1 = 1.0
    for a, b in zip(x, x):
        s1 += np.tanh(s if s < 0.12 else np.tanh(r))
    return s1


def test_reverse_over_reverse_of_a_loop_with_a_branch():
    x, s, r = np.array([1.3]), 1.5, -1.1
    gradient = srcad.grad(ifexp_in_a_loop, wrt=2)
    got = srcad.vjp(gradient, wrt=2)(x, s, r, 1.0)
    expected = (gradient(x, s, r + 1e-5) - gradient(x, s, r - 1e-5)) / 2e-5
    assert np.isclose(got, expected, rtol=1e-6)
