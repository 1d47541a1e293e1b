"""control: lower Python's control flow to the few forms the derivative passes handle:
`if` on a name, `for i in <range>` and `while <name>`, with no break, continue or inner return.

    for row in X:                     for i_1 in range(len(X)):
        ...                               row = X[i_1]; ...
    for i, v in enumerate(xs):        for i in range(len(xs)):
        ...                               v = xs[i]; ...
    for a, b in zip(A, B):            for i_2 in range(min(len(A), len(B))):
                                          a = A[i_2]; b = B[i_2]; ...
    y = a if c else b                 if c: y = a
                                      else: y = b
    for i in r:                       break_1 = False
        A                             for i in r:
        if c:                             A
            break                         if c:
        B                                     break_1 = True
                                          if not break_1:
                                              B
                                          if break_1:
                                              break
A `return` inside a branch or loop sets `returned`/`retval` and skips the rest the same way; the
function then ends with one `return retval`. The `break` left at the end of a loop body is the
only one the later passes see: the reverse pass counts that loop's iterations.
"""
import gast

from ..syntax.naming import walk_breadth
from ..syntax.visitor import Transformer


def _name(ident, ctx=None):
    return gast.Name(id=ident, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _assign(target, value, origin):
    stmt = gast.Assign(targets=[_name(target, gast.Store())], value=value, type_comment=None)
    return gast.copy_location(stmt, origin)


def _const(value):
    return gast.Constant(value=value, kind=None)


def _call(func, *args):
    return gast.Call(func=func, args=list(args), keywords=[])


def _total(node):
    """Whether evaluating node does nothing and (in practice) cannot raise: names and constants,
    compared, negated or joined by and/or (x.shape[0], len(x) or a / b may fail where the left
    side of an `and` would have stopped them)."""
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, gast.Compare):  # (i < n: numbers in practice; arrays of shapes that
        return all(isinstance(n, (gast.Name, gast.Constant))  # do not broadcast would raise)
                   for n in [node.left] + node.comparators)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
        return _total(node.operand)
    if isinstance(node, gast.BoolOp):
        return all(_total(v) for v in node.values)
    return False


def _builtin_call(node, name, count=None):
    """Whether node is name(...) (a builtin by its name: enumerate, zip, reversed) with
    positional arguments only (count of them, if given)."""
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
            and node.func.id == name and not node.keywords and node.args
            and not any(isinstance(a, gast.Starred) for a in node.args)
            and (count is None or len(node.args) == count))


def _is_range_call(node):
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
            and node.func.id == "range")


def _contains(stmts, kinds, into_loops=False):
    for stmt in stmts:
        for node in _walk_block(stmt, into_loops):
            if isinstance(node, kinds):
                return True
    return False


def _walk_block(stmt, into_loops):
    """Nodes of stmt, not descending into nested loops unless into_loops."""
    yield stmt
    children = []
    if isinstance(stmt, gast.If):
        children = stmt.body + stmt.orelse
    elif isinstance(stmt, (gast.For, gast.While)) and into_loops:
        children = stmt.body + stmt.orelse
    for child in children:
        yield from _walk_block(child, into_loops)


