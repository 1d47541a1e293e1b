"""A division in an untaken np.where branch gave a nan gradient where the derivative is 0.

The mean of each group, 0 for an empty one, `np.where(counts > 0, sums / counts, 0.0)`, has
gradient 0 in the sums of the empty groups (the output does not depend on them): srcad gave
nan there (grad of sum(m ** 2) at counts [2, 0, 1]: [0.5, nan, 6] for [0.5, 0, 6]), and so
for `1 / (1 + np.sqrt(x))` under `np.where(x > 0, ...)` at x < 0. The adjoint of x / y
divided the untaken branch's zero adjoint by the zero (or nan) divisor: 0 / 0. Its adjoint
now divides through safe_div (a zero adjoint stays zero), and its share of y through safe_mul,
or for 1 / y through safe_div again; optimize/guards.py writes them as plain operations
where the divisor cannot be 0 or nan (the sigmoid 1 / (1 + exp(-z)): at least 1), or where
its zeros make the output inf or nan anyway, so the benchmark workloads' gradients kept their
plain divisions (docs/numerics.md, section 1). Forward mode was right (np.where's tangent
picks the taken branch's)."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient

SUMS = np.array([1.0, 2.0, 3.0, -0.5])
COUNTS = np.array([2.0, 0.0, 1.0, 0.0])


def group_means(sums, counts):
    means = np.where(counts > 0, sums / counts, 0.0)
    return np.sum(means ** 2)


def reciprocal_where_nonzero(c):
    return np.sum(np.where(c != 0, 1.0 / c, 0.0) * np.array([1.0, 2.0, 3.0, 4.0]))


def root_in_a_divisor(x):
    return np.sum(np.where(x > 0, 1.0 / (1.0 + np.sqrt(x)), 0.0))


def sigmoid_under_where(z, m):
    return np.sum(np.where(m, 1.0 / (1.0 + np.exp(-z)), 0.0) ** 2)


def right_group_gradient():
    return np.array([2.0 * (1.0 / 2.0) / 2.0, 0.0, 2.0 * 3.0 / 1.0, 0.0])


@pytest.mark.parametrize("disable", [None, "specialize", "all"])
def test_a_zero_divisor_in_the_untaken_branch_gives_zero(disable):
    grad = srcad.grad(group_means, disable=disable)(SUMS, COUNTS)
    np.testing.assert_array_equal(grad, right_group_gradient())
    value, grad = srcad.value_and_grad(group_means, disable=disable)(SUMS, COUNTS)
    assert value == group_means(SUMS, COUNTS)
    np.testing.assert_array_equal(grad, right_group_gradient())
    np.testing.assert_allclose(srcad.jvp(group_means, disable=disable)(SUMS, COUNTS, np.ones(4)),
                               right_group_gradient().sum())


def test_second_order_through_the_guarded_division():
    hessian = srcad.hessian(group_means)(SUMS, COUNTS)
    np.testing.assert_array_equal(hessian, np.diag([2.0 / 4.0, 0.0, 2.0, 0.0]))


def test_the_divisor_s_own_gradient_away_from_its_zeros():
    counts = np.array([2.0, -1.0, 1.0, -3.0])  # the untaken entries: negative, not 0
    grads = srcad.grad(group_means, wrt=(0, 1))(SUMS, counts)
    for i, grad in enumerate(grads):
        np.testing.assert_allclose(grad, central_gradient(group_means, (SUMS, counts), i),
                                   rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("disable", [None, "specialize"])
def test_a_reciprocal_at_zero_in_the_untaken_branch(disable):
    c = np.array([2.0, 0.0, -1.0, 0.0])
    grad = srcad.grad(reciprocal_where_nonzero, disable=disable)(c)
    np.testing.assert_array_equal(grad, [-1.0 / 4.0, 0.0, -3.0, 0.0])


def test_a_nan_divisor_in_the_untaken_branch_gives_zero():
    x = np.array([-1.0, 4.0, -0.25])
    grad = srcad.grad(root_in_a_divisor)(x)
    assert grad[0] == 0.0 and grad[2] == 0.0
    np.testing.assert_allclose(grad[1], central_gradient(root_in_a_divisor, (x,))[1], rtol=1e-6)


def test_a_divisor_that_cannot_be_zero_is_divided_plainly():
    z, m = np.array([0.3, -1.2, 2.0]), np.array([True, False, True])
    text = srcad.source(sigmoid_under_where, args=(z, m))
    body = text[text.index("def sigmoid_under_where_grad"):]
    assert "safe_div(" not in body  # (1 + exp(-z) >= 1: optimize/guards.py)
    np.testing.assert_allclose(srcad.grad(sigmoid_under_where)(z, m),
                               central_gradient(sigmoid_under_where, (z, m)), rtol=1e-6)
