"""The tape of reverse mode: which values the primal sweep saves and the adjoint sweep restores.

The primal sweep writes a placeholder pair around every overwrite (Save before, Restore in the
adjoint sweep after the statement's adjoint); resolve_saves keeps a pair only where the adjoint
reads the overwritten value afterwards, and writes the kept ones as stack pushes and pops:

    for i in range(n):                      for i in range(n):
        Save(h)                                 stack.append(h)
        h = np.tanh(W @ h)        ->            h = np.tanh(W @ h)
    ...                                     ...
        # adjoint of h = ...                    # grad of: h = np.tanh(W @ h)
        Restore(h)                              h = stack.pop()

Also the binding facts the sweeps rest on: names surely bound after a block, names overwritten,
names a loop binds for itself, the statement where a loop's last turn stops (closing_break).
"""
import gast

from ..syntax.naming import clone, loaded_names, walk
from ..syntax.nodes import assign, assigned_name, call, flatten, name


class Save(gast.Expr):
    """Placeholder: before an overwrite, push the old value (kept only if the adjoint reads it)."""

    def __init__(self, var, pair, slice_=False, always=False):
        super().__init__(value=gast.Constant(value=None, kind=None))
        self.var = var
        self.pair = pair  # the Restore with the same pair undoes this save
        self.slice_ = slice_
        self.always = always


class Restore(gast.Expr):
    """Placeholder: after the adjoint of an overwrite, pop the old value back."""

    def __init__(self, var, pair, slice_=False, always=False, recompute=None):
        super().__init__(value=gast.Constant(value=None, kind=None))
        self.var = var
        self.pair = pair
        self.slice_ = slice_
        self.always = always
        self.recompute = recompute  # a statement that makes the value again (no stack entry)


class Rerun(gast.For):
    """Turns of a checkpointed loop run again in the adjoint sweep (checkpoints.py): what comes
    after them reads of theirs only what a turn reads before binding it (exposed_reads)."""


def _placeholders(stmts):
    for stmt in flatten(stmts):
        if isinstance(stmt, (Save, Restore)):
            yield stmt


# runtime helpers and numpy functions that read an argument's shape (or dtype) only: a store
# into an array (y[i] = v) never changes them, so such reads need no saved copy of the
# overwritten part
SHAPE_ONLY = {"unbroadcast": 1, "unreduce": 1, "unindex": 1, "unconcatenate": 1,
              "zeros_like": 0, "tuple_adjoint": 1, "stored_share": 1}


def _names_read(node, values_only):
    """The names node reads; values_only: not counting the argument a shape-only function reads
    only the shape of (SHAPE_ONLY: unbroadcast(g, x), zeros_like(x))."""
    if not values_only:
        return loaded_names(node)
    names = set()
    todo = [node]
    pop, push, ast_node = todo.pop, todo.append, gast.AST
    while todo:
        node = pop()
        kind = type(node)
        if kind is gast.Name:
            if type(node.ctx) is gast.Load:
                names.add(node.id)
            continue
        if kind is gast.Call:
            func = node.func
            skip = SHAPE_ONLY.get(func.attr if type(func) is gast.Attribute else getattr(
                func, "id", None))
            for i, arg in enumerate(node.args):
                if not (i == skip and type(arg) is gast.Name):
                    push(arg)
            for keyword in node.keywords:
                push(keyword.value)
            push(func)
            continue
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast_node):
                        push(item)
            elif isinstance(value, ast_node):
                push(value)
    return names


def _key(holder):
    return holder.var.value.id if holder.slice_ else holder.var


def _reads(stmts, values_only=False):
    """Names the statements read (values_only: not counting reads of a shape alone)."""
    names = set()
    for stmt in stmts:
        if isinstance(stmt, (Save, Restore)):
            continue
        if isinstance(stmt, Rerun):
            names |= exposed_reads(stmt.body, {stmt.target.id}, values_only) | _names_read(
                stmt.iter, values_only)
        elif isinstance(stmt, (gast.If, gast.For, gast.While)):
            names |= _names_read(stmt.iter if isinstance(stmt, gast.For) else stmt.test,
                                 values_only)
            names |= _reads(stmt.body, values_only) | _reads(stmt.orelse, values_only)
        else:
            names |= _names_read(stmt, values_only)
    return names


