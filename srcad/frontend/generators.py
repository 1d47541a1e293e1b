"""generators: a helper that yields becomes a helper that returns the list of what it yields.

    def layers(x, Ws):                        def layers(x, Ws):
        for W in Ws:                              yielded = []
            x = np.tanh(W @ x)          ->        for W in Ws:
            yield x                                   x = np.tanh(W @ x)
                                                      yielded.append(x)
                                                  return yielded

The caller reads the list as it read the generator (a call of a generator function is
`list(h(...))` there: as_list, run by statements), and the items' adjoints reach the list as for
any helper that returns one. The difference: the helper runs to its end before the caller reads
its first item, so a generator that never ends (`while True`) is refused at the call, and
`yield from g` takes all of g. Only helpers are lowered so: the differentiated function itself
returns a value (the fence refuses its yield).
"""
import inspect

import gast

from ..errors import SrcadError
from ..syntax.naming import walk
from ..syntax.nodes import call, name
from .parse import parse_function
from ..syntax.visitor import Transformer


def _append(items, value, at):
    call = gast.Call(func=gast.Attribute(value=name(items), attr="append", ctx=gast.Load()),
                     args=[value], keywords=[])
    return gast.copy_location(gast.Expr(value=call), at)


def lower_generator(fdef, info):
    """fdef (a generator function's def) returning the list of the values it yields."""
    taken = {n.id for n in walk(fdef) if isinstance(n, gast.Name)}
    items = "yielded"
    while items in taken:
        items += "_"
    item = items + "_item"

    def rewrite(stmts):
        out = []
        for stmt in stmts:
            if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Yield):
                value = stmt.value.value or gast.Constant(value=None, kind=None)
                out.append(_append(items, value, stmt))
                continue
            if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.YieldFrom):
                loop = gast.For(target=name(item, gast.Store()), iter=stmt.value.value,
                                body=[_append(items, name(item), stmt)], orelse=[],
                                type_comment=None)
                out.append(gast.copy_location(loop, stmt))
                continue
            if isinstance(stmt, gast.Return):  # (a generator's return value is not yielded)
                out.append(gast.copy_location(gast.Return(value=name(items)), stmt))
                continue
            if not isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
                for field in ("body", "orelse", "finalbody"):
                    block = getattr(stmt, field, None)
                    if isinstance(block, list):
                        setattr(stmt, field, rewrite(block))
                for handler in getattr(stmt, "handlers", []):
                    handler.body = rewrite(handler.body)
            out.append(stmt)
        return out

    fdef.body = rewrite(fdef.body)
    for node in walk(fdef):
        if isinstance(node, (gast.Yield, gast.YieldFrom)):
            raise info.error(node, "srcad differentiates helper generators whose yield is a "
                                   "statement of its own, not a value (x = yield ...)",
                             hint="yield on a line of its own")
    start = gast.copy_location(gast.Assign(targets=[name(items, gast.Store())], value=gast.List(
        elts=[], ctx=gast.Load()), type_comment=None), fdef.body[0])
    end = gast.copy_location(gast.Return(value=name(items)), fdef.body[-1])
    fdef.body = [start] + fdef.body + [end]
    return fdef


def as_list(node, func, info):
    """h(...) -> list(h(...)) for a generator function h (srcad reads what it yields by index);
    a SrcadError at the call if h has a `while True` loop (it would never end)."""
    if not inspect.isgeneratorfunction(func):
        return node
    try:
        fdef, _ = parse_function(func)
    except SrcadError:
        fdef = None  # (no source: the call is refused later as any such call is)
    for loop in walk(fdef) if fdef is not None else ():
        if isinstance(loop, gast.While) and isinstance(loop.test, gast.Constant) and loop.test.value:
            raise info.error(node, f"srcad runs the helper generator {func.__name__} to its end "
                                   f"before reading it, and it never ends (while True, line "
                                   f"{loop.lineno})",
                             hint="give its loop an end (for t in range(n)), or pass the number "
                                  "of values it should yield")
    return gast.copy_location(call(["list"], node), node)


class _Lists(Transformer):
    def __init__(self, scope, info):
        self.scope, self.info = scope, info

    def visit_Call(self, node):
        self.generic_visit(node)
        func = self.scope.lookup(node.func)
        return as_list(node, func, self.info) if func is not None else node


def list_generators(fdef, scope, info):
    """fdef with each call of a generator function h written list(h(...)) (as_list)."""
    fdef.body = [_Lists(scope, info).visit(stmt) for stmt in fdef.body]
    return fdef
