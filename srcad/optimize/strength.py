"""strength reduction (shape-specialized builds): numpy's reduction functions applied to
values the probe saw as float arrays become those arrays' own methods, which skip numpy's
Python-level dispatch (on a small array np.sum(a) costs 2.1 us, a.sum() 0.95 us), and np.mean
becomes a sum over the count (np.mean's Python implementation costs ~3 us more). A sum, max or
min over a short axis combines its slices (short_reduction). The results are the same numbers:
for float32/64 and complex arrays np.mean is that sum and that division.
Likewise np.dot(a, b) of two arrays is a.dot(b), numpy's same C routine without the dispatch
(0.25 us of a 0.7 us product of a (15, 8) and an (8, 16) matrix).

    t5 = np.sum(ez, axis=1, keepdims=True)   ->   t5 = ez.sum(axis=1, keepdims=True)
    mu = np.mean(x, 0)                        ->   mu = x.sum(axis=0) / 64
    bh = np.dot(bz, e.T)                      ->   bh = bz.dot(e.T)

Only positional (a, axis) and the keywords axis and keepdims are rewritten; a call with dtype=,
out=, where= or initial= stays as written. A product is rewritten only when both operands are
names the probe saw as arrays (of any dtype), or their transposes: not for a scalar (which has
no .dot of its own) or another type (whose __array_function__ np.dot would call).
"""
import math

import gast

from ..analysis.shapes import reduction
from ..syntax.naming import clone
from ..syntax.nodes import constant_node
from ..syntax.visitor import Transformer

METHODS = ("sum", "mean", "max", "min", "prod")
SHORT = 4  # the longest axis summed as slices (numpy adds up to 7 items in order; 4 is plenty)
SHORT_MIN_OUT = 128  # and the fewest items of the sum (below, x[..., i] costs more: 15 x 3)
# the longest axis whose max or min is a chain of np.maximum or np.minimum of its slices, and
# the fewest items of the result: a 512 x 8 array's max over its last axis takes 19 us, the
# chain 5 (1000 x 4: 30 against 3.1; 64 x 8: 3.0 against 2.4; 128 x 16: 5.4 against 6.5)
SHORT_EXTREMUM = 8
SHORT_EXTREMUM_MIN_OUT = 16


def _axes(axis, ndim):
    items = tuple(range(ndim)) if axis is None else (axis if isinstance(axis, tuple)
                                                     else (axis,))
    if not all(type(a) is int and -ndim <= a < ndim for a in items):
        return None
    return {a % ndim for a in items}


