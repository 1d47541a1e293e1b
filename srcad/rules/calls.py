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

import gast
import numpy as np

from .. import runtime
from ..errors import SrcadError
from ..frontend.functions import function_copy
from ..frontend.parse import parse_function
from ..syntax.naming import walk_breadth
from .registry import REGISTRY

KIND_SUFFIX = {"adjoint": "adjoint", "tangent": "tangent", "record": "forward",
               "backward": "backward"}
CALLEE_KINDS = tuple(KIND_SUFFIX)  # derivatives of callees, called from generated code


def mode_of_kind(kind):
    """The mode a callee derivative's kind belongs to."""
    return "forward" if kind == "tangent" else "reverse"


# packages whose functions srcad does not read as source (their code is not written for it: it
# has templates for what it differentiates of them, and refuses the rest at the user's call)
LIBRARIES = {"numpy", "scipy", "sklearn", "pandas", "matplotlib", "jax", "torch", "tensorflow",
             "autograd", "numba", "dask", "cupy", "statsmodels", "networkx", "sympy"}


def is_user_function(op, mode=None):
    """A Python function srcad differentiates from its source (no registered template, not a
    library's: scipy.integrate.odeint is Python too, but not the user's). In `mode`, so is a
    runtime helper of srcad's that has no template for that mode: generated code differentiated
    again (srcad.grad(srcad.grad(f))) differentiates the helpers it calls from their source,
    as Tangent does, unless a template says better."""
    if not isinstance(op, types.FunctionType):
        return False
    if runtime.HELPERS.get(op.__name__) is op:
        if mode is None or REGISTRY.is_nondifferentiable(op):
            return False
        return (REGISTRY.adjoint_of(op) if mode == "reverse" else REGISTRY.tangent_of(op)) is None
    return (not REGISTRY.knows(op)
            and (getattr(op, "__module__", None) or "").split(".")[0] not in LIBRARIES)


def returns_tuple(func):
    """Whether the function returns a tuple display (return a, b) somewhere."""
    fdef, _ = parse_function(func)
    return any(isinstance(n, gast.Return) and isinstance(n.value, (gast.Tuple, gast.List))
               for n in walk_breadth(fdef))


def positional_params(func):
    """The parameters a callee's derivative can be taken with respect to, in order: positional
    ones, *args (the callee's derivative takes it as one tuple: pipeline.build), then
    keyword-only ones (a lifted nested function receives f's values that way)."""
    params = inspect.signature(func).parameters.values()
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD,
                                                   p.VAR_POSITIONAL, p.KEYWORD_ONLY)]


def bind(func, args, keywords, info, node):
    """Parameter name -> call-site node, as Python binds the call (the arguments *args takes
    as one tuple display)."""
    signature = inspect.signature(func)
    if any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values()):
        raise info.error(node, f"srcad differentiates calls of functions without **kwargs "
                               f"only; {func.__qualname__} takes **kwargs",
                         hint="give the helper named parameters, or pass a dict")
    try:
        bound = signature.bind(*args, **keywords)
    except TypeError as exc:
        raise info.error(node, f"this call does not match {func.__qualname__}: {exc}") from None
    out = dict(bound.arguments)
    for p in signature.parameters.values():
        if p.kind != p.VAR_POSITIONAL:
            continue
        items = list(out.get(p.name, ()))
        if len(items) == 1 and isinstance(items[0], gast.Starred):
            out[p.name] = items[0].value  # h(a, *rest): *args is rest (starred.py)
        else:
            out[p.name] = gast.Tuple(elts=items, ctx=gast.Load())
    return out


_SPECIALIZED = {}  # (callee, bindings by identity) -> (its specialized copy, the values)


def _user_object(value):
    """An instance of a class of the user's (a model whose methods a helper calls on its self:
    the helper is specialized to it as to a function it is passed)."""
    return (hasattr(value, "__dict__") and not isinstance(value, (type, types.ModuleType))
            and type(value).__module__.split(".")[0] not in LIBRARIES | {"builtins"})


