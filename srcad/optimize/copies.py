"""copies: a name bound to another name is replaced by it, and the copy goes.

    bt3 = bout                      bx1 = bout * x2
    bx1 = bt3 * x2          ->

Three forms, each only where no loop can carry an older value past a newer one: a copy of a
name bound once (its reads read the original), a copy into a name bound several times of a
temporary bound once just before (the temporary is renamed: share_1 = w / D; bA = share_1 ->
bA = w / D), and, at the top level, a copy whose source is bound no more (the source goes on
under the copy's name, so the in-place pass can add into an array it owns).

Each form asks where in the block a name is read or bound after (or before) the copy. A block
keeps an index for that (_Index: per statement, the names it reads, binds and mentions; per
name, the statements that do, in order), updated as statements are renamed or deleted, so a
question costs the statements that mention the name, not a walk over the rest of the block:
the pass is linear in the size of the function, where walking the rest of the block for every
copy made it quadratic (a 1,000-statement gradient spent most of its build here).
"""
import bisect

import gast

from ..analysis.defuse import parameters
from ..syntax.naming import bound_counts, load_counts, loaded_names, walk


def propagate_copies(fdef, counts=None, loads=None, params=None):
    """a = b (names bound once each) -> uses of a read b, and the copy goes.

        bt3 = bout                      bx1 = bout * x2
        bx1 = bt3 * x2          ->

    Only where every use of a follows the copy in the same block (so no loop can carry an
    older a past a newer b) and b is not bound again before the last of them. counts:
    bound_counts(fdef) (a copy is updated here), loads: load_counts(fdef) (updated here),
    params: the parameters' names, when the caller has them."""
    counts = dict(counts) if counts is not None else bound_counts(fdef)  # (updated here)
    loads = loads if loads is not None else load_counts(fdef)

    def block(stmts, top):
        index = _Index(stmts)
        i = 0
        while i < len(stmts):
            stmt = stmts[i]
            nested = False
            for child in (getattr(stmt, "body", None), getattr(stmt, "orelse", None)):
                if isinstance(child, list):
                    block(child, False)
                    nested = True
            if nested:  # (its nested blocks lost copies and were renamed)
                index.refresh(index.keys[i])
            if (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
                    and isinstance(stmt.value, gast.Name) and stmt.targets[0].id != stmt.value.id):
                a, b = stmt.targets[0].id, stmt.value.id
                # (each form keeps the counts true for the copies after it: a stale count of
                # reads let a second copy drop a name still read in another block)
                if counts.get(a) == 1 and _replace_after(
                        index, i, a, b, loads.get(a, 0)):
                    loads[b] = loads.get(b, 0) + loads.pop(a, 0) - 1  # (a's reads are b's)
                    counts.pop(a, None)
                    index.delete(i)
                    continue
                if counts.get(b) == 1 and _rename_into_copy(index, i, a, b, loads.get(b, 0)):
                    loads[a] = loads.get(a, 0) + loads.pop(b, 0) - 1  # (b's binding and
                    counts.pop(b, None)  # reads are a's; a's copy binding is gone)
                    i -= 1  # the copy is gone
                elif top and b not in params and counts.get(b, 0) and _continue_as(
                        index, i, a, b, counts.get(a, 0), loads.get(a, 0)):
                    # (top level only: in a loop, b would carry a's values into the next turn;
                    # b bound in the function: a global or closure name bound here would be a
                    # local from the function's start, unbound where it is first read)
                    loads[b] = loads.get(b, 0) + loads.pop(a, 0) - 1  # (a's bindings and
                    counts[b] = counts.get(b, 0) + counts.pop(a, 0) - 1  # reads are b's)
                    i -= 1
            i += 1
    params = set(params if params is not None else parameters(fdef))
    block(fdef.body, True)
    return fdef


