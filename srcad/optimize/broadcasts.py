"""sink broadcasts (reverse mode, shape-specialized builds): an adjoint spread over an
array's shape only to meet an array of that shape in elementwise arithmetic is not spread;
numpy's broadcasting in that arithmetic does it for free.

    bt7 = np.full((10,), bt8)                  b_x = bt8 * t6
    b_x = bt7 * t6                    ->       bt6 = bt8 * x
    bt6 = bt7 * x
    bz = bz + unreduce(bt5, z, 1, True)  ->    bz = bz + bt5
    np.dot(bt7, t5)                      ->    bt8 * t5.sum()

A broadcast is np.full(S, v), np.broadcast_to(v, S) or unreduce(g, x, axis, keepdims) (the
adjoint of a reduction, with x's shape known), negated, or combined elementwise with values that
broadcast into S themselves (scalars, a column of S), or a name bound to one. One of its uses
drops the broadcast when it is an operand of + - * / ** (or the strong-zero helpers safe_mul,
safe_div) whose other operand is known to have the broadcast's shape: the result has that shape
either way, so every name keeps the shape the probe saw; or it is the dot product of a spread
number with a vector of its shape (the number times the vector's sum). A definition whose uses all went is
dead code. The dtype stays too: a Python number is weak (1.0 * t has t's dtype) while
np.full(S, 1.0) is a float64 array (np.full(S, 1.0) * t is float64 for a float16 or float32 t), so
a broadcast is dropped only where the other operand is float64 (or wider), or has the dtype of
the spread value (keeps_dtype):

    by = np.full((4,), 1.0)           ->    by = 1.0 + bs * x
    by = by + bs * x
"""

import gast

from ..analysis.shapes import expression_shape, outside_factors, reduction, result_char, WEAK
from ..runtime import STRONG_ZERO_OPERATIONS
from ..syntax.naming import bound_counts, clone, names_in
from ..syntax.nodes import call, constant_node

_ELEMENTWISE = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)
_WIDE = ("d", "g", WEAK)  # float64 and wider, and numbers: meeting them, a number or a float
# array has the dtype np.full(S, number) or the array had
_HELPERS = set(STRONG_ZERO_OPERATIONS)


def _dotted(func):
    if isinstance(func, gast.Name):
        return func.id
    if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name):
        return f"{func.value.id}.{func.attr}"
    return None


def _constant(node):
    """(True, value) for a constant (a tuple display of constants too), else (False, None)."""
    if isinstance(node, gast.Constant):
        return True, node.value
    if isinstance(node, gast.Tuple) and all(isinstance(e, gast.Constant) for e in node.elts):
        return True, tuple(e.value for e in node.elts)
    return False, None


def spread(node):
    """(S, v) for np.full(S, v) or np.broadcast_to(v, S) with S a constant tuple, else None."""
    func = _dotted(node.func) if isinstance(node, gast.Call) else None
    if func not in ("np.full", "np.broadcast_to") or len(node.args) != 2 or node.keywords:
        return None
    shape, value = node.args if func == "np.full" else reversed(node.args)
    known, shape = _constant(shape)
    return (shape, value) if known and isinstance(shape, tuple) else None


