"""Tangent templates of srcad's own runtime helpers that need written ones, so generated
derivatives can be differentiated again (hessian, hvp: forward mode over the generated code).

Most helpers are linear in their first argument and depend on the others only through shapes or
piecewise-constant masks: they are declared @helper(tangent="linear") and the registry writes
their tangent (the helper applied to the first argument's tangent). The products' helpers below
are linear in two arguments (the adjoint and the other factor); add_adjoint is a sum. dict_of
and dict_with (a dict built in the function, a store into it) have adjoint templates too: they
are called from user code (frontend/statements.py).
"""
from srcad.rules.registry import adjoint, d, non_differentiable, tangent
from srcad.runtime import (add_adjoint, check_cotangent, dict_item_adjoint, dict_of, dict_with,
                           dict_without, float_type, grad_seed, keys_of, matmul_adjoint_a,
                           matmul_adjoint_b, no_adjoint, undict, zero_gradient, zero_tangent)


@tangent(matmul_adjoint_a)
def matmul_adjoint_a(z, g, a, b):
    d[z] = matmul_adjoint_a(d[g], a, b) + matmul_adjoint_a(g, a, d[b])


@tangent(matmul_adjoint_b)
def matmul_adjoint_b(z, g, a, b):
    d[z] = matmul_adjoint_b(d[g], a, b) + matmul_adjoint_b(g, d[a], b)


@adjoint(dict_of)
def dict_of_adjoint(y, values, keys):
    d[values] = undict(d[y], values, keys)


@adjoint(dict_with)
def dict_with_adjoint(y, mapping, key, value):
    d[mapping] = dict_without(d[y], key)
    d[value] = dict_item_adjoint(d[y], key, value)


@tangent(dict_with)
def dict_with_tangent(y, mapping, key, value):
    d[y] = dict_with(d[mapping], key, d[value])


@tangent(add_adjoint)
def add_adjoint_tangent(z, a, b):
    d[z] = add_adjoint(d[a], d[b])


non_differentiable(grad_seed, float_type, zero_gradient, check_cotangent, zero_tangent,
                   no_adjoint, keys_of)