class _Index:
    """Where each name is read, bound and mentioned in one block's statements (each with all
    its nested statements). Statements are identified by keys, their positions when the index
    was made: the pass only renames and deletes statements, so keys stay in block order.

    keys: the live statements' keys, in order (keys[i] is stmts[i]'s); per key, the statement
    and its facts (reads: name -> loads, bound: name -> bound_counts, stores: the names binds()
    is true of, mentions: names_in); per name, the sorted keys of the statements that read it
    (readers), bind it (binders: binds(), counted: bound_counts) or mention it (mentioners),
    and that are `name = ...` (assigners)."""

    def __init__(self, stmts):
        self.stmts = stmts
        self.keys = list(range(len(stmts)))
        self.node = dict(enumerate(stmts))
        self.facts = {}
        self.readers, self.binders, self.counted = {}, {}, {}
        self.mentioners, self.assigners = {}, {}
        for key, stmt in enumerate(stmts):
            self._add(key, stmt, append=True)

    def _tables(self, facts):
        reads, bound, stores, mentions, target = facts
        yield self.readers, reads
        yield self.counted, bound
        yield self.binders, stores
        yield self.mentioners, mentions
        yield self.assigners, () if target is None else (target,)

    def _add(self, key, stmt, append=False):
        facts = self.facts[key] = _facts(stmt)
        for table, names in self._tables(facts):
            for name in names:
                keys = table.get(name)
                if keys is None:
                    table[name] = [key]
                elif append:
                    keys.append(key)  # (made in order)
                else:
                    bisect.insort(keys, key)

    def _remove(self, key):
        for table, names in self._tables(self.facts.pop(key)):
            for name in names:
                keys = table[name]
                del keys[bisect.bisect_left(keys, key)]

    def refresh(self, key):
        """The statement of key changed: its facts again. Only the names it gained or lost move
        in the tables (a name most statements read, np, keeps its long list as it is)."""
        old = self.facts[key]
        new = self.facts[key] = _facts(self.node[key])
        for (table, before), (_, after) in zip(self._tables(old), self._tables(new)):
            for name in before:
                if name not in after:
                    keys = table[name]
                    del keys[bisect.bisect_left(keys, key)]
            for name in after:
                if name not in before:
                    if name in table:
                        bisect.insort(table[name], key)
                    else:
                        table[name] = [key]

    def delete(self, i):
        """Delete stmts[i]."""
        key = self.keys.pop(i)
        del self.stmts[i]
        self._remove(key)
        del self.node[key]

    def between(self, table, name, low, high):
        """The keys of table[name] in the open interval (low, high) (None: unbounded)."""
        keys = table.get(name, ())
        start = 0 if low is None else bisect.bisect_right(keys, low)
        end = len(keys) if high is None else bisect.bisect_left(keys, high)
        return keys[start:end]

    def any_between(self, table, name, low, high):
        keys = table.get(name, ())
        start = 0 if low is None else bisect.bisect_right(keys, low)
        return start < len(keys) and (high is None or keys[start] < high)

    def reads(self, key, name):
        return self.facts[key][0].get(name, 0)

    def last_read(self, key, name, seen, total):
        """(reads of name counted, the key of the statement holding the last one) after the
        statement of key, counting until `total` reads are seen (`seen` of them counted
        already); key if none (copies._last_read's scan, over the statements that read)."""
        if seen == total:
            return seen, key
        for k in self.between(self.readers, name, key, None):
            seen += self.facts[k][0][name]
            if seen == total:
                return seen, k
        return seen, None  # (never exactly total: the callers give up)


def _facts(stmt):
    """(reads, bound, stores, mentions, target) of a statement: see _Index."""
    reads, bound, stores, mentions = {}, {}, set(), set()
    name, subscript, load, store, param = (gast.Name, gast.Subscript, gast.Load, gast.Store,
                                           gast.Param)
    for n in walk(stmt):
        kind = type(n)
        if kind is name:
            var = n.id
            mentions.add(var)
            ctx = type(n.ctx)
            if ctx is load:
                reads[var] = reads.get(var, 0) + 1
            elif ctx is store:
                stores.add(var)
                bound[var] = bound.get(var, 0) + 1
            elif ctx is param:
                bound[var] = bound.get(var, 0) + 1
        elif kind is subscript and type(n.ctx) is store and type(n.value) is name:
            var = n.value.id
            stores.add(var)
            bound[var] = bound.get(var, 0) + 1
    target = stmt.targets[0].id if isinstance(stmt, gast.Assign) and isinstance(
        stmt.targets[0], gast.Name) else None
    return reads, bound, stores, mentions, target


