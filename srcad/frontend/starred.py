"""starred: * and ** in displays, calls and definitions, written with what later passes know.

    [*a, *b, c]          ->   list(tuple(a) + tuple(b) + (c,))
    (*a, c)              ->   tuple(a) + (c,)
    pair(*p)             ->   pair(p[0], p[1])        (pair takes exactly two positional
                                                      parameters, none with a default; p
                                                      a name or an item, no call)
    total(a, b, *rest)   ->   total(a, *((b,) + tuple(rest)))   for def total(a, *args):
                                                      args is that tuple (calls.bind)
    for a, b in zip(*h(p)):   ->   results = h(p)     (h a function of the user's whose
                                   for a, b in zip(results[0], results[1]):   every return
                                                      is a display of two items)

`+` of tuples joins them, and its adjoint splits (runtime.concat_adjoint); the pieces are
tuples because the tangent of a display is a tuple. A call's *p is
written out only where the callee's positional parameters it fills have no defaults, so the
number of items Python would pass is fixed; `f(*p)` with more or fewer items than that raises
in Python and is not checked here. Other starred calls are left for the fence to refuse.

    h(x, **{"s": 2.0})   ->   h(x, s=2.0)              (a display, or a name bound once to one
    o = {"s": v}              h(x, s=o["s"])            in the function and changed nowhere:
    h(x, **o)                                           its keys are known)

    def h(x, **kw):      ->   def h(x, *, s):           (a helper called with s=...: the copy
        ...                       kw = {"s": s}         calls.with_call_shape makes for the
                                  ...                   call)
    def g(x, *args):     ->   def g(x, args_0):         (called with one more positional
        h(x, *args)               args = (args_0,)      argument; g passes its *args on)
                                  h(x, args[0])
"""
import inspect
import types

import gast

from ..errors import SrcadError
from ..syntax.naming import clone, walk, walk_breadth
from ..syntax.nodes import call, name
from ..syntax.visitor import Transformer
from .parse import parse_function


class _Starred(Transformer):
    def __init__(self, scope, tuples):
        self.scope = scope
        self.tuples = tuples  # name -> its items' count: names bound once to a tuple display

    def display(self, node, kind):
        node = self.generic_visit(node)
        if not isinstance(node.ctx, gast.Load) or not any(
                isinstance(e, gast.Starred) for e in node.elts):
            return node
        parts, run = [], []
        for elt in node.elts + [None]:
            if elt is not None and not isinstance(elt, gast.Starred):
                run.append(elt)
                continue
            if run:
                parts.append(gast.Tuple(elts=run, ctx=gast.Load()))
                run = []
            if elt is not None:
                parts.append(call(["tuple"], elt.value))
        out = parts[0]
        for part in parts[1:]:
            out = gast.BinOp(left=out, op=gast.Add(), right=part)
        if kind is gast.List:  # (joined as tuples: a display's tangent is a tuple)
            out = call(["list"], out)
        return gast.copy_location(out, node)

    def visit_List(self, node):
        return self.display(node, gast.List)

    def visit_Tuple(self, node):
        return self.display(node, gast.Tuple)

    def visit_Call(self, node):
        node = self.generic_visit(node)
        starred = [i for i, a in enumerate(node.args) if isinstance(a, gast.Starred)]
        if len(starred) != 1 or any(isinstance(n, gast.Call)  # (*p is read once per item:
                                    for n in walk_breadth(node.args[starred[0]].value)):  # pure)
            return node
        sequence = node.args[starred[0]].value
        if isinstance(sequence, gast.Name) and sequence.id in self.tuples:  # its items known
            items = [gast.Subscript(value=clone(sequence), slice=gast.Constant(value=k, kind=None),
                                    ctx=gast.Load()) for k in range(self.tuples[sequence.id])]
            node.args = node.args[:starred[0]] + items + node.args[starred[0] + 1:]
            return node
        func = self.scope.lookup(node.func)
        if not inspect.isfunction(func):
            return node
        params = list(inspect.signature(func).parameters.values())
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                      p.POSITIONAL_OR_KEYWORD)]
        at = starred[0]
        if any(p.kind == p.VAR_POSITIONAL for p in params):
            if at >= len(positional):  # h(a, b, *rest, c) for h(a, *args): args is the tuple
                extra = node.args[len(positional):]  # (b, *rest, c), passed whole (the fence
                whole = gast.Starred(value=self.display(gast.Tuple(  # lets it through)
                    elts=extra, ctx=gast.Load()), gast.Tuple), ctx=gast.Load())
                whole.whole = True
                node.args = node.args[:len(positional)] + [whole]
            return node
        named = {k.arg for k in node.keywords}
        filled = [p for p in positional[at:len(positional) - (len(node.args) - at - 1)]
                  if p.name not in named]
        if any(p.default is not p.empty for p in filled):
            return node  # (how many items *p gives is not fixed by the callee)
        sequence = node.args[at].value
        items = [gast.Subscript(value=clone(sequence), slice=gast.Constant(value=k, kind=None),
                                ctx=gast.Load()) for k in range(len(filled))]
        node.args = node.args[:at] + items + node.args[at + 1:]
        return node


