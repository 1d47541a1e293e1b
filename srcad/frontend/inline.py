"""inline: small helpers of the same module written into the caller, where the call is a whole
statement's value, so their derivative is built with the caller's: specialized to the shapes the
caller's probe sees, with no generic helper code (unbroadcast, dot_axes) and no call per turn.

    def rhs(y, k):                          def integrate(y0, k):
        return A @ y + k * np.tanh(y)           ...
                                    ->          y_1 = y + h * k3    (rhs's parameter, fresh)
    def integrate(y0, k):                       k4 = A @ y_1 + k * np.tanh(y_1)
        ...
        k4 = rhs(y + h * k3, k)                 (an argument that is a name or a number, and
                                                that the helper does not rebind, is read as
                                                it is)

A helper is written in when it is a plain function of the caller's module (the same globals,
no closure), of another module of the user's that the caller calls by a name of its own or as
an attribute of a module it holds (the globals it reads: the modules the caller reads under
the same name, builtins, and the rest as attributes of its module, SCALE -> mylib.SCALE, where
the caller holds that module: _foreign_reads), or a function defined in the caller (lift.py
has made it one, whose parameters take what it reads of the caller, passed at each call),
has no template of its own, ends with
its only return, is short (at most _MOST statements), takes no *args or **kwargs and only
constant defaults, contains nothing the fence would refuse, nested functions, try, global
declarations or yield, changes no parameter's value in place (p += v, p[i] = v, p.append(v),
p.sort(): such a call is refused as a call, with the helper's name), and reads no global that a
name of the caller hides. Its names are renamed fresh; its statements keep the call's position,
so comments and errors point at the call (an error in an expression of a nested function, at
its own place in the caller). Helpers it calls are written in too, to a depth of _DEPTH (a
recursive helper never is). Anything else stays a call (rules/calls.py differentiates it from
its source).
"""
import builtins
import inspect
import sysconfig
import types

import gast
import numpy as np

from ..errors import SrcadError
from ..syntax.naming import clone, Namer, Rename, Substitute, walk
from ..syntax.nodes import dotted_parts, name
from ..syntax.visitor import Transformer
from .fence import check
from .mutation import CHANGING_METHODS, changed_root
from .parse import parse_function

_MOST = 40
_DEPTH = 3
# what lift.py sets on a nested function it lifts (its text, the user's def it came from): such
# a function is written in like a module's (a function lifted from a try block also carries
# __srcad_try__, and stays a call)
_LIFTED_MARKS = frozenset({"__srcad_lifted_text__", "__srcad_lifted_from__"})
_INSTALLED = ("site-packages", "dist-packages")  # (where installed libraries live)
_STDLIB = sysconfig.get_paths()["stdlib"]
_ABSENT = object()
_STOPS = (gast.FunctionDef, gast.Lambda, gast.ClassDef, gast.Try, gast.Global, gast.Nonlocal,
          gast.Yield, gast.YieldFrom, gast.Await)


def _written_in(func, caller, templated):
    """The helper's def, parsed, if it may be written into a function of `caller`'s module (or
    of another of the user's modules, its global reads as the caller reads them: see
    _foreign_reads)."""
    own = isinstance(func, types.FunctionType) and func.__globals__ is caller.__globals__
    if not (isinstance(func, types.FunctionType) and (own or _users_module(func))
            and func.__closure__ is None and not templated(func)
            and set(func.__dict__) <= _LIFTED_MARKS
            and func.__code__.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS
                                          | inspect.CO_GENERATOR) == 0):
        return None
    try:
        fdef, info = parse_function(func)
        check(clone(fdef), info)  # (what the fence refuses is reported at the helper's line)
    except SrcadError:
        return None
    body = [s for s in fdef.body if not (isinstance(s, gast.Expr) and isinstance(
        s.value, gast.Constant) and isinstance(s.value.value, str))]
    returns = [n for n in walk(fdef) if isinstance(n, gast.Return)]
    if not body or len(returns) != 1 or body[-1] is not returns[0] or returns[0].value is None:
        return None
    if sum(isinstance(n, gast.stmt) for n in walk(fdef)) > _MOST + 1 or any(
            isinstance(n, _STOPS) for s in body for n in walk(s)):
        return None
    args = fdef.args
    if args.posonlyargs or any(d is not None and not isinstance(d, gast.Constant)
                               for d in args.defaults + args.kw_defaults):
        return None
    params = {a.id for a in args.args + args.kwonlyargs}
    if any(changed_root(node) in params for s in body for node in walk(s)):
        return None  # (a helper that changes its argument stays a call: refused as one, there)
    if not own:
        foreign = _foreign_reads(fdef, func, caller)
        if foreign is None:
            return None
        body = [_ReadThrough(foreign).visit(s) for s in body]
    fdef.body = body
    return fdef