def _rename(stmt, old, new, loads_only):
    """Names old in stmt read new (loads_only) or become new (every one)."""
    for n in walk(stmt):
        if type(n) is gast.Name and n.id == old and (not loads_only or type(n.ctx) is gast.Load):
            n.id = new


def _continue_as(index, i, a, b, stores, total):
    """a = b, where a is first bound here and b, not read after a is next bound, is bound no
    more: b goes on as a (later reads and bindings of a are b's), and the copy goes.

        bx = bA                             bmu = -bA.sum(axis=(0,))
        bmu = -bA.sum(axis=(0,))     ->     bA = bA + bmu * 0.015625
        bx = bx + bmu * 0.015625            return bA
        return bx
    (the in-place pass can then add into bA, which it owns, instead of making a new array)."""
    key = index.keys[i]
    if (sum(index.reads(k, a) for k in index.between(index.readers, a, key, None)) != total
            or sum(index.facts[k][1][a] for k in index.between(index.counted, a, key, None))
            != stores - 1 or index.any_between(index.binders, b, key, None)):
        return False  # a is read or bound elsewhere (before, or in another block), or b is bound
    later = index.between(index.binders, a, key, None)
    if later:  # the first statement after the copy that binds a
        first = later[0]
        if index.any_between(index.readers, b, first, None) or (
                index.reads(first, b) and not _reads_before_binding(index.node[first], b, a)):
            return False  # b's value is read after a took another one
    for k in index.between(index.mentioners, a, key, None):
        _rename(index.node[k], a, b, loads_only=False)
        index.refresh(k)
    index.delete(i)
    return True


def _rename_into_copy(index, i, a, b, total):
    """a = b, where b is a temporary bound once earlier in this block, and a a name bound
    several times (an adjoint): b = e becomes a = e and later reads of b read a, if a is
    neither read nor bound between the two and not bound again before the last read of b.

        share_1 = w / D                     bA = w / D
        bA = share_1                ->      bD = -(bA * y).sum(axis=(0,))
        bD = -(share_1 * y).sum(...)        bA = bA + ...
        bA = bA + ...
    (bA then owns a new array: the in-place pass can update it.)"""
    key = index.keys[i]
    earlier = index.between(index.assigners, b, None, key)
    if not earlier:
        return False
    j = earlier[0]  # the first `b = ...` of the block
    if index.any_between(index.mentioners, a, j, key) or a in loaded_names(
            index.node[j].value) or index.any_between(index.readers, b, None, j + 1):
        return False  # (a read of b before its definition: a loop carries it)
    seen = sum(index.reads(k, b) for k in index.between(index.readers, b, None, key + 1))
    seen, last = index.last_read(key, b, seen, total)
    if seen != total or index.any_between(index.binders, a, key, last) or (
            last > key and a in index.facts[last][2] and index.reads(last, b)
            and not _reads_before_binding(index.node[last], b, a)):
        return False
    index.node[j].targets[0].id = a
    index.refresh(j)
    for k in index.between(index.readers, b, j, last + 1):
        _rename(index.node[k], b, a, loads_only=True)
        index.refresh(k)
    index.delete(i)
    return True


def _reads_before_binding(stmt, b, a):
    """In `a = <reads b>` the read happens before a is bound: fine to rename b to a there."""
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(
        stmt.targets[0], gast.Name) and stmt.targets[0].id == a


def _replace_after(index, i, a, b, total):
    """Rewrite a -> b in the statements after stmts[i] if all `total` reads of a are there and
    b is not bound before the last of them; returns whether it did."""
    key = index.keys[i]
    seen, last = index.last_read(key, a, 0, total)
    if seen != total or index.any_between(index.binders, b, key, last + 1):
        return False
    for k in index.between(index.readers, a, key, last + 1):
        _rename(index.node[k], a, b, loads_only=True)
        index.refresh(k)
    return True


def copies(fdef, facts):
    """The pass (see the module docstring)."""
    return propagate_copies(fdef, facts.binds, dict(facts.loads), facts.params)
