"""Invariance (srcad/invariance.py): a row maximum subtracted before a softmax or a log-softmax
has an exactly zero adjoint and is left out of the derivative; where the output does depend on
it (another axis, no normalization, another use), it is differentiated as before. Numbers are
checked against central differences and the dot-product test (srcad.check_grads)."""
import textwrap

import gast
import numpy as np
import pytest

import srcad
from generated import check, code
from srcad.analysis.invariance import inert_names




def softmax_loss(z, w):
    z = z - np.max(z, axis=1, keepdims=True)
    ez = np.exp(z)
    p = ez / np.sum(ez, axis=1, keepdims=True)
    return np.sum(p * w)


def log_softmax_loss(z, y):
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.sum(y * logp) / z.shape[0]


def scaled_softmax(z, w):
    z = (z - np.max(z, axis=1, keepdims=True)) * 2.0
    ez = np.exp(z)
    return np.sum(ez / ez.sum(axis=1, keepdims=True) * w)


def into_a_bigger_array(z, w):
    z = z - np.max(z, axis=1, keepdims=True)
    big = np.exp(z + w)  # (2, 5, 4): z's axes 0 and 1 are axes 1 and 2 here (right-aligned);
    # big[i, r] is scaled by exp(-m[r]), then normalized over axis 2: m cancels
    return np.sum(big / np.sum(big, axis=2, keepdims=True) * w)


@pytest.mark.parametrize("func", [softmax_loss, log_softmax_loss, scaled_softmax,
                                  into_a_bigger_array])
def test_the_max_shift_is_left_out(func, rng):
    z = rng.normal(size=(5, 4))
    w = rng.normal(size=(2, 5, 4)) if func is into_a_bigger_array else rng.normal(size=(5, 4))
    text = code(func, (z, w), 0)
    assert "unreduce_extremum" not in text and "==" not in text
    check(func, (z, w), 0)


def test_ties_in_the_maximum_change_nothing(rng):
    """With the max taken out, a row whose maximum is tied needs no tie sharing either."""
    z = np.array([[1.0, 3.0, 3.0], [0.5, -1.0, 2.0]])
    w = rng.normal(size=(2, 3))
    got = srcad.grad(softmax_loss)(z, w)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    want = p * (w - np.sum(p * w, axis=1, keepdims=True))
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-16)


def unnormalized(z, w):
    return np.sum(np.exp(z - np.max(z, axis=1, keepdims=True)) * w)


def other_axis(z, w):
    z = z - np.max(z, axis=0, keepdims=True)
    ez = np.exp(z)
    return np.sum(ez / np.sum(ez, axis=1, keepdims=True) * w)


def also_returned(z, w):
    m = np.max(z, axis=1, keepdims=True)
    ez = np.exp(z - m)
    return np.sum(ez / np.sum(ez, axis=1, keepdims=True) * w) + np.sum(m)


@pytest.mark.parametrize("func", [unnormalized, other_axis, also_returned])
def test_where_the_output_depends_on_it_the_max_is_differentiated(func, rng):
    z, w = rng.normal(size=(5, 4)), rng.normal(size=(5, 4))
    text = code(func, (z, w), 0)
    assert "unreduce_extremum" in text
    check(func, (z, w), 0)


def test_the_value_is_the_function_value(rng):
    z, w = rng.normal(size=(5, 4)), rng.normal(size=(5, 4))
    value, _ = srcad.value_and_grad(softmax_loss)(z, w)
    assert value == softmax_loss(z, w)


def complex_softmax(z, w):
    z = z - np.max(z.real, axis=1, keepdims=True)
    ez = np.exp(z)
    return np.sum(np.abs(ez / np.sum(ez, axis=1, keepdims=True)) * w)


def test_complex_values_are_not_followed(rng):
    """Only real floats: for complex values the logarithm's branch cut breaks the rules. (srcad
    refuses to differentiate with respect to a complex argument: analysis/complexes.py.)"""
    z = rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4))
    w = rng.normal(size=(3, 4))
    with pytest.raises(srcad.SrcadError, match="complex"):
        code(complex_softmax, (z, w), 0)


def test_a_method_of_a_moved_value_is_not_taken_for_unmoved():
    """x.method() of a shifted x moves with it (the pass runs on ANF, where numpy methods are
    functions already; a method that is left, on a moved value, is not followed)."""
    fdef = gast.parse(textwrap.dedent("""
        def f(z, w):
            m = np.max(z, axis=1, keepdims=True)
            t1 = z - m
            t2 = t1.anything()
            return t2
        """)).body[0]
    shapes = {"z": (4, 3), "w": (4, 3), "m": (4, 1), "t1": (4, 3), "t2": (4, 3)}
    floats = dict.fromkeys(shapes, "d")
    assert inert_names(fdef, shapes, floats) == set()
    fdef.body[2].value = gast.parse("np.exp(t1) / np.sum(np.exp(t1), axis=1, keepdims=True)",
                                    mode="eval").body
    assert inert_names(fdef, shapes, floats) == set()  # not in ANF: a nested call, not followed
