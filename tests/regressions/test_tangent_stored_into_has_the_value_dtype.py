"""Forward mode copies the tangent of a new array that the function then stores into (so that
the stores do not reach another name's tangent). The copy had the tangent's dtype: a float16
zero tangent (of a mask's np.tanh, bound to the name in a loop) of a value that an operand
which does not vary made float64 (b + np.zeros_like(z)) rounded what was stored into it to
float16: 0.4321 for 0.4321821179 (fuzz seed 149098, where verify mode caught it, the
unoptimized derivative being the rounded one). The copy is now in the value's float dtype
where the tangent's is narrower (runtime.copy_tangent)."""
import numpy as np
import pytest

import srcad


def stored_after_a_float16_turn(z):
    m = z
    for j in range(2):
        b = m
        m = np.tanh(z > 0.8)
    b = b + np.zeros_like(z)
    b[0] = z[0]
    return b.sum()


@pytest.mark.parametrize("disable", [None, "all"])
def test_jvp_is_not_rounded(disable):
    z = np.array([-0.2908802550083516, -1.0261911713076914, -0.3417177369636608])
    v = np.array([0.4321821179009072, 1.1984624888713957, -1.6151786920819007])
    got = srcad.jvp(stored_after_a_float16_turn, disable=disable)(z, v)
    assert got == v[0]
    assert srcad.grad(stored_after_a_float16_turn, disable=disable)(z) @ v == v[0]


def copied_then_stored_into(s, z):
    b = z
    for j in range(1, 1):
        b = s
    b = b + 1.0
    b[0] = 2.0
    return np.sum(z) + np.sum(b * z)


@pytest.mark.parametrize("disable", [None, "all"])
def test_a_tangent_stack_copied_before_a_store(disable):
    """(srcad.jacobian runs the code once on a stack of tangents, srcad's Batched: copy_value
    copied NumPy and other libraries' arrays only, so the store into the copy wrote into the
    stack of z's tangents: a Jacobian row of 0, fuzz seed 152100)"""
    z = np.array([0.3, -0.5, 0.7])
    forward = srcad.jacobian(copied_then_stored_into, wrt=1, mode="forward", disable=disable)
    reverse = srcad.jacobian(copied_then_stored_into, wrt=1, mode="reverse", disable=disable)
    np.testing.assert_allclose(forward(0.4, z), reverse(0.4, z), rtol=1e-12)
    np.testing.assert_allclose(reverse(0.4, z), 1.0 + np.array([0.0, 2 * z[1] + 1, 2 * z[2] + 1])
                               + np.array([2.0, 0.0, 0.0]), rtol=1e-12)
