"""Lists changed after they are made: grown by append, or stored into by item. Each gave a
wrong number without an error, or crashed, before the fixes named in the tests:

- forward mode gave a list grown by append a list of tangents only when a display made it
  (lst = []): after lst = list(), list(range(0)) or list(np.zeros(2)) the appended items'
  tangents were dropped (and a gradient of a float, which runs forward mode, lost them too);
- reverse mode treated a list display stored into (lst[0] = v) as a tuple whose items have
  adjoints of their own, and never took the store's adjoint (a wrong gradient), or crashed on
  the store's adjoint in a loop; forward mode made its tangents a tuple, and crashed storing;
- appends through a second name for the list (q = lst; q.append(v)) were lost: refused now;
- forward mode made a list display's tangents a tuple unless the list grew or was stored into,
  so lst += [v] (a list joined to a display) crashed joining a list to a tuple;
- forward mode gave an item of a list display that is itself a display ([(a, b), (b, c)]) the
  tangent 0.0, not (da, db): reading an item of it crashed (for i, (u, v) in enumerate(...));
- reverse mode added the adjoints of an item of a display that is a list, read twice
  (nested = [[a, b], [c, d, e]]; nested[1][0] and nested[1][2]), with +: the two lists of
  adjoints were joined, and the second read's adjoint was lost (a wrong gradient).
"""
import numpy as np
import pytest

import srcad

from regressions.numeric import central_gradient


def grown_after_list_call(x):
    st = list()
    for i in range(3):
        st.append(x * (i + 1.0))
    return st.pop() * x + st[0]


def grown_after_list_of_range(x):
    st = list(range(0))
    st.append(np.sin(x))
    return st[-1] * x


def grown_after_list_of_array(x):
    st = list(np.zeros(2))
    st.append(x * 3.0)
    return st[-1] * x + st[0]


def stored_into_display(x):
    st = [0.0, 1.0]
    st[1] = x * 3.0
    return st[0] + st[1] * x


def stored_into_display_in_a_loop(x):
    st = [0.0, 0.0]
    for i in range(2):
        st[i] = x * (i + 1.0)
    return st[0] * x + st[1]


def joined_to_a_display(x):
    st = [1.0]
    st += [x * 3.0]
    return st[1] * x


@pytest.mark.parametrize("f", [joined_to_a_display, grown_after_list_call, grown_after_list_of_range,
                               grown_after_list_of_array, stored_into_display,
                               stored_into_display_in_a_loop])
def test_a_changed_list_carries_derivatives_in_every_mode(f):
    x = 0.7
    want = central_gradient(f, (x,))
    assert np.isclose(srcad.grad(f)(x), want, rtol=1e-7)
    assert np.isclose(srcad.jvp(f)(x, 1.0), want, rtol=1e-7)
    assert np.isclose(srcad.grad(f, disable="float_gradient")(x), want, rtol=1e-7)
    second = central_gradient(srcad.grad(f), (x,))
    assert np.isclose(srcad.hessian(f)(x), second, rtol=1e-6)


def display_of_tuples(x):
    pairs = [(x[0], x[1] * 2.0), (x[2], -3.0)]
    s = 0.0
    for i, (u, v) in enumerate(pairs):
        s = s + (i + 1.0) * u * v
    return s


def display_of_lists_and_starred(x):
    xs = [x[0], x[1]]
    nested = [[x[0], x[1]], [*xs, x[2] ** 2]]
    return nested[0][1] * nested[1][2] + nested[1][0]


@pytest.mark.parametrize("f", [display_of_tuples, display_of_lists_and_starred])
def test_items_of_a_list_display_that_are_displays_keep_their_tangents(f):
    x = np.array([0.5, 1.5, 2.0])
    v = np.array([0.3, -0.7, 1.1])
    want = central_gradient(f, (x,))
    assert np.allclose(srcad.grad(f)(x), want, rtol=1e-7)
    assert np.isclose(srcad.jvp(f)(x, v), want @ v, rtol=1e-7)


def appended_through_another_name(x):
    st = []
    q = st
    q.append(x * 3.0)
    return st.pop() * x


def test_appends_through_a_second_name_for_the_list_are_refused():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(appended_through_another_name)(0.7)
    message = str(info.value)
    assert "q.append(x * 3.0)" in message and "st (read afterwards)" in message


def repeated_index_store(x, s, r, n):
    y1 = np.copy(x)
    y1[[0, 2, 0]] *= s
    j1 = 0
    while j1 < 4:
        y1 -= np.sin(r)
        j1 += 1
    t2 = -1.5 ** y1
    acc1 = np.zeros(n)
    return t2.sum() + np.sum(acc1)


def test_a_store_at_repeated_indices_keeps_its_adjoint_in_code_differentiated_again():
    """Fuzz seed 82300: in a gradient's code differentiated again, the array stored into may be
    a list as far as its kinds tell, and the store's adjoint read item_of(g, index) (every
    repeated position) instead of stored_part (the last write only): a wrong Hessian."""
    x, s, v = np.array([-0.28, -0.7, 0.51]), np.array(-1.09), np.array(-0.19)
    hvp = srcad.vjp(srcad.grad(repeated_index_store, wrt=1), wrt=1)(x, s, 0.23, 3, v)
    g = srcad.grad(repeated_index_store, wrt=1)
    want = (g(x, s + 1e-5 * v, 0.23, 3) - g(x, s - 1e-5 * v, 0.23, 3)) / 2e-5
    assert np.isclose(hvp, want, rtol=1e-6)


def row_read_at_one_index(x, y):
    rows = [[y], [y, x, y]]
    return np.sum(rows[1][2] * x)


def test_a_row_of_a_display_read_at_one_index_gets_zeros_for_the_others():
    """Fuzz seeds 86221 and 86290: the adjoint of rows[1], read at index 2 only, holds None
    for its other items; the display's adjoint added None to the adjoints of x and y."""
    x, y = np.array([0.9, 1.1, 0.9]), np.array([-1.0, -1.4, 0.9])
    gx, gy = srcad.grad(row_read_at_one_index, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(gx, y, rtol=1e-12)
    np.testing.assert_allclose(gy, x, rtol=1e-12)
    np.testing.assert_allclose(srcad.jvp(row_read_at_one_index, wrt=(0, 1))(x, y, y, x),
                               np.dot(x, x) + np.dot(y, y), rtol=1e-12)


def yields_two(xs):
    for v in xs:
        yield np.tanh(v)


def one_of_what_a_generator_yields(A, y):
    return np.sum(list(yields_two([y, A.mean()]))[1])


def one_item_of_list_of_a_display(A):
    return np.mean(list([A, A * 2.0])[1])


@pytest.mark.parametrize("f, args", [
    (one_of_what_a_generator_yields, (np.array([[1.1, -0.3]]), np.array([0.4, 0.2]))),
    (one_item_of_list_of_a_display, (np.array([[0.7, -0.2]]),))])
def test_a_list_read_at_one_index_gives_zeros_to_the_items_not_read(f, args):
    """Fuzz seeds 101004 and 101334 (a generator helper in the generator): the adjoint of a list
    read at one index holds None for the other items; a helper's backward half popped None for
    an appended value, and list([A, A])'s adjoint gave None to A's (TypeError, every reverse
    mode)."""
    want = central_gradient(f, args)
    np.testing.assert_allclose(srcad.grad(f)(*args), want, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(srcad.grad(f, disable="all")(*args), want, rtol=1e-7,
                               atol=1e-10)
