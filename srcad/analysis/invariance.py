"""invariance (reverse mode, shape-specialized builds): values whose adjoint is exactly
zero because the output does not change when they do.

The numerically stable softmax, log-softmax and logsumexp subtract each row's maximum first:

    m = np.max(a, axis=1, keepdims=True)
    t1 = m[..., 0]
    t2 = a - m                    (each row shifted by a constant: -m)
    t3 = np.exp(t2)               (each row scaled by a positive constant: exp(-m))
    t4 = np.sum(t3, axis=1)       (the scale comes out of the sum)
    t5 = np.log(t4)               (and is a shift again: -m)
    lse = t1 + t5                 (+m - m: lse does not depend on m at all)

Any m gives the same lse (or, for the softmax, the same p = t3 / np.sum(t3, ...)), so the
derivative of the output with respect to m is exactly 0, and the max's adjoint (a mask over the
maxima, a tie count, a division) computes rounding noise around that 0. Here m is found
*inert*: it is left out of the derivative (treated as a constant, which it is to the output),
the reverse sweep has nothing to do for it.

How: move a candidate b (a name some top-level y = x - b or x + b broadcasts along an axis of
y, or the name such a b indexes or expands: m for b = m[:, None]) by any c of b's shape (c is
constant along b's axes of length 1) and follow that one perturbation forward through every
statement that reads b or a value it moved, all uses and all paths together. A moved value is
described exactly, as

    shift: v + k * C        scale: v * exp(k * C)

with k a rational number (fractions.Fraction: "== 0" is decided exactly) and C the perturbation
c laid out in v's axes: the layout says, for each axis of v, which axis of b it runs along, or
None where C is constant along it (numpy's broadcasting adds such axes in front). The rules,
each exact for any c:

    exp: a shift becomes a scale, log: a scale becomes a shift (of the same k)
    + and -: shifts add their k (x + k1 C) - (y + k2 C) = (x - y) + (k1 - k2) C; two scales of
        one k stay a scale; a shift plus an unmoved value stays a shift
    * and /: scales add their k; a scale times or over an unmoved value stays a scale; a shift
        times or over a number is a shift by a multiple; unary minus negates a shift's k
    sum, mean, max, min over axes along which C is constant (keepdims or not; axes dropped
        from the layout): a scale commutes with all of them, a shift with max, min and mean,
        and a sum of a shift multiplies k by the number of items summed
    x[...] with ints, None and slices: C's axes re-indexed (an int or a partial slice only on
        axes along which C is constant); np.expand_dims likewise

Joins are where the perturbations of different paths meet: two operands moved with the same
layout combine by the rules above, and a k that sums to 0 means the value does not move at all
(its readers are not followed). Anything else, a layout that cannot be matched, or a moved value
reaching a return, a loop, a branch, a store, an index, a call not listed or a statement binding
more than one name, means "it matters". b is inert when nothing moved reaches the output. Only
real floats are followed (for complex values the logarithm's branch cut breaks the rules), and
every layout is checked against the probed shape of the name it is bound to.

The names computed from inert names alone (t1 = m[..., 0], b = m[:, None]) are left out of the
derivative too: they change only when m does, so their adjoints would only flow into m's.
"""
import heapq
import math
from fractions import Fraction

import gast

from .shapes import expression_shape, reduction
from ..syntax.naming import bound_counts, load_counts, loaded_names, names_in, number_value
from ..syntax.nodes import SHAPE_ATTRIBUTES

_COMMUTING = {"mean", "max", "min", "amax", "amin"}  # f(x + k C) = f(x) + k C, f(x L) = f(x) L
_REDUCTIONS = _COMMUTING | {"sum"}  # (sum: f(x + k C) = f(x) + n k C over n items)


class _Move:
    """A moved value: v + k C (a shift) or v exp(k C) (a scale), k != 0, C laid out in v's
    axes by layout (per axis: the axis of the candidate it runs along, or None: constant)."""

    def __init__(self, scale, layout, k):
        self.scale, self.layout, self.k = scale, layout, k

    def again(self, k=None, layout=None, scale=None):
        """The same kind of move with another k, layout or kind (None: unmoved if k == 0)."""
        k = self.k if k is None else k
        return None if k == 0 else _Move(self.scale if scale is None else scale,
                                         self.layout if layout is None else layout, k)


_ANY = object()  # changed in a way not followed: the output may depend on it


