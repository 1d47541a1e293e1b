"""statements: everyday Python that needs no derivative of its own, lowered before the fence.

    ys = [W @ h for W in Ws if W.ndim]    ->   ys = []
                                               for W_1 in Ws:
                                                   if W_1.ndim:
                                                       ys.append(W_1 @ h)
    s = sum(np.sum(v) for v in vs)         ->   (the same loop, then) s = sum(items)
    with np.errstate(divide="ignore"):     ->   y = np.log(x)
        y = np.log(x)
    for k, v in d.items():                 ->   for k in keys_of(d):
                                                   v = d[k]
    sum(d.values())                        ->   (a loop appending d[k] for k in keys_of(d))
    d = {"W": W, "b": b}                   ->   d = dict_of([W, b], ("W", "b"))
    for t in reversed(range(n)):           ->   for t in range(n)[::-1]:
    *rest, last = xs                       ->   t = xs; rest = list(t[:-1]); last = t[-1]
    d.get("b", 0.0)                        ->   d["b"] if "b" in d else 0.0
    partial(g, w)(x)                       ->   g(w, x)   (functools.partial called where it
                                                is made: map(partial(g, w), xs) too)
    np.concatenate([*a, *b])               ->   np.concatenate(list(tuple(a) + tuple(b)))
    del t                                  ->   (dropped)
    global G                               ->   (dropped: G is only read)

List comprehensions and generator expressions become loops that append (each loop's names are
fresh: a comprehension's names do not leak, as in Python), written just before the statement
that holds them, so they must be where Python evaluates them exactly once: in an assignment,
an expression statement, a return, an if's test or a for's iterable, not under a lambda, a
conditional expression, `and`/`or` or a while's test (those stay for the fence to refuse).
`with` keeps its body only for numpy's errstate and warnings.catch_warnings, which change which
warnings show, never a number (errstate(... = "raise") would change control flow: refused).
`del` of a name and `global` of names only read do nothing a derivative needs. assert and
raise stay as they are: the derivative runs them where f runs them.
"""
import functools
import sys
import types
import warnings

import gast
import numpy as np

from .. import runtime
from ..syntax.naming import clone, Rename, walk
from ..syntax.nodes import name
from .distributions import unfreeze
from .object_loops import write_out_object_loops
from .starred import expand_keywords, write_starred
from ..syntax.visitor import Transformer

_COMPREHENSIONS = (gast.ListComp, gast.GeneratorExp, gast.DictComp, gast.SetComp)
# expressions under which a sub-expression may run zero or many times
_CONDITIONAL = (gast.Lambda, gast.IfExp, gast.BoolOp) + _COMPREHENSIONS


class Fresh:
    """Names no one uses in the function: base, base_1, base_2, ... (names: the names the
    function uses, if they are known already)."""

    def __init__(self, fdef, names=None):
        self.taken = set(names) if names is not None else {
            n.id for n in walk(fdef) if isinstance(n, gast.Name)}

    def __call__(self, base):
        ident, k = base, 0
        while ident in self.taken:
            k += 1
            ident = f"{base}_{k}"
        self.taken.add(ident)
        return ident


_DOUBLE_STARRED = "**"  # (in _census's kinds: a call passes a mapping's items as keywords)


def _census(fdef):
    """(the node types in fdef, the names it uses, the names it binds or deletes, the names its
    global and nonlocal statements declare), in one walk."""
    kinds, names, stored, declared = set(), set(), set(), set()
    name, keyword, load = gast.Name, gast.keyword, gast.Load
    for node in walk(fdef):
        kind = type(node)
        kinds.add(kind)
        if kind is name:
            names.add(node.id)
            if type(node.ctx) is not load and isinstance(node.ctx, (gast.Store, gast.Del)):
                stored.add(node.id)
        elif kind is keyword and node.arg is None:
            kinds.add(_DOUBLE_STARRED)
        elif kind is gast.Global or kind is gast.Nonlocal:
            declared.update(node.names)
    return kinds, names, stored, declared


def _stored(target):
    return [n.id for n in walk(target) if isinstance(n, gast.Name)]


