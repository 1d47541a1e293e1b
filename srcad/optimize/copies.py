"""copies: a name bound to another name is replaced by it, and the copy goes.

    bt3 = bout                      bx1 = bout * x2
    bx1 = bt3 * x2          ->

Three forms, each only where no loop can carry an older value past a newer one: a copy of a
name bound once (its reads read the original), a copy into a name bound several times of a
temporary bound once just before (the temporary is renamed: share_1 = w / D; bA = share_1 ->
bA = w / D), and, at the top level, a copy whose source is bound no more (the source goes on
under the copy's name, so the in-place pass can add into an array it owns).
"""
import gast

from ..analysis.defuse import parameters
from ..syntax.naming import binds, bound_counts, load_counts, loaded_names, names_in, walk

class _Replace(gast.NodeTransformer):
    def __init__(self, old, new):
        self.old, self.new = old, new

    def visit_Name(self, node):
        if node.id == self.old and isinstance(node.ctx, gast.Load):
            node.id = self.new
        return node


def propagate_copies(fdef, counts=None, loads=None, params=None):
    """a = b (names bound once each) -> uses of a read b, and the copy goes.

        bt3 = bout                      bx1 = bout * x2
        bx1 = bt3 * x2          ->

    Only where every use of a follows the copy in the same block (so no loop can carry an
    older a past a newer b) and b is not bound again before the last of them. counts:
    bound_counts(fdef), loads: load_counts(fdef) (updated here), params: the parameters'
    names, when the caller has them."""
    counts = counts if counts is not None else bound_counts(fdef)
    loads = loads if loads is not None else load_counts(fdef)

    def block(stmts, top):
        i = 0
        while i < len(stmts):
            stmt = stmts[i]
            for child in (getattr(stmt, "body", None), getattr(stmt, "orelse", None)):
                if isinstance(child, list):
                    block(child, False)
            if (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
                    and isinstance(stmt.value, gast.Name) and stmt.targets[0].id != stmt.value.id):
                a, b = stmt.targets[0].id, stmt.value.id
                if counts.get(a) == 1 and counts.get(b, 0) <= 1 and _replace_after(
                        stmts, i, a, b, loads.get(a, 0)):
                    loads[b] = loads.get(b, 0) + loads.pop(a, 0) - 1
                    del stmts[i]
                    continue
                if counts.get(b) == 1 and _rename_into_copy(stmts, i, a, b, loads.get(b, 0)):
                    i -= 1  # the copy is gone
                elif top and b not in params and _continue_as(stmts, i, a, b, counts.get(a, 0),
                                                              loads.get(a, 0)):
                    # (top level only: in a loop, b would carry a's values into the next turn)
                    i -= 1
            i += 1
    params = set(params if params is not None else parameters(fdef))
    block(fdef.body, True)
    return fdef


def _continue_as(stmts, i, a, b, stores, total):
    """a = b, where a is first bound here and b, not read after a is next bound, is bound no
    more: b goes on as a (later reads and bindings of a are b's), and the copy goes.

        bx = bA                             bmu = -bA.sum(axis=(0,))
        bmu = -bA.sum(axis=(0,))     ->     bA = bA + bmu * 0.015625
        bx = bx + bmu * 0.015625            return bA
        return bx
    (the in-place pass can then add into bA, which it owns, instead of making a new array)."""
    after = stmts[i + 1:]
    if (sum(_reads(s, a) for s in after) != total or sum(bound_counts(s).get(a, 0) for s in after)
            != stores - 1 or any(binds(s, b) for s in after)):
        return False  # a is read or bound elsewhere (before, or in another block), or b is bound
    first = next((k for k, s in enumerate(after) if binds(s, a)), len(after))
    if any(_reads(s, b) for s in after[first + 1:]) or (
            first < len(after) and _reads(after[first], b)
            and not _reads_before_binding(after[first], b, a)):
        return False  # b's value is read after a took another one
    for s in after:
        _Replace(a, b).visit(s)
        for n in walk(s):
            if isinstance(n, gast.Name) and n.id == a:
                n.id = b
    del stmts[i]
    return True


def _rename_into_copy(stmts, i, a, b, total):
    """a = b, where b is a temporary bound once earlier in this block, and a a name bound
    several times (an adjoint): b = e becomes a = e and later reads of b read a, if a is
    neither read nor bound between the two and not bound again before the last read of b.

        share_1 = w / D                     bA = w / D
        bA = share_1                ->      bD = -(bA * y).sum(axis=(0,))
        bD = -(share_1 * y).sum(...)        bA = bA + ...
        bA = bA + ...
    (bA then owns a new array: the in-place pass can update it.)"""
    j = next((k for k in range(i) if isinstance(stmts[k], gast.Assign)
              and isinstance(stmts[k].targets[0], gast.Name) and stmts[k].targets[0].id == b),
             None)
    if j is None or any(a in names_in(s) for s in stmts[j + 1:i]) or a in loaded_names(
            stmts[j].value) or any(_reads(s, b) for s in stmts[:j + 1]):
        return False  # (a read of b before its definition: a loop carries it)
    seen, last = _last_read(stmts, i, b, sum(_reads(s, b) for s in stmts[:i + 1]), total)
    if seen != total or any(binds(s, a) for s in stmts[i + 1:last]) or (
            last > i and binds(stmts[last], a) and b in loaded_names(stmts[last])
            and not _reads_before_binding(stmts[last], b, a)):
        return False
    stmts[j].targets[0].id = a
    for s in stmts[j + 1:last + 1]:
        _Replace(b, a).visit(s)
    del stmts[i]
    return True


def _reads_before_binding(stmt, b, a):
    """In `a = <reads b>` the read happens before a is bound: fine to rename b to a there."""
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(
        stmt.targets[0], gast.Name) and stmt.targets[0].id == a


def _reads(stmt, var):
    return sum(1 for n in walk(stmt) if isinstance(n, gast.Name) and n.id == var
               and isinstance(n.ctx, gast.Load))


def _last_read(stmts, i, var, seen, total):
    """(reads of var counted, index of the statement holding the last one) after stmts[i],
    scanning until `total` reads are seen (`seen` of them counted already); i if none."""
    last = i
    for k in range(i + 1, len(stmts)):
        if seen == total:
            break
        seen += _reads(stmts[k], var)
        last = k
    return seen, last


def _replace_after(stmts, i, a, b, total):
    """Rewrite a -> b in the statements after stmts[i] if all `total` reads of a are there and
    b is not bound before the last of them; returns whether it did."""
    seen, last = _last_read(stmts, i, a, 0, total)
    if seen != total or any(binds(s, b) for s in stmts[i + 1:last + 1]):
        return False
    for s in stmts[i + 1:last + 1]:
        _Replace(a, b).visit(s)
    return True



def copies(fdef, facts):
    """The pass (see the module docstring)."""
    return propagate_copies(fdef, facts.binds, dict(facts.loads), facts.params)
