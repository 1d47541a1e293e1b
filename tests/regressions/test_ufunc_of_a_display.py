"""A ufunc applied to a list display, np.sin([A]): numpy makes an array of the list, and the
gradient srcad generates keeps the display as an operand (bt1 * np.cos([A])). hvp runs
forward mode over that code, whose template wrote the tangent as -[dA] * np.sin([A]): a list
cannot be negated (TypeError), and [dA] * 2 would repeat the list. The tangent of a display
operand of a ufunc is now np.asarray of the display of tangents (fuzz seed 301097)."""
import numpy as np

import srcad


def sine_of_a_list(A):
    return np.sum(np.sin([A]))


def ufuncs_of_displays(A, B):
    return np.sum(np.sin([A, B])) + np.sum(np.exp((A, B)) * 2.0)


def test_hvp_of_a_ufunc_of_a_list():
    A, v = np.array([[0.26, -0.4]]), np.array([[1.0, 1.0]])
    np.testing.assert_allclose(srcad.hvp(sine_of_a_list)(A, v), -np.sin(A) * v, rtol=1e-12)


def test_second_order_of_ufuncs_of_displays():
    A, B = np.array([[0.26, -0.4]]), np.array([[0.1, 0.7]])
    srcad.check_grads(ufuncs_of_displays, (A, B), wrt=(0, 1), order=2)
    srcad.check_grads(ufuncs_of_displays, (A, B), wrt=(0, 1))
