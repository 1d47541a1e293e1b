"""x.sum().item() was refused ("srcad cannot tell which function this function is"): a method
of a value that is not a name is not known at build time, and .item had no rule. x.item() is
now the runtime's scalar_of(x), whose adjoint puts the number's adjoint back in x's shape.
The message for other methods of such values names the method."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central

X = np.array([0.3, 0.7, 1.1])


def item_of_a_sum(x):
    return x.sum().item() * 2 + x[2].item() ** 2 + np.reshape(x[:1], (1, 1)).item() * x[1]


def unknown_method(x):
    return np.sin(x).frobnicate()


def test_item_in_both_modes_and_at_second_order():
    right = central(item_of_a_sum, X)
    value, grad = srcad.value_and_grad(item_of_a_sum)(X)
    assert value == item_of_a_sum(X) and type(value) is type(item_of_a_sum(X))
    np.testing.assert_allclose(grad, right, rtol=1e-6)
    np.testing.assert_allclose(srcad.jvp(item_of_a_sum)(X, np.ones(3)), right.sum(), rtol=1e-6)
    np.testing.assert_allclose(srcad.hessian(item_of_a_sum)(X),
                               [[0, 1.0, 0], [1.0, 0, 0], [0, 0, 2.0]], atol=1e-9)
    # (the 1s: x[0] * x[1], through the item of a reshaped slice)


def test_an_unknown_method_of_a_value_is_named():
    with pytest.raises(srcad.SrcadError, match="the method frobnicate"):
        srcad.grad(unknown_method)(X)
