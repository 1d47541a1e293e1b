"""unroll (builds specialized to example arguments): a loop of a few turns over a range
whose bounds the arguments' signature fixes is written out, one copy of its body per turn.

    t1 = range(k)                  (k = 3: an int argument, part of the signature)
    for _ in t1:                   ->   _ = 0
        t2 = 3.7 * x                    t2 = 3.7 * x
        x = t2 * (1.0 - x)              x = t2 * (1.0 - x)
                                        _ = 1
                                        t2 = 3.7 * x
                                        ...

A Python loop costs its iterator and its jumps every turn (about 15 ns: a fifth of the logistic
map's turn), and in reverse mode a stack to keep what each turn overwrites; straight-line code
needs neither (ANF's versioning, after this pass, gives each turn's values names of their
own). The trip count must be a function of the signature alone, never of data, since the code
is keyed by the signature: range's arguments are int constants, int parameters (their values
are in the signature), sizes of array parameters (x.shape[i], len(x)), lengths of list,
tuple and dict parameters (len(params): for W, b in params) and +, -, *, // of those, through
names bound once before the loop. Loops with break, continue, return, try, a
nested loop or a list's append or pop are left as they are, and so are loops whose copies would
take more than TURNS turns or STATEMENTS statements in all (the code stays readable).
"""
import gast
import numpy as np

from ..syntax.naming import bound_counts, clone, walk
from ..syntax.nodes import list_op

TURNS = 16
STATEMENTS = 40

_OPS = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b,
        gast.Mult: lambda a, b: a * b, gast.FloorDiv: lambda a, b: a // b}


class _Sizes:
    """The int values (and shapes) of names that the example's signature fixes."""

    def __init__(self, fdef, args, kwargs):
        self.counts = bound_counts(fdef)
        self.values = {}  # name -> an int, or a shape (a tuple of ints)
        self.arrays = {}  # array parameter -> its shape
        self.lengths = {}  # list, tuple or dict parameter -> its length
        self.ranges = {}  # name -> the range it is bound to
        self.sources = {}  # name in values or ranges -> the int parameters its value comes from
        params = fdef.args.posonlyargs + fdef.args.args
        given = dict(zip((p.id for p in params), args))
        given.update(kwargs)
        for param in params + fdef.args.kwonlyargs:
            value = given.get(param.id)
            if self.counts.get(param.id) != 1:
                continue  # reassigned in the function: not the argument's value everywhere
            if type(value) is int:
                self.values[param.id] = value
                self.sources[param.id] = frozenset([param.id])
            elif type(value) is np.ndarray:
                self.arrays[param.id] = value.shape
            elif type(value) in (list, tuple, dict):  # (its length is in the signature)
                self.lengths[param.id] = len(value)

    def of(self, node):
        """node's int value or shape, or None when the signature does not fix it."""
        if isinstance(node, gast.Constant):
            return node.value if type(node.value) is int else None
        if isinstance(node, gast.Name):
            return self.values.get(node.id)
        if isinstance(node, gast.Attribute) and node.attr == "shape" and isinstance(
                node.value, gast.Name):
            return self.arrays.get(node.value.id)
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant):
            shape, index = self.of(node.value), node.slice.value
            if type(shape) is tuple and type(index) is int and -len(shape) <= index < len(shape):
                return shape[index]
            return None
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and (
                node.func.id == "len") and len(node.args) == 1 and not node.keywords and (
                isinstance(node.args[0], gast.Name)):
            shape = self.arrays.get(node.args[0].id)
            return shape[0] if shape else self.lengths.get(node.args[0].id)
        if isinstance(node, gast.BinOp) and type(node.op) in _OPS:
            a, b = self.of(node.left), self.of(node.right)
            if type(a) is int and type(b) is int and not (
                    isinstance(node.op, gast.FloorDiv) and b == 0):
                return _OPS[type(node.op)](a, b)
        return None

    def bind(self, stmt):
        """Note the value of a name bound once by this top-level assignment, if it has one."""
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(
                stmt.targets[0], gast.Name) and self.counts.get(stmt.targets[0].id) == 1):
            return
        name, value = stmt.targets[0].id, stmt.value
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and (
                value.func.id == "range") and 1 <= len(value.args) <= 3 and not value.keywords:
            bounds = [self.of(a) for a in value.args]
            if all(type(b) is int for b in bounds) and bounds[2:] != [0]:
                self.ranges[name] = range(*bounds)
                self.sources[name] = self.sources_of(value)
            return
        found = self.of(value)
        if found is not None:
            self.values[name] = found
            self.sources[name] = self.sources_of(value)

    def sources_of(self, node):
        """The int parameters whose values an expression of() could evaluate reads."""
        return frozenset().union(*(self.sources.get(n.id, ()) for n in walk(node)
                                   if isinstance(n, gast.Name)))

    def turns(self, loop):
        """The range a for loop runs over, when the signature fixes it; else None."""
        return self.ranges.get(loop.iter.id) if isinstance(loop.iter, gast.Name) else None


def _simple(loop):
    """A loop whose body can be copied as it is. (One that appends to or pops from a list stays
    a loop too: reverse mode pairs each turn's append with a pop, the form its tests cover.)"""
    if loop.orelse or not isinstance(loop.target, gast.Name):
        return False
    return not any(isinstance(n, (gast.For, gast.While, gast.Break, gast.Continue, gast.Return,
                                  gast.Try, gast.FunctionDef, gast.Lambda)) or list_op(n)
                   for stmt in loop.body for n in walk(stmt))


def _statements(body):
    return sum(1 for stmt in body for n in walk(stmt) if isinstance(n, gast.stmt))


def unroll_loops(fdef, args, kwargs, read=None):
    """Unroll fdef's top-level loops that qualify (see the module docstring), in place (fdef:
    after ANF, before its versioning, which then names each turn's values apart). Returns
    whether any was. read: a set, given the names of the int parameters whose values decided
    a loop's turns (the build must stay keyed by them: analysis/values.py)."""
    sizes = _Sizes(fdef, args, kwargs)
    body, changed = [], False
    for stmt in fdef.body:
        turns = sizes.turns(stmt) if isinstance(stmt, gast.For) else None
        if turns is not None and _simple(stmt) and len(turns) <= TURNS and (
                len(turns) * _statements(stmt.body) <= STATEMENTS):
            for turn in turns:
                target = gast.Name(id=stmt.target.id, ctx=gast.Store(), annotation=None,
                                   type_comment=None)
                start = gast.copy_location(gast.Assign(
                    targets=[target], value=gast.Constant(value=turn, kind=None),
                    type_comment=None), stmt)
                start.turn = True  # (the builders comment each turn's code)
                body.append(start)
                body.extend(clone(stmt.body))
            changed = True
            if read is not None:
                read |= sizes.sources[stmt.iter.id]
            continue
        sizes.bind(stmt)
        body.append(stmt)
    fdef.body = body
    return changed
