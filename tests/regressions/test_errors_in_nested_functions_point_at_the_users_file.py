"""A nested function is lifted out of the function around it: its code is written to a file
in the cache directory and compiled from there (frontend/lift.py). An error in it named that
file (/root/.cache/srcad/lifted_f_h_99ce9129e54d.py:2:33) and quoted its text: the user could
not find the line. The lifted function's nodes now keep their places in the user's file
(parse._at_origin). A nested function that calls itself is refused at its def, saying why
(its own name is not bound where it is lifted to) and what to do."""
import numpy as np
import pytest

import srcad

X = np.array([0.3, 0.7])


def unknown_method_in_a_nested_function(x):
    def h(v):
        return np.sin(v).frobnicate(2)
    return h(x[0]) + x[1]


def a_nested_function_that_calls_itself(x):
    def p(v, n):
        return v if n == 0 else v * p(v, n - 1)
    return p(x[0], 3) + x[1]


def test_an_error_in_a_nested_function_names_the_users_line():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(unknown_method_in_a_nested_function)(X)
    text = str(info.value)
    assert __file__.rsplit("/", 1)[-1] + ":17:16:" in text, text
    assert "return np.sin(v).frobnicate(2)" in text
    assert ".cache" not in text and "lifted_" not in text


def test_a_nested_function_calling_itself_is_refused_at_its_def():
    with pytest.raises(srcad.SrcadError, match="nested function p calls itself") as info:
        srcad.grad(a_nested_function_that_calls_itself)(X)
    assert __file__.rsplit("/", 1)[-1] + ":22:5:" in str(info.value)
    assert "define p at module level" in str(info.value)
