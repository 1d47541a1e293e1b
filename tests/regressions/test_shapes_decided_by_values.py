"""A derivative specialized to its arguments' shapes was used again for arguments of the same
shapes whose values decide other shapes inside: np.mean(x[x > 0]) built at a point with one
positive entry gave, at a point with two, the value 1.1 for 0.55 and the gradient [1, 1, 0]
for [0.5, 0.5, 0] (the probe's shape (1,) was written into the code), with no error; a list
grown under `if x[i] > 0` and stacked gave twice the gradient, or crashed. Found by a focused
fuzzer calling each derivative again at new values. A float array whose values are read in
an index, as a size, by a selection (np.nonzero, np.where(c)) or in the test of an if or while
that grows a list or stops a loop now takes the code for any shapes, as a float that decides
a shape did (analysis/values.py float_values_read); so does one read in the test of an if or
while that binds a name, read after it, whose shape the probe could not fix (a number on one
path, an array on the other)."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient


def masked_mean(x):
    return np.mean(x[x > 0])


def appended_where_positive(x):
    kept = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            kept.append(np.sin(x) * x[i])
    return np.sum(np.mean(np.stack(kept), axis=0))


def last_appended(x):
    kept = [x * 0.5]
    for i in range(x.shape[0]):
        if x[i] > 0:
            kept.append(np.sin(x) * x[i])
    return np.sum(np.stack(kept)[-1] ** 2) + len(kept)


def nonzero_entries(x):
    picked = np.nonzero(x > 0)[0]
    return np.sum(np.tanh(x[picked]) ** 2) / (1.0 + picked.shape[0])


def prefix_of_counted_length(x):
    k = int(np.sum(x > 0))
    return np.sum(np.cumsum(x)[:k + 1] ** 2)


def until_small(x):
    steps = [x]
    for i in range(20):
        if np.sum(steps[-1] ** 2) < 0.06:
            break
        steps.append(steps[-1] * 0.5)
    return np.sum(np.stack(steps) ** 2)


def a_number_in_one_branch(x):
    """(m has x's shape on one path and is a number on the other; what is computed from m
    after the branch was specialized to the path the probe took: fuzz seed 158734)"""
    m = x * 0.8
    if np.sum(x) > -0.5:
        m = np.sum(m ** 2) * 0.1
    return np.mean(np.tanh(m) ** 2) + np.sum(np.sin(x))


X1 = np.array([0.3, -0.5, -0.7])
X2 = np.array([0.6, 0.5, -0.7])


@pytest.mark.parametrize("f", [masked_mean, appended_where_positive, last_appended,
                               nonzero_entries, prefix_of_counted_length, until_small,
                               a_number_in_one_branch])
@pytest.mark.parametrize("disable", [None, "all"])
def test_called_again_at_values_that_change_shapes_inside(f, disable):
    value_and_grad = srcad.value_and_grad(f, disable=disable)
    jvp = srcad.jvp(f, disable=disable)
    for x in (X1, X2, X1):
        value, grad = value_and_grad(x)
        assert value == pytest.approx(f(x), rel=1e-12)
        np.testing.assert_allclose(grad, central_gradient(f, (x,)), rtol=1e-6, atol=1e-9)
        v = np.array([1.0, -0.5, 0.3])
        np.testing.assert_allclose(jvp(x, v), grad @ v, rtol=1e-10, atol=1e-12)
