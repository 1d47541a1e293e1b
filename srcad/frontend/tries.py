"""tries: a try statement becomes a call of a function of its own, whose results are constants.

    def f(x, K):                               def try_at_5(ok):          (lifted: lift.py)
        ok = True                                  try:
        try:                                           np.linalg.cholesky(K)
            np.linalg.cholesky(K)          ->      except np.linalg.LinAlgError:
        except np.linalg.LinAlgError:                  ok = False
            ok = False                             return ok
        ...                                    def f(x, K):
                                                   ok = True
                                                   ok = try_at_5(ok)      (K: passed by lift)

Which way a try goes depends on where an exception is raised, which no derivative follows, so
the names a try binds are taken as constants: its function is passive (`__srcad_try__`). That
is right only where they are: a flag, a count, a fallback read from a file. check_tries (run
once activity is known) refuses a try that computes a value the output depends on from a
differentiated one, at the try's line, and says how to write it: compute a flag in the try and
the value after it, under `if ok:`. Names the try may leave unbound, or reads before binding,
are passed in, so they keep their values as in Python.
"""
import gast

from ..syntax.naming import Namer, walk
from ..syntax.nodes import name
from .mutation import CHANGING_METHODS



def _definite(stmts):
    """Names every run of stmts binds (assignments at top level, or in both branches)."""
    bound = set()
    for stmt in stmts:
        if isinstance(stmt, gast.Assign):
            for target in stmt.targets:
                bound |= {n.id for n in walk(target) if isinstance(n, gast.Name)}
        elif isinstance(stmt, gast.If):
            bound |= _definite(stmt.body) & _definite(stmt.orelse)
        elif isinstance(stmt, gast.With):
            bound |= _definite(stmt.body)
        elif isinstance(stmt, gast.Try):
            bound |= _definite(stmt.finalbody) | (
                _definite(stmt.body + stmt.orelse).intersection(
                    *(_definite(h.body) for h in stmt.handlers)))
    return bound


def _escapes(stmt, info, in_loop=False):
    """Refuse what a function of its own cannot do for the try: leave f, or the loop around."""
    for child in gast.iter_child_nodes(stmt):
        if isinstance(child, (gast.FunctionDef, gast.Lambda, gast.ClassDef)):
            continue
        if isinstance(child, gast.Return) or (isinstance(child, (gast.Break, gast.Continue))
                                              and not in_loop):
            word = "return" if isinstance(child, gast.Return) else (
                "break" if isinstance(child, gast.Break) else "continue")
            raise info.error(child, f"srcad runs a try statement as a function of its own, "
                                    f"and {word} cannot leave it",
                             hint="set a flag in the try and test it after the try")
        _escapes(child, info, in_loop or isinstance(child, (gast.For, gast.While)))


def _mutations(try_, own, info):
    """Refuse changes the try makes to values from outside it (they would not be seen)."""
    for node in walk(try_):
        if isinstance(node, (gast.Subscript, gast.Attribute)) and isinstance(
                node.ctx, gast.Store):
            root = node.value
            while isinstance(root, (gast.Subscript, gast.Attribute)):
                root = root.value
            if not (isinstance(root, gast.Name) and root.id in own):
                raise info.error(node, "srcad does not differentiate a try statement that "
                                       "stores into a value from outside it",
                                 hint="bind a new name in the try and store after it")
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and isinstance(
                node.func.value, gast.Name) and node.func.value.id not in own and (
                node.func.attr in CHANGING_METHODS | {"add", "discard"}):  # (and sets')
            raise info.error(node, f"srcad does not differentiate a try statement that "
                                   f"changes {node.func.value.id} (.{node.func.attr})",
                             hint="bind a new name in the try and change it after the try")


def lift_tries(fdef, info):
    """fdef with each try statement replaced by a call of a nested function (placed first in
    fdef's body, for lift); returns the names of those functions."""
    params = {a.id for a in walk(fdef.args) if isinstance(a, gast.Name)}
    fresh = Namer({n.id for n in walk(fdef) if isinstance(n, gast.Name)} | {
        n.name for n in walk(fdef) if isinstance(n, gast.FunctionDef)}).fresh_name
    made = []

    def rewrite(stmts):
        out = []
        for stmt in stmts:
            if isinstance(stmt, gast.Try):
                out.append(replace(stmt, stmts))
                continue
            if not isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
                for field in ("body", "orelse"):
                    block = getattr(stmt, field, None)
                    if isinstance(block, list):
                        setattr(stmt, field, rewrite(block))
            out.append(stmt)
        return out

    def replace(try_, siblings):
        _escapes(try_, info)
        handler_names = {h.name.id for h in try_.handlers if isinstance(h.name, gast.Name)}
        stored = sorted({n.id for n in walk(try_) if isinstance(n, gast.Name) and isinstance(
            n.ctx, gast.Store)} - handler_names)
        _mutations(try_, set(stored) | handler_names, info)
        read = {n.id for n in walk(try_) if isinstance(n, gast.Name) and isinstance(
            n.ctx, gast.Load)}
        outside = params | {n.id for n in walk(fdef) if isinstance(n, gast.Name) and isinstance(
            n.ctx, gast.Store) and not any(n is m for m in walk(try_))}
        definite = _definite([try_])
        prior = [v for v in stored if v in outside and (v not in definite or v in read)]
        ident = fresh(f"try_at_{try_.lineno}")
        body = [try_, gast.Return(value=name(stored[0]) if len(stored) == 1 else gast.Tuple(
            elts=[name(v) for v in stored], ctx=gast.Load()) if stored else None)]
        nested = gast.FunctionDef(
            name=ident, args=gast.arguments(
                args=[gast.Name(id=v, ctx=gast.Param(), annotation=None, type_comment=None)
                      for v in prior], posonlyargs=[], vararg=None, kwonlyargs=[],
                kw_defaults=[], kwarg=None, defaults=[]),
            body=[gast.copy_location(s, try_) for s in body], decorator_list=[], returns=None,
            type_comment=None)
        made.append(gast.copy_location(nested, try_))
        call = gast.Call(func=name(ident), args=[name(v) for v in prior], keywords=[])
        if not stored:
            return gast.copy_location(gast.Expr(value=call), try_)
        target = name(stored[0], gast.Store()) if len(stored) == 1 else gast.Tuple(
            elts=[name(v, gast.Store()) for v in stored], ctx=gast.Store())
        return gast.copy_location(gast.Assign(targets=[target], value=call, type_comment=None),
                                  try_)

    fdef.body = rewrite(fdef.body)
    fdef.body = made + fdef.body
    return {n.name for n in made}


def check_tries(fdef, scope, activity, info):
    """Refuse a try (now a call of its function) that computes a value the output depends on
    from a differentiated value: its derivative would be taken as zero."""
    for stmt in walk(fdef):
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Call)):
            continue
        func = scope.lookup(stmt.value.func)
        if not getattr(func, "__srcad_try__", False):
            continue
        call = stmt.value
        reads = {n.id for arg in call.args + [k.value for k in call.keywords]
                 for n in walk(arg) if isinstance(n, gast.Name)}
        outs = sorted({n.id for t in stmt.targets for n in walk(t) if isinstance(n, gast.Name)
                       and n.id in activity.useful})
        varied = sorted(reads & activity.varied)
        if varied and outs:
            raise info.error(stmt, "srcad does not differentiate through a try statement, and "
                                   "this one computes a value the result depends on from "
                                   "differentiated values",
                             hint="compute only a flag in the try (ok = True; except ...: "
                                  "ok = False) and the values after it, under `if ok:`; or "
                                  "move the try outside the differentiated function")
