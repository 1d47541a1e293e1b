"""A list grown by append and read from its end while it grows (xs.append(step(xs[-1])), a
trajectory; xs[-2:], xs[1:], a negative index held in a name): the adjoint sweep reads the list
whole, as it is at the end, while its adjoint is popped as the appends are undone, so an index
counted from the end named other items there. The gradient was wrong with no error (2.35 off
for xs[-1] in 3 steps; found by a focused fuzzer of loops and lists). Reads before the last
append are now counted from the start (frontend/list_reads.py), and adjoints of one list of
different lengths add only where the longer's extra items are zeros (runtime.add_adjoint)."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient


def last(x, n):
    xs = [x * 1.0]
    for i in range(1, n):
        xs.append(np.sin(xs[-1]) * 0.9 + x)
    return np.sum(xs[-1] ** 2)


def last_two(x, n):
    xs = [x * 1.0, x * 2.0]
    for i in range(2, n):
        xs.append(np.sin(xs[-1]) + xs[-2] * 0.5)
    return np.sum(xs[-1] ** 2)


def windows(x, n):
    xs = [x * 1.0, x * 0.5]
    for i in range(2, n):
        xs.append(np.sum(np.stack(xs[-2:]), axis=0) * 0.5 + np.sin(x) + xs[1:][0] * 0.1)
    return np.sum(xs[-1] ** 2) + np.sum(np.stack(xs[::-1])[0])


def index_in_a_name(x, n):
    xs = [x * 1.0]
    back = -1
    for i in range(1, n):
        xs.append(np.tanh(xs[back] * 1.5) + x * 0.1)
        back = -2 if i % 2 else -1
    return np.sum(xs[-1] ** 2)


def two_loops(x, n):
    xs = [x * 1.0]
    for i in range(n):
        xs.append(np.sin(xs[-1]))
    y = xs[-1] * 2.0
    for i in range(n):
        xs.append(np.cos(xs[-1]) * y)
    return np.sum(xs[-1]) + np.sum(y)


@pytest.mark.parametrize("f", [last, last_two, windows, index_in_a_name, two_loops])
@pytest.mark.parametrize("disable", [None, "all"])
@pytest.mark.parametrize("n", [3, 6])
def test_gradient(f, disable, n):
    x = np.array([0.3, -0.2, 0.5])
    got = srcad.grad(f, disable=disable)(x, n)
    np.testing.assert_allclose(got, central_gradient(f, (x, n)), rtol=1e-6, atol=1e-9)
    v = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(srcad.jvp(f, disable=disable)(x, n, v), got @ v, rtol=1e-10)


def too_far_back(x, n):
    xs = [x * 1.0]
    for i in range(n):
        xs.append(xs[-3] * 2.0)
    return np.sum(xs[-1])


def test_an_index_past_the_start_is_still_an_index_error():
    with pytest.raises(IndexError):
        too_far_back(np.ones(2), 2)
    with pytest.raises(IndexError):
        srcad.grad(too_far_back)(np.ones(2), 2)
