"""list_reads: an item or slice of a list grown by append, read before the list's last append,
is read at indices counted from the list's start.

    xs = [x0]                                   xs = [x0]
    for t in range(n):                          for t in range(n):
        xs.append(step(xs[-1]))       ->            xs.append(step(xs[len(xs) - 1]))

The adjoint sweep reads the list whole, as it is at the end (it is not shortened again as the
appends are undone: its adjoint is, item by item), so an index counted from the end (xs[-1],
xs[-2:], xs[1:]) named other items there than in the primal sweep: the gradient was wrong with
no error. Counted from the start, the index the primal computed is the one the adjoint reads.
xs[-1] becomes xs[len(xs) - 1], a slice with constant bounds from the start xs[a:len(xs)], and
other indices go through the runtime's list_index and list_slice (what Python does with a
negative index or a slice, made explicit, IndexError and clipping included). Reads after the
last statement that appends to the list (the trajectory returned, xs[-1] at the end) are left
as they are: there the list is whole in both sweeps.
"""
import gast

from ..syntax.nodes import appended_names, call, name
from ..syntax.visitor import Transformer


def absolute_list_reads(fdef):
    """fdef with the reads described above rewritten (in place)."""
    appended = appended_names(fdef.body)
    if not appended:
        return fdef
    last = {}  # list -> the last top-level statement that appends to it (or holds an append)
    for k, stmt in enumerate(fdef.body):
        for lst in appended_names([stmt]) & appended:
            last[lst] = k
    for k, stmt in enumerate(fdef.body):
        lists = {lst for lst, at in last.items() if k <= at}
        if lists:
            fdef.body[k] = _Absolute(lists).visit(stmt)
    return fdef


class _Absolute(Transformer):
    def __init__(self, lists):
        self.lists = lists

    def visit_Subscript(self, node):
        node = self.generic_visit(node)
        if not (isinstance(node.ctx, gast.Load) and isinstance(node.value, gast.Name)
                and node.value.id in self.lists) or isinstance(node.slice, gast.Tuple) or (
                    isinstance(node.slice, gast.Constant) and type(node.slice.value) is not int):
            return node  # (x[i, j], x[None], x[...]: an array's index, not a list's)
        lst = node.value.id
        if isinstance(node.slice, gast.Slice):
            node.slice = _absolute_slice(node.slice, lst)
        else:
            node.slice = _absolute_index(node.slice, lst)
        return node


def _size(lst):
    return call(["len"], name(lst))


def _int(node):
    """The int a constant index is (-1 written as -(1) too), or None."""
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return node.value
    if (isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub)
            and isinstance(node.operand, gast.Constant) and type(node.operand.value) is int):
        return -node.operand.value
    return None


def _absolute_index(index, lst):
    """xs[k] (k >= 0) as it is; xs[-1] -> xs[len(xs) - 1] (the same item, and an IndexError
    where xs is empty); any other index through list_index (Python's rule, IndexError too)."""
    value = _int(index)
    if value is not None and value >= 0:
        return index
    if value == -1:
        return gast.BinOp(left=_size(lst), op=gast.Sub(), right=gast.Constant(value=1, kind=None))
    return call(["list_index"], index, _size(lst))


def _absolute_slice(piece, lst):
    """xs[a:b] with a, b missing or constants >= 0 and no step back: xs[a:b], the missing end
    len(xs); any other slice through list_slice (Python's rule: its bounds clipped)."""
    lower, upper, step = piece.lower, piece.upper, piece.step
    simple = all(b is None or (_int(b) is not None and _int(b) >= 0) for b in (lower, upper)) \
        and (step is None or (_int(step) is not None and _int(step) > 0))
    if simple:
        return gast.Slice(lower=lower, upper=upper if upper is not None else _size(lst),
                          step=step)
    none = gast.Constant(value=None, kind=None)
    return call(["list_slice"], call(["slice"], *[b if b is not None else none for b in (
        lower, upper, step)]), _size(lst))
