"""Invariance through joins (srcad/analysis/invariance.py): the max subtracted in logsumexp is
read twice, once added back (m[..., 0], m, or m broadcast back with m[:, None] or
np.expand_dims) and once under exp, sum and log, and the two moves cancel only together. Such an
m is inert (its adjoint, the mask over the maxima and the tie count, is left out); where the
moves do not cancel exactly (another factor, another axis, another use) it is differentiated.
Either way the numbers are checked against central differences, the gradient built without the
invariance stage and the unoptimized one, and srcad.check_grads (second order too)."""
import textwrap

import gast
import numpy as np
import pytest

import srcad
from generated import check, code
from regressions.numeric import central_gradient
from workload_functions import fresh_functions
from srcad.analysis.invariance import inert_names



def lse_kept_dims_indexed(a, w):
    m = np.max(a, axis=-1, keepdims=True)
    return np.sum(w * (m[..., 0] + np.log(np.sum(np.exp(a - m), axis=-1))))


def lse_kept_dims(a, w):
    m = np.max(a, axis=1, keepdims=True)
    return np.sum(w[:, None] * (m + np.log(np.sum(np.exp(a - m), axis=1, keepdims=True))))


def lse_new_axis(a, w):
    m = np.max(a, axis=1)
    return np.sum(w * (m + np.log(np.sum(np.exp(a - m[:, None]), axis=1))))


def lse_expand_dims(a, w):
    m = np.max(a, axis=1)
    return np.sum(w * (m + np.log(np.sum(np.exp(a - np.expand_dims(m, 1)), axis=1))))


def lse_of_everything(a, w):
    m = np.max(a)
    return (m + np.log(np.sum(np.exp(a - m)))) * np.sum(w)


def logsumexp(a):
    m = np.max(a, axis=-1, keepdims=True)
    return m[..., 0] + np.log(np.sum(np.exp(a - m), axis=-1))


def through_a_helper(a, w):
    return np.sum(w * logsumexp(a)) - np.sum(logsumexp(a[0]))  # (inlined: two maxima)


def added_back_later(a, w):
    m = np.max(a, axis=1, keepdims=True)
    shifted = np.log(np.sum(np.exp(a - m), axis=1)) - 1.5  # m + ... in another statement,
    return np.sum(w * (shifted + m[:, 0] * 3.0 / 3.0))   # by exact multiples


def summed_counts(a, w):
    m = np.max(a)
    return np.sum(a - m) + 20.0 * m + np.sum(w[:, None] * a)  # 20 items: sum(a) + ...


INERT = [lse_kept_dims_indexed, lse_kept_dims, lse_new_axis, lse_expand_dims, lse_of_everything,
         through_a_helper, added_back_later]


def _args(rng, ties=False):
    a = rng.normal(size=(5, 4))
    if ties:  # each row's maximum twice (a tie of two: central differences see each half)
        a[:, 2] = a.max(axis=1) + 0.5
        a[:, 0] = a[:, 2]
    return a, rng.normal(size=5)


def _not_differentiated(func, args):
    text = srcad.source(func, wrt=0, args=args, stage="invariance")
    return set(text.rsplit("# not differentiated: ", 1)[1].strip().split(", ")) - {""}


def _check_numbers(func, args, second_order=True):
    """The gradient against central differences, the gradient without the invariance stage and
    the unoptimized one; then check_grads (forward and reverse, second order where the gradient
    is smooth: not at a tie of a maximum that matters)."""
    got = srcad.grad(func)(*args)
    np.testing.assert_allclose(got, central_gradient(func, args), rtol=1e-6, atol=1e-9)
    for disable in ("invariance", "all"):
        want = srcad.grad(func, disable=disable, verify=False)(*args)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    if second_order:
        check(func, args, 0)
    else:
        srcad.check_grads(func, args, wrt=0)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("func", INERT + [summed_counts])
