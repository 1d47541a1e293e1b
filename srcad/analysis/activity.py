"""activity: which variables carry derivatives.

A variable is *active* when it depends on a differentiated input (varied) and the output depends
on it (useful). Only active variables get tangents or adjoints; everything else (shapes, indices,
masks, constants, values computed for the output alone) is plain primal code.

    def f(x, w, n):             varied: x, t1, y      (w and n are not differentiated)
        t1 = x * w              useful: y, t1, x, w
        m = t1 > 0              active: x, t1, y      (m: a mask, not differentiable)
        y = np.sum(t1 * m)
"""
import gast

from ..rules.registry import REGISTRY
from ..syntax.nodes import assigned_name, flatten, list_op, SHAPE_ATTRIBUTES


def operand_names(value, scope):
    """Names whose values flow differentiably into `value` (not index, mask or shape parts)."""
    if isinstance(value, gast.Name):
        return {value.id}
    if isinstance(value, gast.Subscript):
        return operand_names(value.value, scope)
    if isinstance(value, gast.Attribute):  # x.shape, x.dtype: constants; obj.W: a value
        return set() if value.attr in SHAPE_ATTRIBUTES else operand_names(value.value, scope)
    if isinstance(value, (gast.Compare, gast.BoolOp, gast.Constant)):
        return set()
    if isinstance(value, gast.Call):
        op = scope.lookup(value.func)
        if op is not None and REGISTRY.is_nondifferentiable(op):
            return set()
        names = set()
        if op is None:  # x.method(...) reads x; model(x): what it computes depends on model;
            names |= operand_names(value.func, scope)  # partial(g, w)(x), fs[i](x): on w, fs
        for arg in list(value.args) + [kw.value for kw in value.keywords]:
            names |= operand_names(arg, scope)
        return names
    names = set()
    for child in gast.iter_child_nodes(value):
        names |= operand_names(child, scope)
    return names


def returned_names(stmt):
    """The names a return statement returns, inside nested tuple displays too (a callee's
    forward half returns (value, (t1, stack))."""
    def names(node):
        if isinstance(node, (gast.Tuple, gast.List)):
            return set().union(*(names(e) for e in node.elts)) if node.elts else set()
        return {node.id} if isinstance(node, gast.Name) else set()
    return names(stmt.value)


class Activity:
    def __init__(self, varied, useful):
        self.varied = varied
        self.useful = useful

    def __call__(self, var):
        return var in self.varied and var in self.useful


def flow(stmt, scope):
    """(name updated, names flowing into it) for an assignment or list op, else None."""
    if list_op(stmt):
        holder = stmt.value.func.value.id
        if stmt.value.func.attr == "append":
            item = stmt.value.args[0]
            items = item.elts if isinstance(item, (gast.Tuple, gast.List)) else [item]
            return holder, {i.id for i in items if isinstance(i, gast.Name)}
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
            return stmt.targets[0].id, {holder}
        return None
    var = assigned_name(stmt)
    if var is None:
        return None
    return var, operand_names(stmt.value, scope)


def analyze(body, wrt_names, scope, stores_useful=False):
    """Activity of an ANF body. Flow-insensitive per name, iterated to a fixed point so values
    carried around loops are found: a name is varied if any assignment to it reads a varied name,
    useful if any read of it feeds a useful name or the return value.

    stores_useful: an array stored into (y[i] = v) is useful even if no later read of y is.
    Names are all this analysis sees, not memory: in forward mode over a generated gradient,
    the adjoint sweep's restore `y[1:] = stack.pop()` puts back a view t = y[1:] that the
    adjoint reads (the fence refuses such writes in users' code, the reverse sweep relies on
    them), so the restore's tangent must be written for the view's tangent to be right."""
    flows = [f for f in (flow(s, scope) for s in flatten(body)) if f is not None]
    # the fixed points by worklists (sweeping every flow until nothing changes took one sweep
    # per step of a chain of values: quadratic in the length of the function)
    readers, writers = {}, {}  # name -> the flows reading it, the flows assigning it
    for f in flows:
        writers.setdefault(f[0], []).append(f)
        for source in f[1]:
            readers.setdefault(source, []).append(f)
    varied = set(wrt_names)
    work = list(varied)
    while work:
        for target, _ in readers.get(work.pop(), ()):
            if target not in varied:
                varied.add(target)
                work.append(target)
    useful = set()
    for stmt in flatten(body):
        if isinstance(stmt, gast.Return):
            useful |= returned_names(stmt)
        elif stores_useful and isinstance(stmt, gast.Assign) and isinstance(
                stmt.targets[0], gast.Subscript):
            useful.add(assigned_name(stmt))
    work = list(useful)
    while work:
        for _, sources in writers.get(work.pop(), ()):
            for source in sources - useful:
                useful.add(source)
                work.append(source)
    return Activity(varied, useful)
