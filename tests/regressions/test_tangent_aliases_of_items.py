"""Forward mode gave a name read from a tuple or list (y = t[i]) a copy of its tangent when
the code stores into y, though y itself is the item (or a view of it): the store, and the
restore of what it overwrote, then missed the tangents of the other names of that array.
hvp runs forward mode over a gradient whose callee halves pass a tape: `y1 = tape[5]`, the
restore `y1[[1]] = stack.pop()` put back the primal view `t2 = y1[::-1]` but not its tangent,
so H v was wrong in one entry (fuzz seed 601356). A tangent now aliases or views as its
primal does for t[i] as for y = x.

The same restore, `y1[1:] = stack.pop()` with the view t2 = y1[1:] read after it, was not
differentiated at all when nothing read y1 by name afterwards (fuzz seed 602529): activity
sees names, not memory. In forward mode a store into an array is always differentiated."""
import numpy as np
import pytest

import srcad

from .numeric import numeric_hvp


def helper_storing_after_a_view(b):
    y = b + 0.0
    y[[1]] += np.dot(b, y[::-1])
    return y


def loss(x):
    return np.sum(helper_storing_after_a_view(x) ** 2)


def helper_scaling_a_tail(a, c):
    t1 = a[1]
    y1 = np.array(c)
    y1[1:] *= t1
    return y1


def scaled_tail(x):
    return helper_scaling_a_tail(x, np.array([0.5, 1.5, -2.0, 0.25])).sum()


def two_helper_calls(x):
    return np.sum(np.sin(helper_storing_after_a_view(x))) + loss(x[::-1])


@pytest.mark.parametrize("func", [loss, two_helper_calls, scaled_tail])
def test_hvp_where_a_store_follows_a_view_of_an_item(func):
    x = np.array([0.35, -0.96, 0.83, 0.53])
    v = np.array([-0.55, -0.35, -1.15, -0.87])
    np.testing.assert_allclose(srcad.hvp(func)(x, v), numeric_hvp(func, x, v), rtol=1e-5,
                               atol=1e-8)
    srcad.check_grads(func, (x,), order=2)


# The aliasing rule above is a mirror, and a mirror needs the primal's own copies mirrored too:
# `t3 = x[::-1] - c` is a new array, its tangent dx[::-1] a view of the caller's dx; with the
# store going into a view of t3 (v1 = t3[1:]; v1[0] = ...), t3 itself did not count as stored
# into, so its tangent was not copied, and hvp wrote into the caller's v (fuzz seed 708414).
# A name counts as stored into when any name that may share its storage is (mutation.py).

def store_into_a_view_of_a_new_array(x):
    t3 = x[::-1] - 1.5
    v1 = t3[1:]
    v1[0] = np.sum(x * x)
    return np.sum(v1 ** 2)


def test_hvp_leaves_the_callers_vector_alone():
    x = np.array([0.3, -0.7, 1.1, 0.4])
    v = np.array([2.0, -1.5, -1.25, 0.5])
    kept = v.copy()
    got = srcad.hvp(store_into_a_view_of_a_new_array)(x, v)
    np.testing.assert_array_equal(v, kept)
    np.testing.assert_allclose(got, numeric_hvp(store_into_a_view_of_a_new_array, x, kept),
                               rtol=1e-5, atol=1e-8)
    dx = kept.copy()
    srcad.jvp(store_into_a_view_of_a_new_array)(x, dx)
    np.testing.assert_array_equal(dx, kept)


def store_into_a_view_of_a_broadcast_sum(x, y):
    y = y + np.dot(x, x)
    v1 = y[1:]
    v1[0] = 1.99
    return np.sum(v1 * x[:1]) + 1.99


def test_hvp_does_not_store_into_a_read_only_broadcast_tangent():
    """The same mechanism: y's tangent was a broadcast of d(x.x), read-only, and the store
    through v1 = y[1:] raised ValueError in hvp (fuzz seed 708279)."""
    x, y, v = np.array([0.2, -0.9, 1.3]), np.array([0.1, 0.9]), np.array([0.33, -0.25, -0.06])
    got = srcad.hvp(store_into_a_view_of_a_broadcast_sum)(x, y, v)
    want = numeric_hvp(lambda x: store_into_a_view_of_a_broadcast_sum(x, y), x, v)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)  # (second differences: ~1e-8
    # of rounding in each entry)


def sum_of_tanh_of_items(xs):
    total = 1.0
    for i, v in enumerate(xs):
        total = total + (i + 1.0) * np.sum(np.tanh(v))
    return total


def symmetric_rows(a):
    t1 = a + a.T
    t1 = t1 + np.exp(t1)
    t1 /= np.exp(t1[0, 2])
    return t1[[0, 2, 0]]


def list_holding_an_array_stored_into(x):
    t1 = np.outer(x, x)
    t1 /= 1.5 + np.tanh(t1)
    t2 = (-x) + np.dot(t1, x)
    y1 = np.ones((3, 3))
    y1[0, -1] += (1.5 + np.tanh(-1.1)) ** 1.5
    y3 = x + 0.0
    y3[x > 0.327] = 1.8
    y3[1:] = np.maximum(1.2, 0.0)
    t3 = sum_of_tanh_of_items([t1, symmetric_rows(y1), y3])
    return np.sum(t2) + t3 + np.sum(np.sin(y3))


def test_a_list_holding_an_array_stored_into_keeps_its_tangents_as_items():
    """A display [t1, y3] holds y3, stored into: its tangent was np.copy of the display of
    tangents, an array of arrays of two shapes (ValueError in jvp and hvp; fuzz CI seed
    20240604). A display's tangent holds the items' tangents, as the display holds the items;
    a name stored into through another one has its tangent copied only if it is an array."""
    x = np.array([0.3, -0.5, 0.9])
    srcad.check_grads(list_holding_an_array_stored_into, (x,), order=2)