def test_the_max_of_logsumexp_is_inert(func, ties, rng):
    args = _args(rng, ties)
    inert = _not_differentiated(func, args)
    assert "m" in inert or {"m_1", "m_2"} <= inert, inert
    text = code(func, args, 0)
    assert "unreduce_extremum" not in text and "==" not in text
    _check_numbers(func, args)


def test_what_is_read_only_from_the_max_is_left_out_too(rng):
    """m[:, None] changes only when m does: its adjoint (a sum over the row) would only flow
    into m's, and is not computed."""
    args = _args(rng)
    assert len(_not_differentiated(lse_new_axis, args)) == 2  # m and m[:, None]
    assert ".sum(axis=(1,)" not in code(lse_new_axis, args, 0)


def test_mixture_log_likelihood(rng):
    """The mixture workload (benchmarks/workloads.py): logsumexp over the log weights (a 1-d
    max, shaped (1,)) and over the components; neither maximum is differentiated."""
    mixture = fresh_functions()["mixture"]
    args = (rng.normal(size=(3, 2)), rng.normal(size=3), rng.normal(size=(3, 2)) * 0.3,
            rng.normal(size=(7, 2)))
    assert {"m_1", "m_2"} <= _not_differentiated(mixture, args)
    for wrt in (0, 1, 2):
        assert "unreduce_extremum" not in code(mixture, args, wrt)
        got = srcad.grad(mixture, wrt=wrt)(*args)
        np.testing.assert_allclose(got, central_gradient(mixture, args, wrt), rtol=1e-6,
                                   atol=1e-9)
        np.testing.assert_allclose(got, srcad.grad(mixture, wrt=wrt, disable="all",
                                                   verify=False)(*args), rtol=1e-13, atol=1e-15)


# where the moves do not cancel: m matters ---------------------------------------------------

def wrong_sign(a, w):
    m = np.max(a, axis=-1, keepdims=True)
    return np.sum(w * (m[..., 0] * 2 + np.log(np.sum(np.exp(a - m), axis=-1))))


def nearly_cancelled(a, w):
    m = np.max(a, axis=-1, keepdims=True)
    return np.sum(w * (m[..., 0] * 0.1 * 10.0 + np.log(np.sum(np.exp(a - m), axis=-1))))


def also_returned(a, w):
    m = np.max(a, axis=1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(a - m), axis=1, keepdims=True))
    return np.sum(w[:, None] * lse) + np.sum(w[:, None] * m)


def in_a_product(a, w):
    m = np.max(a, axis=1)
    lse = m + np.log(np.sum(np.exp(a - m[:, None]), axis=1))
    return np.sum(w * lse * m)


def reduced_along_another_axis(a, w):
    m = np.max(a, axis=1, keepdims=True)  # constant along axis 1, summed along both
    return np.sum(w) * (np.log(np.sum(np.exp(a - m), axis=(0, 1))) + np.mean(m))


def normalized_along_the_other_axis(a, w):
    m = np.max(a, axis=1)
    lse = np.log(np.sum(np.exp(a - m[:, None]), axis=0))  # (4,): rows of different m summed
    return np.sum(lse * w[:4]) + np.sum(m * w)


def counted_wrong(a, w):
    m = np.max(a)
    return np.sum(a - m) + 19.0 * m + np.sum(w[:, None] * a)  # 20 items, not 19


def indexed_by_its_argmax(a, w):
    m = np.max(a, axis=1)
    lse = m + np.log(np.sum(np.exp(a - m[:, None]), axis=1))
    return np.sum(w * lse) + a[0, np.argmax(m) % 4]


MATTERS = [wrong_sign, nearly_cancelled, also_returned, in_a_product,
           reduced_along_another_axis, normalized_along_the_other_axis, counted_wrong,
           indexed_by_its_argmax]


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("func", MATTERS)
def test_where_the_moves_do_not_cancel_the_max_is_differentiated(func, ties, rng):
    args = _args(rng, ties)
    assert "m" not in _not_differentiated(func, args)
    assert "unreduce_extremum" in code(func, args, 0)
    _check_numbers(func, args, second_order=not ties)


