"""The adjoint of a list display (np.diff(x, append=[1.0, x[1]]): [0.0, array(...)]) reached
runtime.unindex in reverse over reverse, whose np.result_type read the list as a dtype's fields
(TypeError: Field elements must be 2- or 3-tuples). unindex reads it as an array now."""
import numpy as np
import pytest

import srcad


def diff_with_appended(x):
    return np.sum(np.diff(x, n=2, append=[1.0, x[1]]) ** 2 * np.arange(4.0))


@pytest.mark.parametrize("mode", ["forward-over-reverse", "reverse-over-reverse",
                                  "reverse-over-forward", "forward-over-forward"])
def test_every_hessian_mode_of_a_diff_with_a_display_appended(mode):
    x = np.array([0.3, 0.8, 1.2, -0.4])
    gradient = srcad.grad(diff_with_appended)
    columns = []
    for k in range(4):
        step = np.zeros(4)
        step[k] = 1e-5
        columns.append((gradient(x + step) - gradient(x - step)) / 2e-5)
    np.testing.assert_allclose(srcad.hessian(diff_with_appended, mode=mode)(x),
                               np.stack(columns, axis=1), rtol=1e-5, atol=1e-6)
