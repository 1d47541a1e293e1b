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

from ..syntax.naming import walk


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
