"""* in displays, at call sites and in helper definitions (frontend/starred.py, calls.bind):
checked in both modes and to second order against central differences."""
import numpy as np
import pytest

import srcad

R = np.random.RandomState(11)
X = R.randn(3)
Y = R.randn(3)


def squares(*arrays):
    return sum(np.sum(a ** 2) for a in arrays)


def scaled_squares(scale, *arrays):
    total = 0.0
    for a in arrays:
        total = total + scale * np.sum(np.sin(a) * a)
    return total


def pair_product(a, b):
    return np.sum(a * b)


def helper_with_star_args(x, y):
    return squares(x, y * 2.0) + scaled_squares(0.5, x, y, x * y)


def star_at_the_call(x, y):
    p = (x, y)
    q = [x * 2.0, y]
    return pair_product(*p) + pair_product(x, *q[1:]) + scaled_squares(2.0, *q)


def starred_displays(x, y):
    a = [x, y]
    joined = np.concatenate([*a, x * y])
    t = (*a, np.sin(x))
    return np.sum(joined ** 2) + np.sum(t[2] * t[0])


@pytest.mark.parametrize("func", [helper_with_star_args, star_at_the_call, starred_displays])
@pytest.mark.parametrize("wrt", [0, 1])
def test_starred(func, wrt):
    srcad.check_grads(func, (X, Y), wrt=wrt, order=2)
    np.testing.assert_allclose(srcad.grad(func, wrt=wrt, disable="specialize")(X, Y),
                               srcad.grad(func, wrt=wrt)(X, Y), rtol=1e-12, atol=1e-12)


def with_defaults(a, b=1.0):
    return np.sum(a * b)


def star_of_a_tuple_into_defaults(x, y):
    p = (x, y)  # (bound once to a display: two items, whatever the callee's defaults)
    return with_defaults(*p)


def star_into_defaults(x, y):
    p = [x, y][:np.size(y) % 2 + 1]
    return with_defaults(*p)


def test_star_of_a_tuple_display_fills_parameters_with_defaults():
    srcad.check_grads(star_of_a_tuple_into_defaults, (X, Y), wrt=(0, 1), order=2)


def test_star_filling_parameters_with_defaults_is_refused_at_the_users_line():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(star_into_defaults)(X, Y)
    message = str(info.value)
    assert "test_starred.py" in message and "with_defaults(*p)" in message