class Invariance:
    def __init__(self, fdef, shapes, floats):
        self.fdef = fdef
        self.shapes = shapes
        self.real = {v for v, char in floats.items() if char and char in "efdg"}
        self.counts = bound_counts(fdef)
        self.readers = {}  # name -> the indices of the top-level statements that read it
        self.bound_at = {}  # name -> the index of the top-level statement that binds it
        for index, stmt in enumerate(fdef.body):
            for name in load_counts(stmt):
                self.readers.setdefault(name, []).append(index)
            target = self.target(stmt)
            if target is not None:
                self.bound_at[target] = index

    def shape(self, node):
        return expression_shape(node, self.shapes.get)

    def target(self, stmt):
        """The name a top-level statement `name = value` binds, bound nowhere else; else None."""
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(
                stmt.targets[0], gast.Name) and self.counts.get(stmt.targets[0].id) == 1:
            return stmt.targets[0].id
        return None

    # how an expression moves, given how the names in env move: None, a _Move or _ANY --------
    def moved(self, value, env):
        if isinstance(value, gast.Name):
            return env.get(value.id)
        if isinstance(value, gast.Constant):
            return None
        if isinstance(value, gast.Attribute) and value.attr in SHAPE_ATTRIBUTES:
            return None  # x.shape: the same however x's values move
        if not names_in(value) & set(env):
            return None
        if isinstance(value, gast.UnaryOp) and isinstance(value.op, (gast.USub, gast.UAdd)):
            inner = self.moved(value.operand, env)
            if inner is None or inner is _ANY or inner.scale or isinstance(value.op, gast.UAdd):
                return inner  # -(x L) = (-x) L
            return inner.again(-inner.k)
        if isinstance(value, gast.BinOp):
            return self.binop(value, env)
        if isinstance(value, gast.Call):
            return self.call(value, env)
        if isinstance(value, gast.Subscript):
            return self.subscript(value, env)
        return _ANY

    def binop(self, node, env):
        a, b = self.moved(node.left, env), self.moved(node.right, env)
        if a is _ANY or b is _ANY:
            return _ANY
        if a is None and b is None:
            return None  # (x.shape[0] * 2)
        ndim = self.broadcast_ndim(node, a, b)
        if ndim is None:
            return _ANY
        a, b = (None if p is None else p.again(layout=(None,) * (ndim - len(p.layout))
                                                + p.layout) for p in (a, b))
        if a is not None and b is not None and a.layout != b.layout:
            return _ANY
        either = a or b
        sign = -1 if isinstance(node.op, (gast.Sub, gast.Div)) else 1
        ka, kb = (Fraction(0) if p is None else p.k for p in (a, b))
        if isinstance(node.op, (gast.Add, gast.Sub)):
            if not any(p is not None and p.scale for p in (a, b)):
                return either.again(ka + sign * kb)  # (x + ka C) +- (y + kb C)
            if a is not None and b is not None and a.scale and b.scale and ka == kb:
                return either  # x L +- y L = (x +- y) L
            return _ANY
        if not isinstance(node.op, (gast.Mult, gast.Div)):
            return _ANY
        if all(p.scale for p in (a, b) if p is not None):
            return either.again(ka + sign * kb)  # x La * y Lb, x La / y, y / (x Lb)
        if a is not None and b is not None or b is not None and sign == -1:
            return _ANY  # (a shift times a shift or a scale, a value over a shift)
        number = number_value(node.right if b is None else node.left)
        if number is None or number == 0 or not math.isfinite(number):
            return _ANY  # (a shift times a value that is not a number)
        return either.again(either.k * Fraction(number) if sign == 1 else
                            either.k / Fraction(number))

    def broadcast_ndim(self, node, a, b):
        """The number of axes of a binary operation's value: its operands', broadcast."""
        ndims = []
        for operand, move in ((node.left, a), (node.right, b)):
            shape = self.shape(operand) if move is None else move.layout
            if shape is None:
                return None
            ndims.append(len(shape))
        return max(ndims)

    def call(self, node, env):
        func = node.func
        if not isinstance(func, gast.Attribute):
            return _ANY  # (a function not known, or a moved value passed to a helper)
        numpy = isinstance(func.value, gast.Name) and func.value.id == "np"
        if numpy and not node.args:
            return _ANY
        operand = node.args[0] if numpy else func.value  # np.f(x, ...) or x.f(...)
        rest = (node.args[1:] if numpy else node.args) + [k.value for k in node.keywords]
        if any(self.moved(r, env) is not None for r in rest):
            return _ANY
        inner = self.moved(operand, env)
        if inner is None or inner is _ANY:
            return inner
        name, plain = func.attr, numpy and len(node.args) == 1 and not node.keywords
        if name == "exp" and plain and not inner.scale:
            return inner.again(scale=True)  # exp(x + k C) = exp(x) exp(k C)
        if name == "log" and plain and inner.scale:
            return inner.again(scale=False)  # log(x exp(k C)) = log(x) + k C
        if name in _REDUCTIONS:
            return self.reduced(node, inner)
        if name == "expand_dims" and numpy:
            return self.expanded(node, inner)
        return _ANY

    def reduced(self, node, inner):
        """A sum, mean, max or min over axes along which C is constant."""
        found = reduction(_numbers_as_constants(node), self.shapes.get)
        if found is None or not isinstance(found[0], gast.Name):
            return _ANY  # (ANF: the operand is a name)
        _, full, axes, keepdims = found
        if len(full) != len(inner.layout) or any(inner.layout[a] is not None for a in axes):
            return _ANY
        layout = inner.layout if keepdims else tuple(
            j for i, j in enumerate(inner.layout) if i not in axes)
        k = inner.k
        if node.func.attr == "sum" and not inner.scale:
            k = k * math.prod(full[a] for a in axes)  # n items, each moved by k C
        return inner.again(k, layout)

    def expanded(self, node, inner):
        """np.expand_dims(x, axis) with constant axes: new axes of length 1 (C constant)."""
        axis = node.args[1] if len(node.args) == 2 and not node.keywords else (
            node.keywords[0].value if len(node.args) == 1 and len(node.keywords) == 1
            and node.keywords[0].arg == "axis" else None)
        items = axis.elts if isinstance(axis, gast.Tuple) else [axis]
        values = [number_value(e) if e is not None else None for e in items]
        ndim = len(inner.layout) + len(values)
        if not all(type(v) is int and -ndim <= v < ndim for v in values) or len(
                {v % ndim for v in values}) != len(values):
            return _ANY
        new = {v % ndim for v in values}
        rest = iter(inner.layout)
        return inner.again(layout=tuple(None if i in new else next(rest) for i in range(ndim)))

    def subscript(self, node, env):
        """x[...] with ints, None (np.newaxis), slices and one Ellipsis, nothing moved in the
        index: C re-indexed. An int or a partial slice only where C is constant."""
        if self.moved(node.slice, env) is not None:
            return _ANY  # (an index that moves)
        inner = self.moved(node.value, env)
        if inner is None or inner is _ANY:
            return inner
        items = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        kinds = [_index_kind(item) for item in items]
        used = sum(kind in ("int", "all", "part") for kind in kinds)
        if None in kinds or kinds.count("...") > 1 or used > len(inner.layout):
            return _ANY
        at = kinds.index("...") if "..." in kinds else len(kinds)  # (none: at the end)
        kinds[at:at + 1] = ["all"] * (len(inner.layout) - used)
        layout, axes = [], iter(inner.layout)
        for kind in kinds:
            if kind == "new":
                layout.append(None)
                continue
            j = next(axes)
            if kind != "all" and j is not None:
                return _ANY  # (part of C's values: not one move of the whole)
            if kind != "int":
                layout.append(j)
        return inner.again(layout=tuple(layout))

    # which names are inert ---------------------------------------------------------------------
    def reaches_output(self, name):
        """Whether moving the name (by any c of its shape) moves the output: follows the one
        perturbation through every statement that reads a moved name, in order."""
        shape = self.shapes[name]
        env = {name: _Move(False, tuple(None if n == 1 else i for i, n in enumerate(shape)),
                           Fraction(1))}
        pending, done = [], set()
        if not self.follow(name, pending):
            return True
        while pending:
            index = heapq.heappop(pending)
            if index in done:
                continue
            done.add(index)
            stmt = self.fdef.body[index]
            target = self.target(stmt)
            if target is None:
                return True  # a return, a loop, a branch, a store into an item: not followed
            moved = self.moved(stmt.value, env)
            if moved is None:
                continue  # (the moves of the operands cancel: nothing to follow)
            if moved is _ANY or not self.fits(target, moved, shape):
                return True
            env[target] = moved
            if not self.follow(target, pending):
                return True
        return False

    def follow(self, name, pending):
        """Queue the statements that read a name, all after the one that binds it (else False:
        read where its value is not the one followed, by a function defined before it)."""
        readers = self.readers.get(name, ())
        if any(index <= self.bound_at[name] for index in readers):
            return False
        for index in readers:
            heapq.heappush(pending, index)
        return True

    def fits(self, name, moved, base):
        """Whether a move's layout is the probed shape of the (real float) name it is bound to
        (base: the candidate's shape, whose axes the layout names)."""
        shape = self.shapes.get(name)
        return name in self.real and shape is not None and len(shape) == len(
            moved.layout) and all(j is None or shape[i] == base[j]
                                  for i, j in enumerate(moved.layout))

    def inert(self):
        """The candidates whose perturbation reaches no output (see the module docstring), and
        the names computed from them alone."""
        out = set()
        for name in sorted(self.candidates()):
            if name in self.real and name in self.bound_at and self.shapes.get(
                    name) is not None and not self.reaches_output(name):
                out.add(name)
        return self.with_derived(out)

    def with_derived(self, inert):
        """inert and the names bound once from inert names alone (t2 = m[:, None] for an inert
        m): to the derivative they are constants too (they change only when m does, and all
        that m's changes do, through them or not, adds up to nothing), and their adjoints would
        only flow into m's."""
        out = set(inert)
        for stmt in self.fdef.body:
            target = self.target(stmt)
            read = loaded_names(stmt.value) - {"np"} if target is not None else set()
            if read and read <= out:
                out.add(target)
        return out

    def candidates(self):
        """The names a top-level y = x +- b or b +- x broadcasts along an axis of y (b constant
        along it: the shift by a row's maximum), and the names such a b indexes or expands
        (b = m[:, None]: m is the candidate too)."""
        out = set()
        for stmt in self.fdef.body:
            target = self.target(stmt)
            value = stmt.value if target is not None else None
            if not (isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Sub))
                    and self.shapes.get(target) is not None):
                continue
            for operand in (value.left, value.right):
                mine = self.shapes.get(operand.id) if isinstance(operand, gast.Name) else None
                if mine is not None and _broadcast_along(mine, self.shapes[target]):
                    out |= self.sources(operand.id)
        return out

    def sources(self, name):
        """The name, and the names its value indexes or expands (m for b = m[:, None])."""
        out = {name}
        while name in self.bound_at:
            value = self.fdef.body[self.bound_at[name]].value
            if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and (
                    value.func.attr == "expand_dims") and value.args:
                value = value.args[0]
            elif isinstance(value, gast.Subscript):
                value = value.value
            if not isinstance(value, gast.Name) or value.id in out:
                break
            name = value.id
            out.add(name)
        return out