class LowerLoops(Transformer):
    """for over arrays, enumerate and zip -> for over range; a if c else b -> if statements."""

    def __init__(self, fresh, info):
        self.fresh = fresh
        self.info = info
        self.pending = []
        self.ranges = set()  # names bound to range objects (or slices of them)

    def _is_range(self, node):
        if _is_range_call(node):
            return True
        if isinstance(node, gast.Name):
            return node.id in self.ranges
        return (isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice)
                and self._is_range(node.value))

    def visit_For(self, node):
        node = self.generic_visit(node)
        if node.orelse:
            raise self.info.error(node, "srcad does not differentiate for ... else",
                                  hint="use a flag set before break")
        it = node.iter
        head = []
        if self._is_range(it):
            if not isinstance(node.target, gast.Name):
                raise self.info.error(node.target, "a range loop needs one loop variable")
            return node
        if _builtin_call(it, "enumerate", 1):  # for i, v in enumerate(xs): v = xs[i]
            counted = isinstance(node.target, gast.Tuple) and len(node.target.elts) == 2
            index = node.target.elts[0].id if counted and isinstance(
                node.target.elts[0], gast.Name) else self.fresh("i")
            length, item = self._items(it.args[0], head, node, index)
            node.body = (self._unpack(node.target.elts[1], item, node) if counted else
                         self._unpack(node.target, gast.Tuple(elts=[_name(index), item],
                                                              ctx=gast.Load()), node)
                         ) + node.body
            if counted and not isinstance(node.target.elts[0], gast.Name):
                node.body = self._unpack(node.target.elts[0], _name(index), node) + node.body
            node.target = _name(index, gast.Store())
            node.iter = _call(_name("range"), length)
            return head + [node]
        if _builtin_call(it, "zip") or _builtin_call(it, "reversed", 1):
            index = self.fresh("i")  # for a, b in zip(xs, ys): a = xs[i]; b = ys[i]
            length, item = self._items(it, head, node, index)
            node.body = self._unpack(node.target, item, node) + node.body
            node.target = _name(index, gast.Store())
            node.iter = _call(_name("range"), length)
            return head + [node]
        if (isinstance(it, gast.Call) and isinstance(it.func, gast.Attribute)
                and it.func.attr in ("items", "keys", "values")):
            raise self.info.error(it, f"srcad iterates over .{it.func.attr}() of a dict only in "
                                      f"a for statement of the function itself",
                                  hint="iterate over the keys: for k in params: v = params[k]")
        seq = self._hold(it, head, node)
        index = self.fresh("i")
        node.iter = _call(_name("range"), _call(_name("len"), _name(seq)))
        items = self._item(node.target, seq, index, node)
        node.target = _name(index, gast.Store())
        node.body = items + node.body
        return head + [node]

    def _hold(self, expr, head, origin):
        """A name for the sequence a loop iterates over: its own, unless the loop body binds it
        again (Python iterates over the object the loop started with: keep that in a new name)."""
        rebound = {n.id for stmt in origin.body + [origin.target] for n in walk_breadth(stmt)
                   if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}  # (the loop's
        # own targets too: for a, b in zip(b, c) binds b each turn)
        if isinstance(expr, gast.Name) and expr.id not in rebound:
            return expr.id
        temp = self.fresh("t")
        head.append(_assign(temp, expr, origin))
        return temp

    def _items(self, iterable, head, origin, index):
        """(the number of items, the item at `index`) of what a loop iterates over: a sequence
        held in a name; zip(xs, ys): the shortest's length, (xs[i], ys[i]); reversed(xs):
        xs[::-1]'s items. Each is indexed, never iterated: the adjoint sweep reads them back."""
        if _builtin_call(iterable, "zip"):
            seqs = [self._hold(arg, head, origin) for arg in iterable.args]
            lengths = [_call(_name("len"), _name(seq)) for seq in seqs]
            return (lengths[0] if len(lengths) == 1 else _call(_name("min"), *lengths),
                    gast.Tuple(elts=[gast.Subscript(value=_name(seq), slice=_name(index),
                                                    ctx=gast.Load()) for seq in seqs],
                               ctx=gast.Load()))
        if _builtin_call(iterable, "reversed", 1):
            iterable = gast.Subscript(value=iterable.args[0], slice=gast.Slice(
                lower=None, upper=None, step=gast.UnaryOp(op=gast.USub(), operand=gast.Constant(
                    value=1, kind=None))), ctx=gast.Load())
        seq = self._hold(iterable, head, origin)
        return _call(_name("len"), _name(seq)), gast.Subscript(value=_name(seq),
                                                                slice=_name(index),
                                                                ctx=gast.Load())

    def _item(self, target, seq, index, origin):
        """target = seq[index], unpacked into names."""
        return self._unpack(target, gast.Subscript(value=_name(seq), slice=_name(index),
                                                   ctx=gast.Load()), origin)

    def _unpack(self, target, value, origin):
        """target = value as assignments to names: for (W, b), c in ... gives t = xs[i];
        t_1 = t[0]; W = t_1[0]; b = t_1[1]; c = t[1]."""
        if not isinstance(target, (gast.Tuple, gast.List)):
            return [gast.copy_location(gast.Assign(targets=[target], value=value,
                                                   type_comment=None), origin)]
        holder = self.fresh("t")
        out = [_assign(holder, value, origin)]
        for k, item in enumerate(target.elts):
            out += self._unpack(item, gast.Subscript(value=_name(holder), slice=gast.Constant(
                value=k, kind=None), ctx=gast.Load()), origin)
        return out

    # a if c else b, a and b, a or b: as statement-level ifs ------------------------------------
    # (each operand runs only where Python runs it: x is not None and len(x) == 2 never calls
    # len(None), a random draw after `or` is not drawn when the left side is true)
    def visit_IfExp(self, node):
        node.test = self.visit(node.test)
        temp = self.fresh("t")
        body, value = self._lazy(node.body)
        orelse, other = self._lazy(node.orelse)
        stmt = gast.If(test=node.test, body=body + [_assign(temp, value, node)],
                       orelse=orelse + [_assign(temp, other, node)])
        self.pending.append(gast.copy_location(stmt, node))
        return _name(temp)

    def visit_BoolOp(self, node):
        first = self.visit(node.values[0])
        rest = [self._lazy(value) for value in node.values[1:]]
        if all(not stmts and _total(value) for stmts, value in rest):
            node.values = [first] + [value for _, value in rest]
            return node  # the later operands cannot fail and do nothing: evaluated as written
        temp = self.fresh("t")
        self.pending.append(_assign(temp, first, node))
        for stmts, value in rest:  # t = a; t_1 = t; if t_1: t = b  (or: t_1 = not t)
            test = self.fresh("t")  # (a test of its own: the branch assigns t, and the
            self.pending.append(_assign(test, _name(temp) if isinstance(  # adjoint sweep
                node.op, gast.And) else gast.UnaryOp(op=gast.Not(), operand=_name(temp)), node))
            self.pending.append(gast.copy_location(gast.If(  # decides by the test's value)
                test=_name(test), body=stmts + [_assign(temp, value, node)], orelse=[]), node))
        return _name(temp)

    def _lazy(self, node):
        """(statements, expression) for node where it runs only in a branch: what it needs
        computed first (its own conditional expressions) goes into the branch too."""
        saved, self.pending = self.pending, []
        value = self.visit(node)
        stmts, self.pending = self.pending, saved
        return stmts, value

    def lower_block(self, stmts):
        out = []
        for stmt in stmts:
            self.pending = []
            if isinstance(stmt, (gast.If, gast.While)):
                stmt.test = self.visit(stmt.test)
                test_pending = self.pending
                self.pending = []
                stmt.body = self.lower_block(stmt.body)
                stmt.orelse = self.lower_block(stmt.orelse)
                if isinstance(stmt, gast.While) and test_pending:
                    raise self.info.error(stmt.test, "srcad does not differentiate a conditional "
                                                     "expression in a while condition",
                                          hint="compute the condition into a name first")
                out.extend(test_pending)
                if isinstance(stmt, gast.If) and isinstance(stmt.test, gast.Name) and any(
                        isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)
                        and n.id == stmt.test.id for s in stmt.body + stmt.orelse
                        for n in walk_breadth(s)):
                    # `if c: c = ...`: the adjoint sweep decides which branch ran by the test's
                    # name, so the test must keep the value it had when the primal decided
                    test = self.fresh("t")
                    out.append(_assign(test, stmt.test, stmt))
                    stmt.test = _name(test)
                out.append(stmt)
                continue
            if isinstance(stmt, gast.For):
                stmt.iter = self.visit(stmt.iter)
                out.extend(self.pending)
                self.pending = []
                stmt.body = self.lower_block(stmt.body)
                result = self.visit_For(stmt)
                out.extend(result if isinstance(result, list) else [result])
                continue
            new = self.visit(stmt)
            out.extend(self.pending)
            out.append(new)
            if (isinstance(new, gast.Assign) and isinstance(new.targets[0], gast.Name)
                    and self._is_range(new.value)):
                self.ranges.add(new.targets[0].id)
        return out

    def generic_visit(self, node):
        if isinstance(node, (gast.For, gast.If, gast.While)):
            return node  # blocks are walked by lower_block
        return super().generic_visit(node)


