"""layout (shape-specialized builds): an arithmetic operation between arrays that broadcast
into a result whose last axis is short and first axis long is computed in Fortran order.

    diff = t1 - t2        ->   diff = np.subtract(t1, t2, order='F')
    (t1: 64 x 1 x 3, t2: 1 x 64 x 3; diff: 64 x 64 x 3)

Why: numpy runs an elementwise operation as loops over the result in its memory order, the
innermost along the last axis, and a broadcast operand keeps it from merging axes into one
loop. The 64 x 64 x 3 differences of pairwise code (N-body energies, kernels, mixtures) are
then 4,096 loops of 3 items (46 us here); in Fortran order the innermost axis is the first,
192 loops of 64 (12 us). Every item is the same operation on the same two numbers: the values
are the same, only where they lie in memory changes. Thresholds: the last axis at most
SHORT_LAST items, the first at least LONG_FIRST, the result at least MIN_ITEMS (measured:
(512, 8, 8) 0.73x the time, (512, 8, 16) 1.35x, (8, 8, 3) 1.02x, (4096, 2) 0.21x).

What could tell the two layouts apart is only what depends on memory: a reshape or ravel is a
view of one layout and a copy of the other (a write through it would reach the array in one
and not in the other), .view(dtype), .tobytes(), .strides, an array handed to code srcad does
not see. So the rewrite is made only when every use of the result is one whose meaning is the
same in both layouts, followed through the arrays made from it:

    elementwise arithmetic and comparisons, numpy's ufuncs,      followed: their results are
    srcad's elementwise helpers (safe_mul, slope_mul, safe_div)    laid out like their operands
    reductions: x.sum(...), np.sum(x, ...), max, min, mean, prod   followed (the axes left)
    views: basic indexing (ints, slices, None, ...), .T,           followed (views in either
        .transpose(...)                                              layout alike)
    matrix products: @, np.matmul, np.dot, x.dot, np.tensordot    read (a new C-ordered result)
    .shape, .ndim, .size, .dtype; augmented assignment; a store   read
        into it or of it into another array

Any other use (returned, passed to a function srcad does not know, reshaped, put in a list or a
tuple, indexed by a name that could be an array, ...) leaves the operation as written, and so
does a followed name bound more than once. A new one- or zero-dimensional array (made by an
elementwise operation or a reduction, not a view) is contiguous in both layouts and is not
followed further.

A sum (or mean, or product) may add in another order in the other layout: numpy adds the
items along a contiguous axis in a tree of partial sums, and a Fortran-ordered array's last axis
one plane after the other. The same only over the last axis of at most 7 items (numpy adds so
few one after the other too). A derivative's sums may be rounded so (equal within rounding);
f's values may not: where the code returns f's value (value_and_grad, a callee's record or
tangent: pipeline.VALUE_KINDS), f's values are f's to the bit, so there a sum of another kind
is a use that stops the rewrite, and so is a matrix product (BLAS's matrix-vector product of a
Fortran-ordered matrix rounds otherwise).
"""
import math

import gast
import numpy as np

from ..runtime import GUARDED_OPERATIONS
from ..syntax.naming import walk

SHORT_LAST = 8  # the longest last axis
LONG_FIRST = 16  # the shortest first axis (the loop Fortran order makes innermost)
MIN_ITEMS = 512  # the fewest items of the result

UFUNCS = {gast.Add: "add", gast.Sub: "subtract", gast.Mult: "multiply", gast.Div: "divide"}
ELEMENTWISE_HELPERS = frozenset(GUARDED_OPERATIONS)
REDUCTIONS = frozenset({"sum", "max", "min", "mean", "prod", "any", "all"})
PRODUCTS = frozenset({"matmul", "dot", "tensordot", "vdot"})
READ_ATTRIBUTES = frozenset({"shape", "ndim", "size", "dtype"})
_FAIL = object()  # a use whose meaning may depend on the layout


def _numpy_function(func):
    """The attribute name of np.<name>, or None."""
    if (type(func) is gast.Attribute and type(func.value) is gast.Name
            and func.value.id == "np"):
        return func.attr
    return None


def _basic_index(index):
    """Whether an index is basic (its result is a view in any layout): int and None
    constants, Ellipsis, slices of constants or names (ints), or a tuple of those."""
    items = index.elts if type(index) is gast.Tuple else [index]
    for item in items:
        if type(item) is gast.Constant:
            if not (item.value is None or item.value is Ellipsis or type(item.value) is int):
                return False
        elif type(item) is gast.Slice:
            if not all(part is None or type(part) in (gast.Constant, gast.Name)
                       for part in (item.lower, item.upper, item.step)):
                return False
        elif not (type(item) is gast.UnaryOp and type(item.op) is gast.USub
                  and type(item.operand) is gast.Constant and type(item.operand.value) is int):
            return False
    return True


