"""max(a, b, c) and min over three or more values were refused with "srcad cannot match this
call to its template (takes 3 positional arguments)": the templates are of two values. They
are now max(max(a, b), c), which is Python's max to the bit (each keeps the first of equal
values; a later value replaces the kept one only when greater). max(items) over one iterable
is refused saying so, with what to write instead."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import check_value_gradient_and_tangent

X = np.array([0.3, 0.7, 1.1])


def of_three(x):
    return max(x[0], x[1] * 2, x[2]) * min(x[0], x[1], x[2], 0.9)


def of_four_in_a_loop(x):
    s = 0.0
    for i in range(3):
        s = s + max(x[i], 0.5, s * 0.1, x[0] - 1.0)
    return s


def of_one_iterable(x):
    return max(x)


@pytest.mark.parametrize("func", [of_three, of_four_in_a_loop], ids=lambda f: f.__name__)
def test_max_and_min_of_several_values(func):
    check_value_gradient_and_tangent(func, X, atol=1e-8)


def test_max_over_one_iterable_is_refused_with_what_to_write():
    with pytest.raises(srcad.SrcadError, match=r"not max\(\) over the items of one iterable"
                       ) as info:
        srcad.grad(of_one_iterable)(X)
    assert "np.max(x)" in str(info.value)
    assert "test_builtin_max_and_min_of_values.py:27" in str(info.value)
