"""Definitions and uses: the counting facts the optimizer's passes share, computed in one place.

Every pass that rewrites generated code asks the same questions about it: how often is a name
bound (assigned, a loop target, a parameter, stored into), how often read, which names are the
function's parameters, which are bound once at the top level (so they hold one value from
their definition on and a pass may read them as that value). optimize/manager.py's Facts
computes each answer once per version of the code from these functions.

    def f_grad(x, bout):          parameters(f)   ->  ["x", "bout"]
        t1 = x * x                bound_once_at_top(f, bound_counts(f))
        bt1 = bout                    ->  {"t1": <t1 = x * x>, "bt1": <bt1 = bout>}
        bx = 2.0 * bt1 * x        (bx is bound twice: not there)
        bx = bx + bt1
        return bx
"""
import gast

from ..syntax.naming import stored_roots, walk
from ..syntax.nodes import flatten


def parameters(fdef):
    """The names of a function's parameters, positional then keyword-only."""
    args = fdef.args
    return [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]


def top_assignments(fdef):
    """The statements `name = value` (one target, a name) of fdef's top-level block, in order."""
    return [stmt for stmt in fdef.body if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name)]


def bound_once_at_top(fdef, counts):
    """name -> its top-level `name = value` statement, for the names bound nowhere else
    (counts: syntax.naming.bound_counts(fdef)), in the order of the body."""
    return {stmt.targets[0].id: stmt for stmt in top_assignments(fdef)
            if counts.get(stmt.targets[0].id) == 1}


def bound_once(fdef, counts):
    """name -> its `name = value` statement at any depth (a loop's or a branch's too), for the
    names bound nowhere else (counts: syntax.naming.bound_counts(fdef)): every value such a
    name holds is made by that statement."""
    return {stmt.targets[0].id: stmt for stmt in flatten(fdef.body)
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name) and counts.get(stmt.targets[0].id) == 1}


def reads_and_writes(fdef):
    """(name -> reads, name -> writes) counted on the Name nodes: an augmented assignment's
    target counts as read and written; a parameter and a deletion count as written, a store
    into an array (y[i] = v) as a read of y (bound_counts counts it as a binding)."""
    loads, stores = {}, {}
    for n in walk(fdef):
        if isinstance(n, gast.Name):
            table = loads if isinstance(n.ctx, gast.Load) else stores
            table[n.id] = table.get(n.id, 0) + 1
        elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
            loads[n.target.id] = loads.get(n.target.id, 0) + 1
    return loads, stores


def mutated_names(fdef, shares=None, stored=None):
    """The names whose arrays change after they are made: every name the code stores into
    (y[i] = v, y[i] += v) and every name that may share storage with one of those (shares:
    name -> the names that may share its array, mutation.py's summary). A rewrite must not
    make one name another's array where either is among them. stored: the names stored into,
    when they are known (the optimizer's census counts them)."""
    if stored is None:
        stored = {n.id for n in stored_roots(fdef)}
    return stored | {name for name, others in (shares or {}).items() if others & stored}



def feeding_values(fdef, derived):
    """The derived names (adjoints, a template's temporaries) whose values reach a statement of
    the function's own values: one that binds no derived name, read there or through other
    derived names read there. The optimizer merges equal expressions across the two (out =
    bw1 * w1 after bw1 = t1.sum(), the adjoint of w1, took the primal's t1.sum()), so a
    derived name is not always a derivative's alone: where the code returns f's values, a
    rewrite that changes a sum's rounding must leave these as written."""
    binders = {}  # derived name -> the names its statements read
    wanted = set()
    for stmt in walk(fdef):
        if isinstance(stmt, (gast.Assign, gast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
            bound = {n.id for t in targets for n in walk(t) if isinstance(n, gast.Name)}
            read = {n.id for n in walk(stmt.value) if isinstance(n, gast.Name)}
            if bound & derived:
                for name in bound & derived:
                    binders.setdefault(name, set()).update(read)
            else:
                wanted |= read & derived
    todo = list(wanted)
    while todo:
        for name in binders.get(todo.pop(), ()):
            if name in derived and name not in wanted:
                wanted.add(name)
                todo.append(name)
    return wanted
