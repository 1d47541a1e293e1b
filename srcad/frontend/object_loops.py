"""object_loops: a loop over a list of functions or of objects of the user's classes (callable,
or whose methods the body calls: layer.forward(x)), written out, one copy of the body per item,
so each call's callee is known (statements._Methods).

    LAYERS = [Dense(W1), Dense(W2)]        if len(LAYERS) != 2 or type(LAYERS[0]) is not Dense or
    def f(x):                                      type(LAYERS[1]) is not Dense:
        for layer in LAYERS:            ->         raise RuntimeError(...)
            x = layer(x)                       x = Dense_call(LAYERS[0], x)
        return x                               x = Dense_call(LAYERS[1], x)

Each object is read from the list when the code runs (a model whose layers are made anew each
step is differentiated right), and its method is the one its class had when the function was
built (Dense_call: Dense.__call__). A function in the list is taken as it was then.

The list must be known where the function is built: a global or closure name, an attribute
of an object the call is specialized to (self.layers in a method), or a display of names of
functions (for g in [np.tanh, act]: each copy calls the name itself). The derivative is built for
those items; the check raises if the list has other items when it runs (the function must then
be differentiated anew): it never computes with other methods than the items' own.
"""
import types

import gast

from ..syntax.naming import clone, Namer, Substitute, walk
from ..syntax.nodes import name
from ..syntax.visitor import Transformer
from .functions import function_copy

_LIBRARIES = {"numpy", "scipy", "builtins", "sklearn", "jax", "torch"}
_MOST = 64  # items written out at most


def _callable_item(value):
    """A function, or a callable object of a user's class."""
    if isinstance(value, types.FunctionType):
        return True
    return (hasattr(value, "__dict__") and callable(value) and not isinstance(
        value, (type, types.ModuleType)) and type(value).__module__.split(".")[0]
            not in _LIBRARIES)


def _object_item(value):
    """An object of a user's class (its methods are what a loop over it may call)."""
    return (hasattr(value, "__dict__") and not isinstance(
        value, (type, types.ModuleType, types.FunctionType)) and type(value).__module__.split(
        ".")[0] not in _LIBRARIES)


def _calls_through(body, target):
    """Whether the loop body calls its target or a method of it: target(...), target.m(...)."""
    for stmt in body:
        for node in walk(stmt):
            if isinstance(node, gast.Call):
                func = node.func
                if isinstance(func, gast.Attribute):
                    func = func.value
                if isinstance(func, gast.Name) and func.id == target:
                    return True
    return False


def _leaves_loop(body):
    for stmt in body:
        for node in walk(stmt):
            if isinstance(node, (gast.Break, gast.Continue)):
                return True
    return False


def _guard(iterable, checks, at):
    """if len(items) != n or type(items[0]) is not C_0 or items[1] is not g_1 ... or
    type(items[0].parser) is not P_0: raise"""
    tests = [gast.Compare(left=gast.Call(func=name("len"), args=[clone(iterable)], keywords=[]),
                          ops=[gast.NotEq()],
                          comparators=[gast.Constant(value=len(checks), kind=None)])]
    for i, (is_function, holder, attributes) in enumerate(checks):
        item = gast.Subscript(value=clone(iterable), slice=gast.Constant(value=i, kind=None),
                              ctx=gast.Load())
        if not is_function:
            item = gast.Call(func=name("type"), args=[item], keywords=[])
        tests.append(gast.Compare(left=item, ops=[gast.IsNot()], comparators=[name(holder)]))
        for attr, attr_holder in attributes:
            tests.append(gast.Compare(left=gast.Call(func=name("type"), args=[gast.Attribute(
                value=gast.Subscript(value=clone(iterable), slice=gast.Constant(
                    value=i, kind=None), ctx=gast.Load()), attr=attr, ctx=gast.Load())],
                keywords=[]), ops=[gast.IsNot()], comparators=[name(attr_holder)]))
    message = ("srcad wrote this loop out for the items the list had when it built the "
               "derivative (their number, the classes of objects, the functions), and it has "
               "others now: keep them, or differentiate a function defined anew")
    error = gast.Raise(exc=gast.Call(func=name("RuntimeError"), args=[
        gast.Constant(value=message, kind=None)], keywords=[]), cause=None)
    return gast.copy_location(gast.If(test=gast.BoolOp(op=gast.Or(), values=tests),
                                      body=[gast.copy_location(error, at)], orelse=[]), at)


_METHODS = {}  # (function, class) -> the function's copy that knows its self's class


def method_for(cls, attr, attributes=()):
    """cls's method attr (a function) as a copy that knows its first parameter is a cls, so
    self.other(...) in it is known too (methods_of_classes, run when it is built); or None.
    attributes: (name, class) of the attributes of self that are objects of the user's classes
    (self.parser a WeightsParser), so self.parser.get(...) is known too (the loop that reads
    the objects checks those classes when it runs)."""
    func = getattr(cls, attr, None)
    if not isinstance(func, types.FunctionType) or not func.__code__.co_argcount:
        return None
    copy = _METHODS.get((func, cls, attributes))
    if copy is None:
        me = func.__code__.co_varnames[0]
        classes = {me: cls}
        classes.update((f"{me}.{a}", c) for a, c in attributes)
        copy = _METHODS[(func, cls, attributes)] = function_copy(
            func, __srcad_classes__=classes)
    return copy


