"""Tangent templates of srcad's own runtime helpers that need written ones, so generated
derivatives can be differentiated again (hessian, hvp: forward mode over the generated code).

Most helpers are linear in their first argument and depend on the others only through shapes or
piecewise-constant masks: they are declared @helper(tangent="linear") and the registry writes
their tangent (the helper applied to the first argument's tangent). The products' helpers below
are linear in two arguments (the adjoint and the other factor); add_adjoint is a sum.
"""
from srcad.rules.registry import d, non_differentiable, tangent
from srcad.runtime import (add_adjoint, check_cotangent, float_type, grad_seed, matmul_adjoint_a,
                           matmul_adjoint_b, no_adjoint, zero_gradient, zero_tangent)


@tangent(matmul_adjoint_a)
def matmul_adjoint_a(z, g, a, b):
    d[z] = matmul_adjoint_a(d[g], a, b) + matmul_adjoint_a(g, a, d[b])


@tangent(matmul_adjoint_b)
def matmul_adjoint_b(z, g, a, b):
    d[z] = matmul_adjoint_b(d[g], a, b) + matmul_adjoint_b(g, d[a], b)


@tangent(add_adjoint)
def add_adjoint_tangent(z, a, b):
    d[z] = add_adjoint(d[a], d[b])


non_differentiable(grad_seed, float_type, zero_gradient, check_cotangent, zero_tangent,
                   no_adjoint)