def resolve_saves(sweep, adjoint, stack, shares=None):
    """Turn placeholder pairs into stack pushes and pops where the adjoint sweep reads the value
    after the restore point (anywhere in an enclosing loop counts), and drop the others.
    A store into an array is undone where the adjoint reads the array's values, itself or
    through a name that may share its memory (shares: name -> such names, mutation.py; t1 =
    y[1:] is a view whose values the store changes). Returns the statements and the set of
    names saved one by one."""
    shares = shares or {}
    kept = {}
    restores = [h for h in _placeholders(adjoint) if isinstance(h, Restore)]
    changed = bool(restores)  # (none: nothing is read after a restore, and no save is kept)
    while changed:  # a kept slice restore reads its index names, a kept restore keeps its if
        changed = False
        after = {}
        _scan(adjoint, set(), set(), after, kept)
        for holder in restores:
            reads, value_reads = after[id(holder)]
            names = holder.var if isinstance(holder.var, tuple) else (_key(holder),)
            want = {v for v in names if holder.always or v in (
                value_reads if holder.slice_ else reads) or (
                holder.slice_ and shares.get(v, set()) & value_reads)}
            if want - kept.get(holder.pair, set()):
                kept.setdefault(holder.pair, set()).update(want)
                changed = True
    saved = set()
    pushes = []

    def rewrite(stmts):
        out = []
        for stmt in stmts:
            if isinstance(stmt, (Save, Restore)):
                names = kept.get(stmt.pair)
                if not names:
                    continue
                if getattr(stmt, "recompute", None) is not None:
                    out.append(clone(stmt.recompute))
                    continue
                pushes.append(stmt)
                if isinstance(stmt.var, tuple):
                    out.append(_batch(stmt, tuple(v for v in stmt.var if v in names), stack))
                    continue
                if isinstance(stmt, Save) and not stmt.slice_:
                    saved.add(stmt.var)
                out.append(_save(stmt, stack) if isinstance(stmt, Save) else _restore(stmt, stack))
                continue
            if isinstance(stmt, Rerun):  # (a plain loop from here on)
                stmt = gast.For(target=stmt.target, iter=stmt.iter, body=stmt.body, orelse=[],
                                type_comment=None)
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                stmt.body = rewrite(stmt.body)
                stmt.orelse = rewrite(stmt.orelse)
                if isinstance(stmt, gast.If) and not stmt.body and not stmt.orelse:
                    continue
                stmt.body = stmt.body or [gast.Pass()]
            out.append(stmt)
        return out

    return rewrite(sweep), saved, bool(pushes)


def _is_kept(holder, kept):
    return bool(kept.get(holder.pair))


def _index_names(holder):
    return {n.id for n in walk(holder.var.slice) if isinstance(n, gast.Name)}


def _slice_restore_reads(holder):
    """(reads, value reads) of a kept slice restore, y[i] = stack.pop(): the values of its
    index names, and the binding of y: it writes into the array y names, which must be the one
    the store wrote into (a later y = ... in the primal sweep is undone before it, else the
    restore writes into the new array and the old one, which another name may still hold,
    keeps the stored value)."""
    index = _index_names(holder)
    return index | {_key(holder)}, index


def _block_reads(stmts, kept):
    """(reads, value reads) of a block, kept placeholders' index reads included."""
    reads, values = set(), set()
    for stmt in flatten(stmts):
        if isinstance(stmt, Restore) and stmt.slice_ and _is_kept(stmt, kept):
            binding, index = _slice_restore_reads(stmt)
            reads |= binding
            values |= index
    live = [s for s in stmts if not (isinstance(s, gast.If) and _dead_if(s, kept))]
    return reads | _reads(live), values | _reads(live, values_only=True)