# the analysis on its own: statements it does not follow -----------------------------------

LSE = """
    def f(a, w):
        {first}
        m = np.max(a, axis=1, keepdims=True)
        t1 = m[:, 0]
        t2 = a - m
        t3 = np.exp(t2)
        t4 = np.sum(t3, axis=1)
        t5 = np.log(t4)
        t6 = t1 + t5
        {last}
    """
SHAPES = {"a": (5, 4), "w": (5,), "m": (5, 1), "t1": (5,), "t2": (5, 4), "t3": (5, 4),
          "t4": (5,), "t5": (5,), "t6": (5,), "t7": (5,), "t8": (5,), "t9": (5,), "out": ()}


def _inert(last, shapes=SHAPES, floats=None, first="pass"):
    slot = {k: textwrap.indent(textwrap.dedent(v), " " * 8).strip()
            for k, v in (("first", first), ("last", last))}
    fdef = gast.parse(textwrap.dedent(LSE.format(**slot))).body[0]
    return inert_names(fdef, shapes, floats or dict.fromkeys(shapes, "d"))


def test_the_analysis_finds_the_join():
    assert _inert("t7 = w * t6\nout = np.sum(t7)\nreturn out") == {"m", "t1"}
    # what reads only values that do not move is not followed: a branch on t6 is no branch on m
    assert _inert("if np.sum(t6) > 0:\n    w = w * 2.0\nreturn np.sum(w)") == {"m", "t1"}


@pytest.mark.parametrize("last", [
    "return t6 + m[:, 0]",  # returned directly as well
    "out = np.sum(t6)\nreturn out, t2",  # a moved value returned
    "for i in range(2):\n    w = w + t2[:, i]\nreturn np.sum(w)",  # read in a loop
    "if np.sum(t5) > 0:\n    w = w * 2.0\nreturn np.sum(w)",  # in a branch's test
    "t7 = w[t1]\nreturn np.sum(t7)",  # an index that moves
    "t7 = np.tanh(t1)\nt8 = t5 + t7\nreturn np.sum(t8)",  # a function not followed
    "t7 = helper(t1)\nt8 = t6 + t7\nreturn np.sum(t8)",  # a call not understood
    "t2[0, 0] = 1.0\nreturn np.sum(t6)",  # a store into a moved array
    "t7 = t6 * t1\nreturn np.sum(t7)",  # a product of two moved values
    "t7 = t5 + t5 + t1\nreturn np.sum(t7)",  # -2 + 1
])
def test_what_the_analysis_does_not_follow(last):
    assert "m" not in _inert(last)


def test_a_function_defined_before_that_reads_it_is_not_followed():
    assert "m" not in _inert("t7 = peek()\nreturn np.sum(t6) + np.sum(t7)",
                             first="def peek():\n    return m")


def test_exact_multiples_cancel_and_rounded_ones_do_not():
    """The coefficients are exact rationals: 3.0 / 3.0 is 1, 0.1 * 10.0 is not quite."""
    three = "t7 = t1 * 3.0\nt8 = t7 / 3.0\nt9 = t5 + t8\nreturn np.sum(t9)"
    assert "m" in _inert(three)
    tenth = "t7 = t1 * 0.1\nt8 = t7 * 10.0\nt9 = t5 + t8\nreturn np.sum(t9)"
    assert "m" not in _inert(tenth)


def test_complex_values_are_not_followed():
    floats = dict.fromkeys(SHAPES, "d")
    floats["t3"] = "D"
    assert "m" not in _inert("return np.sum(t6)", floats=floats)


def test_a_layout_that_disagrees_with_the_probed_shape_is_not_followed():
    shapes = dict(SHAPES, t4=(1, 5))  # (not what np.sum(t3, axis=1) makes: refused)
    assert "m" not in _inert("return np.sum(t6)", shapes=shapes)
