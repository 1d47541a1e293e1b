"""A function nested in the differentiated one and named like one of srcad's runtime helpers
(def safe_div(a, b): ...) gave wrong gradients or crashed. Lifted out of the function
(frontend/lift.py), it was bound by its name in the namespace of the generated code, which calls
the runtime helper by that same name (safe_div in the adjoint of a division, unbroadcast,
unindex): the derivative called the user's function in the helper's place. Found by moving the
module-level helpers of fuzz programs into f (a gradient 15,516 off; TypeErrors from the user's
function called with the helper's arguments). The nested function is now renamed fresh before
it is lifted (safe_div_1), whether it is then written into its caller or stays a call.
"""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient

A = np.array([[0.3, -0.8, 1.1], [0.5, 0.9, -1.4]])


def divides_with_a_nested_safe_div(a, s):
    def safe_div(u, v):  # (not a division at all: the name is the helper's)
        return -v * v + u
    q = (a / (1.5 + np.sin(a))) * s
    return np.sum(q * safe_div(a, s))


def unbroadcasts_with_a_nested_unbroadcast(a, s):
    unbroadcast = lambda u: u * 2.0  # noqa: E731
    b = a + np.array([1.0, 2.0, 3.0]) * s  # (its adjoint sums a broadcast back: unbroadcast)
    return np.sum(np.sin(b) * unbroadcast(a))


@pytest.mark.parametrize("f", [divides_with_a_nested_safe_div,
                               unbroadcasts_with_a_nested_unbroadcast])
@pytest.mark.parametrize("disable", [(), ("inline",)])
def test_gradients_match_differences(f, disable):
    args = (A, 0.7)
    got = srcad.grad(f, wrt=(0, 1), disable=disable)(*args)
    for i in (0, 1):
        np.testing.assert_allclose(got[i], central_gradient(f, args, i), rtol=1e-6, atol=1e-8)
    tangent = srcad.jvp(f, wrt=1, disable=disable)(*args, 1.0)
    np.testing.assert_allclose(tangent[1] if isinstance(tangent, tuple) else tangent, got[1],
                               rtol=1e-10)


def test_the_nested_function_is_renamed_where_it_stays_a_call():
    text = srcad.source(divides_with_a_nested_safe_div, wrt=(0, 1), disable=("inline",))
    assert "safe_div_1_forward(" in text and "def safe_div_1_backward" in text
