"""value_and_grad returned the value of f's output name after the adjoint sweep, which restores
overwritten names (and stores into arrays) to their earlier values: None after an early return
in a branch, 0.0 after a loop over a list, the argument itself after `x = x * 3` under a branch.
The value is kept as the primal sweep left it."""
import numpy as np
import pytest

import srcad


def early_return(x):
    if x > 1:
        return x * 2
    return x


def reassigned_under_branch(x):
    if x > 1:
        x = x * 3
    return x


def loop_over_list(x, xs):
    s = 0.0
    for v in xs:
        s = s + v * x
    return s


def kept_loop(x):
    for i in range(20):
        x = x * 1.1
    return np.sum(x)


def stored_into(x):
    y = x * 2.0
    for i in range(3):
        y[i % 2] = y[i % 2] * x[2]
    return y[:1]


@pytest.mark.parametrize("disable", ["all", None])
def test_the_value_is_what_f_returns(disable):
    vg = srcad.value_and_grad
    assert vg(early_return, disable=disable)(2.0) == (4.0, 2.0)
    assert vg(reassigned_under_branch, disable=disable)(2.0) == (6.0, 3.0)
    assert vg(loop_over_list, disable=disable)(2.0, [1.0, 2.0])[0] == 6.0
    x = np.array([0.5, 1.5, -0.5])
    value, _ = vg(kept_loop, disable=disable)(x)
    assert value == kept_loop(x)
    value, _ = vg(stored_into, disable=disable)(x)
    np.testing.assert_array_equal(value, stored_into(x))