def _broadcast_along(mine, full):
    """Whether an operand shaped mine broadcasts along some axis of full (of length > 1)."""
    pad = len(full) - len(mine)
    return pad >= 0 and any(n != 1 and (i < pad or mine[i - pad] == 1)
                            for i, n in enumerate(full))


def _numbers_as_constants(call):
    """The call with its keywords' numbers written as constants (axis=-1 is a unary minus in
    the tree; shapes.reduction reads constants), the call itself left as it is."""
    def constant(value):
        if isinstance(value, gast.Tuple):
            return gast.Tuple(elts=[constant(e) for e in value.elts], ctx=gast.Load())
        number = number_value(value)
        return value if number is None else gast.Constant(value=number, kind=None)
    return gast.Call(func=call.func, args=call.args, keywords=[
        gast.keyword(arg=k.arg, value=constant(k.value)) for k in call.keywords])


def _index_kind(item):
    """What one item of an index does: "int" (drops an axis), "all" (:), "part" (another
    slice), "new" (None, np.newaxis: a new axis of length 1), "..." or None (not followed)."""
    if isinstance(item, gast.Constant) and item.value is Ellipsis:
        return "..."
    if isinstance(item, gast.Constant) and item.value is None or isinstance(
            item, gast.Attribute) and item.attr == "newaxis" and isinstance(
            item.value, gast.Name) and item.value.id == "np":
        return "new"
    if type(number_value(item)) is int:
        return "int"
    if isinstance(item, gast.Slice):
        return "all" if item.lower is item.upper is item.step is None else "part"
    return None


def inert_names(fdef, shapes, floats):
    """The names of fdef (after ANF) whose adjoint is exactly zero, and the names computed from
    them alone (see the module docstring): the derivative treats them as constants.
    shapes, floats: what the shape probe saw (shapes.probe); only real floats are followed."""
    if not shapes:
        return set()
    return Invariance(fdef, shapes, floats).inert()
