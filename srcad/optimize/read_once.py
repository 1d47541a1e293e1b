"""What the passes that fold a matrix into the one expression reading it share (rank_one.py: an
outer product kept outer; diagonal.py: a diagonal matrix as a scaling): the walk of the
function's top-level statements for a name bound once and read once, the statement reading it,
the first subexpression there a rewrite applies to, and the facts they ask of the code (the
number of axes of an expression, the names bound once, stores into names in between).
"""
import gast

from ..analysis.shapes import expression_shape
from ..syntax.naming import walk
from ..syntax.nodes import is_name, numpy_call


def ndim_of(node, shape_of, defs, depth=0):
    """The number of axes of node's value: the probe's, or through a name bound once (defs:
    name -> value) to a transpose (np.swapaxes(Ki, -1, -2), a template's temporary), or None."""
    shape = expression_shape(node, shape_of)
    if shape is not None:
        return len(shape)
    if depth > 8:
        return None
    if isinstance(node, gast.Name) and node.id in defs:
        return ndim_of(defs[node.id], shape_of, defs, depth + 1)
    if isinstance(node, gast.Attribute) and node.attr == "T":
        return ndim_of(node.value, shape_of, defs, depth + 1)
    if numpy_call(node, "swapaxes", "transpose") and node.args:
        return ndim_of(node.args[0], shape_of, defs, depth + 1)
    return None


def once_bound_values(body, binds):
    """name -> value of each name bound once, by a top-level `name = value` of body."""
    return {s.targets[0].id: s.value for s in body if isinstance(s, gast.Assign)
            and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)
            and binds.get(s.targets[0].id) == 1}


def stores_into(stmts, names):
    """Whether the statements bind any of these names or store into them (then the values a
    statement before them read are not those a statement after them would)."""
    for stmt in stmts:
        for n in walk(stmt):
            if isinstance(n, gast.Name) and n.id in names and isinstance(n.ctx, gast.Store):
                return True
            if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) and (
                    isinstance(n.value, gast.Name) and n.value.id in names):
                return True
    return False


def replace_first(node, at):
    """node with the first subexpression (node first, then its fields in order, depth first)
    for which at(subexpression) gives a new node replaced by it; whether one was."""
    new = at(node)
    if new is not None:
        return new, True
    for field, value in gast.iter_fields(node):
        if isinstance(value, gast.AST):
            new, done = replace_first(value, at)
            if done:
                setattr(node, field, new)
                return node, True
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, gast.AST):
                    new, done = replace_first(item, at)
                    if done:
                        value[i] = new
                        return node, True
    return node, False


def fold_read_once(body, binds, loads, reads_of, rewrite):
    """For each top-level `name = value` of body whose name is bound once and read once, where
    reads_of(name, value) gives the names the value reads (else None: not one to fold): the
    first later top-level statement that reads name, if it is an assignment and the statements
    in between neither bind nor store into those names, gets its value rewritten by
    rewrite(name, value, its value) -> (new value, done); where done, the binding goes (its one
    read is gone)."""
    k = 0
    while k < len(body):
        stmt = body[k]
        name = stmt.targets[0].id if isinstance(stmt, gast.Assign) and len(
            stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name) else None
        reads = reads_of(name, stmt.value) if name is not None and binds.get(
            name) == 1 and loads.get(name) == 1 else None
        if reads is None:
            k += 1
            continue
        reader = next((j for j in range(k + 1, len(body)) if any(
            is_name(n, name) for n in walk(body[j]))), None)
        if reader is not None and isinstance(body[reader], gast.Assign) and not stores_into(
                body[k + 1:reader], reads):
            body[reader].value, done = rewrite(name, stmt.value, body[reader].value)
            if done:
                del body[k]
                continue
        k += 1