def method_of_object(method):
    """(function, classes) to differentiate a bound method with: its function, or, for a
    method of an object of the user's classes, the function's copy that knows its self's class
    and the classes of self's attributes that are the user's objects (method_for), so that
    self.predict(x) and self.parser.get(w) in it are calls of those classes' methods; classes:
    what the copy assumed of the object ((its class, (attribute, class), ...)), which the
    caller checks before each call (classes_of); None for the function itself."""
    obj, func = method.__self__, method.__func__
    if not _object_item(obj) or getattr(type(obj), func.__name__, None) is not func:
        return func, None
    classes = classes_of(obj)
    copy = method_for(type(obj), func.__name__, classes[1])
    return (copy, classes) if copy is not None else (func, None)


def classes_of(obj):
    """(obj's class, its attributes that are the user's objects and their classes)."""
    return type(obj), _object_attributes(obj)


def _object_attributes(value):
    """(name, class) of value's attributes that are objects of the user's classes, sorted."""
    return tuple(sorted((a, type(v)) for a, v in getattr(value, "__dict__", {}).items()
                        if _object_item(v)))


def _dotted(node):
    parts = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id] + parts[::-1]) if isinstance(node, gast.Name) else None


class _Calls(Transformer):
    """item(...) and item.method(...) -> Class_method(item, ...): the method its class has
    (method_for), called with the item the code reads when it runs. target: a name, or a
    dotted attribute of one (self.parser, whose class the method copy knows)."""

    def __init__(self, target, item, cls, scope, fresh, attributes=()):
        self.target, self.item, self.cls = target, item, cls
        self.scope, self.fresh = scope, fresh
        self.attributes = attributes

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if _dotted(func) == self.target:
            method = method_for(self.cls, "__call__", self.attributes)
        elif isinstance(func, gast.Attribute) and _dotted(func.value) == self.target:
            method = method_for(self.cls, func.attr, self.attributes)
        else:
            return node
        if method is None:
            return node
        ident = self.fresh(f"{self.cls.__name__}_{method.__name__.strip('_')}")
        self.scope.injected[ident] = method
        node.func = name(ident)
        node.args = [clone(self.item)] + node.args
        return node


def methods_of_classes(fdef, func, scope):
    """In a method copy from method_for: self(...) and self.other(...) as calls of the class's
    methods (copies that know their self's class, and the classes of its attributes, in turn);
    self.parser.get(...) as a call of the method of self.parser's class."""
    fresh = Namer({n.id for n in walk(fdef) if isinstance(n, gast.Name)}).fresh_name
    classes = func.__srcad_classes__
    for param, cls in classes.items():
        if "." in param:
            item = gast.Attribute(value=name(param.split(".")[0]), attr=param.split(".")[1],
                                  ctx=gast.Load())
            attributes = ()
        else:
            item = name(param)
            attributes = tuple(sorted((k.split(".", 1)[1], c) for k, c in classes.items()
                                      if k.startswith(param + ".")))
        fdef.body = [_Calls(param, item, cls, scope, fresh, attributes).visit(stmt)
                     for stmt in fdef.body]
    return fdef


def write_out_object_loops(fdef, scope, fresh):
    """fdef with each loop over a known list of functions or objects written out."""
    def rewrite(stmts):
        out = []
        for stmt in stmts:
            if isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
                out.append(stmt)
                continue
            for field in ("body", "orelse", "finalbody"):
                block = getattr(stmt, field, None)
                if isinstance(block, list):
                    setattr(stmt, field, rewrite(block))
            out += written_out(stmt) or [stmt]
        return out

    def written_out(loop):
        if not (isinstance(loop, gast.For) and isinstance(loop.target, gast.Name)
                and not loop.orelse):
            return None
        stored = {n.id for s in loop.body for n in walk(s) if isinstance(n, gast.Name)
                  and not isinstance(n.ctx, gast.Load)}
        if _leaves_loop(loop.body) or loop.target.id in stored:
            return None
        if isinstance(loop.iter, (gast.List, gast.Tuple)):  # for g in [np.tanh, act]: the
            elts = loop.iter.elts  # names themselves, read where the loop reads them
            if not elts or len(elts) > _MOST or not all(
                    isinstance(e, (gast.Name, gast.Attribute)) and callable(scope.lookup(e))
                    for e in elts):
                return None
            return [gast.copy_location(Substitute({loop.target.id: e}).visit(clone(s)), s)
                    for e in elts for s in loop.body]
        if not isinstance(loop.iter, (gast.Name, gast.Attribute)):
            return None
        items = scope.lookup(loop.iter)
        if not (isinstance(items, (list, tuple)) and 0 < len(items) <= _MOST and (
                all(_callable_item(item) for item in items) or (
                all(_object_item(item) for item in items)
                and _calls_through(loop.body, loop.target.id)))):
            return None
        checks, out = [], []
        for i, value in enumerate(items):
            is_function = isinstance(value, types.FunctionType)
            holder = fresh(loop.target.id if is_function else type(value).__name__)
            scope.injected[holder] = value if is_function else type(value)
            attributes = () if is_function else _object_attributes(value)
            attribute_holders = []
            for attr, cls in attributes:
                attribute_holders.append((attr, fresh(cls.__name__)))
                scope.injected[attribute_holders[-1][1]] = cls
            checks.append((is_function, holder, attribute_holders))
            item = name(holder) if is_function else gast.Subscript(
                value=clone(loop.iter), slice=gast.Constant(value=i, kind=None),
                ctx=gast.Load())
            for stmt in loop.body:
                copy = clone(stmt)
                if not is_function:
                    copy = _Calls(loop.target.id, item, type(value), scope, fresh,
                                  attributes).visit(copy)
                out.append(gast.copy_location(Substitute({loop.target.id: item}).visit(copy),
                                              stmt))
        return [_guard(loop.iter, checks, loop)] + out

    fdef.body = rewrite(fdef.body)
    return fdef
