"""A writing method of an array (or a generator's shuffle) that srcad resolves through a global
or a closure cell is refused at the user's line. It was taken for a call without a derivative:
the probe of the first call ran it once more (buf.fill(buf[0] + 1.0): value 6.0 where f gives
3.0; buf.__setitem__, buf.__iadd__, buf.put alike), and rng.shuffle(y) of an array f
differentiates permuted values the derivative did not follow (gradient [1, 2, 3, 4] for
[3, 1, 2, 4]). A global list's append stays accepted: the probe puts lists back."""
import numpy as np
import pytest

import srcad

buf = np.zeros(3)
rng = np.random.default_rng(0)
seen = []
w = np.array([1.0, 2.0, 3.0, 4.0])


def fills(x):
    buf.fill(buf[0] + 1.0)
    return np.sum(x * buf)


def sets_an_item(x):
    buf.__setitem__(0, buf[0] + 1.0)
    return np.sum(x * buf)


def adds_in_place(x):
    buf.__iadd__(1.0)
    return np.sum(x * buf)


def puts(x):
    buf.put([0], buf[0] + 1.0)
    return np.sum(x * buf)


def sorts_in_an_expression(x):
    nothing = buf.sort()
    return np.sum(x * buf)


def shuffles(x):
    y = x * 1.0
    rng.shuffle(y)
    return np.sum(y * w)


def through_the_class(x):
    np.ndarray.fill(buf, 2.0)
    return np.sum(x * buf)


@pytest.mark.parametrize("func, line", [
    (fills, "buf.fill(buf[0] + 1.0)"), (sets_an_item, "buf.__setitem__(0, buf[0] + 1.0)"),
    (adds_in_place, "buf.__iadd__(1.0)"), (puts, "buf.put([0], buf[0] + 1.0)"),
    (sorts_in_an_expression, "nothing = buf.sort()"), (shuffles, "rng.shuffle(y)"),
    (through_the_class, "np.ndarray.fill(buf, 2.0)")])
def test_refused_at_the_line_and_nothing_written(func, line):
    buf[:] = 0.0
    x = np.array([0.5, -1.0, 2.0, 0.25])[:3 if func is not shuffles else 4]
    with pytest.raises(srcad.SrcadError, match="in place") as caught:
        srcad.value_and_grad(func)(x)
    assert line in str(caught.value)
    assert np.array_equal(buf, np.zeros(3))


def appends(x):
    seen.append(1)
    return np.sum(x ** 2)


def test_a_global_lists_append_is_still_accepted_and_made_once():
    seen.clear()
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(srcad.grad(appends)(x), 2 * x)
    assert seen == [1]