def _watchable(call, helper, caller):
    """Whether a later redefinition of the helper would be seen (Built.inlined: the caller's
    global names, or dotted paths from a module it holds, of the helpers written in): a helper
    of another module is written in where it is called by a name (from mylib import rhs;
    rhs(y)) or as an attribute of a module the caller holds in a global (mylib.rhs(y))."""
    if isinstance(call.func, gast.Name) or getattr(helper, "__globals__", None) is (
            caller.__globals__):
        return True
    parts = dotted_parts(call.func)
    return parts is not None and isinstance(caller.__globals__.get(parts[0]), types.ModuleType)


def _users_module(func):
    """Whether func comes from a module of the user's (not an installed library's or Python's
    own: those stay calls, differentiated from their source by rules/calls.py)."""
    return is_users_module(inspect.getmodule(func))


def is_users_module(module):
    """Whether a module is the user's: one with a file, not srcad's own (the runtime's functions
    are differentiated by templates), an installed library's or Python's."""
    if module is None or (module.__name__ or "").split(".")[0] == __name__.split(".")[0]:
        return False
    path = getattr(module, "__file__", None) or ""
    return bool(path) and not any(part in path for part in _INSTALLED) and not path.startswith(
        _STDLIB)


def _foreign_reads(fdef, func, caller):
    """For a helper of another of the user's modules: {each global name it reads that the
    caller's module does not read alike: the name of a global of the caller's that holds the
    helper's module}, or None where the helper cannot be written in. Written into the caller,
    the helper's statements read the caller's globals: a module read under the same name in
    both (np, math) and a builtin neither module rebinds read alike; any other global (a
    constant, another function of the helper's module) is read as an attribute of the helper's
    module (SCALE -> mylib.SCALE), which is what the helper reads when it runs, rebound or not,
    where the caller holds that module (import mylib). A global the helper's module lacks
    (NameError when it runs), a module it reads under another name than the caller, or a
    builtin one of them rebinds: None (the helper stays a call)."""
    local = {n.id for n in walk(fdef) if isinstance(n, gast.Name) and not isinstance(
        n.ctx, gast.Load)} | {a.id for a in walk(fdef.args) if isinstance(a, gast.Name)}
    holders = sorted(ident for ident, value in caller.__globals__.items() if isinstance(
        value, types.ModuleType) and vars(value) is func.__globals__)
    foreign = {}
    for ident in sorted({n.id for n in walk(fdef) if isinstance(n, gast.Name)} - local):
        mine = func.__globals__.get(ident, _ABSENT)
        theirs = caller.__globals__.get(ident, _ABSENT)
        if mine is theirs and (isinstance(mine, types.ModuleType) or (
                mine is _ABSENT and hasattr(builtins, ident))):
            continue  # (read alike)
        if mine is _ABSENT or isinstance(mine, types.ModuleType) or not holders:
            return None
        foreign[ident] = holders[0]
    return foreign


class _ReadThrough(Transformer):
    """Each read of a global name in `foreign` (name -> the caller's name of the helper's
    module) as that module's attribute: SCALE -> mylib.SCALE (see _foreign_reads)."""

    def __init__(self, foreign):
        self.foreign = foreign

    def visit_Name(self, node):
        holder = self.foreign.get(node.id)
        if holder is None or not isinstance(node.ctx, gast.Load):
            return node
        return gast.copy_location(gast.Attribute(
            value=gast.copy_location(name(holder), node), attr=node.id, ctx=gast.Load()), node)


_CONDITIONAL = (gast.BoolOp, gast.IfExp, gast.ListComp, gast.SetComp, gast.DictComp,
                gast.GeneratorExp, gast.Lambda, gast.NamedExpr)
_READING_BUILTINS = frozenset((len, abs, min, max, sum, float, int, bool, range, tuple, list,
                               zip, enumerate, round, pow, reversed, sorted, isinstance))


