"""NumPy and SciPy take lists and tuples wherever they take arrays. Three mechanisms broke on
a constant list or tuple operand (crashes in generated code, where f itself runs):
- the tangent of a display of constants is a display of zeros, [0.0, 0.0, 0.0] (a display
  keeps its shape: an item of np.concatenate's or a list of a helper's), which solve's helpers
  indexed as an array: the jvp of np.linalg.solve(A, [1.0, 2.0, 3.0]) raised in solve_column.
  They now take it as solve does (np.asarray);
- np.convolve's adjoint asked np.result_type for the dtype of v as given: a list is read as a
  dtype specification there ("Field elements must be 2- or 3-tuples");
- scipy.stats.poisson/binom's templates computed k - loc in Python: a list of counts minus an
  int."""
import numpy as np
import pytest

try:
    import scipy.stats
except ImportError:  # (optional: the rows that use it skip)
    scipy = None

import srcad
from tests.regressions.numeric import central

X = np.array([0.3, 0.7, 1.1])
T = np.array([0.5, -1.0, 2.0])


def solve_with_a_list(x):
    return np.sum(np.linalg.solve(np.eye(3) * 2 + np.outer(x, x), [1.0, 2.0, 3.0]))


def solve_with_a_tuple(x):
    return np.sum(np.linalg.solve(np.eye(3) * 2 + np.outer(x, x), (1.0, 2.0, 3.0)) * x)


def matmul_of_a_nested_list(x):
    return np.sum(np.matmul([[1.0, 2.0, 0.5], [0.0, 1.0, 3.0]], x) ** 2)


def convolve_with_a_list(x):
    return np.sum(np.convolve(x, [1.0, 2.0]) ** 2)


def convolve_with_a_tuple(x):
    return np.sum(np.convolve(x, (1.0, -1.0), "valid") ** 2) + np.sum(
        np.convolve(x, [0.5, 2.0, 1.0], "same"))


def poisson_of_listed_counts(x):
    return np.sum(scipy.stats.poisson.logpmf([1, 2, 3], x ** 2 + 0.5))


def binom_of_listed_counts(x):
    return np.sum(scipy.stats.binom.logpmf([1, 2, 0], [3, 4, 2], 1.0 / (1.0 + np.exp(-x))))


CASES = [solve_with_a_list, solve_with_a_tuple, matmul_of_a_nested_list,
         convolve_with_a_list, convolve_with_a_tuple, poisson_of_listed_counts,
         binom_of_listed_counts]


@pytest.mark.parametrize("func", CASES, ids=lambda f: f.__name__)
def test_both_modes_take_a_constant_list_operand(func):
    if func.__name__.endswith("counts") and scipy is None:
        pytest.skip("scipy is optional: the poisson and binom rows call scipy.stats")
    right = central(func, X)
    np.testing.assert_allclose(srcad.grad(func)(X), right, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcad.jvp(func)(X, T), right @ T, rtol=1e-6, atol=1e-8)


def solve_with_a_nested_list(x):
    return np.sum(np.linalg.solve(np.eye(2) * 3 + np.outer(x[:2], x[1:]),
                                  [[1.0, 2.0], [0.5, -1.0]]) * x[0])


def solve_with_a_tuple_of_a_value(x):
    return np.sum(np.linalg.solve(np.eye(3) * 2 + np.outer(x, x), (1.0, x[0] * 3.0, 3.0)))


def concatenate_with_a_list_item(x):
    return np.sum(np.concatenate((x, np.ones(3), [1.0, 2.0])) ** 2)  # (an item keeps its
    # zeros' shape: [0.0, 0.0])


@pytest.mark.parametrize("func", [solve_with_a_nested_list, solve_with_a_tuple_of_a_value,
                                  concatenate_with_a_list_item],
                         ids=lambda f: f.__name__)
def test_nested_and_item_displays_of_constants(func):
    right = central(func, X)
    np.testing.assert_allclose(srcad.grad(func)(X), right, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcad.jvp(func)(X, T), right @ T, rtol=1e-6, atol=1e-8)