def with_function_arguments(func, args, keywords, lookup):
    """func itself, or, where the call passes it functions or objects of the user's classes
    (loss(predict, params, x): predict is known where the call is), a copy of func that knows
    them: its parameter pred denotes
    predict when its derivative is built (pipeline.build), as a global name would. One copy
    per callee and functions, so its derivatives are built and cached once."""
    func = with_call_shape(func, args, keywords)
    try:
        bound = inspect.signature(func).bind(*args, **keywords)
    except TypeError:
        return func
    passed = set(bound.arguments)
    bound.apply_defaults()  # (a default left out: gate(h, activation=sigmoid) called as gate(h))
    bindings = {}
    for param, node in bound.arguments.items():
        if param not in passed:
            value = node
        else:
            value = lookup(node) if isinstance(node, (gast.Name, gast.Attribute)) else None
        if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, np.ufunc)) or (
                _user_object(value)):
            bindings[param] = value
    if not bindings:
        return func
    key = (func, tuple(sorted((k, id(v)) for k, v in bindings.items())))
    entry = _SPECIALIZED.get(key)
    if entry is None:
        copy = function_copy(func, __srcad_bindings__=dict(
            getattr(func, "__srcad_bindings__", {}), **bindings))
        entry = _SPECIALIZED[key] = (copy, tuple(bindings.values()))
    return entry[0]


_SHAPED = {}  # (callee, its call shape) -> its specialized copy


def _forwards(func, var):
    """Whether func passes its *var on whole to a call (h(x, *args))."""
    try:
        fdef, _ = parse_function(func)
    except SrcadError:
        return False
    return any(isinstance(n, gast.Starred) and isinstance(n.value, gast.Name)
               and n.value.id == var for n in gast.walk(fdef))


def with_call_shape(func, args, keywords):
    """func itself, or a copy of it for this call's shape where func takes **kwargs (each
    keyword its named parameters do not take becomes a keyword-only parameter) or passes its
    *args on to another call (each extra positional argument a parameter: args_0, args_1, ...).
    Its __signature__ says so, and pipeline.build writes its def so (kwargs = {...} and args =
    (args_0, ...) bound first: starred.call_shape_parameters); the parameters are
    differentiated like any. One copy per callee and shape."""
    signature = inspect.signature(func)
    params = list(signature.parameters.values())
    var_kw = next((p for p in params if p.kind == p.VAR_KEYWORD), None)
    var_pos = next((p for p in params if p.kind == p.VAR_POSITIONAL), None)
    shape, new = {}, list(params)
    if var_kw is not None and None not in keywords:
        named = {p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD,
                                                          p.POSITIONAL_ONLY)}
        extra = tuple(sorted(k for k in keywords if k not in named))
        shape["kwargs"] = (var_kw.name, extra)
        new = [p for p in new if p is not var_kw] + [
            inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY) for k in extra]
    before = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if var_pos is not None and not any(isinstance(a, gast.Starred) for a in args) and not any(
            p.default is not p.empty for p in before) and _forwards(func, var_pos.name):
        taken = set(func.__code__.co_varnames) | set(func.__code__.co_names)
        names = []
        for i in range(max(len(args) - len(before), 0)):
            ident = f"{var_pos.name}_{i}"
            while ident in taken:
                ident += "_"
            names.append(ident)
        shape["args"] = (var_pos.name, tuple(names))
        at = new.index(var_pos)
        new[at:at + 1] = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                          for n in names]
    if not shape:
        return func
    key = (func, tuple(sorted(shape.items())))
    copy = _SHAPED.get(key)
    if copy is None:
        copy = _SHAPED[key] = function_copy(func, __srcad_call_shape__=shape,
                                            __signature__=signature.replace(parameters=new))
    return copy


def derivative_name(func, kind, wrt):
    """layer_adjoint (all parameters), layer_adjoint_x (with respect to x alone)."""
    params = positional_params(func)
    own = func.__name__
    qualname = getattr(func, "__qualname__", own)
    if "." in qualname and "<" not in qualname:  # a method: Layer.__call__ -> Layer_call
        own = re.sub(r"_+", "_", qualname.replace(".", "_")).strip("_")
    base = f"{own}_{KIND_SUFFIX[kind]}".replace("<lambda>", "lambda")
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
