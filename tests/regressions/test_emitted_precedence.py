"""A negative number that constant folding left as the base of ** was written `-0.6 ** 2`,
which Python reads as -(0.6 ** 2): `w /= (-0.6) ** 2` changed even the primal value. Negative
numbers are written as negations (astor then parenthesizes them), and emit checks that the text
it writes reads back as the code it was written from."""
import ast
import importlib

import gast
import numpy as np
import pytest

import srcad

emit_module = importlib.import_module("srcad.backend.emit")


def negative_base(x):
    w = x * 3.0
    w /= (-0.6) ** 2
    return np.sum(w - (-0.5) ** 2.0 * x)


def test_negative_bases_keep_their_meaning():
    x = np.array([0.5, -1.0, 2.0])
    for disable in (None, "all"):
        value, grad = srcad.value_and_grad(negative_base, disable=disable)(x)
        assert value == pytest.approx(negative_base(x), rel=1e-14)
        np.testing.assert_allclose(grad, 3.0 / 0.36 - 0.25, rtol=1e-14)
        assert srcad.jvp(negative_base, disable=disable)(x, np.ones(3)) == pytest.approx(
            3 * (3.0 / 0.36 - 0.25), rel=1e-14)


def _function(body):
    fdef = gast.parse("def g(x):\n    return x\n").body[0]
    fdef.body[0].value = body
    return fdef


def test_a_folded_negative_constant_is_parenthesized():
    power = gast.BinOp(left=gast.Constant(value=-0.6, kind=None), op=gast.Pow(),
                       right=gast.Constant(value=2, kind=None))
    text = emit_module.function_source(_function(power))
    assert "(-0.6) ** 2" in text
    namespace = {}
    exec(text, namespace)
    assert namespace["g"](None) == pytest.approx(0.36)


def test_text_that_reads_back_otherwise_is_an_internal_error(monkeypatch):
    monkeypatch.setattr(emit_module.astor, "to_source",
                        lambda module, pretty_source=None: "def g(x):\n    return -x\n")
    with pytest.raises(AssertionError, match="does not read back"):
        emit_module.function_source(_function(gast.Name(id="x", ctx=gast.Load(),
                                                        annotation=None, type_comment=None)))