class _Hoist(Transformer):
    """Replace each comprehension evaluated once in an expression by the name of a list (or
    dict) the loops before the statement build (self.before); map(f, xs) is a comprehension."""

    def __init__(self, fresh, scope):
        self.fresh = fresh
        self.scope = scope
        self.before = []

    def generic_visit(self, node):
        if isinstance(node, _CONDITIONAL):  # (evaluated zero or many times: left alone)
            return node
        return super().generic_visit(node)

    def visit_ListComp(self, node):
        return self.lower(node)

    def visit_GeneratorExp(self, node):
        return self.lower(node)

    def visit_DictComp(self, node):
        return self.lower(node)

    def visit_SetComp(self, node):  # {e for ...} -> set(items): a set has no derivative, so
        items = self.lower(gast.copy_location(gast.ListComp(  # one of differentiated values
            elt=node.elt, generators=node.generators), node))  # is refused at set(...)
        return gast.copy_location(gast.Call(func=name("set"), args=[items], keywords=[]), node)

    def visit_Call(self, node):
        """map(f, xs, ys) -> [f(a, b) for a, b in zip(xs, ys)] (f a name or a lambda);
        d.values() -> [d[k] for k in keys_of(d)] (and .keys(), .items())."""
        if _dict_view(node) and isinstance(node.func.value, gast.Name):
            mapping, key = node.func.value, name(self.fresh("key"))
            item = gast.Subscript(value=clone(mapping), slice=clone(key), ctx=gast.Load())
            elt = {"keys": clone(key), "values": item, "items": gast.Tuple(
                elts=[clone(key), item], ctx=gast.Load())}[node.func.attr]
            return self.lower(gast.copy_location(gast.ListComp(elt=elt, generators=[
                gast.comprehension(target=name(key.id, gast.Store()), iter=gast.Call(
                    func=name("keys_of"), args=[clone(mapping)], keywords=[]), ifs=[],
                    is_async=0)]), node))
        if not (self.scope is not None and self.scope.lookup(node.func) is map
                and len(node.args) >= 2 and not node.keywords and not any(
                    isinstance(a, gast.Starred) for a in node.args)):
            return self.generic_visit(node)
        func, iterables = node.args[0], node.args[1:]
        items = [name(self.fresh("item")) for _ in iterables]
        if isinstance(func, gast.Lambda):
            params = func.args.args
            if func.args.vararg or func.args.kwonlyargs or len(params) != len(items):
                return self.generic_visit(node)
            elt = Rename({p.id: i.id for p, i in zip(params, items)}).visit(clone(func.body))
        else:
            elt = gast.Call(func=func, args=items, keywords=[])
        stores = [name(i.id, gast.Store()) for i in items]
        target = stores[0] if len(stores) == 1 else gast.Tuple(elts=stores, ctx=gast.Store())
        iterable = iterables[0] if len(iterables) == 1 else gast.Call(
            func=name("zip"), args=iterables, keywords=[])
        comprehension = gast.ListComp(elt=elt, generators=[gast.comprehension(
            target=target, iter=iterable, ifs=[], is_async=0)])
        return self.lower(gast.copy_location(comprehension, node))

    def lower(self, node, items=None):
        items = items or self.fresh("items")
        mapping = {}
        for generator in node.generators:  # fresh names for the comprehension's own names
            for ident in _stored(generator.target):
                mapping[ident] = self.fresh(ident)
        rename = Rename(mapping)
        if isinstance(node, gast.DictComp):  # items = dict_with(items, key, value)
            start = gast.Call(func=name("dict_of"), args=[
                gast.List(elts=[], ctx=gast.Load()), gast.Tuple(elts=[], ctx=gast.Load())],
                keywords=[])
            append = gast.Assign(targets=[name(items, gast.Store())], value=gast.Call(
                func=name("dict_with"), args=[name(items), rename.visit(node.key),
                                               rename.visit(node.value)], keywords=[]),
                type_comment=None)
        else:
            start = gast.List(elts=[], ctx=gast.Load())
            append = gast.Expr(value=gast.Call(
                func=gast.Attribute(value=name(items), attr="append", ctx=gast.Load()),
                args=[rename.visit(node.elt)], keywords=[]))
        body = lower_block([gast.copy_location(append, node)], self.fresh, self.scope)
        for generator in reversed(node.generators):
            for test in reversed(generator.ifs):
                test = rename.visit(test)
                body = lower_block([gast.copy_location(
                    gast.If(test=test, body=body, orelse=[]), node)], self.fresh, self.scope)
            loop = gast.For(target=rename.visit(generator.target), iter=generator.iter,
                            body=body, orelse=[], type_comment=None)
            body = [gast.copy_location(loop, node)]
        # the first iterable is evaluated in the enclosing scope (not renamed); the rest inside
        loop = body[0]
        for inner in walk(loop):
            if isinstance(inner, gast.For) and inner is not loop:
                inner.iter = rename.visit(inner.iter)
        hoist = _Hoist(self.fresh, self.scope)
        loop.iter = hoist.visit(loop.iter)
        self.before += hoist.before + [gast.copy_location(gast.Assign(
            targets=[name(items, gast.Store())], value=start, type_comment=None), node), loop]
        return name(items)


