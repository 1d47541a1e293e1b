"""Pass 6, activity: which variables carry derivatives.

A variable is *active* when it depends on a differentiated input (varied) and the output depends
on it (useful). Only active variables get tangents or adjoints; everything else (shapes, indices,
masks, constants, values computed for the output alone) is plain primal code.

    def f(x, w, n):             varied: x, t1, y      (w and n are not differentiated)
        t1 = x * w              useful: y, t1, x, w
        m = t1 > 0              active: x, t1, y      (m: a mask, not differentiable)
        y = np.sum(t1 * m)
"""
import gast

from .registry import REGISTRY


def operand_names(value, scope):
    """Names whose values flow differentiably into `value` (not index, mask or shape parts)."""
    if isinstance(value, gast.Name):
        return {value.id}
    if isinstance(value, gast.Subscript):
        return operand_names(value.value, scope)
    if isinstance(value, gast.Attribute):
        return set()  # x.shape, x.ndim, x.dtype; x.T is np.transpose after desugar
    if isinstance(value, (gast.Compare, gast.BoolOp, gast.Constant)):
        return set()
    if isinstance(value, gast.Call):
        op = scope.lookup(value.func)
        if op is not None and REGISTRY.is_nondifferentiable(op):
            return set()
        names = set()
        for arg in list(value.args) + [kw.value for kw in value.keywords]:
            names |= operand_names(arg, scope)
        return names
    names = set()
    for child in gast.iter_child_nodes(value):
        names |= operand_names(child, scope)
    return names


def returned_names(stmt):
    value = stmt.value
    elts = value.elts if isinstance(value, (gast.Tuple, gast.List)) else [value]
    return {e.id for e in elts if isinstance(e, gast.Name)}


class Activity:
    def __init__(self, varied, useful):
        self.varied = varied
        self.useful = useful

    def __call__(self, var):
        return var in self.varied and var in self.useful


def analyze(body, wrt_names, scope):
    """Activity of a straight-line ANF body (assignments, expression statements, a return)."""
    varied = set(wrt_names)
    for stmt in body:
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
            if operand_names(stmt.value, scope) & varied:
                varied.add(stmt.targets[0].id)
    useful = set()
    for stmt in reversed(body):
        if isinstance(stmt, gast.Return):
            useful |= returned_names(stmt)
        elif isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
            if stmt.targets[0].id in useful:
                useful |= operand_names(stmt.value, scope)
    return Activity(varied, useful)