def _dead_if(stmt, kept):
    """An if that holds nothing but dropped placeholders (it will be removed)."""
    return all(isinstance(s, (Save, Restore)) and not _is_kept(s, kept)
               for s in flatten(stmt.body + stmt.orelse) if not isinstance(s, (gast.If, gast.Pass)))


def _scan(stmts, later, later_values, after, kept):
    """Backwards over a block: note, for each restore, the names read after it."""
    for stmt in reversed(stmts):
        if isinstance(stmt, Restore):
            after[id(stmt)] = (set(later), set(later_values))
            if stmt.slice_ and _is_kept(stmt, kept):
                binding, index = _slice_restore_reads(stmt)
                later |= binding
                later_values |= index
        elif isinstance(stmt, Save):
            continue
        elif isinstance(stmt, gast.If):
            dead = _dead_if(stmt, kept)
            for branch in (stmt.body, stmt.orelse):
                _scan(branch, set(later), set(later_values), after, kept)
            if not dead:
                reads, values = _block_reads(stmt.body + stmt.orelse, kept)
                test = _names_read(stmt.test, False)
                later |= reads | test
                later_values |= values | test
        elif isinstance(stmt, Rerun):  # (no restores inside: the turns' saves only)
            later |= _reads([stmt])
            later_values |= _reads([stmt], values_only=True)
        elif isinstance(stmt, (gast.For, gast.While)):
            reads, values = _block_reads(stmt.body, kept)
            header = _names_read(stmt.iter if isinstance(stmt, gast.For) else stmt.test, False)
            _scan(stmt.body, later | reads | header, later_values | values | header, after, kept)
            later |= reads | header
            later_values |= values | header
        else:
            later |= _names_read(stmt, False)
            later_values |= _names_read(stmt, True)


def _save(holder, stack):
    if holder.slice_:
        value = call(["np", "copy"], clone(holder.var))
        value.args[0].ctx = gast.Load()
    else:
        value = name(holder.var)
    push = gast.Call(func=gast.Attribute(value=name(stack), attr="append", ctx=gast.Load()),
                     args=[value], keywords=[])
    return gast.Expr(value=push)


def _batch(holder, names, stack):
    """stack.append((t2, t3)) / t2, t3 = stack.pop(): one entry per loop iteration."""
    if isinstance(holder, Save):
        value = name(names[0]) if len(names) == 1 else gast.Tuple(
            elts=[name(n) for n in names], ctx=gast.Load())
        return gast.Expr(value=gast.Call(func=gast.Attribute(value=name(stack), attr="append",
                                                             ctx=gast.Load()),
                                         args=[value], keywords=[]))
    target = name(names[0], gast.Store()) if len(names) == 1 else gast.Tuple(
        elts=[name(n, gast.Store()) for n in names], ctx=gast.Store())
    pop = gast.Call(func=gast.Attribute(value=name(stack), attr="pop", ctx=gast.Load()),
                    args=[], keywords=[])
    return gast.Assign(targets=[target], value=pop, type_comment=None)


def _restore(holder, stack):
    pop = gast.Call(func=gast.Attribute(value=name(stack), attr="pop", ctx=gast.Load()),
                    args=[], keywords=[])
    if holder.slice_:
        target = clone(holder.var)
        target.ctx = gast.Store()
        return gast.Assign(targets=[target], value=pop, type_comment=None)
    return assign(holder.var, pop)


def closing_break(body):
    """The position of a loop body's closing `if flag: break` (control.py leaves at most one
    break, at the end of the body; a while loop's condition is computed again after it, anf.py),
    or the body's length. Values saved once per turn are saved before it: on the last turn the
    statements after it do not run."""
    for i, stmt in enumerate(body):
        if isinstance(stmt, gast.If) and any(isinstance(s, gast.Break) for s in stmt.body):
            return i
    return len(body)


