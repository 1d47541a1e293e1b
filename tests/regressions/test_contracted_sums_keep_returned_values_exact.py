"""out = np.sum(a * b) * w, w from a loop: the adjoint of w is np.sum(a * b) too, and the optimizer keeps one
of the two equal expressions, under the adjoint's name (bw = (a * b).sum(); out = bw * w). The
contract pass then wrote that adjoint as np.vdot(a, b), which adds in another order: where the
code returns f's values (value_and_grad), the value was f's in all but the last bit (fuzz seed
440017, with the fuzzer's lowered size threshold; arrays of 1,000 items or more reach it by
default). A derived name whose value reaches f's own values (analysis/defuse.feeding_values)
now keeps its sum as written there; the factorizations pass asks the same."""
import numpy as np
import pytest

import srcad


def scaled_sum_of_products(x, y, z):
    w = np.sum(y) ** 2
    while w < 37.73:  # (w's adjoint is a variable of the loop's adjoint)
        w = w * 1.5 + 0.1
    t = x * z
    return t.sum() * w


@pytest.mark.parametrize("seed", range(6))
def test_value_and_grad_returns_fs_value_to_the_bit(seed):
    rng = np.random.default_rng(seed)
    x, y, z = rng.normal(size=(40, 40)), rng.normal(size=3), rng.normal(size=(40, 40))
    value, (gx, gy) = srcad.value_and_grad(scaled_sum_of_products, wrt=(0, 1))(x, y, z)
    assert value == scaled_sum_of_products(x, y, z)
    w = np.sum(y) ** 2
    while w < 37.73:
        w = w * 1.5 + 0.1
    np.testing.assert_allclose(gx, z * w, rtol=1e-12)

