"""`y += e` on an array writes into it, in Python; the derivative computes y + e as a new value
(it writes into no array it was given). That is f's value only where nothing else holds that
storage. The mutation fence checks the names of the function, but two names can be one array
in ways only a call shows: the same array passed twice (f(x, x)), an argument that is a view of
another, a local bound to a global array, a global list's item or a global object's attribute
(w = MODEL.W; w += g, which Python writes into the global's array). Each gave a number that was
not f's (f(x, x) with `a *= 2.0`: 60 where f gives 120), without an error. Each update in place
of what may be an argument's or an outside array is now preceded, in the generated code, by a
check that no other input of f shares it (runtime.check_own_update), which refuses the call."""
import numpy as np
import pytest

import srcad

W = np.ones(3)
ITEMS = [np.ones(3)]
G = 2.0


class Model:
    def __init__(self):
        self.W = np.ones(3)


MODEL = Model()


def doubled_first(a, b):
    a *= 2.0
    return np.sum(a * b)


def through_a_view(v, b):
    v += 1.0
    return np.sum(np.sin(b) * v)


def read_before_the_update(a, b):
    s = np.sum(b * b)
    a += 1.0
    return s + np.sum(a * a)


def global_through_a_local(x):
    y = W
    y += x
    return np.sum(y * W)


def item_of_a_global_list(x):
    w = ITEMS[0]
    w += x
    return np.sum(ITEMS[0] * x)


def attribute_of_a_global_object(x):
    w = MODEL.W
    w += x
    return np.sum(MODEL.W * x)


def reads_a_global(x):
    x += 1.0
    return np.sum(x * W)


def float_global(x):
    t = G
    t += 1.0
    return np.sum(x * t)


def _central(f, args, i, eps=1e-6):
    grad = np.zeros_like(args[i])
    for k in np.ndindex(grad.shape):
        plus = [np.array(a, copy=True) for a in args]
        minus = [np.array(a, copy=True) for a in args]
        plus[i][k] += eps
        minus[i][k] -= eps
        grad[k] = (f(*plus) - f(*minus)) / (2 * eps)
    return grad


@pytest.fixture(autouse=True)
def _fresh_globals():
    W[:] = 1.0
    ITEMS[0][:] = 1.0
    MODEL.W[:] = 1.0
    yield


@pytest.mark.parametrize("make", [srcad.grad, srcad.value_and_grad, srcad.jvp])
def test_the_same_array_passed_twice_is_refused(make):
    x = np.arange(1.0, 5.0)
    derivative = make(doubled_first, wrt=(0, 1)) if make is not srcad.jvp else make(
        doubled_first)
    with pytest.raises(ValueError, match=r"`a \*= 2.0` .* that b shares"):
        derivative(x, x) if make is not srcad.jvp else derivative(x, x, np.ones(4))
    assert np.array_equal(x, np.arange(1.0, 5.0))  # (what f would have changed)


def test_separate_arrays_are_differentiated():
    x, y = np.arange(1.0, 5.0), np.linspace(0.5, 2.0, 4)
    value, grads = srcad.value_and_grad(doubled_first, wrt=(0, 1))(x, y)
    assert value == doubled_first(x.copy(), y.copy())
    for i in (0, 1):
        np.testing.assert_allclose(grads[i], _central(doubled_first, (x, y), i), rtol=1e-7)
    assert np.array_equal(x, np.arange(1.0, 5.0))


def test_an_argument_read_only_before_the_update_is_not_checked():
    """b is read before a changes: f(x, x) has the value of two separate arrays, and the call
    is not refused (nothing is checked)."""
    assert "check_own_update" not in srcad.source(read_before_the_update, wrt=(0, 1))
    x = np.arange(1.0, 4.0)
    copy = x.copy()
    value, grads = srcad.value_and_grad(read_before_the_update, wrt=(0, 1))(x, x)
    assert value == read_before_the_update(copy, copy)
    np.testing.assert_allclose(grads[0], 2 * (x + 1.0))
    np.testing.assert_allclose(grads[1], 2 * x)


def test_an_argument_that_is_a_view_of_another_is_refused():
    a = np.arange(6.0)
    with pytest.raises(ValueError, match="that b shares"):
        srcad.grad(through_a_view, wrt=1)(a[2:5], a)