def _constant_arguments(call, skip):
    """Whether a call's other arguments (all but the node skip) are constants (axis=1,
    keepdims=True, (1, 0, 2)): nothing of them is an array that could be laid out anew."""
    parts = [a for a in call.args if a is not skip] + [k.value for k in call.keywords]
    return all(all(type(n) in (gast.Constant, gast.Tuple, gast.Load, gast.UnaryOp, gast.USub)
                   for n in walk(part)) for part in parts)


def _axis(call, method):
    """The axis argument of a reduction call (x.sum(axis=...) when method, else
    np.sum(x, axis=...)), or None."""
    axis = next((k.value for k in call.keywords if k.arg == "axis"), None)
    positional = call.args[0 if method else 1:]
    return positional[0] if axis is None and positional else axis


def _to_number(call, method):
    """Whether a reduction call reduces over every axis (no axis, or axis=None): its result is a
    number (or with keepdims an array of one item), the same in either layout."""
    axis = _axis(call, method)
    return axis is None or (type(axis) is gast.Constant and axis.value is None)


ORDERED = frozenset({"sum", "mean", "prod"})  # reductions whose result depends on the order
SEQUENTIAL = 7  # the longest axis numpy's sum adds one item after the other (8 and more: in a
# tree of partial sums along a contiguous axis), as a Fortran-ordered array's last axis is added


def _same_order(call, method, shape_of):
    """Whether a reduction adds in the same order in either layout: over the last axis alone,
    of at most SEQUENTIAL items (its array a name of known shape)."""
    array = call.func.value if method else call.args[0]
    shape = shape_of(array.id) if type(array) is gast.Name else None
    axis = _axis(call, method)
    if type(axis) is gast.Tuple and len(axis.elts) == 1:
        axis = axis.elts[0]
    if type(axis) is gast.UnaryOp and type(axis.op) is gast.USub and type(
            axis.operand) is gast.Constant:
        last = axis.operand.value == 1
    else:
        last = type(axis) is gast.Constant and shape is not None and axis.value == len(shape) - 1
    return bool(shape) and last and shape[-1] <= SEQUENTIAL


def _climb(node, parent, shape_of, exact):
    """Where the array a Name node reads goes: (name, fresh) when it ends up bound to that name
    (fresh: as a new array, not a view), None when it is only read, _FAIL when the use may
    depend on the layout. exact: the code returns f's values, which must be f's to the bit, so
    a sum whose order of additions the layout changes is such a use."""
    fresh = False
    while True:
        up = parent.get(id(node))
        kind = type(up)
        if kind is gast.BinOp:
            if type(up.op) is gast.MatMult:
                return _FAIL if exact else None  # a new C-ordered product (BLAS may round
            node, fresh = up, True  # it otherwise from the other layout: not f's value)
        elif kind in (gast.UnaryOp, gast.Compare):
            node, fresh = up, True
        elif kind is gast.Subscript:
            if up.value is not node:
                return _FAIL  # (an array as an index)
            if type(up.ctx) is gast.Store:
                return None  # a store into it (its views are followed too)
            if not _basic_index(up.slice):
                return _FAIL
            node, fresh = up, False
        elif kind is gast.Attribute:
            if up.attr in READ_ATTRIBUTES:
                return None
            if up.attr == "T":
                node, fresh = up, False
                continue
            call = parent.get(id(up))
            if not (type(call) is gast.Call and call.func is up):
                return _FAIL
            if up.attr == "dot":  # (x.dot(w): a product, whatever w is)
                return _FAIL if exact else None
            if not _constant_arguments(call, None):
                return _FAIL
            if up.attr in REDUCTIONS:
                if exact and up.attr in ORDERED and not _same_order(call, True, shape_of):
                    return _FAIL
                if _to_number(call, True):
                    return None
                node, fresh = call, True
            elif up.attr == "transpose":
                node, fresh = call, False
            else:
                return _FAIL
        elif kind is gast.keyword:
            return _FAIL  # (out=, where=, ...: not followed)
        elif kind is gast.Call:
            if node is up.func:
                return _FAIL
            function = _numpy_function(up.func)
            if function in PRODUCTS:
                return _FAIL if exact else None
            if function in REDUCTIONS and up.args and up.args[0] is node and (
                    _constant_arguments(up, node)):
                if exact and function in ORDERED and not _same_order(up, False, shape_of):
                    return _FAIL
                if _to_number(up, False):
                    return None
                node, fresh = up, True
            elif function is not None and isinstance(getattr(np, function, None), np.ufunc) \
                    and not any(k.arg == "out" for k in up.keywords):
                node, fresh = up, True
            elif (type(up.func) is gast.Name and up.func.id in ELEMENTWISE_HELPERS
                  and not up.keywords and len(up.args) == 2):
                node, fresh = up, True
            else:
                return _FAIL
        elif kind is gast.Assign:
            if len(up.targets) != 1:
                return _FAIL
            target = up.targets[0]
            if type(target) is gast.Name:
                return target.id, fresh
            if type(target) is gast.Subscript and up.value is node:
                return None  # its values stored into another array
            return _FAIL
        elif kind is gast.AugAssign:
            return None  # added into another array, or that array added into it
        else:
            return _FAIL


