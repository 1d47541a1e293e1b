"""y1 = np.zeros(m, dtype=int); y4 = y1 + 0.0; y4[1:] += np.sum(x): the tangent of y4 was a
copy of y1's, int zeros (copy_tangent widened only float tangents), so the store into it
truncated the float tangent stored: the jvp was -3.0 for -3.78 (fuzz seed 410552, also the
Hessian-vector product and the forward Jacobian; the reverse mode was right). A tangent copied
for a float (or complex) array now has that array's dtype."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central


def stored_into_a_float_copy_of_ints(x):
    x = np.sin(x)
    y1 = np.zeros(3, dtype=int)
    y1[1] += x[1]
    y4 = y1 + 0.0
    y4[1:] += np.sum(x)
    return np.sum(y4 * x)


def from_bools(x):
    y = (x > 0) + 0.0
    y[0] = x[0] * 2.5
    return np.sum(y ** 2)


X = np.array([-1.15, 0.54, 0.83])


@pytest.mark.parametrize("func", [stored_into_a_float_copy_of_ints, from_bools],
                         ids=lambda f: f.__name__)
def test_forward_modes_keep_the_stored_tangent(func):
    right = central(func, X)
    np.testing.assert_allclose(srcad.grad(func)(X), right, rtol=1e-6)
    for v in np.eye(3):
        np.testing.assert_allclose(srcad.jvp(func)(X, v), right @ v, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(srcad.jacobian(func, mode="forward")(X), right, rtol=1e-6)
    gradient = srcad.grad(func)
    numeric = np.stack([(gradient(X + 1e-5 * e) - gradient(X - 1e-5 * e)) / 2e-5
                        for e in np.eye(3)], axis=1)
    np.testing.assert_allclose(srcad.hessian(func)(X), numeric, atol=1e-5)
