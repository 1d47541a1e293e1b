"""Values a loop turn computes once are pushed together at the end of the turn. A while loop's
condition is computed again after the closing `if flag: break`, so "the end" was after the
break: on the last turn nothing was pushed, and the adjoint sweep popped the wrong values
(TypeError, or a wrong number). They are pushed before the closing break."""
import numpy as np

import srcad

from .numeric import central


def while_with_break(x):
    y = x
    n = 0
    while y < 10.0 and n < 50:
        y = y * 1.5 + np.cos(y)
        n = n + 1
        if y > 8.0:
            break
    return y / x


def test_reverse_mode_of_a_while_loop_left_by_break():
    for disable in ("all", None):  # generic code (what hvp differentiates) and optimized
        got = srcad.vjp(while_with_break, disable=disable)(1.3, 1.0)
        np.testing.assert_allclose(got, central(while_with_break, 1.3), rtol=1e-7)
        got = srcad.value_and_grad(while_with_break, disable=disable)(np.array(1.3))
        np.testing.assert_allclose(got[1], central(while_with_break, 1.3), rtol=1e-7)
