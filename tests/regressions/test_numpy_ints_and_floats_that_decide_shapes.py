"""A specialized build is keyed by its arguments' signature, which held the values of Python
ints but only the types of NumPy ints (np.int64, from np.sum of a mask or an argmax) and of
floats. A build specialized to n = np.int64(1), whose zeros of shape (1,) it wrote in, then ran
for n = np.int64(3): grad returned [3.] instead of [9.], without an error; the same for a float
s read as a size (np.zeros(int(s))). NumPy ints are now keyed by value, like Python ints; a
float argument whose value may reach a size, an index or a loop's length runs the code built
for any shapes (analysis/values.float_values_read). Found by the int-arguments work (issue
15.5), which keys ints by type where the build does not read them."""
import numpy as np

import srcad


def zeros_of_n(x, n):
    z = np.zeros(n) + x
    return np.sum(z * z)


def zeros_of_a_float_size(x, s):
    z = np.zeros(int(s)) + x
    return np.sum(z * z)


def float_in_a_branch(x, s):
    return np.sum(x * x) * s if s > 0 else np.sum(x)


def test_a_numpy_int_that_decides_a_shape_is_keyed_by_value():
    x = np.array([1.5])
    gradient = srcad.grad(zeros_of_n)
    for n in (1, 3, 1, 2):
        np.testing.assert_allclose(gradient(x, np.int64(n)), 2 * x * n)
        np.testing.assert_allclose(gradient(x, n), 2 * x * n)


def test_a_float_that_decides_a_shape_runs_the_code_for_any_shapes():
    x = np.array([1.5])
    gradient = srcad.grad(zeros_of_a_float_size)
    for s in (1.0, 3.0, 2.0, np.float64(4.0)):
        np.testing.assert_allclose(gradient(x, s), 2 * x * int(s))


def test_a_float_in_a_branch_keeps_its_specialized_code():
    x = np.array([1.5, -0.5])
    gradient = srcad.grad(float_in_a_branch)
    for s in (1.0, 3.0, -1.0):
        expected = 2 * x * s if s > 0 else np.ones(2)
        np.testing.assert_allclose(gradient(x, s), expected)
    assert not any(entry[2] is None for entry in gradient.specialized.values())
