"""A helper that writes into its argument is refused (srcad does not differentiate calls that
change their arguments), however it reaches the argument's storage. The check read only stores
whose target was the parameter itself: a swap through a tuple target (a[i], a[j] = a[j], a[i];
Python's random.shuffle is one), a store through another name for it (b = a; b[0] = v), a view
(row = a[0], for row in a), np.copyto or out= were taken for a helper that writes nothing, and
the gradient ignored the write (a swap's gradient [1, 2, 0] for [0, 2, 1]). A helper writing
only into arrays it makes is still accepted."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central


def swap(a, i, j):
    a[i], a[j] = a[j], a[i]
    return 0.0


def swap_in_list(x):
    y = [x[0], x[1], x[2]]
    swap(y, 0, 2)
    return y[0] * 1.0 + y[1] * 2.0


def swap_in_array(x):
    y = x * 1.0
    swap(y, 0, 2)
    return y[0] * 1.0 + y[1] * 2.0


def through_another_name(a):
    b = a
    b[0] = 0.0
    return 0.0


def through_a_view(a):
    row = a[1:]
    row[0] = 0.0
    return 0.0


def through_a_loop(a):
    for row in a:
        row[0] = 0.0
    return 0.0


def through_copyto(a):
    np.copyto(a, np.zeros_like(a))
    return 0.0


def through_out(a):
    np.multiply(a, 2.0, out=a)
    return 0.0


def through_reshape(a):
    flat = a.reshape(-1)
    flat[0] = 0.0
    return 0.0


def caller(helper):
    def f(x):
        y = x * 1.0
        helper(y.reshape(2, 2) if helper is through_a_loop else y)
        return np.sum(y * np.arange(1.0, 5.0))
    return f


# kept a call, the helper is checked by itself (mutation.check_helper_writes: "changes an
# argument in place"); written into its caller, the caller's fence sees the write
REFUSED = "changes an argument in place|writes into its argument in place|may share its memory"


@pytest.mark.parametrize("disable", ["inline", None])
@pytest.mark.parametrize("func", [swap_in_list, swap_in_array])
def test_a_swap_through_a_tuple_target_is_refused(func, disable):
    with pytest.raises(srcad.SrcadError, match=REFUSED):
        srcad.grad(func, disable=disable)(np.array([1.0, 2.0, 3.0]))


@pytest.mark.parametrize("disable", ["inline", None])
@pytest.mark.parametrize("helper", [through_another_name, through_a_view, through_a_loop,
                                    through_copyto, through_out, through_reshape])
def test_a_write_through_another_name_or_a_view_is_refused(helper, disable):
    with pytest.raises(srcad.SrcadError, match=REFUSED):
        srcad.grad(caller(helper), disable=disable)(np.array([1.0, 2.0, 3.0, 4.0]))


def own_array(a):
    out = np.zeros_like(a)
    out[0] = a[0] * 2.0
    c = a.copy()
    c[1] = 5.0
    return out + c


def uses_own_array(x):
    return np.sum(own_array(x) ** 2)


@pytest.mark.parametrize("disable", ["inline", None])
def test_a_helper_writing_into_arrays_it_makes_is_accepted(disable):
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(srcad.grad(uses_own_array, disable=disable)(x),
                               central(uses_own_array, x), rtol=1e-6)


class Cell:
    def __init__(self):
        self.h = np.zeros(2)

    def step(self, x):
        self.h = np.tanh(x)
        return 0.0


cell = Cell()


def through_the_object(x):
    cell.step(x)
    return np.sum(cell.h ** 2)


def test_a_method_storing_into_its_object_is_refused_with_the_line():
    # (f then read cell.h as a constant: the gradient was [0, 0] for 2 tanh(x) sech(x)^2)
    with pytest.raises(srcad.SrcadError, match=r"Cell.step changes an argument in place "
                                               r"\(line \d+: self.h = np.tanh\(x\)\)"):
        srcad.grad(through_the_object)(np.array([0.3, -0.5]))


def make_predict():
    def step(row, hidden):
        return np.tanh(row + hidden)

    def readout(hidden):
        return np.sin(hidden)

    def predict(inputs, hidden):  # (autograd's rnn example: a list it makes, appended to)
        outputs = [readout(hidden)]
        for row in inputs:
            hidden = step(row, hidden)
            outputs.append(readout(hidden))
        return outputs
    return predict


predict = make_predict()


def sequence_loss(inputs):
    return sum(np.sum(o ** 2) for o in predict(inputs, np.zeros(2)))


def test_a_list_the_helper_makes_from_its_calls_is_its_own():
    # (refused for a while: a call of a helper taking a row of the argument was taken to
    # return the argument's storage, and so the list holding its result)
    inputs = np.array([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.2]])
    np.testing.assert_allclose(srcad.grad(sequence_loss)(inputs), central(sequence_loss, inputs),
                               rtol=1e-6, atol=1e-9)
