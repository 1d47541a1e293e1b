"""Writes into arrays that another name can see (srcad/mutation.py, the mutation fence).

srcad treats names as values. A write into an array changes every name that shares it: a view
(v = y[1:]), another name for the same array (z = y), the caller's argument. srcad models a
write only into an array the function made that nothing read afterwards shares; the rest is
refused at the user's line, never differentiated wrongly. These programs gave wrong numbers
without an error before the fence."""
import numpy as np
import pytest

import srcad

from .numeric import central

X = np.array([0.7, -1.3, 2.1])


def add_through_a_view(x):
    y = x.copy()
    v = y[1:]
    v += x[:-1]
    return np.sum(y * y)


def scale_through_reshape(x):
    y = x.copy()
    v = y.reshape(-1)
    v *= 3
    return np.sum(y * y)


def store_through_ravel(x):
    y = x.copy()
    r = y.ravel()
    r[0] = x[1] * 5
    return np.sum(y * y)


def in_place_on_a_shared_array(x):
    x = x * 1.0
    y = x
    y *= 2
    return np.sum(x * x)


def store_into_asarray_of_argument(x):
    y = np.asarray(x)
    y[0] = 3.0
    return np.sum(y * y)


def store_into_argument(x):
    x[0] = 3.0
    return np.sum(x * x)


def multiply_at(x):
    y = np.ones(3)
    np.multiply.at(y, np.array([0, 0, 1]), x)
    return np.sum(y * y)


def add_at_into_an_argument(x):
    np.add.at(x, np.array([0, 0, 1]), 2.0)
    return np.sum(x * x)


def sort_in_place(x):
    y = x * 2.0
    y.sort()
    return y[0] * 3.0 + y[2]


def fill_in_place(x):
    y = x * 2.0
    y.fill(1.0)
    return np.sum(y * x)


def _mutates(a):
    a[0] = 0.0


def _push(stack, value):
    stack.append(value)


def helper_that_appends_to_its_argument(x):
    s = []
    _push(s, x * 2.0)
    b = s.pop()
    return np.sum(b * x)


def helper_that_writes_its_argument(x):
    y = x * 2.0
    _mutates(y)
    return np.sum(y * x)


@pytest.mark.parametrize("func, what", [
    (add_through_a_view, "writes into the array v holds"),
    (scale_through_reshape, "writes into the array v holds"),
    (store_through_ravel, "may share its memory"),
    (in_place_on_a_shared_array, "writes into the array y holds"),
    (store_into_asarray_of_argument, "may be an argument"),
    (store_into_argument, "may be an argument"),
    (multiply_at, "np.multiply.at writes into its argument"),
    (add_at_into_an_argument, "may be an argument"),
    (sort_in_place, r"\.sort\(\)"),
    (fill_in_place, r"\.fill\(\)"),
    (helper_that_writes_its_argument, "changes an argument in place"),
    (helper_that_appends_to_its_argument, "changes an argument in place"),
])
def test_writes_srcad_cannot_model_are_refused_at_the_line(func, what):
    for transform in (srcad.grad, srcad.jvp):
        with pytest.raises(srcad.SrcadError, match=what) as caught:
            transform(func)
        assert "test_writes_through_other_names.py:" in str(caught.value)


def copy_then_store(x):
    y = x * 1.0  # a new array: the optimizer must not turn it into x itself
    y[0] = 7.0
    return np.sum(y * x)


def reshaped_copy_then_store(x):
    y = np.reshape(x * 1, (3,))
    y[1] = 0.5
    return np.sum(y * x)


def stored_twice(x, w):
    y = x * 2.0
    y[0] = 2.0
    s = np.sum(y * w)  # the adjoint of w is y, which the next store changes
    y[1] = 3.0
    return s + np.sum(y * y)


def view_read_before_store(x):
    y = x.copy()
    y[1:] *= x[0]  # reads y[1:] (a view) before storing over it
    return np.sum(y * y)


def outer_row_update(x):
    y = np.outer(x, x)
    y[-1] = y[-1] * x
    return np.sum(y * y)


@pytest.mark.parametrize("func", [copy_then_store, reshaped_copy_then_store,
                                  view_read_before_store, outer_row_update])
def test_stores_into_arrays_the_function_made(func):
    for disable in (None, "all"):
        x = X.copy()
        got = srcad.grad(func, disable=disable)(x)
        np.testing.assert_array_equal(x, X)  # the argument is untouched
        np.testing.assert_allclose(got, central(func, X), rtol=1e-7, atol=1e-9)


def test_an_adjoint_is_not_an_array_a_later_restore_changes():
    w = np.array([0.3, -0.4, 1.1])
    for disable in (None, "all"):
        got = srcad.grad(stored_twice, wrt=1, disable=disable)(X, w)
        np.testing.assert_allclose(got, central(lambda v: stored_twice(X, v), w), rtol=1e-7)