def _reads_only(call, scope):
    """Whether a call surely changes nothing another call could see: a numpy (not
    numpy.random) or math function, a builtin that reads, or a method that changes nothing."""
    op = scope.lookup(call.func)
    if op is None:  # a method of a value: an array's that changes nothing
        return isinstance(call.func, gast.Attribute) and hasattr(np.ndarray, call.func.attr) and (
            call.func.attr not in CHANGING_METHODS)
    if any(op is b for b in _READING_BUILTINS):
        return True
    module = getattr(op, "__module__", None) or ""
    if isinstance(op, np.ufunc):
        return True
    return (module == "math" or module.startswith("numpy")) and "random" not in module


def _called_parameters(hdef, params):
    """The parameters the helper calls, or calls a method of (activation(z), model.f(x))."""
    called = set()
    for node in walk(hdef):
        if isinstance(node, gast.Call):
            root = node.func
            while isinstance(root, gast.Attribute):
                root = root.value
            if isinstance(root, gast.Name) and root.id in params:
                called.add(root.id)
    return called


def inline_helpers(fdef, func, scope, templated, inlined, depth=0, stack=()):
    """fdef with calls of small same-module helpers written in (see the module docstring);
    scope: what names denote in func (before resolve: its lookup finds the helpers);
    templated(op): whether op has templates of its own; inlined: a set that gets the global
    names of the helpers written in (a later call checks they still denote them)."""
    fresh = Namer({n.id for n in walk(fdef) if isinstance(n, gast.Name)} | {
        a.id for a in walk(fdef.args) if isinstance(a, gast.Name)}).fresh  # (y -> y_1, y_2)
    hidden = set(scope.local_names) | {n.id for n in walk(fdef) if isinstance(  # (locals: a
        n, gast.Name) and not isinstance(n.ctx, gast.Load)}  # helper's global reads must not
    # meet one)
    parsed = {}  # helper -> its def as _written_in reads it, or None (each parsed once)

    def written_in(helper):
        if helper not in parsed:
            parsed[helper] = _written_in(helper, func, templated)
        return parsed[helper]

    def written(stmt):
        value = stmt.value if isinstance(stmt, (gast.Assign, gast.Expr, gast.Return)) else None
        if not isinstance(value, gast.Call) or any(
                isinstance(a, gast.Starred) for a in value.args) or any(
                k.arg is None for k in value.keywords):
            return None
        helper = scope.lookup(value.func)
        if helper is None or helper in stack or depth >= _DEPTH or not _watchable(
                value, helper, func):
            return None
        hdef = written_in(helper)
        if hdef is None:
            return None
        hdef = clone(hdef)  # (written into this call site: the next one gets its own copy)
        try:
            bound = inspect.signature(helper).bind(*value.args, **{
                k.arg: k.value for k in value.keywords})
        except TypeError:
            return None  # (Python raises there: the call stays, and raises as Python does)
        own = {n.id for n in walk(hdef) if isinstance(n, gast.Name) and not isinstance(
            n.ctx, gast.Load)} | {a.id for a in walk(hdef.args) if isinstance(a, gast.Name)}
        reads = {n.id for n in walk(hdef) if isinstance(n, gast.Name) and isinstance(
            n.ctx, gast.Load)} - own
        if reads & hidden:
            return None  # (a global the helper reads is a local of the caller's)
        params = inspect.signature(helper).parameters
        stored = {n.id for s in hdef.body for n in walk(s) if isinstance(n, gast.Name)
                  and not isinstance(n.ctx, gast.Load)}
        called = _called_parameters(hdef, params)
        for param in called:  # a function or object the helper calls: its name, if known
            argument = bound.arguments.get(param)
            if not (isinstance(argument, (gast.Name, gast.Attribute))
                    and scope.lookup(argument) is not None) or param in stored or {
                        n.id for n in walk(argument) if isinstance(n, gast.Name)} & (
                        own - called):  # (f=f: the parameter's own name goes with it)
                return None  # (rules/calls.py specializes the helper to it instead)
        hdef.body = [Substitute({p: bound.arguments[p] for p in called}).visit(s)
                     for s in hdef.body]
        hdef = inline_helpers(  # (a helper of another module reads as the caller does now)
            hdef, helper if helper.__globals__ is func.__globals__ else func, scope, templated,
            inlined, depth + 1, stack + (helper,))
        own |= {n.id for n in walk(hdef) if isinstance(n, gast.Name) and not isinstance(
            n.ctx, gast.Load)}
        mapping = {ident: fresh(ident) for ident in sorted(own - called)}  # (a parameter
        # the helper calls was replaced by the caller's name for the function: not renamed)
        out, direct = [], {}
        for param in params.values():  # p_1 = argument (or its constant default)
            if param.name in called:
                continue
            argument = bound.arguments.get(param.name)
            if argument is None:
                argument = gast.Constant(value=param.default, kind=None)
            if isinstance(argument, (gast.Name, gast.Constant)) and param.name not in stored:
                direct[mapping[param.name]] = argument  # (read as it is: no copy to a name)
                continue
            out.append(gast.Assign(targets=[name(mapping[param.name], gast.Store())],
                                   value=argument, type_comment=None))
        body = [Substitute(direct).visit(Rename(mapping).visit(s)) for s in hdef.body]
        parts = dotted_parts(value.func)
        if parts is not None and not hasattr(helper, "__srcad_lifted_from__"):
            inlined.add(".".join(parts))  # (a global, or a path from a module in one: watched;
            # a nested function is the caller's own)
        result = body.pop().value
        out += body
        if isinstance(stmt, gast.Assign):
            out.append(gast.Assign(targets=stmt.targets, value=result, type_comment=None))
        elif isinstance(stmt, gast.Return):
            out.append(gast.Return(value=result))
        else:
            out.append(gast.Expr(value=result))
        nested = hasattr(helper, "__srcad_lifted_from__")
        for s in out:  # (comments and errors point at the call; in a nested function, an
            # error in an expression points at its own place, in the user's function too)
            for node in walk(s):
                if "lineno" in getattr(node, "_attributes", ()) and not (
                        nested and isinstance(node, gast.expr)):
                    gast.copy_location(node, stmt)
        return out

    # (a generated derivative differentiated again keeps its calls of the callees' halves as
    # they are: the higher-order builds read their tape records whole)
    generated = hasattr(func, "__srcad_sync__")

    def candidate(call):
        """Whether a call would be written in if it were a statement's whole value."""
        helper = scope.lookup(call.func)
        return helper is not None and helper not in stack and depth < _DEPTH and _watchable(
            call, helper, func) and not any(
            isinstance(a, gast.Starred) for a in call.args) and not any(
            k.arg is None for k in call.keywords) and written_in(helper) is not None

    def hoisted(stmt):
        """(statements, stmt): the helper calls inside stmt's value (or an if's test) bound to
        fresh names before it, in the order Python calls them, so each is a statement's whole
        value; only where nothing else the statement calls can see the difference (numpy and
        math functions, builtins that read, methods that change nothing) and no call is
        conditional (and/or, x if c else y, a chained comparison, a comprehension, a lambda)."""
        root = stmt.test if isinstance(stmt, gast.If) else getattr(stmt, "value", None) if (
            isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Return, gast.Expr))) else None
        if root is None or generated:
            return [], stmt
        calls = [n for n in walk(root) if isinstance(n, gast.Call)]
        found = [c for c in calls if c is not root and candidate(c)]
        if not found or any(isinstance(n, _CONDITIONAL) or isinstance(n, gast.Compare) and len(
                n.ops) > 1 for n in walk(root)) or not all(
                c in found or c is root and candidate(c) or _reads_only(c, scope)
                for c in calls):
            return [], stmt
        chosen = {id(c) for c in found}
        pre = []

        def lift(node):  # post-order: arguments before the call, left to right
            for field, value in gast.iter_fields(node):
                if isinstance(value, gast.AST):
                    setattr(node, field, lift(value))
                elif isinstance(value, list):
                    setattr(node, field, [lift(v) if isinstance(v, gast.AST) else v
                                          for v in value])
            if id(node) in chosen:
                ident = fresh(dotted_parts(node.func)[-1])
                pre.append(gast.copy_location(gast.Assign(
                    targets=[name(ident, gast.Store())], value=node, type_comment=None), stmt))
                return name(ident)
            return node
        if isinstance(stmt, gast.If):
            stmt.test = lift(stmt.test)
        else:
            stmt.value = lift(stmt.value)
        return pre, stmt

    def rewrite(stmts):
        out = []
        for stmt in stmts:
            if not isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
                for field in ("body", "orelse"):
                    block = getattr(stmt, field, None)
                    if isinstance(block, list):
                        setattr(stmt, field, rewrite(block))
            pre, stmt = hoisted(stmt)
            for s in pre + [stmt]:
                out += written(s) or [s]
        return out

    fdef.body = rewrite(fdef.body)
    return fdef
