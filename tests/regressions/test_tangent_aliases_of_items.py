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
