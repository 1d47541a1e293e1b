"""A float64 number parameter's adjoint is a Python float in shape-specialized reverse mode
(issue 15, item 2): `bk = 0.0`, not `bk = zero_gradient(k)` (a 0-d array, which makes every
later `bk += ...` an array operation of about a microsecond, in a loop of an ODE's steps)."""
import numpy as np

import srcad

from regressions.numeric import central_gradient


def euler(k, c, y0):
    y = y0
    for t in range(100):
        y = y + 0.01 * (-k * y + c * np.sin(y))
    return np.sum(y * y)


def test_a_float_parameters_adjoint_starts_as_a_number():
    y0 = np.ones(3)
    text = srcad.source(euler, wrt=(0, 1), args=(0.5, 0.2, y0))
    assert "bk = 0.0" in text and "bc = 0.0" in text and "zero_gradient" not in text
    gk, gc = srcad.grad(euler, wrt=(0, 1))(0.5, 0.2, y0)
    assert np.ndim(gk) == 0 and isinstance(gk, float)  # (np.float64 is a float)
    np.testing.assert_allclose([gk, gc], [central_gradient(euler, (0.5, 0.2, y0), i)
                                          for i in (0, 1)], rtol=1e-7)


def test_a_float32_number_keeps_its_dtype():
    y0 = np.ones(3, dtype=np.float32)
    gk = srcad.grad(euler)(np.float32(0.5), np.float32(0.2), y0)
    assert np.result_type(gk) == np.float32
