"""Every registered template, checked by its spec rows in both modes, and a meta-test that no
registered op lacks a tangent, an adjoint or a spec row."""
import gast
import numpy as np
import pytest

import srcad
from srcad.rules.instantiate import simplify_zeros, Zero
from srcad.rules.operations import pack
from srcad.rules.registry import REGISTRY, Registry, d
from srcad.runtime import HELPERS
from specs import all_specs, run_spec

SPECS = all_specs()


@pytest.mark.parametrize("spec", SPECS, ids=[s.id for s in SPECS])
def test_spec(spec):
    run_spec(spec)


def _registered_ops():
    keys = set(REGISTRY.adjoints) | set(REGISTRY.tangents)
    return {key: REGISTRY.names[key] for key in keys}


def test_every_op_has_both_templates():
    helpers = {id(f) for f in HELPERS.values()}
    missing = []
    for key, (op, name) in _registered_ops().items():
        if key in helpers:
            continue  # runtime helpers: tangents only (test_runtime_helpers_have_tangents)
        if key not in REGISTRY.adjoints:
            missing.append(f"{name}: no adjoint")
        if key not in REGISTRY.tangents:
            missing.append(f"{name}: no tangent")
    assert not missing, "\n".join(sorted(missing))


def test_runtime_helpers_have_tangents():
    """Generated reverse code must be differentiable in forward mode (hessian, hvp)."""
    missing = [name for name, f in HELPERS.items()
               if REGISTRY.tangent_of(f) is None and not REGISTRY.is_nondifferentiable(f)]
    assert not missing, missing


# ops whose operands cannot be written in a spec row's expression, checked by a test instead
CHECKED_ELSEWHERE = {getattr: "tests/modes/test_state.py::test_object_attributes",
                     pack: "tests/modes/test_state.py::test_tuple_values",
                     # (its modes disagree by design: the hook acts on adjoints only)
                     srcad.grad_hook: "tests/api/test_hooks.py",
                     # (complex values: in builds specialized to the arguments only, which
                     # a spec row's generic check would refuse)
                     **{f: "tests/rules/test_fft.py" for f in (
                         np.fft.fft, np.fft.ifft, np.fft.rfft, np.fft.irfft, np.fft.fftn,
                         np.fft.ifftn, np.fft.fft2, np.fft.ifft2)}}


def test_every_op_has_a_spec_row():
    covered = {REGISTRY._key(op) for spec in SPECS for op in spec.ops} | {
        REGISTRY._key(op) for op in CHECKED_ELSEWHERE}
    helpers = {id(f) for f in HELPERS.values()}
    missing = sorted(name for key, (op, name) in _registered_ops().items()
                     if key not in covered and key not in helpers)
    assert not missing, "ops without a spec row in tests/specs/: " + ", ".join(missing)


def test_coverage_report_lists_public_names():
    rows = srcad.coverage()
    names = {row["name"] for row in rows}
    assert "numpy.sin" in names and "math.exp" in names
    assert all(set(row) >= {"name", "forward", "reverse"} for row in rows)


def test_a_diagonal_template_is_its_own_adjoint_with_the_derivatives_exchanged():
    """@diagonal writes the adjoint of an elementwise op from its tangent (rules/registry.py)."""
    adjoint, tangent = REGISTRY.adjoint_of(np.sin), REGISTRY.tangent_of(np.sin)
    assert gast.unparse(adjoint.node.body[0]).strip() == "d[x] = d[y] * np.cos(x)"
    assert gast.unparse(tangent.node.body[0]).strip() == "d[y] = d[x] * np.cos(x)"


def test_diagonal_refuses_a_template_that_is_not_elementwise_of_one_operand():
    def two_operands(z, a, b):
        d[z] = d[a] * b

    with pytest.raises(ValueError, match="one operand"):
        Registry().diagonal(np.multiply)(two_operands)


def _tangent_text(registry, op):
    return gast.unparse(registry.tangent_of(op).node.body[0]).strip()


def test_a_linear_op_gets_the_op_applied_to_tangents_as_its_tangent():
    """@linear registers the adjoint written out and writes the tangent (rules/registry.py):
    the other arguments by position until a storage argument is left out, by keyword after;
    an operator as its syntax; every operand the adjoint writes replaced by its tangent."""
    assert _tangent_text(REGISTRY, np.sum) == "d[y] = np.sum(d[a], axis=axis, keepdims=keepdims)"
    assert _tangent_text(REGISTRY, np.take) == "d[y] = np.take(d[a], indices, axis, mode=mode)"
    assert _tangent_text(REGISTRY, np.add) == "d[z] = d[x] + d[y]"
    assert _tangent_text(REGISTRY, np.where) == "d[z] = np.where(condition, d[x], d[y])"
    assert _tangent_text(REGISTRY, np.concat) == "d[y] = np.concatenate(d[arrays], axis)"
    assert REGISTRY.adjoint_of(np.sum).func is REGISTRY.tangent_of(np.sum).func


def test_a_bilinear_op_gets_the_product_rule_as_its_tangent():
    assert _tangent_text(REGISTRY, np.dot) == "d[c] = np.dot(d[a], b) + np.dot(a, d[b])"
    assert _tangent_text(REGISTRY, np.multiply) == "d[z] = d[x] * y + x * d[y]"


def test_linear_declarations_refuse_what_they_cannot_write():
    def one_operand(c, a, b):
        d[a] = d[c] * b

    registry = Registry()
    registry.bilinear(np.inner)(one_operand)
    with pytest.raises(ValueError, match="1 operand"):
        registry.tangent_of(np.inner).node
    with pytest.raises(ValueError, match="can call"):
        registry.linear(lambda x: x)(one_operand)
    with pytest.raises(ValueError, match="keywords"):
        registry.linear(np.fliplr, keywords=("axis",))(one_operand)


def test_zeros_fold_through_declared_linear_and_bilinear_calls():
    """Forward mode drops a call of a linear op whose operands' tangents are all zero, and of a
    bilinear op with one zero operand: rules/instantiate.py reads the declarations."""
    x, dx = gast.Name(id="x", ctx=gast.Load(), annotation=None, type_comment=None), Zero("x")
    c = gast.Name(id="c", ctx=gast.Load(), annotation=None, type_comment=None)

    def numpy_call(attr, *args):
        return gast.Call(func=gast.Attribute(value=gast.Name(id="np", ctx=gast.Load(),
                                                             annotation=None, type_comment=None),
                                             attr=attr, ctx=gast.Load()),
                         args=list(args), keywords=[])

    assert simplify_zeros(numpy_call("where", c, dx, Zero("y"))) is dx
    assert not isinstance(simplify_zeros(numpy_call("where", c, dx, x)), Zero)
    assert simplify_zeros(numpy_call("dot", x, dx)) is dx
    assert simplify_zeros(numpy_call("transpose", dx)) is dx
