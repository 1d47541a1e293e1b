"""sizes hoisted: int arithmetic of array sizes in a loop's body, the same in every turn, is
done once before the loop (an LSTM's gate bounds, 2 * H and 3 * H, are bound in every turn once
the statements are in ANF):

    for t in t4:                          t9 = 3 * H
        ...                               t13 = 2 * H
        t9 = 3 * H                        for t in t4:
        z_1 = g[:t9]            ->            ...
        ...                                   z_1 = g[:t9]
        t13 = 2 * H                           ...
        f = sigmoid_g[H:t13]                  f = sigmoid_g[H:t13]

A turn computes two ints less, and reverse mode, which keeps on its tape what a loop rebinds
and its adjoint reads, keeps neither: the adjoint's slices read names bound once, which
optimize/inplace.py can then tell apart (adjoints added into disjoint slices of fresh zeros are
stored, not added).

Applies to a statement `v = a op b` at the top level of a loop's body (op: + - *; a and b int
literals or sizes) where v is bound nowhere else, and read only in the loop's body after it
(so no turn, and nothing after a loop that never turns, sees v unbound where it saw it bound).
A size is a name bound once in the function, at its top level and before the loop, to
`x.shape`, `s[k]` of such a shape (k an int literal), an int literal, or a op b of sizes: an
int (a shape's items are ints), so a op b is an int too, with no effect and no error, the same
in every turn. In a loop in a loop, the statement moves before the inner loop, and from there
before the outer one.
"""
import gast

from ..syntax.naming import bound_counts, walk

_OPS = (gast.Add, gast.Sub, gast.Mult)


def hoist_sizes(fdef):
    """fdef with such statements moved (in place; see the module docstring)."""
    hoister = _Hoister(fdef)
    fdef.body = hoister.block(fdef.body, top=True)
    return fdef


class _Hoister:
    def __init__(self, fdef):
        self.fdef = fdef
        self.binds = bound_counts(fdef)
        self._reads = None  # (counted on first need: most functions have no candidate)
        self.sizes = set()  # names bound once at the top level so far to a shape or an int
        self.shapes = set()  # those bound to x.shape

    def block(self, stmts, top):
        out = []
        for stmt in stmts:
            if isinstance(stmt, (gast.For, gast.While)):
                stmt.body = self.block(stmt.body, top=False)
                moved = [s for i, s in enumerate(stmt.body) if self.invariant(stmt.body, i)]
                if len(moved) == len(stmt.body):
                    moved = moved[:-1]  # (a loop keeps a statement)
                gone = {id(s) for s in moved}
                stmt.body = [s for s in stmt.body if id(s) not in gone]
                stmt.orelse = self.block(stmt.orelse, top=False)
                out.extend(moved)
                if top:
                    self.sizes.update(s.targets[0].id for s in moved)
            else:
                for field in ("body", "orelse", "handlers", "finalbody"):
                    if isinstance(getattr(stmt, field, None), list) and not isinstance(
                            stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
                        setattr(stmt, field, self.block(getattr(stmt, field), top=False))
                if top:
                    self.note(stmt)
            out.append(stmt)
        return out

    def note(self, stmt):
        """Record a size bound by a top-level statement."""
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Name)
                and self.binds.get(stmt.targets[0].id) == 1):
            return
        var, value = stmt.targets[0].id, stmt.value
        if isinstance(value, gast.Attribute) and value.attr == "shape" and isinstance(
                value.value, gast.Name):
            self.shapes.add(var)
        elif (isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name)
              and value.value.id in self.shapes and _is_int(value.slice)) or (
                _is_int(value) or self.arithmetic(value)):
            self.sizes.add(var)

    def arithmetic(self, value):
        return isinstance(value, gast.BinOp) and isinstance(value.op, _OPS) and all(
            _is_int(side) or isinstance(side, gast.Name) and side.id in self.sizes
            for side in (value.left, value.right))

    def invariant(self, body, index):
        """Whether body[index] is `v = a op b` of sizes, v bound only here and read only in
        the statements of body after it."""
        stmt = body[index]
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Name) and self.arithmetic(stmt.value)):
            return False
        var = stmt.targets[0].id
        if self.binds.get(var) != 1:
            return False
        if self._reads is None:
            self._reads = _reads(self.fdef)
        later = sum(_reads(s).get(var, 0) for s in body[index + 1:])
        return self._reads.get(var, 0) == later


def _reads(node):
    counts = {}
    for n in walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
            counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def _is_int(node):
    return isinstance(node, gast.Constant) and type(node.value) is int