def _returned_count(func):
    """How many items func returns, where each of its returns is a tuple display of the same
    length without * (return a, b, c): the items of a call of it are known; else None."""
    if not isinstance(func, types.FunctionType) or inspect.isgeneratorfunction(func) or (
            func.__module__ or "").split(".")[0] in ("numpy", "scipy"):
        return None
    try:
        fdef, _ = parse_function(func)
    except (SrcadError, OSError, TypeError):
        return None
    counts = set()
    todo = list(fdef.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda,
                             gast.ClassDef)):
            continue  # (a nested function's returns are its own)
        if isinstance(node, gast.Return):
            if not isinstance(node.value, gast.Tuple) or any(
                    isinstance(e, gast.Starred) for e in node.value.elts):
                return None
            counts.add(len(node.value.elts))
        todo.extend(gast.iter_child_nodes(node))
    return counts.pop() if len(counts) == 1 else None


def _spread_results(block, scope, fresh):
    """for ... in zip(*h(p)) (or enumerate(zip(*h(p)))), h a function of the user's that
    returns n items: t = h(p) before the loop and zip(t[0], ..., t[n-1]), which Python
    evaluates in the same order (the iterable once, before the first turn)."""
    out = []
    for stmt in block:
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                setattr(stmt, field, _spread_results(inner, scope, fresh))
        if isinstance(stmt, gast.For):
            zipped = stmt.iter
            if isinstance(zipped, gast.Call) and scope.lookup(zipped.func) is enumerate and len(
                    zipped.args) == 1 and not zipped.keywords:
                zipped = zipped.args[0]
            if isinstance(zipped, gast.Call) and scope.lookup(zipped.func) is zip and len(
                    zipped.args) == 1 and not zipped.keywords and isinstance(
                    zipped.args[0], gast.Starred):
                made = zipped.args[0].value
                count = _returned_count(scope.lookup(made.func)) if isinstance(
                    made, gast.Call) and not any(isinstance(a, gast.Starred)
                                                 for a in made.args) else None
                if count:
                    held = fresh("results")
                    out.append(gast.copy_location(gast.Assign(
                        targets=[name(held, gast.Store())], value=made, type_comment=None),
                        stmt))
                    zipped.args = [gast.Subscript(value=name(held), slice=gast.Constant(
                        value=k, kind=None), ctx=gast.Load()) for k in range(count)]
        out.append(stmt)
    return out


