"""What operation an ANF right-hand side performs, as (op object, operands, keywords).

Shared by the forward and reverse passes so both see the same operation for the same syntax:

    a + b          -> (operator.add, [a, b], {})
    -a             -> (operator.neg, [a], {})
    np.sum(x, 0)   -> (numpy.sum, [x, 0], {})
    x[1:, i]       -> (operator.getitem, [x, Index(1:, i)], {})
    (a, b)         -> (pack, [a, b], {})
    b              -> (copy, [b], {})
"""
import builtins
import inspect
import operator

import gast

from .calls import is_user_function, with_function_arguments
from .registry import REGISTRY
from ..syntax.nodes import dotted_parts, SHAPE_ATTRIBUTES

BINOPS = {
    gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
    gast.Div: operator.truediv, gast.Pow: operator.pow, gast.MatMult: operator.matmul,
    gast.FloorDiv: operator.floordiv, gast.Mod: operator.mod,
}
UNARYOPS = {gast.USub: operator.neg, gast.UAdd: operator.pos, gast.Not: operator.not_,
            gast.Invert: operator.invert}


def pack(*items):
    """The operation of a tuple display (a, b): templates/operators.py differentiates it."""
    return items


def copy(value):
    """The operation of a plain assignment y = x."""
    return value


class Index:
    """An index expression (x[1:3, ::2]) as a template operand: spelled as a subscript where the
    template subscripts with it, as a value (slice(1, 3, None), ...) anywhere else."""

    def __init__(self, node):
        self.node = node


def index_value(node):
    """The index expression `node` (the slice of a Subscript) as an ordinary expression."""
    if isinstance(node, gast.Slice):
        parts = [node.lower, node.upper, node.step]
        return gast.Call(func=gast.Name(id="slice", ctx=gast.Load(), annotation=None,
                                        type_comment=None),
                         args=[p if p is not None else gast.Constant(value=None, kind=None)
                               for p in parts], keywords=[])
    if isinstance(node, gast.Tuple):
        return gast.Tuple(elts=[index_value(e) for e in node.elts], ctx=gast.Load())
    return node


def _differentiable(op):
    return None if op is None or REGISTRY.is_nondifferentiable(op) else op


class UnknownCall(Exception):
    pass


def unknown_call(info, node, scope):
    """The SrcadError for a call whose function srcad cannot tell at build time."""
    parts = dotted_parts(node.func)
    func = node.func
    spelled = ".".join(parts) if parts else (
        f"the method {func.attr}" if isinstance(func, gast.Attribute) else "this function")
    if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Call) and isinstance(
            func.value.func, gast.Name) and func.value.func.id == "super":
        return info.error(node, f"srcad does not follow super(): it cannot tell which class's "
                                f"{func.attr} this calls",
                          hint=f"call the base class's method by name: Base.{func.attr}(self, "
                               f"...)")
    if parts and len(parts) == 1 and parts[0] in inspect.signature(scope.func).parameters:
        return info.error(node, f"srcad cannot tell which function {spelled} is: it is an "
                                f"argument of the function srcad differentiates",
                          hint=f"differentiate a function that calls "
                               f"{scope.func.__name__} with the function by name, e.g. "
                               f"{scope.func.__name__}({spelled}=my_model, ...): a call that "
                               f"passes a known function is specialized to it")
    return info.error(node, f"srcad cannot tell which function {spelled} is, so it cannot "
                            f"differentiate the call",
                      hint="call numpy/math functions, or functions defined (or imported) before "
                           "the derivative is built, by name; a method of a value is not known "
                           "until run time")


def template_mismatch(info, node, op, exc):
    """The SrcadError for a call its op's template cannot bind (exc: bind's TypeError)."""
    if op in (builtins.max, builtins.min) and len(node.args) == 1:
        which = op.__name__
        return info.error(node, f"srcad differentiates {which}() of values (a, b, ...), not "
                                f"{which}() over the items of one iterable",
                          hint=f"write np.{which}(x) for an array, or list the values: "
                               f"{which}(a, b, c)")
    return info.error(node, f"srcad cannot match this call to its template ({exc})",
                      hint="check the arguments of the call")


def operation(value, scope):
    """(op, args, keywords) for an ANF right-hand side; op None for non-differentiable syntax."""
    if isinstance(value, (gast.Name, gast.Constant)) or (
            isinstance(value, gast.Attribute) and scope.lookup(value) is not None):
        return copy, [value], {}
    if isinstance(value, gast.BinOp):
        return _differentiable(BINOPS.get(type(value.op))), [value.left, value.right], {}
    if isinstance(value, gast.UnaryOp):
        return _differentiable(UNARYOPS.get(type(value.op))), [value.operand], {}
    if isinstance(value, gast.Subscript):
        return operator.getitem, [value.value, Index(value.slice)], {}
    if isinstance(value, (gast.Tuple, gast.List)):
        return pack, list(value.elts), {}
    if isinstance(value, gast.Attribute):  # obj.W on a local object (x.shape is a constant)
        if value.attr in SHAPE_ATTRIBUTES:
            return None, [], {}
        return getattr, [value.value, gast.Constant(value=value.attr, kind=None)], {}
    if isinstance(value, gast.Call):
        op = scope.lookup(value.func)
        if op is None:
            raise UnknownCall(value)
        if REGISTRY.is_nondifferentiable(op):
            return None, [], {}
        args, keywords = list(value.args), {kw.arg: kw.value for kw in value.keywords}
        if is_user_function(op):  # (functions it is passed: known here, bound in its build)
            op = with_function_arguments(op, args, keywords, scope.lookup)
        return op, args, keywords
    return None, [], {}
