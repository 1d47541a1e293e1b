"""turns (reverse mode, shape-specialized builds): an elementwise expression of values the
adjoint sweep restores from the tape, and of numbers only (an activation's slope, 1 - u * u), is
made for every turn of the loop at once after the primal sweep, one operation on the stacked
values of all turns instead of one per turn, and each adjoint turn takes its row:

    for t in t4:                                  u_turns = []
        ...                                       for t in t4:
        stack.append((g, u))                          ...
                                          ->          stack.append((g, u))
    for t in t4[::-1]:                                u_turns.append(u)
        g, u = stack.pop()                        # 1.0 - u * u for every turn at once
        bt17 = bu * (1.0 - u * u)                 u_all = np.array(u_turns)
        ...                                       u_expr_turns = list(1.0 - u_all * u_all)
                                                  del u_turns, u_all
                                                  for t in t4[::-1]:
                                                      g, u = stack.pop()
                                                      u_expr = u_expr_turns.pop()
                                                      bt17 = bu * u_expr

A ufunc maps each item alone, so a row of the stacked result is the turn's result to the bit.
Applies to a primal loop `for t in R:` and its adjoint loop `for t in R[::-1]:`, the only loops
over R at the top level (R bound once, to a range: both run len(R) turns; with more loops over
R the pairing is not followed), with no break, continue or return in either;
the primal loop pushes a tuple of names at its top level (the tape of the values its turn
leaves) and the adjoint loop pops that tuple into the same names at its top level: in the
adjoint turn for primal turn k, those names hold turn k's values from the pop until the adjoint
binds them again. An expression is taken when it is made of those names (not bound again
between the pop and its statement, never written into: the fact mutated), arrays of one shape
the probe knows, numbers, and + - * / ** and unary minus and NumPy's ufuncs, with at least one
operation, and is part of a larger expression (its row is read once, by an operation that
makes a new array). Its rows are popped one per adjoint turn, the last turn's first.

A chain of products of one value by taped values (consecutive statements x1 = a / L1,
x2 = x1 / L2, x3 = safe_mul(x2, L3), each x read only by the next: a sigmoid's adjoint,
d / t12 / t12 * t11) is one product by its factor K = 1.0 / L1 / L2 * L3, made for every turn
at once, where every item of K is finite and not 0; then every L is finite and not 0, no guard
of the chain acts, and a * K is the chain up to rounding (a zero, inf or nan in a gives what the
chain gives). Where some item is not (an exponential that overflowed), every turn runs the
chain as written:

    x3 = a * t11_factor if t11_factor_finite else safe_mul(a / t12 / t12, t11)

(two steps or more, or one with a guard; the LSTM's gradient: 2.4 us of its turn's ~20 less).
"""
import ast

import gast
import numpy as np

from ..syntax.convert import gast_to_ast
from ..syntax.naming import walk
from ..syntax.nodes import assign, call, comment, is_name, name, numpy_call, reversed_name

_OPS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)
_ENDS = (gast.Break, gast.Continue, gast.Return, gast.Yield, gast.YieldFrom)


def _ufunc(node):
    """Whether node is a call np.f(args) of a one-output ufunc with its number of arguments."""
    if not (numpy_call(node) and not node.keywords):
        return False
    found = getattr(np, node.func.attr, None)
    return isinstance(found, np.ufunc) and found.nout == 1 and len(node.args) == found.nin


