"""Calls of the user's own functions: each callee gets derivative functions of its own,
generated once and called from every call site (and from themselves, for recursion).

    y = layer(x, W)   reverse, primal sweep:   y_record = layer_forward(x, W)
                                               y = y_record[0]
                      reverse, adjoint sweep:  t5 = layer_backward(by, y_record[1], x, W)
                                               bx = t5[0]; bW = t5[1]
                      forward:                 y_pair = layer_tangent(dx, dW, x, W)
                                               y = y_pair[0]; dy = y_pair[1]

Reverse mode splits the callee's derivative in two: layer_forward runs the callee's primal once
and returns its value and its tape (the values its adjoint reads, and its stack), and
layer_backward runs the adjoint from that tape. The callee's statements run once per call, as
in the function (random draws, appends, prints), and nesting costs no recomputation. Forward
mode returns the value with the tangent. The derivative of a callee is taken with respect to
the parameters that carry derivatives at the call site (layer_forward_x when only x does); call
sites that agree share one function.
"""
import inspect
import re
import types

from .. import runtime
from ..frontend.parse import parse_function
from .registry import REGISTRY

KIND_SUFFIX = {"adjoint": "adjoint", "tangent": "tangent", "record": "forward",
               "backward": "backward"}
CALLEE_KINDS = tuple(KIND_SUFFIX)  # derivatives of callees, called from generated code


def mode_of_kind(kind):
    """The mode a callee derivative's kind belongs to."""
    return "forward" if kind == "tangent" else "reverse"


def is_user_function(op):
    """A Python function srcad differentiates from its source (no registered template)."""
    return (isinstance(op, types.FunctionType) and not REGISTRY.knows(op)
            and runtime.HELPERS.get(op.__name__) is not op)


def returns_tuple(func):
    """Whether the function returns a tuple display (return a, b) somewhere."""
    import gast
    fdef, _ = parse_function(func)
    return any(isinstance(n, gast.Return) and isinstance(n.value, (gast.Tuple, gast.List))
               for n in gast.walk(fdef))


def positional_params(func):
    """The parameters a callee's derivative can be taken with respect to, in order: positional
    ones, then keyword-only ones (a lifted nested function receives f's values that way)."""
    params = inspect.signature(func).parameters.values()
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD,
                                                   p.KEYWORD_ONLY)]


def bind(func, args, keywords, info, node):
    """Parameter name -> call-site node, as Python binds the call."""
    signature = inspect.signature(func)
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in signature.parameters.values()):
        raise info.error(node, f"srcad differentiates calls of functions with named parameters "
                               f"only; {func.__qualname__} takes *args or **kwargs",
                         hint="give the helper named parameters")
    try:
        bound = signature.bind(*args, **keywords)
    except TypeError as exc:
        raise info.error(node, f"this call does not match {func.__qualname__}: {exc}") from None
    return dict(bound.arguments)


def derivative_name(func, kind, wrt):
    """layer_adjoint (all parameters), layer_adjoint_x (with respect to x alone)."""
    params = positional_params(func)
    base = f"{func.__name__}_{KIND_SUFFIX[kind]}".replace("<lambda>", "lambda")
    if len(wrt) < len(params):
        base += "_" + "_".join(params[i] for i in wrt)
    if not base.isidentifier():  # a __name__ set to anything: it is written into the code
        base = "_" + re.sub(r"[^A-Za-z0-9_]", "_", base)
    while base in runtime.HELPERS:  # a user function named add: not the helper add_adjoint
        base += "_"
    return base


class Dependencies:
    """The derivative functions of callees a generated function calls: name -> (func, kind)."""

    def __init__(self, namer):
        self.namer = namer
        self.entries = {}
        self.names = {}

    def name_for(self, func, kind, wrt):
        """The name of func's derivative of this kind with respect to the parameter positions
        wrt: layer_adjoint for all parameters, layer_adjoint_x for x alone."""
        key = (func, kind, wrt)
        if key not in self.names:
            base = derivative_name(func, kind, wrt)
            name = base if base not in self.namer.taken else self.namer.fresh(base)
            self.namer.reserve(name)
            self.names[key] = name
            self.entries[name] = key
        return self.names[key]