def _starred_target(stmt, fresh):
    """*rest, last = xs  ->  t = xs; rest = list(t[:-1]); last = t[-1] (a starred name takes
    a list of the items the others leave, as Python's does); None if stmt has no such target."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(
            stmt.targets[0], (gast.Tuple, gast.List))):
        return None
    elts = stmt.targets[0].elts
    stars = [i for i, e in enumerate(elts) if isinstance(e, gast.Starred)]
    if len(stars) != 1:
        return None
    k, after = stars[0], len(elts) - stars[0] - 1
    holder = fresh("t")
    out = [gast.Assign(targets=[name(holder, gast.Store())], value=stmt.value,
                       type_comment=None)]
    for i, elt in enumerate(elts):
        if i == k:
            upper = gast.Constant(value=-after, kind=None) if after else None
            value = gast.Call(func=name("list"), args=[gast.Subscript(
                value=name(holder), slice=gast.Slice(lower=gast.Constant(value=k, kind=None)
                                                      if k else None, upper=upper, step=None),
                ctx=gast.Load())], keywords=[])
            elt = elt.value
        else:
            index = i if i < k else i - len(elts)
            value = gast.Subscript(value=name(holder), slice=gast.Constant(
                value=index, kind=None), ctx=gast.Load())
        out.append(gast.Assign(targets=[elt], value=value, type_comment=None))
    return [gast.copy_location(s, stmt) for s in out]


def _lower_statement(stmt, fresh, scope):
    """The statements that replace stmt (comprehensions hoisted out of where it evaluates them
    once), or [stmt]."""
    if isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Expr, gast.Return)):
        fields = ["value"]
    elif isinstance(stmt, gast.If):
        fields = ["test"]
    elif isinstance(stmt, gast.For):
        fields = [] if _dict_view(stmt.iter) else ["iter"]  # (for k in d.keys(): over_keys)
    else:
        fields = []
    hoist = _Hoist(fresh, scope)
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(
            stmt.targets[0], gast.Name) and isinstance(stmt.value, _COMPREHENSIONS) and not isinstance(
            stmt.value, gast.SetComp) and \
            stmt.targets[0].id not in {n.id for n in walk(stmt.value) if isinstance(n, gast.Name)}:
        hoist.lower(stmt.value, stmt.targets[0].id)  # ys = [...]: the loop appends to ys
        return hoist.before
    for field in fields:
        value = getattr(stmt, field)
        if value is not None:
            setattr(stmt, field, hoist.visit(value))
    return hoist.before + [stmt]


def lower_block(stmts, fresh, scope=None, only_read=frozenset()):
    out = []
    for stmt in stmts:
        if isinstance(stmt, gast.Delete) and all(isinstance(t, gast.Name) for t in stmt.targets):
            continue  # del name: the value goes out of scope on return anyway
        if isinstance(stmt, (gast.Global, gast.Nonlocal)) and set(stmt.names) <= only_read:
            continue  # a declaration of names the function only reads changes nothing
        if isinstance(stmt, gast.With) and scope is not None and _harmless(stmt, scope):
            out += lower_block(stmt.body, fresh, scope, only_read)
            continue
        unpacked = _starred_target(stmt, fresh)
        if unpacked is not None:
            out += lower_block(unpacked, fresh, scope, only_read)
            continue
        for field in ("body", "orelse"):
            if isinstance(getattr(stmt, field, None), list) and not isinstance(
                    stmt, (gast.FunctionDef, gast.ClassDef)):
                setattr(stmt, field, lower_block(getattr(stmt, field), fresh, scope, only_read))
        out += _lower_statement(stmt, fresh, scope)
    return out


def _dict_view(node):
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
            and node.func.attr in ("items", "keys", "values") and not node.args
            and not node.keywords)


def _over_keys(loop, fresh, scope):
    """for k, v in d.items(): body  ->  for k in keys_of(d): v = d[k]; body (and .keys(),
    .values() alike): the values are items of d, whose adjoints reach d's."""
    view, mapping = loop.iter.func.attr, loop.iter.func.value
    target = loop.target
    if view == "keys" and isinstance(target, gast.Name):
        key, head = target.id, []
    elif view == "items" and isinstance(target, gast.Tuple) and len(target.elts) == 2 and \
            isinstance(target.elts[0], gast.Name):
        key, head = target.elts[0].id, [(target.elts[1], True)]
    else:
        key = fresh("key")
        head = [(target, view != "keys")]
    loop.iter = gast.copy_location(gast.Call(func=name("keys_of"), args=[mapping],
                                             keywords=[]), loop.iter)
    loop.target = name(key, gast.Store())
    assigns = []
    for item_target, is_value in head:
        item = gast.Subscript(value=clone(mapping), slice=name(key), ctx=gast.Load())
        if view == "items" and item_target is target:
            item = gast.Tuple(elts=[name(key), item], ctx=gast.Load())
        elif not is_value:
            item = name(key)
        assigns.append(gast.copy_location(gast.Assign(targets=[item_target], value=item,
                                                      type_comment=None), loop))
    loop.body = assigns + loop.body


