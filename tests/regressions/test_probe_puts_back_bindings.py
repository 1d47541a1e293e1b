"""A helper that rebinds a global (`global counter; counter += 1`) or a closure variable
(`nonlocal count`) is run by the first call's shape probe too; the probe put back the items of
lists and the attributes of objects, not bindings, so the first call counted twice: value 4.0
and gradient [2, 2] where f gives 2.0 (every later call agreed with f). The probe now puts back
the bindings of the globals the code rebinds and of its closure cells. An iterator cannot be put
back: reading one f does not make is refused (next(batches) gave the first gradient the second
item's)."""
import io
import itertools

import numpy as np
import pytest

import srcad

counter = 0


def bump():
    global counter
    counter += 1
    return counter


def counts_globally(x):
    return np.sum(x) * bump()


def make_ticker():
    count = 0

    def tick():
        nonlocal count
        count += 1
        return count
    return tick


tick = make_ticker()


def counts_in_a_cell(x):
    return np.sum(x) * tick()


@pytest.mark.parametrize("func", [counts_globally, counts_in_a_cell])
def test_each_call_counts_once_the_first_too(func):
    global counter, tick
    counter, tick = 0, make_ticker()
    x = np.ones(2)
    for k in (1, 2, 3):
        value, gradient = srcad.value_and_grad(func)(x)
        assert value == 2.0 * k and np.array_equal(gradient, [k, k])


def test_a_jacobians_rows_each_see_one_calls_count():
    global counter
    counter = 0

    def vector(x):
        return x * bump()
    jac = srcad.jacobian(vector)(np.ones(3))
    np.testing.assert_array_equal(jac, np.eye(3))
    assert counter == 1


batches = iter([np.ones(2), 2 * np.ones(2)])
numbers = itertools.count(1)


def takes_next(x):
    return np.sum(x * next(batches))


def loops_over(x):
    total = 0.0
    for i, k in enumerate(numbers):
        total = total + k * x[0]
        if i > 1:
            break
    return total


@pytest.mark.parametrize("func, text", [(takes_next, "batches"), (loops_over, "numbers")])
def test_an_iterator_the_function_does_not_make_is_refused(func, text):
    with pytest.raises(srcad.SrcadError, match="reads an iterator the function does not make"
                       ) as caught:
        srcad.grad(func)(np.ones(2))
    assert text in str(caught.value)
    assert next(batches)[0] == 1.0 if func is takes_next else next(numbers) == 1


def test_an_iterator_the_function_makes_is_read():
    def own(x):
        items = iter([2.0, 3.0])
        return np.sum(x) * next(items)
    np.testing.assert_array_equal(srcad.grad(own)(np.ones(2)), [2.0, 2.0])


log = io.StringIO()  # (a file is an iterator of its lines; here it is only looked at)


def writes_a_log(x):
    if log.closed:
        return np.sum(x)
    return np.sum(x * 2.0)


def test_a_file_is_not_refused_as_an_iterator():
    np.testing.assert_array_equal(srcad.grad(writes_a_log)(np.ones(2)), [2.0, 2.0])
