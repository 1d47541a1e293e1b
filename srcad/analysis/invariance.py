"""invariance (reverse mode, shape-specialized builds): values whose adjoint is exactly
zero because the output does not change when they do.

The numerically stable softmax and log-softmax subtract each row's maximum first:

    t4 = np.max(z, axis=1, keepdims=True)
    z_1 = z - t4                  (a shift of each row by a constant)
    ez = np.exp(z_1)              (each row scaled by a positive constant)
    t5 = np.sum(ez, axis=1, keepdims=True)
    p = ez / t5                   (the scale cancels: p does not depend on t4 at all)

Any t4 gives the same p, so the derivative of the output with respect to t4 is exactly 0, and
the max's adjoint (a mask over the maxima, a tie count, a division) computes rounding noise
around that 0. Here t4 is found *inert*: it is left out of the derivative (treated as a
constant, which it is to the output), the reverse sweep has nothing to do for it.

How: a name b subtracted from (or added to) a value y = a - b with b's shape of length 1 along
some axes K of y moves y by a constant along K: a shift. The pass follows that perturbation
forward through the statements that read it, with the rules of exp and log (a shift becomes a
positive scale and back), products and quotients (scales add and subtract their powers),
sums and maxima over axes in K (kept with keepdims), + and - (shifts add), unary minus and
numbers; anything else, or a perturbation reaching control flow, an index, a call or the
return value, means "it matters". b is inert when none of its uses reaches the output.
"""
import math

import gast

from .shapes import expression_shape, reduction
from ..syntax.naming import bound_counts, load_counts, loaded_names, names_in
from ..syntax.nodes import SHAPE_ATTRIBUTES

_SUMS = {"sum"}
_EXTREMA = {"max", "min", "amax", "amin"}


class _Shift:
    """The value moved by m * c, with c constant along the axes K (m != 0)."""

    def __init__(self, axes, m):
        self.axes, self.m = axes, m


class _Scale(_Shift):
    """The value multiplied by lam ** m, lam > 0 constant along the axes K (m != 0)."""


_ANY = object()  # changed in a way not followed: the output may depend on it


def _shift(axes, m):
    return None if m == 0 else _Shift(axes, m)


def _scale(axes, m):
    return None if m == 0 else _Scale(axes, m)


