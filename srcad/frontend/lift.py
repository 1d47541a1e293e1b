"""lift: functions defined inside the differentiated function become functions of
their own, so calls of them are differentiated like calls of any helper (calls.py).

    def f(x, w):                          def g(v, *, w):          (compiled from a file in the
        def g(v):                             return v * w          cache dir, with f's globals)
            return v * w           ->
        sq = lambda t: t * t              def sq(t):
        return np.sum(g(x) + sq(x))           return t * t

                                          def f(x, w):
                                              return np.sum(g(x, w=w) + sq(x))

The names the nested function reads from f become keyword arguments passed at each call, so it
sees their values at the time of the call, as a closure would. A default computed from f's
values (def g(v, s=scale)) is computed where the def was (g_s_default = scale) and passed by
the calls that leave it out, as Python evaluates it once, at the def. A nested function that
calls another is passed that one (and what it reads) the same way. Where a name would not mean
what Python makes it mean, the names are made distinct first: a nested function named like a
runtime helper is renamed (the derivative calls the helper by its name), and so is each later
definition under a name defined twice; a read before the def is refused.
(inline.py then writes most of them into their caller, like a helper of the module.)
"""
import types

import gast

from ..backend.emit import function_source
from ..runtime import HELPERS
from .parse import _lambda_as_def
from .statements import Fresh
from ..syntax.naming import bound_counts, clone, loaded_names, Rename, stored_roots, walk
from ..syntax.visitor import Transformer



def _nested(stmt):
    """(name, def node) for `def g(...)` or `g = lambda ...`, else None."""
    if isinstance(stmt, gast.FunctionDef):
        return stmt.name, stmt
    if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Lambda)):
        return stmt.targets[0].id, _lambda_as_def(stmt.value, stmt, stmt.targets[0].id)
    return None


