"""Switching optimization passes off by name, and verify mode (srcad/verify.py): the optimized
derivative is checked against the unoptimized one, and a bug in a pass is named by bisection."""
import gast
import numpy as np
import pytest

import srcad
from srcad import pipeline
from srcad.optimize import passes


def softplus_sum(x, w):
    return np.sum(np.log(1.0 + np.exp(x * w))) - np.sum(x * x)


X = np.array([0.5, -1.2, 2.0])
W = np.array([1.5, 0.3, -0.7])


def test_passes_are_named_and_unknown_names_are_refused():
    assert srcad.PASSES == pipeline.PASSES and "specialize" in srcad.PASSES
    with pytest.raises(srcad.SrcadError, match="unknown optimization pass"):
        srcad.grad(softplus_sum, disable="no_such_pass")
    assert pipeline.disabled_passes("all") == frozenset(srcad.PASSES)
    assert pipeline.disabled_passes("signs, inplace") == {"signs", "inplace"}
    assert pipeline.disabled_passes(("cancel",)) == {"cancel"}


def test_the_environment_variable_switches_passes_off(monkeypatch):
    monkeypatch.setenv("SRCAD_DISABLE", "all")
    assert pipeline.disabled_passes(None) == frozenset(srcad.PASSES)
    monkeypatch.setenv("SRCAD_DISABLE", "")
    assert pipeline.disabled_passes(None) == frozenset()


def test_the_unoptimized_derivative_is_the_generic_template_instance():
    optimized = srcad.source(softplus_sum, wrt=(0, 1), args=(X, W))
    plain = srcad.source(softplus_sum, wrt=(0, 1), args=(X, W), disable="all")
    assert "unbroadcast(" not in optimized and "unbroadcast(" in plain
    assert plain == srcad.source(softplus_sum, wrt=(0, 1), disable="all")  # not specialized
    for disable in (None, "all", "inplace", ("constants", "copies", "dead_code")):
        got = srcad.grad(softplus_sum, wrt=(0, 1), disable=disable)(X, W)
        want = srcad.grad(softplus_sum, wrt=(0, 1), disable="all", verify=False)(X, W)
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_each_pass_can_be_switched_off_alone():
    for name in srcad.PASSES:
        for kind in (srcad.grad, srcad.value_and_grad):
            kind(softplus_sum, wrt=(0, 1), disable=name, verify=True)(X, W)
        srcad.jvp(softplus_sum, wrt=(0, 1), disable=name, verify=True)(X, W, X, W)


def _flip_first_contribution(fdef, *args, **kwargs):
    """A broken pass: the first `bx = e` of an adjoint becomes `bx = -(e)`."""
    for stmt in fdef.body:
        if (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
                and stmt.targets[0].id == "bx"):
            stmt.value = gast.UnaryOp(op=gast.USub(), operand=stmt.value)
            break
    return fdef


def _broken(real):
    """real, then _flip_first_contribution: a pass that changes the code (it does not say, as
    real may, that it changed nothing)."""
    def run(fdef, facts):
        fdef = real(fdef, facts)
        facts._unchanged = False
        return _flip_first_contribution(fdef)
    return run


def test_verify_names_the_pass_that_broke_the_derivative(monkeypatch):
    signs = passes.by_name("signs")
    monkeypatch.setattr(signs, "run", _broken(signs.run))

    def g(x, w):  # (a function of its own: derivatives are cached per function)
        return np.sum(np.log(1.0 + np.exp(x * w))) - np.sum(x * x)
    with pytest.raises(srcad.VerifyError, match="first pass that changes it: signs"):
        srcad.grad(g, verify=True)(X, W)
    srcad.grad(g, verify=True, disable="signs")(X, W)  # without the pass: right


def test_verify_catches_a_call_that_changes_its_arguments(monkeypatch):
    def store_into_x(fdef, *args, **kwargs):
        store = gast.parse("x[0] = 99.0").body[0]
        fdef.body.insert(len(fdef.body) - 1, store)
        return fdef
    monkeypatch.setattr(passes.by_name("strength"), "run", lambda fdef, facts: store_into_x(fdef))

    def h(x, w):
        return np.sum(x * w)
    x = X.copy()
    with pytest.raises(srcad.VerifyError, match="changed its arguments: argument 0"):
        srcad.grad(h, verify=True)(x, W)


def test_where_the_reference_is_not_defined_any_value_goes():
    """a * b / b is nan where b == 0; cancelling b gives 1 there. The function's value is nan,
    so its derivative is not defined there: not a difference."""
    def ratio(a, b):
        return np.sum(a * b / b)
    with np.errstate(invalid="ignore", divide="ignore"):
        srcad.grad(ratio, verify=True)(np.array([1.0, 2.0]), np.array([0.0, 3.0]))


def test_a_list_the_function_appends_to_is_not_a_changed_argument():
    """f's own side effect on a list it is given runs in the derivative call too (once); only
    the arrays an argument held must stay as they were."""
    def logs(x, log):
        log.append(np.sum(x))
        return np.sum(x * x)
    log = []
    np.testing.assert_allclose(srcad.grad(logs, verify=True)(X, log), 2 * X)
    assert len(log) == 1