class ReduceStrength(Transformer):
    def __init__(self, float_arrays, shapes, arrays=()):
        self.float_arrays = float_arrays  # names always bound to float (or complex) arrays
        self.shapes = shapes  # probed shapes of names
        self.arrays = arrays  # names always bound to arrays (numpy.ndarray itself)
        self.changed = False  # (a call rewritten: the visits return the nodes they change)

    def array(self, node):
        """Is node a name bound to an array, or its transpose?"""
        if isinstance(node, gast.Attribute) and node.attr == "T":
            node = node.value
        return isinstance(node, gast.Name) and node.id in self.arrays

    def short_reduction(self, node):
        """x.sum(axis=k) over an axis of 2 to SHORT items of a float array of two or more axes,
        with SHORT_MIN_OUT items or more in the sum, as the sum of its slices, x[..., 0] +
        x[..., 1] + x[..., 2]: the same additions in the same order (numpy's reduction adds such
        an axis's items one after the other), without the reduction's cost per output item
        (63 us against 5 us for 64 x 64 x 3). Likewise x.max(axis=k) and x.min(axis=k) over 2
        to SHORT_EXTREMUM items, with SHORT_EXTREMUM_MIN_OUT items or more in the result, as
        np.maximum(np.maximum(x[..., 0], x[..., 1]), x[..., 2]): the same value (a NaN
        propagates through both). Else None."""
        found = reduction(node, self.shapes.get)
        if found is None or node.args:  # (x.sum(...) only)
            return None
        longest, fewest = {"sum": (SHORT, SHORT_MIN_OUT),
                           "max": (SHORT_EXTREMUM, SHORT_EXTREMUM_MIN_OUT),
                           "min": (SHORT_EXTREMUM, SHORT_EXTREMUM_MIN_OUT)}.get(
            node.func.attr, (0, 0))
        array, shape, axes, keepdims = found
        if not (isinstance(array, gast.Name) and array.id in self.float_arrays
                and len(shape) >= 2 and len(axes) == 1):
            return None
        k = next(iter(axes))
        if not 2 <= shape[k] <= longest or math.prod(shape) < fewest * shape[k]:
            return None

        summed = node.func.attr == "sum"
        kept = keepdims and summed  # (a max keeps the axis after: x[..., 0:1] views cost more)

        def at(value, item):
            index = [gast.Constant(value=Ellipsis, kind=None), item] if k == len(shape) - 1 else (
                [gast.Slice(lower=None, upper=None, step=None)] * k + [item])
            return gast.Subscript(value=value, slice=index[0] if len(index) == 1 else (
                gast.Tuple(elts=index, ctx=gast.Load())), ctx=gast.Load())

        def item(i):
            return at(clone(array), gast.Slice(lower=constant_node(i), upper=constant_node(i + 1),
                                               step=None) if kept else constant_node(i))
        total = item(0)
        for i in range(1, shape[k]):
            total = gast.BinOp(left=total, op=gast.Add(), right=item(i)) if summed else (
                gast.Call(func=gast.Attribute(value=gast.Name(
                    id="np", ctx=gast.Load(), annotation=None, type_comment=None),
                    attr="maximum" if node.func.attr == "max" else "minimum", ctx=gast.Load()),
                    args=[total, item(i)], keywords=[]))
        return at(total, constant_node(None)) if keepdims and not kept else total

    def visit_Call(self, node):
        new = self.rewrite_call(node)
        self.changed = self.changed or new is not node
        return new

    def rewrite_call(self, node):
        node = self.generic_visit(node)
        short = self.short_reduction(node)
        if short is not None:
            return short
        func = node.func
        if (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
                and func.value.id == "np" and func.attr == "dot" and len(node.args) == 2
                and not node.keywords and all(map(self.array, node.args))):
            return gast.Call(func=gast.Attribute(value=node.args[0], attr="dot", ctx=gast.Load()),
                             args=[node.args[1]], keywords=[])
        if not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
                and func.value.id == "np" and func.attr in METHODS and 1 <= len(node.args) <= 2
                and isinstance(node.args[0], gast.Name)
                and node.args[0].id in self.float_arrays
                and all(k.arg in ("axis", "keepdims") for k in node.keywords)):
            return node
        array = node.args[0]
        keywords = list(node.keywords)
        if len(node.args) == 2:
            if any(k.arg == "axis" for k in keywords):
                return node
            keywords.insert(0, gast.keyword(arg="axis", value=node.args[1]))
        method = gast.Call(func=gast.Attribute(value=array, attr="sum" if func.attr == "mean"
                                               else func.attr, ctx=gast.Load()),
                           args=[], keywords=keywords)
        if func.attr != "mean":
            return self.short_reduction(method) or method
        shape = self.shapes.get(array.id)
        axis = next((k.value for k in keywords if k.arg == "axis"), None)
        if shape is None or not (axis is None or isinstance(axis, (gast.Constant, gast.Tuple))):
            return node
        value = None if axis is None else (
            axis.value if isinstance(axis, gast.Constant)
            else tuple(e.value for e in axis.elts if isinstance(e, gast.Constant)))
        axes = _axes(value, len(shape))
        if axes is None or (isinstance(axis, gast.Tuple) and len(value) != len(axis.elts)):
            return node
        count = math.prod(shape[a] for a in axes)
        if count == 0:
            return node  # np.mean of nothing warns and gives NaN: leave that to numpy
        return gast.BinOp(left=method, op=gast.Div(), right=constant_node(count))


def reduce_strength(fdef, facts):
    """The pass (see the module docstring): float arrays are the names both facts.inexact and
    facts.arrays; the probe's facts.shapes give np.mean's counts."""
    arrays = facts.arrays
    visitor = ReduceStrength(facts.inexact & arrays, facts.shapes, arrays)
    fdef.body = [visitor.visit(stmt) for stmt in fdef.body]
    if not visitor.changed:
        facts.unchanged()
    return fdef
