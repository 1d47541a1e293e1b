"""np.add.at(y, idx, v) into an array the function made was refused ("writes into its argument
in place"), though scatter-adds (a mesh's assembly, a histogram, an embedding's gradient) are
common and exact to differentiate: y's entries pass through, v's reach the entries they were
added to, repeated indices each time. desugar writes it as a store into y,
y[...] = added_at(y, idx, v) (the runtime's copy and np.add.at: the same bits), which the fence
checks as any store (y made by the function, no other name for it read after) and the reverse
and forward passes follow; np.subtract.at adds -v. Into an argument it is refused at its line,
as a store there is; np.multiply.at stays refused. (The store's base is read, as Python's
y[...] = v reads y: written as a binding, the versioning pass left it at the old version after
t += 1.0, and the value was f's without the scatter-add: fuzz seed 420399.)"""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import check_value_gradient_and_tangent

X = np.array([0.3, 0.7, 1.1])


def repeated_indices(x):
    y = np.zeros(3)
    np.add.at(y, np.array([0, 0, 1]), x)
    return np.sum(y ** 2)


def into_a_copy_twice(x):
    y = x[:2] * 1.0
    np.add.at(y, [1, 1, 0], x * 2)
    np.subtract.at(y, 0, x[2] ** 2)
    return np.sum(np.sin(y))


def rows_and_columns(x):
    A = np.zeros((2, 3))
    rows, cols = np.array([0, 1, 1]), np.array([2, 0, 2])
    np.add.at(A, (rows, cols), x)
    np.add.at(A, 0, 0.5 * x[0])
    return np.sum(A ** 3) + A[1, 2] * x[1]


def in_a_loop(x):
    acc = np.zeros(2)
    for i in range(3):
        np.add.at(acc, [i % 2], x[i] * acc[0] + 1.0)
    return np.sum(acc ** 2)


def after_an_augmented_assignment(x):
    t = np.sin(x[::-1])
    t += 1.0  # (a new version of t: the store must go into the new one; fuzz seed 420399)
    np.add.at(t, np.array([1, 0, 1]), x[0] * 0.5)
    return np.sum(t ** 2)


CASES = [repeated_indices, into_a_copy_twice, rows_and_columns, in_a_loop,
         after_an_augmented_assignment]


@pytest.mark.parametrize("func", CASES, ids=lambda f: f.__name__)
def test_scatter_adds_in_every_mode(func):
    check_value_gradient_and_tangent(func, X, atol=1e-9)
    gradient = srcad.grad(func)
    numeric = np.stack([(gradient(X + 1e-5 * e) - gradient(X - 1e-5 * e)) / 2e-5
                        for e in np.eye(3)], axis=1)
    np.testing.assert_allclose(srcad.hessian(func)(X), numeric, atol=1e-5)


def test_an_error_in_the_rewritten_call_points_at_its_line():
    def into_an_argument(x):
        np.add.at(x, [0, 0], 1.0)
        return np.sum(x * x)
    with pytest.raises(srcad.SrcadError, match="may be an argument") as info:
        srcad.grad(into_an_argument)(X.copy())
    assert "np.add.at(x, [0, 0], 1.0)" in str(info.value)
