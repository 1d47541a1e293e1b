"""Optimizer passes run one by one on functions written out (the before/after harness,
tests/before_after.py): the text each pass makes, and the same numbers before and after. The
pass-specific files (test_cancel.py, test_factor.py, test_signs.py, test_rank_one.py, ...)
check the passes inside whole builds; these pin down each rewrite by itself."""
import numpy as np

from srcad.optimize.copies import copies
from srcad.optimize.deadcode import dead_code
from srcad.optimize.strength import reduce_strength

from before_after import check_rewrite, check_unchanged

RNG = np.random.default_rng(4)
A, B = RNG.normal(size=(3, 4)), RNG.normal(size=(4, 2))


def test_copies_are_propagated_into_their_reads():
    check_rewrite(copies, """
        def f(x, w):
            t = x
            y = t * w
            z = y
            return z + t
        """, """
        def f(x, w):
            y = x * w
            return y + x
        """, (A, 2.5))


def test_unread_pure_statements_are_dropped():
    check_rewrite(dead_code, """
        def f(x, w):
            t = np.sin(x)
            u = np.cos(x) * w
            return t * 2.0
        """, """
        def f(x, w):
            t = np.sin(x)
            return t * 2.0
        """, (A, 2.5))


def test_reductions_of_float_arrays_become_their_methods():
    check_rewrite(reduce_strength, """
        def f(a, b):
            t = np.sum(a, axis=1)
            m = np.mean(a, 0)
            d = np.dot(a, b)
            return t, m, d
        """, """
        def f(a, b):
            t = a.sum(axis=1)
            m = a.sum(axis=0) / 3
            d = a.dot(b)
            return (t, m, d)
        """, (A, B), inexact={"a", "b"}, arrays={"a", "b"}, shapes={"a": (3, 4), "b": (4, 2)})


def test_a_reduction_of_a_name_not_known_as_an_array_stays():
    check_unchanged(reduce_strength, """
        def f(a, b):
            return np.sum(a, axis=1)
        """, (A, B), inexact=set(), arrays=set(), shapes={})
