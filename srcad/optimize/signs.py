"""sink negations (reverse mode): an adjoint computed as a negation only to be added to
another is computed without it, and subtracted.

    bD = -(bA * y).sum(axis=(0,))            bD = (bA * y).sum(axis=(0,))
    bC = safe_div(bD, 2.0 * D)         ->    bC = safe_div(bD, 2.0 * D)
    bA = bA + bC * 0.03125 * A               bA = bA - bC * 0.03125 * A

A negation costs a pass over its operand, which on small arrays is as much as the arithmetic
around it. `v = -e`, or `v = -a * b / c` (a product or quotient headed by a minus: the same
bits as -(a * b / c)), with v a derivative name bound by that one statement (at the top level
or in a loop's turn: every value v holds is made by it, so every read can take the sign back)
loses its minus when every read of v is a factor of a product or quotient (* /, safe_mul,
safe_div) that is
- added or subtracted (the right operand of + or -, or an augmented += / -=): the sign flips;
- negated: the two minus signs go;
- or the whole value of another such name, whose reads take the sign on in turn.
Signs are exact in floating point, so the numbers are the same to the last bit. In a loop,
the sigmoid's adjoint `bt = -share * s; bu = safe_mul(bt, e); bz = -bu; bg[:H] += bz` keeps no
minus sign.
"""
import gast

from ..syntax.naming import names, parents
from ..analysis.defuse import bound_once
from .algebra import drop_head_sign, odd_in


def _negated(value):
    """Whether value is -e, or a product or quotient headed by a minus (-a * b / c)."""
    node = value
    while isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Mult, gast.Div)):
        node = node.left
    return isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub)


class SinkSigns:
    def __init__(self, fdef, facts):
        self.sunk = False  # (whether a minus sign moved)
        self.derived = facts.derived
        self.defs = {v: s for v, s in bound_once(fdef, facts.binds).items()
                     if v in self.derived}  # derivative name bound by one statement -> it
        self.negated = [v for v, stmt in self.defs.items() if _negated(stmt.value) and not any(
            n.id == v for n in names(stmt.value))]  # (not v = -(v * a), a turn reading the last)
        self.parent, self.reads = (parents(fdef), {}) if self.negated else ({}, {})
        for n in names(fdef) if self.negated else ():
            if isinstance(n.ctx, gast.Load):
                self.reads.setdefault(n.id, []).append(n)

    def top_factor(self, node):
        """The largest product or quotient node is a factor of (node itself if none)."""
        while True:
            parent = self.parent.get(id(node))
            if parent is None or not odd_in(parent, node):
                return node
            node = parent

    def plan(self, var, depth=0):
        """How var's reads absorb a sign: [(kind, node)], or None if one cannot."""
        if depth > 8 or var not in self.reads:
            return None
        steps = []
        for read in self.reads[var]:
            top = self.top_factor(read)
            parent = self.parent.get(id(top))
            if isinstance(parent, gast.BinOp) and isinstance(parent.op, (
                    gast.Add, gast.Sub)) and top is parent.right:
                steps.append(("flip", parent))
            elif isinstance(parent, gast.AugAssign) and isinstance(parent.op, (
                    gast.Add, gast.Sub)) and top is parent.value:
                steps.append(("flip", parent))
            elif isinstance(parent, gast.UnaryOp) and isinstance(parent.op, gast.USub):
                steps.append(("unnegate", parent))
            elif isinstance(parent, gast.Assign) and top is parent.value and isinstance(
                    parent.targets[0], gast.Name) and parent.targets[0].id in self.defs and (
                    parent.targets[0].id in self.derived):
                inner = self.plan(parent.targets[0].id, depth + 1)
                if inner is None:
                    return None
                steps += inner
            else:
                return None
        if len({id(node) for _, node in steps}) != len(steps):
            return None  # one operation reached twice (v * v): its sign would flip back
        return steps

    def run(self):
        for var in self.negated:
            stmt = self.defs[var]
            value = stmt.value
            if not _negated(value):
                continue  # its minus went with an earlier name's (bz = -(bm * y).sum())
            steps = self.plan(var)
            if steps is None:
                continue
            self.sunk = True
            if isinstance(value, gast.UnaryOp):
                stmt.value = value.operand
                self.parent[id(stmt.value)] = stmt
            else:
                drop_head_sign(value)
            for kind, node in steps:
                if kind == "flip":
                    node.op = gast.Sub() if isinstance(node.op, gast.Add) else gast.Add()
                else:  # -(... v ...) with v no longer negated: the minus goes
                    holder = self.parent[id(node)]
                    self.replace_child(holder, node, node.operand)

    def replace_child(self, holder, old, new):
        if isinstance(holder, gast.Call) and isinstance(holder.func, gast.Attribute) and (
                holder.func.value is old):  # (-x).sum(): the parent recorded is the call
            holder = holder.func
        done = False
        for field, value in gast.iter_fields(holder):
            if value is old:
                setattr(holder, field, new)
                done = True
            elif isinstance(value, list) and any(v is old for v in value):
                setattr(holder, field, [new if v is old else v for v in value])
                done = True
        assert done, "sink_signs: a negation not found under its parent"
        self.parent[id(new)] = self.parent.get(id(old), holder)


def sink_signs(fdef, facts):
    """The pass (see the module docstring)."""
    signs = SinkSigns(fdef, facts)
    signs.run()
    if not signs.sunk:
        facts.unchanged()
    return fdef
