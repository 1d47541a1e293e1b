"""Templates of srcad's own runtime helpers that need written ones, so generated derivatives
can be differentiated again: forward mode over them (hessian, hvp) and reverse mode
(grad(grad(f)), vjp(vjp(f))). A helper with no adjoint (or tangent) template here is
differentiated from its source, as the user's functions are (rules/calls.is_user_function);
the helpers below write into arrays they make, or read dtypes and structures, which srcad does
not differentiate from source, or have a simpler rule than their source's derivative.

Most helpers are linear in their first argument and depend on the others only through shapes or
piecewise-constant masks: they are declared @helper(tangent="linear") and the registry writes
their tangent (the helper applied to the first argument's tangent). The products' helpers below
are linear in two arguments (the adjoint and the other factor); add_adjoint is a sum. dict_of
and dict_with (a dict built in the function, a store into it) have adjoint templates too: they
are called from user code (frontend/statements.py).
"""
import numpy as np

from srcad.rules.registry import adjoint, d, linear, non_differentiable, tangent
from srcad.runtime import (add_adjoint, added_at, array_like, arrays_overlap, as_gradient,
                           aux_cotangent, aux_seed, check_cotangent, check_own_update, checkpoint,
                           checkpoint_segments, dict_of, dict_with,
                           dict_without, float_type, grad_hook, grad_seed, in_dtype_of,
                           item_adjoints, item_of, keys_of, list_index, list_slice,
                           matmul_adjoint_a, matmul_adjoint_b, safe_matmul,
                           no_adjoint, on_host, rebroadcast, repeat_items, repeats_sequence, scalar_of,
                           selection_share, size_of,
                           stop_gradient, stored_share, tuple_adjoint, tuple_parts, unbroadcast, unconcatenate,
                           undict, unindex, unreduce, unrepeat_items, unstack, zero_at,
                           zero_gradient, zero_tangent)


# np.add.at(y, index, v) as y[...] = added_at(y, index, v) (frontend/desugar.py): y's entries
# pass through, and each of v's reaches the entries it was added to (a gather, repeats too)
@linear(added_at)
def added_at_(z, y, index, v):
    d[y] = d[z]
    d[v] = unbroadcast(d[z][index], v)


# x.item() (frontend/desugar.py): the number of a one-item array; its adjoint in the array's shape
@adjoint(scalar_of)
def scalar_of_adjoint(y, v):
    d[v] = np.reshape(d[y], np.shape(v))


# a @ b with strong zeros (modes/strong_zeros.py): bilinear as a @ b is
@tangent(safe_matmul)
def safe_matmul_tangent(z, a, b):
    d[z] = safe_matmul(d[a], b) + safe_matmul(a, d[b])


@adjoint(safe_matmul)
def safe_matmul_adjoint(z, a, b):
    d[a] = matmul_adjoint_a(d[z], a, b)
    d[b] = matmul_adjoint_b(d[z], a, b)


@tangent(matmul_adjoint_a)
def matmul_adjoint_a_tangent(z, g, a, b):
    d[z] = matmul_adjoint_a(d[g], a, b) + matmul_adjoint_a(g, a, d[b])


@tangent(matmul_adjoint_b)
def matmul_adjoint_b_tangent(z, g, a, b):
    d[z] = matmul_adjoint_b(d[g], a, b) + matmul_adjoint_b(g, d[a], b)


# a @ b's adjoint helpers are linear in the adjoint g and in the other factor: with w the
# adjoint of their value, <w, g b^T> = <g, w b> = <b, w^T g> (and alike for b's)
@adjoint(matmul_adjoint_a)
def matmul_adjoint_a_adjoint(z, g, a, b):
    d[g] = unbroadcast(np.matmul(d[z], b), g)
    d[b] = matmul_adjoint_b(g, d[z], b)


@adjoint(matmul_adjoint_b)
def matmul_adjoint_b_adjoint(z, g, a, b):
    d[g] = unbroadcast(np.matmul(a, d[z]), g)
    d[a] = matmul_adjoint_a(g, a, d[z])


@adjoint(dict_of)
def dict_of_adjoint(y, values, keys):
    d[values] = undict(d[y], values, keys)