def test_interleaved_views_that_share_no_element_are_differentiated():
    """may_share_memory is true of a[:, 0] and a[:, 1] (their bounds overlap); they share no
    element, so f's value is the function of two separate arrays."""
    a = np.arange(8.0).reshape(4, 2)
    v, b = a[:, 0], a[:, 1]
    value, grad = srcad.value_and_grad(through_a_view, wrt=1)(v, b)
    assert value == through_a_view(v.copy(), b.copy())
    np.testing.assert_allclose(grad, _central(through_a_view, (v.copy(), b.copy()), 1),
                               rtol=1e-7)


@pytest.mark.parametrize("f, shared", [
    (global_through_a_local, "W"), (item_of_a_global_list, r"ITEMS\[0\]"),
    (attribute_of_a_global_object, r"MODEL\.W")])
def test_an_update_of_a_global_array_through_a_local_is_refused(f, shared):
    """Python writes into the global (its next call sees another W); the derivative did not,
    and gave f's value as if it had not: 6 where f gives 14."""
    with pytest.raises(ValueError, match=f"that {shared} shares"):
        srcad.grad(f)(np.arange(3.0))
    assert np.array_equal(W, np.ones(3)) and np.array_equal(ITEMS[0], np.ones(3))


def test_an_argument_that_is_a_global_the_function_reads_is_refused():
    with pytest.raises(ValueError, match="that W shares"):
        srcad.grad(reads_a_global)(W)
    x = np.arange(3.0)
    np.testing.assert_allclose(srcad.grad(reads_a_global)(x),
                               _central(reads_a_global, (x,), 0), rtol=1e-7)


def test_updates_of_arrays_the_function_made_are_not_checked():
    """The check is written only before updates of what may be an argument's or an outside
    value: an array the function made needs none. (A global read into a local, t = G, may be
    an array: checked, and a float passes at once: += made a new float.)"""
    def own(x):
        acc = np.zeros(3)
        for i in range(3):
            acc += x * i
        return np.sum(acc)
    assert "check_own_update" not in srcad.source(own)
    assert "check_own_update(a, (b,), ('b',)" in srcad.source(doubled_first)
    x = np.arange(3.0)
    np.testing.assert_allclose(srcad.grad(float_global)(x), _central(float_global, (x,), 0),
                               rtol=1e-7)


def test_the_check_goes_into_written_modules_with_its_helpers():
    text = srcad.source(doubled_first, wrt=(0, 1))
    assert "def check_own_update(" in text and "def arrays_overlap(" in text
    namespace = {}
    exec(compile(text, "written.py", "exec"), namespace)
    x = np.arange(1.0, 5.0)
    with pytest.raises(ValueError, match="that b shares"):
        namespace["doubled_first_grad"](x, x)


def test_second_derivatives_keep_the_check():
    x, y = np.arange(1.0, 4.0), np.linspace(0.5, 2.0, 3)
    hessian = srcad.hessian(doubled_first)
    expected = np.array([_central(lambda a, b: srcad.grad(doubled_first)(a, b)[k], (x, y), 0)
                         for k in range(3)])
    np.testing.assert_allclose(hessian(x, y), expected, rtol=1e-6, atol=1e-8)
    with pytest.raises(ValueError, match="that b shares"):
        hessian(x, x)


def scaled_by_a_float(x, s):
    s *= 2.0
    return np.sum(x * s)


def test_checked_code_is_still_specialized_and_numbers_need_no_check():
    """The shape probe runs the check too (it once failed on the helper's name, and every such
    function got the code for any shapes); a float's += makes a new float, so the code
    specialized to a float drops the check."""
    x = np.arange(1.0, 5.0)
    text = srcad.source(doubled_first, wrt=(0, 1), args=(x, x + 1.0))
    body = text.split("def doubled_first_grad")[-1]
    assert "check_own_update(a, (b,)" in body and "unbroadcast(" not in body
    body = srcad.source(scaled_by_a_float, wrt=(0, 1), args=(x, 1.5)).split(
        "def scaled_by_a_float_grad")[-1]
    assert "check_own_update(" not in body
    np.testing.assert_allclose(srcad.grad(scaled_by_a_float, wrt=1)(x, 1.5), 20.0)
