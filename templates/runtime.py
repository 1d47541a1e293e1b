"""Templates of srcad's own runtime helpers, so generated derivatives can be differentiated
again (hessian, hvp: forward mode over the generated reverse code).

Every helper is linear in its first argument and depends on the others only through shapes or
piecewise-constant masks, so its tangent is the helper applied to the first argument's tangent.
The products' helpers are linear in two arguments (the adjoint and the other factor).
"""
from srcad.registry import d, non_differentiable, tangent
from srcad.runtime import (add_adjoint, as_gradient, extremum_tangent, float_type, grad_seed,
                           matmul_adjoint_a, matmul_adjoint_b, rebroadcast, tuple_adjoint,
                           unattr, unbroadcast, unconcatenate, unindex, unreduce,
                           unreduce_extremum, unstack, zero_at, zero_gradient)


@tangent(unbroadcast)
def unbroadcast(y, g, x):
    d[y] = unbroadcast(d[g], x)


@tangent(unreduce)
def unreduce(y, g, x, axis=None, keepdims=False):
    d[y] = unreduce(d[g], x, axis, keepdims)


@tangent(unreduce_extremum)
def unreduce_extremum(z, g, x, y, axis=None, keepdims=False):
    d[z] = unreduce_extremum(d[g], x, y, axis, keepdims)


@tangent(extremum_tangent)
def extremum_tangent(z, dx, x, y, axis=None, keepdims=False):
    d[z] = extremum_tangent(d[dx], x, y, axis, keepdims)


@tangent(unindex)
def unindex(y, g, x, index):
    d[y] = unindex(d[g], x, index)


@tangent(unconcatenate)
def unconcatenate(y, g, arrays, axis=0):
    d[y] = unconcatenate(d[g], arrays, axis)


@tangent(unstack)
def unstack(y, g, axis=0):
    d[y] = unstack(d[g], axis)


@tangent(rebroadcast)
def rebroadcast(z, dy, y):
    d[z] = rebroadcast(d[dy], y)


@tangent(matmul_adjoint_a)
def matmul_adjoint_a(z, g, a, b):
    d[z] = matmul_adjoint_a(d[g], a, b) + matmul_adjoint_a(g, a, d[b])


@tangent(matmul_adjoint_b)
def matmul_adjoint_b(z, g, a, b):
    d[z] = matmul_adjoint_b(d[g], a, b) + matmul_adjoint_b(g, d[a], b)


@tangent(add_adjoint)
def add_adjoint_tangent(z, a, b):
    d[z] = add_adjoint(d[a], d[b])


@tangent(unattr)
def unattr_tangent(z, g, x, attribute):
    d[z] = unattr(d[g], x, attribute)


@tangent(as_gradient)
def as_gradient_tangent(z, g, x):
    d[z] = as_gradient(d[g], x)


@tangent(zero_at)
def zero_at(y, g, index):
    d[y] = zero_at(d[g], index)


@tangent(tuple_adjoint)
def tuple_adjoint(z, parts, y, indices):
    d[z] = tuple_adjoint(d[parts], y, indices)


non_differentiable(grad_seed, float_type, zero_gradient)
