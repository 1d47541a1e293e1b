"""A nested function called before its def (a = g(x); def g(v): ...) raises UnboundLocalError in
Python, but srcad lifted g out of the function (frontend/lift.py) and computed a gradient for a
function that cannot run. The read is now refused, at its line."""
import numpy as np
import pytest

import srcad


def called_before_def(x):
    a = g(x)  # noqa: F821 (the point of the test)
    def g(v):
        return v * 2.0
    return np.sum(a)


def test_a_read_before_the_def_is_refused_at_the_read():
    x = np.array([0.3, -0.5])
    with pytest.raises(UnboundLocalError):
        called_before_def(x)
    with pytest.raises(srcad.SrcadError, match="before the nested function g is defined") as info:
        srcad.grad(called_before_def)(x)
    assert "test_nested_function_read_before_its_def.py:11:" in str(info.value)