def _harmless(stmt, scope):
    """Whether every context of the with statement only changes which warnings show."""
    for item in stmt.items:
        context = item.context_expr
        if item.optional_vars is not None or not isinstance(context, gast.Call):
            return False
        func = scope.lookup(context.func)
        if func is np.errstate:
            values = [k.value for k in context.keywords] + list(context.args)
            if not all(isinstance(v, gast.Constant) and v.value in ("ignore", "warn", "print",
                                                                     "log", None)
                       for v in values):
                return False
        elif func is not warnings.catch_warnings or context.args or context.keywords:
            return False
    return True


class _Methods(Transformer):
    """model(W, x) for an object whose class defines __call__, and model.forward(W, x), where
    model is a global or closure variable: Model.__call__(model, W, x), the method's function
    called with its object, which srcad differentiates like any helper (its attributes are
    read from the object as a parameter's are)."""

    def __init__(self, scope, fresh):
        self.scope = scope
        self.fresh = fresh

    def visit_Call(self, node):
        self.generic_visit(node)
        value = self.scope.lookup(node.func)
        if value is None or isinstance(value, (types.FunctionType, types.BuiltinFunctionType,
                                              type, np.ufunc)):
            return node
        if isinstance(value, types.MethodType) and isinstance(value.__func__,
                                                               types.FunctionType):
            func, obj = value.__func__, node.func.value if isinstance(
                node.func, gast.Attribute) else None
        elif isinstance(getattr(type(value), "__call__", None), types.FunctionType):
            func, obj = type(value).__call__, node.func
        else:
            return node
        if (getattr(func, "__module__", None) or "").split(".")[0] in ("numpy", "scipy"):
            return node
        owner = value.__self__ if isinstance(value, types.MethodType) else value
        ident = self.fresh(f"{type(owner).__name__}_{func.__name__.strip('_')}")
        self.scope.injected[ident] = func
        if obj is None or obj is not node.func and self.scope.lookup(obj) is not owner:
            held = self.fresh(f"{type(owner).__name__}_object")  # a bound method held by a
            self.scope.injected[held] = owner  # name (step = model.apply), or a module's name
            obj = name(held)  # for another object's method (random.shuffle of random._inst):
            # the method's own object is its self; a constant of the build, as a global's
            # name is not (read live, a local that a loop keeps on its tape would be
            # differentiated again as a value), which cache._watched watches: another object
            # bound there builds the derivative again
        node.args = [obj] + node.args
        node.func = name(ident)
        return node