class LowerJumps:
    """break / continue / inner return -> flags; the rest of a block guarded by `if not flag`."""

    def __init__(self, fresh):
        self.fresh = fresh
        self.returned = None
        self.retval = None

    def function(self, fdef):
        body = fdef.body
        final = body[-1] if body and isinstance(body[-1], gast.Return) else None
        inner = body[:-1] if final is not None else body
        if not _contains(inner, gast.Return, into_loops=True):
            fdef.body = self.block(inner, None) + ([final] if final is not None else [])
            return fdef
        self.returned = self.fresh("returned")
        self.retval = self.fresh("retval")
        origin = body[0]
        head = [_assign(self.returned, _const(False), origin),
                _assign(self.retval, _const(None), origin)]
        lowered = self.block(body, None)
        fdef.body = head + lowered + [gast.copy_location(gast.Return(value=_name(self.retval)),
                                                         final or body[-1])]
        return fdef

    def flags(self, loop):
        names = []
        if loop is not None:
            names += [f for f in (loop.get("break"), loop.get("continue")) if f]
        if self.returned:
            names.append(self.returned)
        return names

    def guard(self, rest, loop, origin):
        names = self.flags(loop)
        test = _name(names[0]) if len(names) == 1 else gast.BoolOp(
            op=gast.Or(), values=[_name(n) for n in names])
        stmt = gast.If(test=gast.UnaryOp(op=gast.Not(), operand=test), body=rest, orelse=[])
        return gast.copy_location(stmt, origin)

    def block(self, stmts, loop):
        out = []
        for index, stmt in enumerate(stmts):
            if isinstance(stmt, gast.Break):
                out.append(_assign(loop["break"], _const(True), stmt))
                return out
            if isinstance(stmt, gast.Continue):
                out.append(_assign(loop["continue"], _const(True), stmt))
                return out
            if isinstance(stmt, gast.Return):
                if self.returned is None:  # the final return of the function
                    out.append(stmt)
                    return out
                value = stmt.value if stmt.value is not None else _const(None)
                out.append(_assign(self.retval, value, stmt))
                out.append(_assign(self.returned, _const(True), stmt))
                return out
            jumps = False
            if isinstance(stmt, gast.If):
                jumps = _contains([stmt], (gast.Break, gast.Continue)) or (
                    self.returned is not None and _contains([stmt], gast.Return, True))
                stmt.body = self.block(stmt.body, loop)
                stmt.orelse = self.block(stmt.orelse, loop)
            elif isinstance(stmt, (gast.For, gast.While)):
                jumps = self.returned is not None and _contains(stmt.body, gast.Return,
                                                                into_loops=True)
                self.loop(stmt, out)
            out.append(stmt)
            rest = stmts[index + 1:]
            if jumps and rest:
                lowered = self.block(rest, loop)
                if lowered:
                    out.append(self.guard(lowered, loop, rest[0]))
                return out
        return out

    def loop(self, stmt, out):
        info = {}
        leaves = _contains(stmt.body, (gast.Break, gast.Return), into_loops=True)
        if _contains(stmt.body, gast.Break):
            info["break"] = self.fresh("break")
            out.append(_assign(info["break"], _const(False), stmt))
        if _contains(stmt.body, gast.Continue):
            info["continue"] = self.fresh("continue")
        body = self.block(stmt.body, info)
        if "continue" in info:
            body = [_assign(info["continue"], _const(False), stmt)] + body
        exits = [f for f in (info.get("break"), self.returned) if f]
        if exits and leaves:
            test = _name(exits[0]) if len(exits) == 1 else gast.BoolOp(
                op=gast.Or(), values=[_name(n) for n in exits])
            body.append(gast.copy_location(gast.If(test=test, body=[gast.Break()], orelse=[]),
                                           stmt))
        stmt.body = body


def lower_control(fdef, fresh, info):
    fdef.body = LowerLoops(fresh, info).lower_block(fdef.body)
    return LowerJumps(fresh).function(fdef)