def write_starred(fdef, scope, fresh=None):
    """fdef with * in displays and in calls of functions of fixed arity, or of tuples whose
    length is known (a name bound once to a tuple display, the results of a helper that
    returns a tuple display, spread into zip in a for loop's head), written out."""
    if fresh is not None:
        fdef.body = _spread_results(fdef.body, scope, fresh)
    bound = {}
    for node in walk(fdef):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            bound[node.id] = bound.get(node.id, 0) + 1
    tuples = {}
    for node in walk(fdef):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], gast.Name) and isinstance(node.value, gast.Tuple) and not any(
                isinstance(e, gast.Starred) for e in node.value.elts) and bound.get(
                node.targets[0].id) == 1:
            tuples[node.targets[0].id] = len(node.value.elts)
    fdef.body = [_Starred(scope, tuples).visit(stmt) for stmt in fdef.body]
    return fdef


def _shape_items(node):
    """Whether node is a shape, whose items are ints: x.shape, x.shape[a:b], np.shape(x)."""
    if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice):
        node = node.value
    if isinstance(node, gast.Attribute):
        return node.attr == "shape"
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and (
        node.func.attr == "shape") and len(node.args) == 1 and not node.keywords


def spread_shapes(fdef, scope):
    """Mark f(*x.shape) to be left as written (the fence lets it through) where srcad reads the
    call as one operation: a library function (np.random.randn(*x.shape), np.zeros) or a
    callee not known until run time (rs.randn, rs an argument). Nothing that varies flows
    through the ints of a shape, so such a call needs no derivative when its other operands do
    not vary either, and srcad runs it as written; check_spreads refuses it otherwise (a rule
    needs to know which argument is which). Still refused by the fence: a helper of the user's,
    whose derivative srcad builds from its parameters (h(*x.shape) with defaults), and the
    array methods desugar writes as numpy calls (x.reshape(*s))."""
    for node in walk(fdef):
        if not isinstance(node, gast.Call):
            continue
        spread = [a for a in node.args if isinstance(a, gast.Starred) and not getattr(
            a, "whole", False) and _shape_items(a.value)]
        if not spread:
            continue
        op = scope.lookup(node.func)
        if op is None and isinstance(node.func, gast.Attribute) and (
                node.func.attr in _ARRAY_METHODS):
            continue
        if isinstance(op, types.FunctionType) and (op.__module__ or "").split(".")[0] not in (
                "numpy", "scipy"):
            continue
        for a in spread:
            a.as_written = True
        fdef.spreads = True  # (check_spreads has something to check)
    return fdef


def check_spreads(fdef, activity, info):
    """Refuse a call left as written by spread_shapes that computes a value the result depends
    on from differentiated values: which of its arguments is which is not known."""
    if not getattr(fdef, "spreads", False):
        return
    for stmt in walk(fdef):
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Call)):
            continue
        spread = [a for a in stmt.value.args if getattr(a, "as_written", False)]
        if not spread:
            continue
        reads = {n.id for n in walk(stmt.value) if isinstance(n, gast.Name)}
        outs = {n.id for t in stmt.targets for n in walk(t) if isinstance(n, gast.Name)}
        if reads & activity.varied and outs & activity.useful:
            raise info.error(spread[0], "srcad does not differentiate calls with *args "
                                        "unpacking where it cannot tell how many items they "
                                        "pass", hint="pass the arguments one by one")


# array methods that take their shape or axes as separate ints (x.reshape(2, 3)), written as
# numpy's functions by desugar
_ARRAY_METHODS = {"reshape", "transpose", "tile", "repeat", "swapaxes", "sum", "mean",
                  "max", "min", "prod", "std", "var", "squeeze", "expand_dims", "resize"}


