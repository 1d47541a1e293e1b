"""A bool mask or int array argument is keyed by its shape and dtype, and only float arrays'
values were followed into the places where values decide shapes: np.mean(x[m] ** 2) built for
a mask with two True entries gave, for a mask of the same shape with three, the value 0.895 for
0.597 and the gradient [0.3, 0.7, 1.1] for [0.2, 0.47, 0.73], silently; so did x[:k[0]] for an
int array k, and a global mask changed in place; a list grown under `if m[i]` crashed. Arrays
of every dtype are now followed (the code for any shapes runs for them), except an int array
indexing whole (x[idx]: the result has idx's shape whatever its values)."""
import numpy as np
import pytest

import srcad
from srcad.pipeline import build
from tests.regressions.numeric import central_gradient

X = np.array([0.3, 0.7, 1.1])
MASK = np.array([True, False, True])


def masked_mean(x, m):
    return np.mean(x[m] ** 2)


def prefix_mean(x, k):
    return np.mean(x[:k[0]] ** 2)


def grown_where_masked(x, m):
    kept = []
    for i in range(3):
        if m[i]:
            kept.append(x[i] ** 2)
    return np.mean(np.stack(kept))


def masked_by_a_global(x):
    return np.mean(x[MASK] ** 2)


def gathered(x, idx):
    return np.sum(x[idx] ** 2)


FEW, ALL = np.array([True, False, True]), np.array([True, True, True])
CASES = [(masked_mean, [(FEW,), (ALL,), (FEW,)]), (grown_where_masked, [(FEW,), (ALL,)]),
         (prefix_mean, [(np.array([2]),), (np.array([3]),)])]


@pytest.mark.parametrize("func, calls", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_each_mask_gets_its_own_numbers(func, calls):
    derivative = srcad.value_and_grad(func)
    for extra in calls:
        value, grad = derivative(X, *extra)
        assert value == func(X, *extra)
        np.testing.assert_allclose(grad, central_gradient(func, (X,) + extra), rtol=1e-6)


def test_a_global_mask_changed_in_place():
    derivative = srcad.value_and_grad(masked_by_a_global)
    try:
        for mask in (FEW, ALL, FEW):
            MASK[:] = mask
            value, grad = derivative(X)
            assert value == masked_by_a_global(X)
            np.testing.assert_allclose(grad, central_gradient(masked_by_a_global, (X,)),
                                       rtol=1e-6)
    finally:
        MASK[:] = FEW


def test_an_int_array_indexing_whole_keeps_the_specialized_build():
    idx = np.array([2, 0, 2])
    assert build(gathered, example=((X, idx), {})).sized_floats == []
    assert build(prefix_mean, example=((X, np.array([2])), {})).sized_floats == [1]
    np.testing.assert_allclose(srcad.grad(gathered)(X, idx), [2 * 0.3, 0, 4 * 1.1])
