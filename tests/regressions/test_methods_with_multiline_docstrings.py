"""A method (or a closure) with a docstring of several lines is differentiated. The check that
a function's source is the code Python runs compiled the text dedented, and dedenting changes
the docstring's later lines: the constant differed, and srcad refused every such method with
"the file changed after it was loaded" (Random.gauss too). The text is now compiled as written,
under a block."""
import numpy as np

import srcad
from tests.regressions.numeric import central


class Model:
    def __init__(self, W):
        self.W = W

    def __call__(self, x):
        """The model's output.

        A docstring of several lines, as most methods have.
        """
        return np.tanh(self.W @ x)


model = Model(np.array([[0.5, -0.2, 0.1], [0.3, 0.4, -0.6]]))


def through_a_method(x):
    return np.sum(model(x) ** 2)


def make_closure(scale):
    def closure(x):
        """A closure's docstring.

            Indented further on its second line.
        """
        return scale * np.sum(np.sin(x))
    return closure


def test_a_method_with_a_long_docstring():
    x = np.array([0.1, 0.2, 0.3])
    np.testing.assert_allclose(srcad.grad(through_a_method)(x), central(through_a_method, x),
                               rtol=1e-6)


def test_a_closure_with_a_long_docstring():
    closure, x = make_closure(1.5), np.array([0.3, -0.7])
    np.testing.assert_allclose(srcad.grad(closure)(x), 1.5 * np.cos(x), rtol=1e-12)