def overwritten_names(body, params):
    """Names whose earlier values a later assignment may overwrite: assigned inside a loop,
    assigned by two statements (a loop's counter counts: `i = 0` after `for i in ...`
    overwrites its last value), or parameters assigned again."""
    counts = {}
    in_loops = set()

    def walk(stmts, in_loop):
        for stmt in stmts:
            var = assigned_name(stmt)
            if isinstance(stmt, gast.For) and isinstance(stmt.target, gast.Name):
                var = stmt.target.id
            elif var is not None and isinstance(stmt.targets[0], gast.Subscript):
                var = None
            if var is not None:
                counts[var] = counts.get(var, 0) + 1
                if in_loop:
                    in_loops.add(var)
            if isinstance(stmt, gast.If):
                walk(stmt.body, in_loop)
                walk(stmt.orelse, in_loop)
            elif isinstance(stmt, (gast.For, gast.While)):
                walk(stmt.body, True)

    walk(body, False)
    return in_loops | {v for v, n in counts.items() if n > 1} | (set(counts) & set(params))


def surely_bound(stmts):
    """The names a block binds on every path through it (both arms of an if; a loop may not
    run at all)."""
    out = set()
    for stmt in stmts:
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
            out.add(stmt.targets[0].id)
        elif isinstance(stmt, gast.If):
            out |= surely_bound(stmt.body) & surely_bound(stmt.orelse)
    return out


class BoundBefore:
    """The names surely bound before the statement at position k of a block: `var in` it is
    whether var is bound before the block (outer) or surely bound by a statement of the block
    before k (first: name -> the position of the first such statement)."""

    def __init__(self, first, k, outer):
        self.first, self.k, self.outer = first, k, outer

    def __contains__(self, var):
        return self.first.get(var, self.k) < self.k or var in self.outer


def bound_before_blocks(stmts, outer):
    """id(if or loop of stmts) -> the names surely bound when it starts (BoundBefore): those
    in outer (bound before stmts run) and those the statements before it bind on every path.
    One dict of first positions for the block (a set per statement was quadratic)."""
    first, out = {}, {}
    for k, stmt in enumerate(stmts):
        if isinstance(stmt, (gast.If, gast.For, gast.While)):
            out[id(stmt)] = BoundBefore(first, k, outer)
        for var in surely_bound([stmt]):
            first.setdefault(var, k)
    return out


def safe_names(body, params):
    """Names surely bound wherever the adjoint sweep may need a zero shaped like them:
    parameters and names assigned at the top level before the first block."""
    safe = set(params)
    for stmt in body:
        if isinstance(stmt, (gast.If, gast.For, gast.While)):
            break
        var = assigned_name(stmt)
        if var is not None:
            safe.add(var)
    return safe


def local_names(body):
    """Names a loop body writes before it reads them on every path through a turn: each
    iteration's own values. (A name written in one arm of an if and read in the other, or
    written only in an inner loop, carries a value from the turn before.)"""
    assigned = {assigned_name(s) for s in flatten(body) if isinstance(s, gast.Assign)
                and isinstance(s.targets[0], gast.Name)}
    return assigned - exposed_reads(body, set())


def exposed_reads(stmts, written, values_only=False):
    """Names the statements may read before binding them (given `written`, names bound
    before): a loop's turn reads those from the turn before, or from before the loop. A name
    bound in one arm of an if, or in a loop (which may not run), is not surely bound after."""
    exposed = set()
    written = set(written)
    for stmt in stmts:
        if isinstance(stmt, (Save, Restore)):
            continue
        if isinstance(stmt, gast.If):
            exposed |= _names_read(stmt.test, values_only) - written
            arms = []
            for arm in (stmt.body, stmt.orelse):
                exposed |= exposed_reads(arm, written, values_only)
                arms.append(written | surely_bound(arm))
            written = arms[0] & arms[1]
        elif isinstance(stmt, (gast.For, gast.While)):
            head = stmt.iter if isinstance(stmt, gast.For) else stmt.test
            exposed |= _names_read(head, values_only) - written
            inner = written | ({stmt.target.id} if isinstance(stmt, gast.For) else set())
            exposed |= exposed_reads(stmt.body, inner, values_only)
        else:
            exposed |= _names_read(stmt, values_only) - written
            if isinstance(stmt, gast.Assign):
                written |= {n.id for n in walk(stmt.targets[0]) if isinstance(n, gast.Name)
                            and isinstance(n.ctx, gast.Store)}
    return exposed
