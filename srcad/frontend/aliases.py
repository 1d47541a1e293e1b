"""aliases: a local name bound once, by a top-level statement of f, to a function named by a
free name or an attribute chain of one (act = np.tanh, rhs = model.rhs, g = helper) denotes
that function in every statement after it; its calls there are written as calls of the chain:

    act = np.tanh                     act = np.tanh
    h = act(W @ x)          ->        h = np.tanh(W @ x)

so that srcad knows what it differentiates (resolve then reads np.tanh as it reads any call;
before, `act(...)` was refused: srcad could not tell which function act is). Only calls are
rewritten; the binding stays (act may be read as a value too). Not rewritten: a name bound
anywhere else in f too (a loop target, an argument, a second assignment, a nested function's
own variable), a chain whose first name f binds, and calls before the binding.
"""
import gast

from ..syntax.naming import bound_counts, clone, walk
from ..syntax.nodes import dotted_parts


def write_aliases(fdef):
    """fdef with the calls through function aliases written as calls of what they name (in
    place; see the module docstring)."""
    binds = bound_counts(fdef)
    for index, stmt in enumerate(fdef.body):
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Name)):
            continue
        alias, parts = stmt.targets[0].id, dotted_parts(stmt.value)
        if binds.get(alias) != 1 or not parts or parts[0] in binds:
            continue
        for later in fdef.body[index + 1:]:
            for node in walk(later):
                if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and (
                        node.func.id == alias):
                    node.func = gast.copy_location(clone(stmt.value), node.func)
    return fdef
