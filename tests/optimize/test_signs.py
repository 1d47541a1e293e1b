"""Sinking negations (srcad/signs.py): the rewrite on small generated-looking functions (and the
same numbers, to the last bit, before and after), and on whole gradients through check_grads."""
import ast
import textwrap

import astor
import gast
import numpy as np
import pytest

import srcad
from srcad.syntax.naming import clone
from srcad.runtime import HELPERS
from srcad.optimize.manager import facts_for
from srcad.optimize.signs import sink_signs


def _rewrite(source, derived):
    fdef = gast.parse(textwrap.dedent(source)).body[0]
    before = clone(fdef)
    sink_signs(fdef, facts_for(fdef, derived=set(derived)))
    return before, fdef


def _text(fdef):
    return astor.to_source(gast.gast_to_ast(gast.Module(body=[fdef], type_ignores=[])))


def _run(fdef, *args):
    module = ast.fix_missing_locations(gast.gast_to_ast(gast.Module(body=[fdef],
                                                                    type_ignores=[])))
    namespace = {"np": np, **HELPERS}
    exec(compile(module, "<test>", "exec"), namespace)
    return namespace[fdef.name](*args)


CASES = [
    # (source, derived names, lines expected in the result, lines that must be gone)
    ("""
     def f(a, y, D):
         bA = a / D
         bD = -(bA * y).sum(axis=(0,))
         bC = safe_div(bD, 2.0 * D)
         bA = bA + bC * 0.03125 * y
         return bA
     """, "bA bD bC", ["bD = (bA * y).sum(axis=(0,))", "bA = bA - bC * 0.03125 * y"], []),
    ("""
     def f(a, y):
         bm = -a.sum(axis=(0,))
         bA = y + 0.5 * bm
         bA += bm * y
         return bA
     """, "bA bm", ["bm = a.sum(axis=(0,))", "bA = y - 0.5 * bm", "bA -= bm * y"], []),
    ("""
     def f(a, y):
         bm = -a
         bz = -(bm * y).sum()
         return y + bz
     """, "bm bz", ["bm = a", "bz = (bm * y).sum()"], ["-"]),
    ("""
     def f(a, y):
         bm = -a
         bz = (-(bm * y)).sum()
         return y + bz
     """, "bm bz", ["bm = a", "bz = (bm * y).sum()"], ["-"]),
    ("""
     def f(a, y):
         bm = -a
         return bm
     """, "bm", ["bm = -a"], []),  # returned: it must stay what it is
    ("""
     def f(a, y):
         bm = -a
         return y + bm * bm
     """, "bm", ["bm = -a"], []),  # squared: the signs cancel, nothing to flip
    ("""
     def f(a, y):
         bm = -a
         bz = y - np.vdot(bm, y)
         return bz + np.exp(bm)
     """, "bm bz", ["bm = -a"], []),  # np.exp is not odd: left alone
    ("""
     def f(a, y):
         bm = -a
         bz = y - np.vdot(bm, y)
         return bz
     """, "bm bz", ["bm = a", "bz = y + np.vdot(bm, y)"], []),
    ("""
     def f(a, y):
         bm = -a
         return y + bm * 2.0
     """, "", ["bm = -a"], []),  # not a derivative name: never rewritten
    ("""
     def f(a, y, D):
         bg = a * 0.0
         for i in range(3):
             share = a / D
             bt = -share * y
             bu = safe_mul(bt, D)
             bz = -bu
             bg += bz
         return bg
     """, "bg share bt bu bz", ["bt = share * y", "bz = bu", "bg += bz"], ["-"]),  # a sigmoid's
    # adjoint in a loop's turn: a product headed by a minus, and a negation, both gone
    ("""
     def f(a, y):
         for i in range(2):
             bm = -a * y / 2.0
         return y - bm * 2.0
     """, "bm", ["bm = a * y / 2.0", "return y + bm * 2.0"], ["-"]),  # read after the loop
    ("""
     def f(a, y):
         bm = -a
         bm = -y
         return y + bm * 2.0
     """, "bm", ["bm = -a", "bm = -y"], []),  # bound twice: left alone
]


@pytest.mark.parametrize("source, derived, present, absent", CASES)
def test_sink_signs(source, derived, present, absent, rng):
    before, after = _rewrite(source, derived.split())
    text = _text(after)
    for line in present:
        assert line in text, text
    body = text.split("\n", 1)[1]
    for piece in absent:
        assert piece not in body, text
    a, y = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    args = (a, y, rng.uniform(1.0, 2.0, size=3)) if len(before.args.args) == 3 else (a, y)
    np.testing.assert_array_equal(_run(after, *args), _run(before, *args))


def batchnorm(x, w, eps):
    mu = np.mean(x, 0)
    A = x - mu
    var = np.mean(A ** 2, 0)
    return np.sum(A / np.sqrt(var + eps) * w)


def test_batchnorm_gradient_has_no_negation(rng):
    x, w = rng.normal(size=(6, 3)), rng.normal(size=(6, 3))
    text = srcad.source(batchnorm, args=(x, w, 1e-5))
    body = text[text.index("def batchnorm_grad"):]
    assert "= -" not in body and "-(" not in body
    srcad.check_grads(batchnorm, (x, w, 1e-5), wrt=0)