class Invariance:
    def __init__(self, fdef, shapes, floats):
        self.fdef = fdef
        self.shapes = shapes
        self.real = {v for v, char in floats.items() if char and char in "efdg"}

    def shape(self, node):
        return expression_shape(node, self.shapes.get)

    # following a perturbation ----------------------------------------------------------------
    def moved(self, value, env):
        """How the value of an expression moves, given how the names in env move."""
        if isinstance(value, gast.Name):
            return env.get(value.id)
        if isinstance(value, gast.Constant):
            return None
        if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub):
            inner = self.moved(value.operand, env)
            return _shift(inner.axes, -inner.m) if type(inner) is _Shift else inner
        if isinstance(value, gast.BinOp):
            return self.binop(value, env)
        if isinstance(value, gast.Call):
            return self.call(value, env)
        if isinstance(value, gast.Attribute) and value.attr in SHAPE_ATTRIBUTES:
            return None  # x.shape: the same however x's values move
        touched = bool(names_in(value) & set(env))
        return _ANY if touched else None

    def binop(self, node, env):
        a, b = self.moved(node.left, env), self.moved(node.right, env)
        if a is None and b is None:
            return None
        if a is _ANY or b is _ANY:
            return _ANY
        sa, sb = a or b, b or a
        if sa.axes != sb.axes:
            return _ANY
        if isinstance(node.op, (gast.Add, gast.Sub)):
            sign = -1 if isinstance(node.op, gast.Sub) else 1
            if not all(type(p) is _Shift for p in (a, b) if p is not None):
                return _ANY
            return _shift(sa.axes, (a.m if a else 0) + sign * (b.m if b else 0))
        if isinstance(node.op, (gast.Mult, gast.Div)):
            sign = -1 if isinstance(node.op, gast.Div) else 1
            if all(isinstance(p, _Scale) for p in (a, b) if p is not None):
                return _scale(sa.axes, (a.m if a else 0) + sign * (b.m if b else 0))
            # a shift times or over a number: a shift by a multiple
            number = node.right if a is not None else node.left
            if type(sa) is _Shift and (a is None or b is None) and isinstance(
                    number, gast.Constant) and type(number.value) in (int, float) and (
                    number.value != 0 and math.isfinite(number.value)) and not (
                    sign == -1 and a is None):
                return _shift(sa.axes, sa.m * number.value if sign == 1 else
                              sa.m / number.value)
        return _ANY

    def call(self, node, env):
        moved = [self.moved(a, env) for a in node.args] + [
            self.moved(k.value, env) for k in node.keywords]
        func, operand = node.func, None
        if isinstance(func, gast.Attribute) and not (
                isinstance(func.value, gast.Name) and func.value.id == "np"):
            moved.append(self.moved(func.value, env))  # x.method(...) reads x
        elif not isinstance(func, gast.Attribute):
            moved.append(self.moved(func, env))  # (a perturbed callable: not followed)
        if all(m is None for m in moved):
            return None
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and (
                func.value.id == "np") and node.args:
            name, operand, rest = func.attr, node.args[0], moved[1:]
        elif isinstance(func, gast.Attribute):  # x.sum(axis=..., keepdims=True)
            name, operand, rest = func.attr, func.value, moved[:-1]
        else:
            return _ANY
        inner = self.moved(operand, env)
        if inner is None or any(m is not None for m in rest):
            return _ANY
        if inner is _ANY:
            return _ANY
        if name == "exp" and len(node.args) == 1 and type(inner) is _Shift:
            return _Scale(inner.axes, inner.m)
        if name == "log" and len(node.args) == 1 and isinstance(inner, _Scale):
            return _Shift(inner.axes, inner.m)
        if name in _SUMS | _EXTREMA:
            axes = self.reduced_axes(node)
            if axes is None or not axes <= inner.axes:
                return _ANY
            if name in _EXTREMA:  # max(x + c) = max(x) + c; a positive scale commutes too
                return inner
            if isinstance(inner, _Scale):
                return inner
            count = math.prod(self.shape(operand)[a] for a in axes)
            return _shift(inner.axes, inner.m * count)
        return _ANY

    def reduced_axes(self, node):
        """The axes a reduction with keepdims=True over constant axes reduces, or None."""
        found = reduction(node, self.shapes.get)
        return frozenset(found[2]) if found is not None and found[3] and isinstance(
            found[0], gast.Name) else None  # (ANF: the operand is a name)

    # which names are inert ---------------------------------------------------------------------
    def reaches_output(self, start, source):
        """Whether moving `source` (bound by the top-level statement at index start) changes
        the output."""
        env = {self.name_of(start): source}
        ndim = len(self.shapes[self.name_of(start)])  # (axes are counted in this many)
        for stmt in self.fdef.body[start + 1:]:
            if not loaded_names(stmt) & set(env):
                continue
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(
                    stmt.targets[0], gast.Name) and self.counts.get(stmt.targets[0].id) == 1:
                moved = self.moved(stmt.value, env)
                if moved is _ANY:
                    return True
                if moved is not None:
                    shape = self.shapes.get(stmt.targets[0].id)
                    if shape is None or len(shape) != ndim or (
                            stmt.targets[0].id not in self.real):
                        return True  # (complex: a logarithm's branch cut breaks the rules)
                    env[stmt.targets[0].id] = moved
                continue
            return True  # a return, a loop, a branch, a store into an item: not followed
        return False

    def name_of(self, index):
        return self.fdef.body[index].targets[0].id

    def inert(self):
        """The names whose every use is shifted away before the output (see the docstring)."""
        self.counts = bound_counts(self.fdef)
        uses = {}  # name -> [(statement index, the shift its use makes)]
        reads = load_counts(self.fdef)
        for index, stmt in enumerate(self.fdef.body):
            shift = self.shift_use(stmt)
            if shift is not None:
                var, moved = shift
                uses.setdefault(var, []).append((index, moved))
        out = set()
        for var, found in uses.items():
            if var not in self.real or any(self.name_of(i) not in self.real for i, _ in found):
                continue
            if len(found) == reads.get(var) and self.counts.get(var) == 1 and not any(
                    self.reaches_output(index, moved) for index, moved in found):
                out.add(var)
        return out

    def shift_use(self, stmt):
        """(b, the shift of y) for y = a - b or y = a + b (either order) where b has length 1
        along some axes of y of other lengths, at the top level; else None."""
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.BinOp)
                and isinstance(stmt.value.op, (gast.Add, gast.Sub))):
            return None
        y = self.shapes.get(stmt.targets[0].id)
        for operand, sign in ((stmt.value.right, -1 if isinstance(stmt.value.op, gast.Sub)
                               else 1), (stmt.value.left, 1)):
            if operand is stmt.value.left and stmt.value.left is stmt.value.right:
                continue
            mine = self.shape(operand) if isinstance(operand, gast.Name) else None
            other = stmt.value.left if operand is stmt.value.right else stmt.value.right
            if isinstance(other, gast.Name) and isinstance(operand, gast.Name) and (
                    other.id == operand.id):
                return None
            if y is None or mine is None or len(mine) != len(y):
                continue
            axes = frozenset(i for i, (m, n) in enumerate(zip(mine, y)) if m == 1 and n != 1)
            if axes and all(m in (1, n) for m, n in zip(mine, y)):
                return operand.id, _Shift(axes, sign)
        return None


def inert_names(fdef, shapes, floats):
    """The names of fdef (after ANF) whose adjoint is exactly zero (see the module docstring).
    shapes, floats: what the shape probe saw (shapes.probe); only real floats are followed."""
    if not shapes:
        return set()
    return Invariance(fdef, shapes, floats).inert()
