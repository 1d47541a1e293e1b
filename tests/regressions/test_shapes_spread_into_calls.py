"""Noise drawn in the shape of an array, rs.randn(*mean.shape) or np.random.randn(*x.shape),
was refused at the fence ("calls with *args unpacking where it cannot tell how many items they
pass"), as every call with a * argument whose length srcad cannot count at build time is: a
template or a helper of the user's needs to know which argument is which. The ints of a shape
carry no derivative, though, and a library function or a method of an argument (a random
generator passed in) is run as written where nothing it reads varies: such calls are now left
as written (frontend/starred.py: spread_shapes), and refused at the * only where the call
computes a differentiated value (check_spreads). A helper of the user's called with *x.shape,
and the array methods that take separate ints (x.reshape(*y.shape)), are refused as before."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient


def noise_from_a_generator_argument(w, rs):
    e = rs.randn(*w.shape)
    return np.sum(np.exp(w) * e)


def noise_from_numpy(w):
    np.random.seed(7)
    e = np.random.standard_normal(np.shape(w)) + np.random.randn(*w.shape[1:])
    return np.sum(np.sin(w) * e)


class Counter:
    def cells(self, rows, cols):
        return float(rows * cols)


def method_of_an_argument(w, counter):
    return counter.cells(*w.shape) * np.sum(w ** 2)


def tiled_by_a_shape(w, r):
    return np.sum(np.tile(w, *np.shape(r)) ** 2)


def method_reads_a_varied_value(w, counter):
    return counter.cells(np.sum(w), *w.shape[1:])


def helper(a, b=2):
    return a * b


def helper_of_the_user(w):
    return np.sum(helper(w, *w.shape[:1]))


def reshaped_like(w, y):
    return np.sum(np.sin(w.reshape(*y.shape)) * y)


W = np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]])


def test_noise_from_a_generator_argument():
    got = srcad.grad(noise_from_a_generator_argument)(W, np.random.RandomState(3))
    np.testing.assert_allclose(got, np.exp(W) * np.random.RandomState(3).randn(2, 3),
                               rtol=1e-13)
    v = np.ones_like(W)
    tangent = srcad.jvp(noise_from_a_generator_argument)(W, np.random.RandomState(3), v)
    np.testing.assert_allclose(tangent, np.sum(got), rtol=1e-12)


@pytest.mark.parametrize("disable", [None, "all"])
def test_noise_from_numpy(disable):
    got = srcad.grad(noise_from_numpy, disable=disable)(W)
    np.testing.assert_allclose(got, central_gradient(noise_from_numpy, (W,)), rtol=1e-6,
                               atol=1e-9)


def test_method_of_an_argument_reading_only_the_shape():
    got = srcad.grad(method_of_an_argument)(W, Counter())
    np.testing.assert_allclose(got, 12.0 * W, rtol=1e-13)


@pytest.mark.parametrize("f, args", [(tiled_by_a_shape, (W, np.ones(2))),
                                     (method_reads_a_varied_value, (W, Counter())),
                                     (helper_of_the_user, (W,)),
                                     (reshaped_like, (W, np.ones((3, 2))))])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_refused_where_the_call_is_differentiated(f, args, mode):
    with pytest.raises(srcad.SrcadError, match=r"\*args unpacking|cannot tell which function"):
        if mode == "grad":
            srcad.grad(f)(*args)
        else:
            srcad.jvp(f)(*args, np.ones_like(W))