class _Dicts(Transformer):
    """{"W": W, "b": b} and dict(W=W, b=b) -> dict_of([W, b], ("W", "b")): a call whose
    derivative templates exist (runtime.dict_of), instead of a display of its own kind."""

    def __init__(self, scope):
        self.scope = scope

    def visit_Dict(self, node):
        self.generic_visit(node)
        if any(key is None for key in node.keys):  # {**a, ...}: left for the fence
            return node
        return self.dict_of(node.keys, node.values, node)

    def visit_Set(self, node):  # {a, b} -> set([a, b]): set(...) has no derivative, so a set
        self.generic_visit(node)  # of differentiated values is refused there, at this line
        return gast.copy_location(gast.Call(func=name("set"), args=[
            gast.List(elts=node.elts, ctx=gast.Load())], keywords=[]), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, gast.Attribute) and func.attr == "get" and isinstance(
                func.value, gast.Name) and func.value.id in self.scope.local_names and len(
                node.args) in (1, 2) and not node.keywords:  # d.get(k, v): d[k] if k in d else v
            mapping, key = func.value, node.args[0]
            default = node.args[1] if len(node.args) == 2 else gast.Constant(value=None, kind=None)
            return gast.copy_location(gast.IfExp(
                test=gast.Compare(left=clone(key), ops=[gast.In()], comparators=[clone(mapping)]),
                body=gast.Subscript(value=clone(mapping), slice=clone(key), ctx=gast.Load()),
                orelse=default), node)
        if self.scope.lookup(node.func) is reversed and len(node.args) == 1 and not (
                node.keywords):  # reversed(xs) -> xs[::-1] (a range, list or array)
            step = gast.UnaryOp(op=gast.USub(), operand=gast.Constant(value=1, kind=None))
            return gast.copy_location(gast.Subscript(value=node.args[0], slice=gast.Slice(
                lower=None, upper=None, step=step), ctx=gast.Load()), node)
        if self.scope.lookup(node.func) is dict and not node.args and node.keywords and all(
                k.arg is not None for k in node.keywords):
            return self.dict_of([gast.Constant(value=k.arg, kind=None) for k in node.keywords],
                                [k.value for k in node.keywords], node)
        return node

    def dict_of(self, keys, values, node):
        return gast.copy_location(gast.Call(
            func=name("dict_of"), args=[gast.List(elts=list(values), ctx=gast.Load()),
                                         gast.Tuple(elts=list(keys), ctx=gast.Load())],
            keywords=[]), node)


def _dict_names(fdef):
    """Names every assignment of which is a dict built in the function (dict_of(...))."""
    bound = {}
    for stmt in walk(fdef):
        if isinstance(stmt, gast.Assign):
            for target in stmt.targets:
                for n in walk(target):
                    if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                        bound.setdefault(n.id, []).append(
                            target is n and isinstance(stmt.value, gast.Call) and isinstance(
                                stmt.value.func, gast.Name) and stmt.value.func.id == "dict_of")
        elif isinstance(stmt, (gast.For, gast.AugAssign)):
            for n in walk(stmt.target):
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                    bound.setdefault(n.id, []).append(False)
    return {ident for ident, dicts in bound.items() if all(dicts)}