def lift(fdef, func, info, local_names, write_module):
    """Take nested functions out of fdef; returns {name: function object} to bind them to."""
    _number_redefinitions(fdef, local_names)
    _rename_helper_homonyms(fdef, local_names)
    _refuse_reads_before_definitions(fdef, info)
    nested = {}
    body = []
    computed = {}  # name -> {parameter: the name holding its default, computed at the def}
    for stmt in fdef.body:
        found = _nested(stmt)
        if found is None:
            body.append(stmt)
            continue
        name, node = found
        nested[name] = node
        computed[name] = {}
        args = node.args
        positional = args.posonlyargs + args.args
        pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults)) + [
            (a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
        for param, default in pairs:  # def g(v, s=scale): scale's value at the def, kept in
            if isinstance(default, gast.Constant):  # a name passed when a call leaves s out
                continue
            holder = f"{name}_{param.id}_default"
            while holder in local_names:
                holder += "_"
            body.append(gast.copy_location(gast.Assign(
                targets=[gast.Name(id=holder, ctx=gast.Store(), annotation=None,
                                   type_comment=None)], value=default, type_comment=None),
                stmt))
            computed[name][param.id] = holder
    if not nested:
        return {}
    cells = set(func.__code__.co_freevars)
    reads = {}  # name -> what it reads of f's (values, and the nested functions it calls)
    for name, node in list(nested.items()):
        args = node.args
        if node.decorator_list or args.vararg or args.kwarg:
            raise info.error(node, f"srcad lifts nested functions with plain parameters only; "
                                   f"{name} has decorators, *args or **kwargs",
                             hint="define it at module level")
        node = nested[name] = clone(node)  # (computed defaults: None here, every call passes
        none = gast.Constant(value=None, kind=None)  # them)
        args = node.args
        args.defaults = [d if isinstance(d, gast.Constant) else clone(none)
                         for d in args.defaults]
        args.kw_defaults = [d if d is None or isinstance(d, gast.Constant) else clone(none)
                            for d in args.kw_defaults]
        _refuse_writes_outside(node, name, local_names | cells, info)
        free = loaded_names(node) - set(bound_counts(node))
        if name in free:
            raise info.error(node, f"nested function {name} calls itself: srcad lifts a nested "
                                   f"function out of the function around it, where its own name "
                                   f"is not bound", hint=f"define {name} at module level (srcad "
                                                         f"follows recursive calls there)")
        for other in sorted(set(nested) & free):  # (passed at each call, as f's values are)
            if name in _nested_reads(nested, other):
                raise info.error(node, f"nested functions {name} and {other} call each other: "
                                       f"srcad lifts them out of the function around them, "
                                       f"where they cannot reach each other",
                                 hint=f"define {name} and {other} at module level (srcad "
                                      f"follows recursive calls there)")
            if computed[other]:
                raise info.error(node, f"nested function {name} calls nested function {other}, "
                                       f"whose default is computed from the function's values: "
                                       f"srcad passes such a default from the function's calls "
                                       f"only", hint=f"pass {other} that argument here")
        reads[name] = (free & (local_names | cells)) - {name}
    calls = {}  # name -> (what it is passed at each call, its parameters, computed defaults)
    for name, node in nested.items():
        extras = set(reads[name])
        for other in _nested_reads(nested, name):  # (and what the ones it calls are passed)
            extras |= reads[other] - {name}
        args = node.args
        calls[name] = (sorted(extras), [a.id for a in args.posonlyargs + args.args],
                       computed[name])
    lifted = {}
    for name, node in nested.items():
        extras = calls[name][0]
        lifted_def = clone(node)
        lifted_def.decorator_list = []
        for extra in extras:
            lifted_def.args.kwonlyargs.append(gast.Name(id=extra, ctx=gast.Param(),
                                                        annotation=None, type_comment=None))
            lifted_def.args.kw_defaults.append(None)
        _CallRewriter(calls, info).visit_body(lifted_def.body)  # (the nested functions it
        # calls are passed what they read)
        text = function_source(lifted_def)
        path = write_module(text, f"lifted_{func.__qualname__}_{name}".replace("<", "").replace(
            ">", "").replace(".", "_"))
        code = compile(text, path, "exec")
        function_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
        defaults = tuple(d.value for d in node.args.defaults) or None
        function = types.FunctionType(function_code, func.__globals__, name, defaults)
        function.__qualname__ = f"{func.__qualname__}.<locals>.{name}"
        function.__module__ = func.__module__
        function.__srcad_lifted_text__ = text
        function.__srcad_lifted_from__ = (info, lifted_def)  # (parse: the user's lines)
        lifted[name] = function
    _CallRewriter(calls, info).visit_body(body)
    fdef.body = body
    return lifted


def _fresh_names(fdef, local_names):
    """A Fresh (statements.py) giving names that fdef, its locals and the runtime helpers do
    not use."""
    fresh = Fresh(fdef)
    fresh.taken |= set(local_names) | set(HELPERS)
    return fresh


def _number_redefinitions(fdef, local_names):
    """A nested function defined twice under one name (def g ...; a = g(x); def g ...; b =
    g(x)): each definition after the first renamed fresh (g_1), and the reads after it, up to
    the next, read it; so each call calls the definition before it, as Python does. (Lifted by
    name, the last definition was the one every call ran: a wrong gradient.) Only for names
    that nothing else binds (anything else: left as written, and refused where it is read)."""
    defined = [found[0] for found in map(_nested, fdef.body) if found is not None]
    twice = {name for name in defined if defined.count(name) > 1} - {
        n.id for stmt in fdef.body if _nested(stmt) is None for n in walk(stmt)
        if type(n) is gast.Name and type(n.ctx) is not gast.Load}
    if not twice:
        return
    fresh = _fresh_names(fdef, local_names)
    current, seen = {}, set()
    for stmt in fdef.body:
        found = _nested(stmt)
        if found is not None and found[0] in twice:
            name = found[0]
            if name in seen:
                current[name] = fresh(name)
                if isinstance(stmt, gast.FunctionDef):
                    stmt.name = current[name]
                else:
                    stmt.targets[0].id = current[name]
            seen.add(name)
        elif current:
            Rename(current).visit(stmt)


def _refuse_reads_before_definitions(fdef, info):
    """A nested function read before its def (a = g(x); def g(v): ...), with nothing else
    bound to its name before: Python raises UnboundLocalError there, where the lifted function
    would be called and the derivative computed. Refused at the read. (A name bound to a value
    first, g = 2.0, is read as that value: left to the rest of srcad.)"""
    nested = dict(found for found in map(_nested, fdef.body) if found is not None)
    waiting = set(nested)
    for stmt in fdef.body:
        found = _nested(stmt)
        if found is not None:
            waiting.discard(found[0])
            continue
        nodes = walk(stmt)
        for node in nodes:
            if type(node) is gast.Name and type(node.ctx) is gast.Load and node.id in waiting:
                raise info.error(node, f"{node.id} is read here before the nested function "
                                       f"{node.id} is defined: Python raises UnboundLocalError "
                                       f"here", hint=f"define {node.id} before this line")
            if type(node) is gast.Name and type(node.ctx) is gast.Load and node.id in nested:
                late = sorted(_nested_reads(nested, node.id) & waiting)
                if late:  # (it reads them when it is called: here)
                    raise info.error(node, f"{node.id} reads the nested function {late[0]}, "
                                           f"which is defined after this line: Python raises "
                                           f"NameError here", hint=f"define {late[0]} before "
                                                                   f"this line")
        waiting -= {node.id for node in nodes if type(node) is gast.Name}


def _nested_reads(nested, name):
    """The nested functions (of nested: name -> def node) that calling `name` reads, directly
    or through the ones it reads."""
    found, todo = set(), [name]
    while todo:
        node = nested[todo.pop()]
        for other in (loaded_names(node) - set(bound_counts(node))) & set(nested):
            if other not in found:
                found.add(other)
                todo.append(other)
    return found


def _rename_helper_homonyms(fdef, local_names):
    """A nested function named like a runtime helper (def safe_div(a, b): ...) renamed fresh in
    fdef (safe_div_1): lifted, it is bound by its name next to the derivative, whose code calls
    the runtime helper by that name (the adjoint of a division): the user's function took the
    helper's place, and the derivative's numbers were wrong."""
    names = [found[0] for found in map(_nested, fdef.body) if found is not None]
    clashing = sorted(set(names) & HELPERS.keys())
    if not clashing:
        return
    fresh = _fresh_names(fdef, local_names)
    renamer = Rename({name: fresh(name) for name in clashing})
    mapping = renamer.mapping
    for stmt in fdef.body:
        if isinstance(stmt, gast.FunctionDef) and stmt.name in mapping:
            stmt.name = mapping[stmt.name]
        renamer.visit(stmt)


def _refuse_writes_outside(node, name, outer, info):
    """A nested function that rebinds a variable of the enclosing function (nonlocal, global)
    or writes into one (s[0] = ...): lifted, it gets the values it reads passed in, so the
    write would not reach the enclosing function (a SyntaxError, or a NameError, in the lifted
    code). Refused at the write."""
    for n in walk(node):
        if type(n) in (gast.Nonlocal, gast.Global):
            raise info.error(n, f"srcad does not differentiate a nested function that rebinds "
                                f"a variable of the function around it ({name}: "
                                f"{', '.join(n.names)})",
                             hint="return the new value and assign it in the outer function")
    params = {a.id for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
    assigned = {t.id for n in walk(node) if type(n) in (gast.Assign, gast.For)
                for t in walk(n.targets[0] if type(n) is gast.Assign else n.target)
                if type(t) is gast.Name and type(t.ctx) is gast.Store}
    for root in stored_roots(node):
        if root.id in outer and root.id not in params | assigned:
            raise info.error(root, f"srcad does not differentiate a nested function that writes "
                                   f"into {root.id}, a variable of the function around it "
                                   f"({name})", hint="return the new value and store it in the "
                                                     "outer function")


class _CallRewriter(Transformer):
    """g(x) -> g(x, w=w): pass the lifted function what it read from f."""

    def __init__(self, calls, info):
        self.calls = calls  # name -> (what it is passed, its parameters, computed defaults)
        self.info = info

    def visit_body(self, stmts):
        for stmt in stmts:
            self.visit(stmt)

    def visit_Call(self, node):
        if isinstance(node.func, gast.Name) and node.func.id in self.calls:
            extras, params, computed = self.calls[node.func.id]
            node.args = [self.visit(a) for a in node.args]
            for kw in node.keywords:
                kw.value = self.visit(kw.value)
            given = set(params[:len(node.args)]) | {kw.arg for kw in node.keywords}
            left_out = [(p, holder) for p, holder in computed.items() if p not in given]
            node.keywords += [gast.keyword(arg=k, value=gast.Name(
                id=v, ctx=gast.Load(), annotation=None, type_comment=None))
                for k, v in [(e, e) for e in extras] + left_out]
            return node
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id in self.calls and isinstance(node.ctx, gast.Load) and any(
                self.calls[node.id][i] for i in (0, 2)):  # (one that reads nothing of f's is
            # a plain function: a call it is passed to is specialized to it, calls.py)
            raise self.info.error(node, f"srcad can pass the nested function {node.id} as a "
                                        f"value only if it reads none of the function's names",
                                  hint="call it directly, pass the values it reads as "
                                       "arguments, or define it at module level")
        return node