def _pop_of_tuple(stmt):
    """(stack name, [names]) of `a, b, c = stack.pop()`, else None."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Tuple)
            and all(is_name(n) for n in stmt.targets[0].elts)
            and isinstance(stmt.value, gast.Call) and not stmt.value.args
            and isinstance(stmt.value.func, gast.Attribute) and stmt.value.func.attr == "pop"
            and is_name(stmt.value.func.value)):
        return None
    return stmt.value.func.value.id, [n.id for n in stmt.targets[0].elts]


def _push_of_tuple(stmt):
    """(stack name, [names]) of `stack.append((a, b, c))`, else None."""
    if not (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Attribute)
            and stmt.value.func.attr == "append" and is_name(stmt.value.func.value)
            and len(stmt.value.args) == 1 and isinstance(stmt.value.args[0], gast.Tuple)
            and all(is_name(n) for n in stmt.value.args[0].elts)):
        return None
    return stmt.value.func.value.id, [n.id for n in stmt.value.args[0].elts]


def _bound(stmt):
    return {n.id for n in walk(stmt) if isinstance(n, gast.Name)
            and not isinstance(n.ctx, gast.Load)}


class Turns:
    def __init__(self, fdef, facts):
        self.fdef = fdef
        self.paired = False  # (whether a primal and an adjoint loop were paired: looked at)
        self.top_once = facts.top_once
        self.shape_of = facts.shape_of
        self.arrays = facts.arrays
        self.mutated = facts.mutated
        self.fresh_name = facts.fresh_name
        self.loads = facts.loads
        self.binds = facts.binds

    def run(self):
        body = self.fdef.body
        position = 0
        while position < len(body):
            back = body[position]
            if type(back) is gast.For and is_name(back.target):
                forward = self.primal_loop(body, position)
                if forward is not None:
                    self.paired = True
                    added = self.batch(body, body.index(forward), position)
                    position += added
            position += 1
        return self.fdef

    def primal_loop(self, body, position):
        """The primal loop `for t in R:` whose adjoint loop body[position] is (for t in
        R[::-1], R bound once to a range), else None. Only where R has one loop of each kind
        at the top level: the adjoint loops undo the primal ones from the last, but a loop
        the user wrote over R[::-1] would count among them (and two primal loops over R may
        push tuples of the same names), so that more loops are not paired at all."""
        turns = reversed_name(body[position].iter)
        made = self.top_once.get(turns)
        if made is None or not (isinstance(made.value, gast.Call)
                                and is_name(made.value.func, "range")):
            return None
        forwards = [s for s in body if type(s) is gast.For and is_name(s.iter, turns)]
        backs = [s for s in body if type(s) is gast.For and reversed_name(s.iter) == turns]
        if len(forwards) != 1 or len(backs) != 1 or forwards[0].orelse:
            return None
        forward = forwards[0]
        return forward if body.index(forward) < position else None

    def batch(self, body, first, last):
        """Rewrite the loops body[first] (primal) and body[last] (adjoint); the number of
        statements added before the adjoint loop."""
        forward, back = body[first], body[last]
        if back.orelse or any(isinstance(n, _ENDS) for loop in (forward, back)
                              for n in walk(loop)):
            return 0
        pops = [(k, _pop_of_tuple(s)) for k, s in enumerate(back.body)]
        pops = [(k, found) for k, found in pops if found is not None]
        if not pops:
            return 0
        at, (stack, names) = pops[0]
        pushes = [k for k, s in enumerate(forward.body) if _push_of_tuple(s) == (stack, names)]
        if len(pushes) != 1:
            return 0
        leaves = {n for n in names if n in self.arrays and n not in self.mutated
                  and self.shape_of(n)}
        taken = []  # (rows name, row name, expression, its leaves, flag name or None)
        k = at + 1
        while k < len(back.body):
            if leaves:
                self.chain(back.body, k, leaves, taken)
                stmt = back.body[k]
                if isinstance(stmt, (gast.Assign, gast.AugAssign)):
                    self.replace_in(stmt, leaves, taken)
            leaves = leaves - _bound(back.body[k])
            k += 1
        if not taken:
            return 0
        used = sorted({leaf for _, _, _, ls, _ in taken for leaf in ls}, key=names.index)
        lists = {leaf: self.fresh_name(f"{leaf}_turns") for leaf in used}
        stacked = {leaf: self.fresh_name(f"{leaf}_all") for leaf in used}
        push_at = pushes[0]
        forward.body[push_at + 1:push_at + 1] = [
            gast.Expr(value=call([lists[leaf], "append"], name(leaf))) for leaf in used]
        after = []
        made = set()
        for position, (rows, row, expression, leaves_read, flag) in enumerate(taken):
            shown = _shown(expression)
            after.append(comment(f"{shown} for every turn at once" + (
                "" if flag is None else " (the chain of products: one product where all are "
                                        "finite and not 0)")))
            # (each value stacked just before its first expression and deleted after its last:
            # the peak holds the rows made so far and one expression's values)
            for leaf in sorted(leaves_read - made, key=names.index):
                after.append(assign(stacked[leaf], call(["np", "array"], name(lists[leaf]))))
                made.add(leaf)
            for n in walk(expression):
                if isinstance(n, gast.Name) and n.id in stacked:
                    n.id = stacked[n.id]
            if flag is None:
                after.append(assign(rows, gast.Call(func=name("list"), args=[expression],
                                                    keywords=[])))
            else:
                whole = self.fresh_name(f"{row}_all")
                after.append(assign(whole, expression))
                checks = [gast.Call(func=gast.Attribute(value=node, attr="all",
                                                        ctx=gast.Load()), args=[], keywords=[])
                          for node in (call(["np", "isfinite"], name(whole)), name(whole))]
                after.append(assign(flag, gast.Call(func=name("bool"), args=[
                    gast.BoolOp(op=gast.And(), values=checks)], keywords=[])))
                after.append(assign(rows, gast.Call(func=name("list"), args=[name(whole)],
                                                    keywords=[])))
            done = sorted((leaf for leaf in leaves_read if not any(
                leaf in later[3] for later in taken[position + 1:])), key=names.index)
            if done:
                after.append(_deletion(done, lists, stacked))
        back.body[at + 1:at + 1] = [assign(row, call([rows, "pop"]))
                                    for rows, row, _, _, _ in taken]
        before = [assign(lists[leaf], gast.List(elts=[], ctx=gast.Load())) for leaf in used]
        body[first:first] = before
        last += len(before)
        body[last:last] = after
        return len(before) + len(after)

    def chain(self, stmts, k, leaves, taken):
        """Where stmts[k:] begin a chain of products of one value a by leaves (x1 = a / L1,
        x2 = x1 / L2, x3 = safe_mul(x2, L3); each x read only by the next; consecutive
        statements), of two steps or more or with a guard: one statement instead,
            x3 = a * row if flag else safe_mul(a / L1 / L2, L3)
        with row the turn's row of K = 1.0 / L1 / L2 * L3 made for every turn at once, and
        flag whether every item of K is finite and not 0 (then every L is, every guard of the
        chain is inert, and the chain is a * K up to rounding); else the chain as written."""
        steps = []
        for stmt in stmts[k:]:
            step = self.step(stmt, leaves)
            if step is None or (steps and step[0] != steps[-1][3]):
                break
            if steps and not (self.loads.get(steps[-1][3]) == 1
                              and self.binds.get(steps[-1][3]) == 1):
                break
            steps.append(step)
            if len({shape for shape in (tuple(self.shape_of(s[2])) for s in steps)}) != 1:
                steps.pop()
                break
        while steps and (len(steps) < 2 and not steps[0][4]):
            steps.pop()
        if not steps:
            return
        first = steps[0][0]
        if first in {s[3] for s in steps[:-1]}:
            return  # (a bound again inside the chain: read at its end, it would differ)
        # the chain as one expression (its fallback), and K
        value = name(first)
        factor = gast.Constant(value=1.0, kind=None)
        for _, op, leaf, _, guard in steps:
            if guard:
                value = gast.Call(func=name(guard), args=[value, name(leaf)], keywords=[])
            else:
                value = gast.BinOp(left=value, op=op(), right=name(leaf))
            factor = gast.BinOp(left=factor, op=op(), right=name(leaf))
        if isinstance(factor.left, gast.Constant) and isinstance(factor.op, gast.Mult):
            factor = factor.right  # (1.0 * L: L)
        leaf_set = {s[2] for s in steps}
        hint = sorted(leaf_set)[0]
        rows = self.fresh_name(f"{hint}_factor_turns")
        row = self.fresh_name(f"{hint}_factor")
        flag = self.fresh_name(f"{hint}_factor_finite")
        target = steps[-1][3]
        stmt = assign(target, gast.IfExp(
            test=name(flag), body=gast.BinOp(left=name(first), op=gast.Mult(), right=name(row)),
            orelse=value))
        gast.copy_location(stmt, stmts[k + len(steps) - 1])
        stmts[k:k + len(steps)] = [stmt]
        taken.append((rows, row, factor, leaf_set, flag))

    def step(self, stmt, leaves):
        """(input, op class, leaf, target, guard name or None) of a statement x = a / L,
        x = a * L (or L * a), x = safe_mul(a, L) (or (L, a)), x = strong_mul(a, L), with a a
        name that is not a leaf; else None."""
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and is_name(stmt.targets[0])):
            return None
        value, target = stmt.value, stmt.targets[0].id
        if isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Div, gast.Mult)):
            pairs = [(value.left, value.right)]
            if isinstance(value.op, gast.Mult):
                pairs.append((value.right, value.left))
            op, guard = type(value.op), None
        elif (isinstance(value, gast.Call) and is_name(value.func)
              and value.func.id in ("safe_mul", "strong_mul") and len(value.args) == 2
              and not value.keywords):
            pairs = [tuple(value.args)]
            if value.func.id == "safe_mul":
                pairs.append(tuple(value.args[::-1]))
            op, guard = gast.Mult, value.func.id
        else:
            return None
        if target in leaves:
            return None
        for a, leaf in pairs:
            if is_name(a) and is_name(leaf) and leaf.id in leaves and a.id not in leaves:
                return a.id, op, leaf.id, target, guard
        return None

    def replace_in(self, stmt, leaves, taken):
        """Replace the largest expressions of leaves inside stmt's value (never the whole
        value) by names of their rows."""
        def visit(node):
            for field, value in gast.iter_fields(node):
                if isinstance(value, list):
                    for i, item in enumerate(value):
                        if isinstance(item, gast.expr):
                            new = self.take(item, leaves, taken)
                            if new is not None:
                                value[i] = new
                            else:
                                visit(item)
                elif isinstance(value, gast.expr):
                    new = self.take(value, leaves, taken)
                    if new is not None:
                        setattr(node, field, new)
                    else:
                        visit(value)
        visit(stmt.value)

    def take(self, node, leaves, taken):
        """A Name for node's row if node is an expression of leaves of one shape with an
        operation, else None."""
        if isinstance(node, (gast.Name, gast.Constant)):
            return None
        found = self.leaves_of(node, leaves)
        if not found:
            return None
        if len({tuple(self.shape_of(leaf)) for leaf in found}) != 1:
            return None
        rows = self.fresh_name(f"{sorted(found)[0]}_expr_turns")
        row = self.fresh_name(f"{sorted(found)[0]}_expr")
        taken.append((rows, row, node, found, None))
        return name(row)

    def leaves_of(self, node, leaves):
        """The leaves an elementwise expression of leaves and numbers reads, else None."""
        if isinstance(node, gast.Constant):
            return set() if type(node.value) in (int, float) else None
        if isinstance(node, gast.Name):
            return {node.id} if node.id in leaves else None
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
            return self.leaves_of(node.operand, leaves)
        if isinstance(node, gast.BinOp) and isinstance(node.op, _OPS):
            left = self.leaves_of(node.left, leaves)
            right = self.leaves_of(node.right, leaves)
            return None if left is None or right is None else left | right
        if _ufunc(node):
            found = set()
            for arg in node.args:
                inner = self.leaves_of(arg, leaves)
                if inner is None:
                    return None
                found |= inner
            return found
        return None


def _deletion(leaves, lists, stacked):
    """del of the lists and stacked values of these leaves (read no more: their memory back
    before the adjoint sweep, whose start is the peak)."""
    return gast.Delete(targets=[name(n, gast.Del()) for leaf in leaves
                                for n in (lists[leaf], stacked[leaf])])


def _shown(expression):
    return ast.unparse(gast_to_ast(expression))


def batch_turn_expressions(fdef, facts):
    """The pass (see the module docstring)."""
    turns = Turns(fdef, facts)
    turns.run()
    if not turns.paired:
        facts.unchanged()
    return fdef