def _stores_into_dicts(fdef, dicts, scope):
    """d[k] = v (and d[k] += v) on a dict built in the function, which no other name or
    container holds -> d = dict_with(d, k, v): the new dict it makes, which derivatives see."""
    uses = {}
    for node in walk(fdef):  # how each dict is used: only by key, iterated, or passed on
        for child in gast.iter_child_nodes(node):
            if isinstance(child, gast.Name) and child.id in dicts and isinstance(
                    child.ctx, gast.Load):
                held = isinstance(node, (gast.List, gast.Tuple, gast.Set, gast.Dict)) or (
                    isinstance(node, gast.Assign) and node.value is child) or (
                    isinstance(node, gast.Call) and node.func is not child and not (
                        isinstance(node.func, gast.Name)
                        and node.func.id in ("keys_of", "dict_with", "len")))
                uses[child.id] = uses.get(child.id, False) or held
    for stmt in walk(fdef):
        for field in ("body", "orelse"):
            block = getattr(stmt, field, None)
            if isinstance(block, list):
                setattr(stmt, field, [_functional_store(s, dicts, uses, scope) for s in block])


def _functional_store(stmt, dicts, uses, scope):
    if not isinstance(stmt, (gast.Assign, gast.AugAssign)):
        return stmt
    target = stmt.targets[0] if isinstance(stmt, gast.Assign) else stmt.target
    if isinstance(stmt, gast.Assign) and len(stmt.targets) != 1:
        return stmt
    if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name)
            and target.value.id in dicts and not uses.get(target.value.id)
            and not isinstance(target.slice, gast.Slice)):
        return stmt
    mapping = target.value.id
    value = stmt.value
    if isinstance(stmt, gast.AugAssign):
        value = gast.BinOp(left=gast.Subscript(value=name(mapping), slice=clone(target.slice),
                                               ctx=gast.Load()), op=stmt.op, right=value)
    return gast.copy_location(gast.Assign(
        targets=[name(mapping, gast.Store())], value=gast.Call(
            func=name("dict_with"), args=[name(mapping), target.slice, value], keywords=[]),
        type_comment=None), stmt)


class _Partials(Transformer):
    """functools.partial(g, a, k=v)(b) -> g(a, b, k=v): the call of a partial object made in
    the same expression is the call of its function, with the arguments Python would pass (a
    keyword of the call replaces the partial's of the same name), evaluated in the same order.
    Calls of a partial bound to a name, or passed on, are left (srcad cannot tell which function
    they call, and says so at the call)."""

    def __init__(self, scope):
        self.scope = scope

    def visit_Call(self, node):
        self.generic_visit(node)
        inner = node.func
        if not (isinstance(inner, gast.Call) and inner.args and not isinstance(
                inner.args[0], gast.Starred)
                and self.scope.lookup(inner.func) is functools.partial):
            return node
        given = {k.arg for k in node.keywords}
        if None in given or any(k.arg is None for k in inner.keywords):
            return node  # (** unpacking: which keywords win is not known here)
        keywords = [k for k in inner.keywords if k.arg not in given] + node.keywords
        return gast.copy_location(gast.Call(func=inner.args[0], args=inner.args[1:] + node.args,
                                            keywords=keywords), node)


def _constant(node):
    """The value of a literal, or a tuple display of literals (wrt=(0, 1)); else raise."""
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.Tuple):
        return tuple(_constant(e) for e in node.elts)
    raise ValueError


def _makes_derivatives(value):
    """Whether value is srcad.grad (or another of the API's derivatives), or srcad itself."""
    return getattr(value, "__srcad_constructor__", False) or (
        isinstance(value, types.ModuleType) and getattr(getattr(value, "grad", None),
                                                        "__srcad_constructor__", False))