class SinkBroadcasts:
    def __init__(self, shape_of_name, fresh_name=None, loads=None, new_shapes=None,
                 float_of=lambda name: None):
        self.shape_of_name = shape_of_name
        self.float_of = float_of  # name -> its float dtype character, or None (not known)
        self.defs = {}  # name -> (shape, the value it broadcasts), valid at this point
        self.reads = {}  # name -> the defs whose value reads it (binding it makes them stale)
        self.fresh_name = fresh_name  # for a spread value read several times (see block)
        self.loads = loads or {}  # name -> how many times the function reads it
        self.new_shapes = new_shapes  # the shapes of the names made here are written to it

    def shape(self, node):
        return expression_shape(node, self.shape_of_name)

    def keeps_dtype(self, value, other):
        """Whether value (what a broadcast spreads) meeting other has the dtype the broadcast
        array meeting other had: other is float64 or wider, or has value's dtype (a numpy
        float32 number spread, met by float32: float32 both ways), or is a Python number (weak:
        the array's dtype stays, and a number spread stays a number, whose use is checked where
        it meets an array)."""
        mine = result_char(other, self.float_of)
        return mine in _WIDE or (mine is not None and mine == result_char(value, self.float_of))

    # what is a broadcast -----------------------------------------------------------------
    def broadcast(self, node):
        """(S, v) if node is v broadcast to shape S (v broadcasts to S), else None."""
        if isinstance(node, gast.Name):
            return self.defs.get(node.id)
        if isinstance(node, gast.Call):
            return self.broadcast_call(node)
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
            inner = self.broadcast(node.operand)
            return inner and (inner[0], gast.UnaryOp(op=gast.USub(), operand=inner[1]))
        if isinstance(node, gast.BinOp) and isinstance(node.op, _ELEMENTWISE):
            # with an operand that broadcasts into S (a scalar, a column): still a broadcast
            left, right = self.broadcast(node.left), self.broadcast(node.right)
            if left and self.fits(node.right, left[0]) and self.keeps_dtype(left[1], node.right):
                return left[0], gast.BinOp(left=left[1], op=node.op, right=node.right)
            if right and self.fits(node.left, right[0]) and self.keeps_dtype(right[1], node.left):
                return right[0], gast.BinOp(left=node.left, op=node.op, right=right[1])
        return None

    def fits(self, node, shape):
        """Whether node's shape is known and broadcasts into `shape` without growing it."""
        mine = self.shape(node)
        if mine is None or len(mine) > len(shape):
            return False
        return all(m in (1, n) for m, n in zip(reversed(mine), reversed(shape)))

    def broadcast_call(self, node):
        spread_value = spread(node)
        if spread_value is not None:
            return spread_value
        if _dotted(node.func) == "unreduce":
            return self.unreduce(node)
        return None

    def unreduce(self, node):
        """unreduce(g, x, axis, keepdims): g with the reduced axes kept (of length 1)."""
        params = ["g", "x", "axis", "keepdims"]
        if len(node.args) > 4 or any(k.arg not in params for k in node.keywords):
            return None
        args = dict(zip(params, node.args))
        args.update((k.arg, k.value) for k in node.keywords)
        x, axis, keepdims = args.get("x"), args.get("axis"), args.get("keepdims")
        shape = self.shape(x) if x is not None else None
        known_axis, axis = _constant(axis) if axis is not None else (True, None)
        known_keep, keepdims = _constant(keepdims) if keepdims is not None else (True, False)
        if "g" not in args or shape is None or not (known_axis and known_keep):
            return None
        g = args["g"]
        if axis is None or keepdims:
            return shape, g
        items = axis if isinstance(axis, tuple) else (axis,)
        if not all(type(a) is int and -len(shape) <= a < len(shape) for a in items):
            return None
        axes = sorted(a % len(shape) for a in items)
        if axes == list(range(len(axes))):  # leading axes: numpy aligns g at the end anyway
            return shape, g
        kept = tuple(1 if i in axes else n for i, n in enumerate(shape))
        return shape, call(["np", "reshape"], g, constant_node(kept))

    # the rewrite -------------------------------------------------------------------------
    def sink(self, node):
        """node with its operands' broadcasts dropped wherever the other operand has the
        broadcast's shape (children first)."""
        for field, value in gast.iter_fields(node):
            if isinstance(value, gast.AST):
                setattr(node, field, self.sink(value))
            elif isinstance(value, list):
                setattr(node, field, [self.sink(v) if isinstance(v, gast.AST) else v
                                      for v in value])
        if isinstance(node, gast.BinOp) and isinstance(node.op, _ELEMENTWISE):
            node.left, node.right = self.operands(node.left, node.right)
        elif (isinstance(node, gast.Call) and _dotted(node.func) in _HELPERS
              and len(node.args) == 2 and not node.keywords):
            node.args = list(self.operands(*node.args))
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and (
                node.func.attr == "sum"):
            return self.factored_sum(node)
        elif (isinstance(node, gast.Call) and _dotted(node.func) in ("np.dot", "np.vdot")
              and len(node.args) == 2 and not node.keywords):
            return self.spread_dot(node)
        return node

    def spread_dot(self, node):
        """np.dot(np.full((n,), v), w) -> v * w.sum(), for a number v and a vector w."""
        for mine, other in (node.args, reversed(node.args)):
            spread = self.broadcast(mine)
            if spread and len(spread[0]) == 1 and self.shape(other) == spread[0] and (
                    self.shape(spread[1]) == ()) and self.keeps_dtype(spread[1], other):
                total = gast.Call(func=gast.Attribute(value=other, attr="sum", ctx=gast.Load()),
                                  args=[], keywords=[])
                return gast.BinOp(left=clone(spread[1]), op=gast.Mult(), right=total)
        return node

    def factored_sum(self, node):
        """x.sum(...) with factors that broadcasting left constant along the summed axes taken
        out (what the reverse pass did before the broadcasts were sunk):
        (0.5 / c * t2).sum(axis=(0,))  ->  t2.sum(axis=(0,)) * (0.5 / c)."""
        found = reduction(node, self.shape_of_name)
        if found is None or found[0] is not node.func.value:  # (x.sum(...) only)
            return node
        _, full, axes, keep = found
        axes = sorted(axes)
        if keep:
            mine = tuple(1 if i in axes else n for i, n in enumerate(full))
        elif axes == list(range(len(axes))):  # leading axes: the rest stays right-aligned
            mine = full[len(axes):]
        else:
            return node
        negate, factors, rest = outside_factors(node.func.value, full, mine, self.shape_of_name)
        if not negate and not factors:
            return node
        if factors and not self.keeps_dtype(gast.Tuple(elts=[f for _, f in factors],
                                                       ctx=gast.Load()), rest):
            return node  # (rest summed alone: in its own dtype, which the factors widened)
        node.func.value = rest
        out = gast.UnaryOp(op=gast.USub(), operand=node) if negate else node
        for op, factor in factors:
            out = gast.BinOp(left=out, op=op, right=factor)
        return out

    def operands(self, left, right):
        spread = self.broadcast(left)
        if spread and self.shape(right) == spread[0] and self.keeps_dtype(spread[1], right):
            return clone(spread[1]), right
        spread = self.broadcast(right)
        if spread and self.shape(left) == spread[0] and self.keeps_dtype(spread[1], left):
            return left, clone(spread[1])
        return left, right

    def block(self, stmts, top):
        """Rewrite a block; only the function's top-level block defines broadcast names (read
        after their definition in that block, before the name or what it reads is bound
        again)."""
        out = []
        for stmt in stmts:
            out.append(stmt)
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                saved, self.defs, self.reads = (self.defs, self.reads), {}, {}
                self.block(stmt.body, False)
                self.block(stmt.orelse, False)
                self.defs, self.reads = saved
                bound = set(bound_counts(stmt))
            else:
                self.sink(stmt)
                bound = set(bound_counts(stmt))
            spread = None  # (what the statement binds, as the definitions before it read it)
            if top and isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
                spread = self.broadcast(stmt.value)
            # a name bound here, or a broadcast whose value reads one, stands for another value
            self.forget(bound)
            if spread and self.shape_of_name(stmt.targets[0].id) == spread[0] and not (
                    bound & names_in(spread[1])):
                shape = self.shape(spread[1])
                if self.fresh_name and self.loads.get(stmt.targets[0].id, 0) > 1 and not (
                        isinstance(spread[1], (gast.Name, gast.Constant))) and (
                        shape is not None and self.new_shapes is not None):
                    # read several times: its value unspread, computed once, before it
                    # (bez = bp / t5 with bp spread: t6 = 0.25 / t5, and the reads read t6)
                    name = self.fresh_name("t")
                    self.new_shapes[name] = shape
                    out.insert(len(out) - 1, gast.Assign(
                        targets=[gast.Name(id=name, ctx=gast.Store(), annotation=None,
                                           type_comment=None)], value=clone(spread[1])))
                    spread = (spread[0], gast.Name(id=name, ctx=gast.Load(), annotation=None,
                                                   type_comment=None))
                self.define(stmt.targets[0].id, spread)
        stmts[:] = out
        return stmts

    def define(self, var, spread):
        self.defs[var] = spread
        for name in names_in(spread[1]):
            self.reads.setdefault(name, set()).add(var)

    def forget(self, bound):
        """Drop the definitions a statement binding the names `bound` leaves stale: those of
        the names, and those whose value reads one (found through self.reads, not by reading
        every definition's value again at every statement, which was quadratic)."""
        stale = {v for v in bound if v in self.defs}
        for name in bound:
            stale |= self.reads.get(name, set())
        for var in stale:
            for name in names_in(self.defs.pop(var)[1]):
                readers = self.reads.get(name, set())
                readers.discard(var)
                if not readers:
                    self.reads.pop(name, None)


def sink_broadcasts(fdef, facts):
    """The pass (see the module docstring). facts.fresh(hint): a new name, for a spread value
    read several times (computed once, unspread), whose shape goes into the dict
    facts.new_shapes (which facts.shape_of reads)."""
    SinkBroadcasts(facts.shape_of, facts.fresh, facts.loads, facts.new_shapes,
                   facts.float_of).block(fdef.body, True)
    return fdef
