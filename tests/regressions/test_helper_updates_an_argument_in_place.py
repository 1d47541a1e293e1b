"""A helper that updates a parameter in place (b += 0.2 on an array changes the caller's
array) was differentiated as if it rebound a name: f's value and gradient were wrong (fuzz seed
46136). The fence knew only stores (b[0] = v) and writing methods, and checked only calls whose
result is not used. `b += e` on a parameter now counts as a write, and calls whose result is
assigned are checked too: refused at the call."""
import numpy as np
import pytest

import srcad


def helper(a, b, c):
    b += 0.2
    return a[0, 3]


def f(x):
    t4 = np.expand_dims(x, 0)
    t5 = np.concatenate([x])
    s1 = 0.0
    s1 -= helper(t4, t5, x)
    return t5.sum() + s1


@pytest.mark.parametrize("make", [srcad.grad, srcad.value_and_grad, srcad.jvp])
def test_helper_updates_an_argument_in_place(make):
    with pytest.raises(srcad.SrcadError) as info:
        d = make(f)
        x = np.array([-0.0, -0.5, 0.7, 1.1])
        d(x) if make is not srcad.jvp else d(x, x)
    assert "helper changes an argument in place" in str(info.value)
    assert "test_helper_updates_an_argument_in_place.py" in str(info.value)