def call_shape_parameters(fdef, func, info):
    """def h(x, *args, **kw) built for one call's shape (func.__srcad_call_shape__, from
    calls.with_call_shape): each extra keyword a keyword-only parameter and kw the dict of them;
    each extra positional argument a parameter args_0, args_1, ... and args the tuple of them."""
    shape = func.__srcad_call_shape__
    args = fdef.args
    first = fdef.body[0]
    if "kwargs" in shape:
        var, keys = shape["kwargs"]
        read = {n.id for n in walk(fdef) if isinstance(n, gast.Name)
                and isinstance(n.ctx, gast.Load)}
        bound = {n.id for n in walk(fdef) if isinstance(n, gast.Name) and not isinstance(
            n.ctx, gast.Load)}
        for key in keys:
            if key in read and key not in bound:  # (a global or closure name it would hide)
                raise info.error(fdef, f"srcad passes the keyword {key} to {fdef.name}'s "
                                       f"**{var} as a parameter of that name, and {fdef.name} "
                                       f"reads another {key}",
                                 hint=f"name the keyword otherwise, or give {fdef.name} a "
                                      f"parameter {key}")
        args.kwarg = None
        args.kwonlyargs += [gast.Name(id=k, ctx=gast.Param(), annotation=None,
                                      type_comment=None) for k in keys]
        args.kw_defaults += [None] * len(keys)
        fdef.body.insert(0, gast.copy_location(gast.Assign(
            targets=[name(var, gast.Store())], value=gast.Dict(
                keys=[gast.Constant(value=k, kind=None) for k in keys],
                values=[name(k) for k in keys]), type_comment=None), first))
    if "args" in shape:
        var, names = shape["args"]
        args.vararg = None
        args.args += [gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None)
                      for n in names]
        fdef.body.insert(0, gast.copy_location(gast.Assign(
            targets=[name(var, gast.Store())], value=gast.Tuple(
                elts=[name(n) for n in names], ctx=gast.Load()), type_comment=None), first))
    return fdef


def expand_keywords(fdef):
    """h(x, **d) -> h(x, k=d["k"], ...) where d's keys are known: d a dict display (dict_of
    by now) or a name bound once in fdef to one, which nothing changes (no method of d is
    called but get, keys, values and items, no store into it)."""
    bound, changed = {}, set()
    for node in walk(fdef):
        if isinstance(node, gast.Assign):
            for target in node.targets:
                for n in walk(target):
                    if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                        bound.setdefault(n.id, []).append(node.value if target is n else None)
        elif isinstance(node, (gast.For, gast.AugAssign)):
            for n in walk(node.target):
                if isinstance(n, gast.Name):
                    bound.setdefault(n.id, []).append(None)
        elif isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and (
                node.attr not in ("get", "keys", "values", "items")):
            changed.add(node.value.id)
        elif isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Store) and isinstance(
                node.value, gast.Name):
            changed.add(node.value.id)
    displays = {ident: values[0] for ident, values in bound.items()
                if len(values) == 1 and _keys(values[0]) is not None and ident not in changed}
    for node in walk(fdef):
        if not isinstance(node, gast.Call):
            continue
        keywords = []
        for kw in node.keywords:
            value = kw.value
            keys = _keys(value) if kw.arg is None else None
            if keys is None and kw.arg is None and isinstance(value, gast.Name) and (
                    value.id in displays):
                keys = _keys(displays[value.id])
            if keys is None:
                keywords.append(kw)
                continue
            for i, key in enumerate(keys):
                item = value.args[0].elts[i] if isinstance(value, gast.Call) else gast.Subscript(
                    value=name(value.id), slice=gast.Constant(value=key, kind=None),
                    ctx=gast.Load())
                keywords.append(gast.keyword(arg=key, value=item))
        node.keywords = keywords
    return fdef


def _keys(value):
    """The keys of dict_of([...], ("a", "b")) if all are identifiers, else None."""
    if not (isinstance(value, gast.Call) and isinstance(value.func, gast.Name)
            and value.func.id == "dict_of" and len(value.args) == 2
            and isinstance(value.args[0], gast.List) and isinstance(value.args[1], gast.Tuple)):
        return None
    keys = value.args[1].elts
    if not all(isinstance(k, gast.Constant) and isinstance(k.value, str) and k.value.isidentifier()
               for k in keys):
        return None
    return [k.value for k in keys]