@adjoint(dict_with)
def dict_with_adjoint(y, mapping, key, value):
    d[mapping] = dict_without(d[y], key)
    d[value] = item_of(d[y], key, value)


@tangent(dict_with)
def dict_with_tangent(y, mapping, key, value):
    d[y] = dict_with(d[mapping], key, d[value])


@tangent(add_adjoint)
def add_adjoint_tangent(z, a, b):
    d[z] = add_adjoint(d[a], d[b])


# Adjoints of the helpers linear in their first argument g (the others enter through shapes,
# masks or indices): the transposed map applied to the adjoint of their value.
@adjoint(add_adjoint)
def add_adjoint_adjoint(z, a, b):
    d[a] = d[z]
    d[b] = d[z]


@adjoint(unbroadcast)
def unbroadcast_adjoint(z, g, x):
    d[g] = rebroadcast(d[z], g)


@adjoint(rebroadcast)
def rebroadcast_adjoint(z, dy, y):
    d[dy] = unbroadcast(d[z], dy)


# The adjoints of helpers that return lists: items no adjoint reached are zeros, shaped like
# what the helper would return (not read from z: first-order code pops its list adjoints, so
# the list z names may be empty by the time a derivative of that code reads it)
@adjoint(item_adjoints)  # (its own transpose)
def item_adjoints_adjoint(z, g, items):
    d[g] = item_adjoints(d[z], items)


@adjoint(unrepeat_items)  # (a list repeated by `*`: the two are each other's transpose)
def unrepeat_items_adjoint(z, g, items, count):
    d[g] = repeat_items(d[z], g, items, count)


@adjoint(repeat_items)
def repeat_items_adjoint(z, w, g, items, count):
    d[w] = unrepeat_items(d[z], items, count)


@adjoint(unstack)
def unstack_adjoint(z, g, axis=0):
    d[g] = np.stack(item_adjoints(d[z], unstack(g, axis)), axis=axis)


@adjoint(unconcatenate)
def unconcatenate_adjoint(z, g, arrays, axis=0):
    d[g] = np.concatenate(item_adjoints(d[z], arrays), axis=axis)


@adjoint(unreduce)
def unreduce_adjoint(z, g, x, axis=None, keepdims=False):
    d[g] = unbroadcast(np.sum(d[z], axis=axis, keepdims=keepdims), g)


@adjoint(in_dtype_of)
def in_dtype_of_adjoint(z, g, x):
    d[g] = in_dtype_of(d[z], g)


@adjoint(as_gradient)
def as_gradient_adjoint(z, g, x):
    d[g] = in_dtype_of(d[z], g)


@adjoint(unindex)
def unindex_adjoint(z, g, x, index):
    d[g] = item_of(d[z], index, g)


@adjoint(selection_share, broadcasts=True)
def selection_share_adjoint(z, g, wins, tied, loser=False):
    d[g] = selection_share(d[z], wins, tied, loser)


@adjoint(zero_at)
def zero_at_adjoint(z, g, index):
    d[g] = zero_at(d[z], index)


@adjoint(stored_share)  # (g itself, or zeros: its own transpose)
def stored_share_adjoint(z, g, y):
    d[g] = stored_share(d[z], y)


@adjoint(tuple_adjoint)
def tuple_adjoint_adjoint(z, parts, y, indices):
    d[parts] = tuple_parts(d[z], indices, parts)


# a gradient hook: the adjoint goes through the user's function, the tangent through unchanged
@adjoint(grad_hook, name="srcad.grad_hook")
def grad_hook_adjoint(y, x, fn):
    d[x] = fn(d[y])


@tangent(grad_hook, name="srcad.grad_hook")
def grad_hook_tangent(y, x, fn):
    d[y] = d[x]


non_differentiable(stop_gradient, name="srcad.stop_gradient")
non_differentiable(checkpoint, name="srcad.checkpoint")
non_differentiable(grad_seed, aux_seed, aux_cotangent, float_type, zero_gradient,
                   check_cotangent, check_own_update, arrays_overlap, zero_tangent, no_adjoint,
                   keys_of, checkpoint_segments, size_of, on_host, array_like, list_index, list_slice, repeats_sequence)
