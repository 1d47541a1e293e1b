"""Common factors of an adjoint's contributions (srcad/factor.py): a quadratic form's gradient
as s * (A x + A^T x), written once; where the rewrite must not apply, it does not. Numbers are
checked against central differences and the dot-product test (srcad.check_grads)."""
import textwrap

import astor
import gast
import numpy as np
import pytest

from generated import check, code
from srcad.optimize.factor import factor_contributions
from srcad.optimize.manager import facts_for




def energy(x, A):
    return 0.5 * np.dot(x, np.dot(A, x))


def log_density(x, P, mu):
    d = x - mu
    return -0.5 * np.dot(d, np.dot(P, d))


def scaled_by_a_value(x, A, s):
    return np.dot(x, np.dot(A, x)) * s


@pytest.mark.parametrize("func, extra, expected", [
    (energy, (), "bx = 0.5 * (t1 + x.dot(A))"),
    (log_density, ("mu",), "bd = -0.5 * (t1 + d.dot(P))"),
])
def test_a_quadratic_form_is_one_product_and_one_sum(func, extra, expected, rng):
    x, A = rng.normal(size=5), rng.normal(size=(5, 5))
    args = (x, A) + tuple(rng.normal(size=5) for _ in extra)
    assert expected in code(func, args)
    check(func, args)


def test_a_scalar_name_factors_too(rng):
    x, A = rng.normal(size=4), rng.normal(size=(4, 4))
    text = code(scaled_by_a_value, (x, A, 1.7), (0, 2))
    assert "* (t" in text and "x.dot(A))" in text
    check(scaled_by_a_value, (x, A, 1.7), (0, 2))


def _rewrite(source, derived, scalars=()):
    fdef = gast.parse(textwrap.dedent(source)).body[0]
    shapes = {v: () for v in scalars}
    factor_contributions(fdef, facts_for(fdef, derived=set(derived), shape_of=shapes.get,
                                         probed=lambda name: "d"))
    return astor.to_source(gast.gast_to_ast(gast.Module(body=[fdef], type_ignores=[])))


@pytest.mark.parametrize("source, kept", [
    # the adjoint is read between its first value and the contribution
    ("""
     def f(x, t, A, s):
         bx = s * t
         y = bx + 1.0
         bu = s * x
         bx = bx + np.dot(bu, A)
         return bx, y
     """, "bx = s * t"),
    # a name its first value reads is bound again before the contribution
    ("""
     def f(x, t, A, s):
         bx = s * t
         t = t + 1.0
         bu = s * x
         bx = bx + np.dot(bu, A)
         return bx
     """, "bx = s * t"),
    # the scaled vector is read twice: it must stay
    ("""
     def f(x, t, A, s):
         bx = s * t
         bu = s * x
         bx = bx + np.dot(bu, A)
         return bx, bu
     """, "bx = s * t"),
    # another factor
    ("""
     def f(x, t, A, s, r):
         bx = s * t
         bu = r * x
         bx = bx + np.dot(bu, A)
         return bx
     """, "bx = s * t"),
])
def test_where_it_must_not_apply(source, kept):
    text = _rewrite(source, {"bx", "bu"}, scalars=("s", "r"))
    assert kept in text


def test_where_it_applies_in_a_plain_function():
    text = _rewrite("""
        def f(x, t, A, s):
            bx = s * t
            bu = s * x
            bx = bx + np.dot(bu, A)
            return bx
        """, {"bx", "bu"}, scalars=("s",))
    assert "bx = s * (t + np.dot(x, A))" in text and "bx = s * t" not in text


def scaled_mixed(x, A, s):
    return np.dot(x, np.dot(A, x)) * s


def test_mixed_dtypes_are_not_factored(rng):
    """s float64 and x, A float32: s * X + s * Y adds in float64, s * (X + Y) would add in
    float32: not rewritten (one dtype, one rounding)."""
    x = rng.normal(size=4).astype(np.float32)
    A = rng.normal(size=(4, 4)).astype(np.float32)
    text = code(scaled_mixed, (x, A, np.float64(1.7)))
    assert "* (t" not in text
    assert "* (t" in code(scaled_mixed, (x.astype(np.float64), A.astype(np.float64), 1.7))