class _Uses:
    """The Name nodes of the function by name, loads and binds, and each node's parent."""

    def __init__(self, fdef):
        self.parent, self.loads, self.binds = {}, {}, {}
        for node in walk(fdef):
            if type(node) is gast.Name:
                table = self.loads if type(node.ctx) is gast.Load else self.binds
                table.setdefault(node.id, []).append(node)
                continue
            for field in node._fields:
                value = getattr(node, field, None)
                for child in value if type(value) is list else (value,):
                    if isinstance(child, gast.AST):
                        self.parent[id(child)] = node


def _safe(name, uses, shape_of, exact):
    """Whether every use of name's array, and of the arrays followed from it, is the same in
    either layout (see the module docstring)."""
    todo, seen = [name], {name}
    while todo:
        var = todo.pop()
        if len(uses.binds.get(var, ())) != 1:
            return False
        for node in uses.loads.get(var, ()):
            found = _climb(node, uses.parent, shape_of, exact)
            if found is _FAIL:
                return False
            if found is None or found[0] in seen:
                continue
            target, fresh = found
            shape = shape_of(target)
            if fresh and shape is not None and len(shape) <= 1:
                continue  # a new vector or number: contiguous in either layout
            seen.add(target)
            todo.append(target)
    return True


def _candidate(stmt, arrays, shape_of):
    """Whether stmt is `name = a op b` of two arrays that broadcast into a result of the shape
    Fortran order speeds up."""
    if not (type(stmt) is gast.Assign and len(stmt.targets) == 1
            and type(stmt.targets[0]) is gast.Name and type(stmt.value) is gast.BinOp
            and type(stmt.value.op) in UFUNCS):
        return False
    left, right = stmt.value.left, stmt.value.right
    if not (type(left) is gast.Name and type(right) is gast.Name
            and left.id in arrays and right.id in arrays):
        return False
    shape = shape_of(stmt.targets[0].id)
    if not (shape and len(shape) >= 2 and shape[-1] <= SHORT_LAST and shape[0] >= LONG_FIRST
            and math.prod(shape) >= MIN_ITEMS):
        return False
    operands = shape_of(left.id), shape_of(right.id)
    return None not in operands and operands != (shape, shape)


def lay_out(fdef, facts):
    """The pass (see the module docstring): in a specialized build, with the probe's shapes
    (an adjoint's are its value's), the names always bound to arrays, and whether the code
    returns f's values (returns_values: a gradient's sums may add in another order, a value's
    may not)."""
    shape_of = facts.shape_of or facts.shapes.get
    uses, changed = None, False
    for node in walk(fdef):
        if not _candidate(node, facts.arrays, shape_of):
            continue
        uses = uses or _Uses(fdef)
        if not _safe(node.targets[0].id, uses, shape_of, facts.returns_values):
            continue
        value = node.value
        node.value = gast.Call(
            func=gast.Attribute(value=gast.Name(id="np", ctx=gast.Load(), annotation=None,
                                                type_comment=None),
                                attr=UFUNCS[type(value.op)], ctx=gast.Load()),
            args=[value.left, value.right],
            keywords=[gast.keyword(arg="order", value=gast.Constant(value="F", kind=None))])
        uses.parent[id(value.left)] = uses.parent[id(value.right)] = node.value
        uses.parent[id(node.value)] = node
        changed = True
    if not changed:
        facts.unchanged()
    return fdef