class _Derivatives(Transformer):
    """grad(f)(x, y) -> grad_f(x, y), grad_f the derivative srcad.grad(f) (or value_and_grad,
    vjp, jvp) made when the function is built: f a function the name denotes then, the other
    arguments literals. A derivative called from a differentiated function is differentiated
    as the function it stands for (resolve's lookup), as if the user had bound it to a name at
    module level; Python would make the same object on each call (srcad's builds are cached)."""

    def __init__(self, scope, fresh):
        self.scope = scope
        self.fresh = fresh

    def visit_Call(self, node):
        self.generic_visit(node)
        inner = node.func
        if not (isinstance(inner, gast.Call) and inner.args and getattr(
                self.scope.lookup(inner.func), "__srcad_constructor__", False)):
            return node
        func = self.scope.lookup(inner.args[0])
        if not callable(func):
            return node
        try:
            args = [_constant(a) for a in inner.args[1:]]
            keywords = {k.arg: _constant(k.value) for k in inner.keywords if k.arg is not None}
        except ValueError:
            return node
        if len(keywords) != len(inner.keywords):
            return node
        made = self.scope.lookup(inner.func)(func, *args, **keywords)
        ident = self.fresh(f"{getattr(inner.func, 'attr', None) or inner.func.id}_"
                           f"{getattr(func, '__name__', 'f').strip('<>')}")
        self.scope.injected[ident] = made
        node.func = gast.copy_location(name(ident), inner)
        return node


def _reads_by_target(loop):
    """for k in d: ... d[k] ...: k is a key of d (a list is not read by its own items)."""
    if not isinstance(loop.target, gast.Name):
        return False
    return any(isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name)
               and n.value.id == loop.iter.id and isinstance(n.slice, gast.Name)
               and n.slice.id == loop.target.id for stmt in loop.body for n in walk(stmt))


def lower_statements(fdef, scope):
    """fdef with comprehensions as loops, harmless with blocks inlined, del of names and
    global/nonlocal declarations of names only read dropped (see the module's docstring).
    What a lowering rewrites must be in the function for it to run (a census of the node types
    and names first: a long function of plain arithmetic is walked a few times, not a dozen)."""
    kinds, names, stored, declared = _census(fdef)
    only_read = declared - stored
    fresh = Fresh(fdef, names)
    if gast.Starred in kinds:
        write_starred(fdef, scope, fresh)
    if "scipy.stats" in sys.modules:  # (only scipy.stats makes frozen distributions)
        unfreeze(fdef, scope, fresh)  # (rv = norm(m, s); rv.pdf(x) -> norm.pdf(x, m_1, s_1))
    if gast.For in kinds:
        write_out_object_loops(fdef, scope, fresh)  # (for layer in LAYERS: layer(x), written out)
    fdef.body = [_Methods(scope, fresh).visit(stmt) for stmt in fdef.body]
    fdef.body = [_Dicts(scope).visit(stmt) for stmt in fdef.body]
    fdef.body = lower_block(fdef.body, fresh, scope, only_read)
    kinds, used, _, _ = _census(fdef)  # (the loops and dicts the lowering made, too)
    if any(scope.lookup(name(n)) is functools.partial for n in used):  # (map(partial(g, w),
        fdef.body = [_Partials(scope).visit(stmt) for stmt in fdef.body]  # xs) a loop by now)
    if any(_makes_derivatives(scope.lookup(name(n))) for n in used):
        fdef.body = [_Derivatives(scope, fresh).visit(stmt) for stmt in fdef.body]  # (grad(f)(x))
    if _DOUBLE_STARRED in kinds:
        expand_keywords(fdef)  # (h(x, **d), d's keys known: before d[k] = v is rewritten)
    dicts = _dict_names(fdef) if "dict_of" in used else set()
    if dicts:
        _stores_into_dicts(fdef, dicts, scope)
    if gast.For in kinds:
        for loop in walk(fdef):  # (comprehensions' loops included)
            if isinstance(loop, gast.For) and isinstance(loop.iter, gast.Name) and (
                    loop.iter.id in dicts or _reads_by_target(loop)):  # for k in d: d's keys
                loop.iter = gast.Call(func=gast.Attribute(value=loop.iter, attr="keys",
                                                          ctx=gast.Load()), args=[], keywords=[])
            if isinstance(loop, gast.For) and _dict_view(loop.iter):
                _over_keys(loop, fresh, scope)
    if dicts or gast.For in kinds:  # (dict_with, keys_of written since)
        used = {n.id for n in walk(fdef) if isinstance(n, gast.Name)}
    for helper in ("dict_of", "dict_with", "keys_of"):  # the runtime helpers written above,
        if helper in used:  # known to the passes after this one as resolve's names are
            scope.injected.setdefault(helper, runtime.HELPERS[helper])
    return fdef
