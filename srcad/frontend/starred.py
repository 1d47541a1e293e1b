"""starred: * in displays and calls, written with what later passes know (run by statements).

    [*a, *b, c]          ->   list(tuple(a) + tuple(b) + (c,))
    (*a, c)              ->   tuple(a) + (c,)
    pair(*p)             ->   pair(p[0], p[1])        (pair takes exactly two positional
                                                      parameters, none with a default; p
                                                      a name or an item, no call)
    total(a, b, *rest)   ->   total(a, *((b,) + tuple(rest)))   for def total(a, *args):
                                                      args is that tuple (calls.bind)

`+` of tuples joins them, and its adjoint splits (runtime.concat_adjoint); the pieces are
tuples because the tangent of a display is a tuple. A call's *p is
written out only where the callee's positional parameters it fills have no defaults, so the
number of items Python would pass is fixed; `f(*p)` with more or fewer items than that raises
in Python and is not checked here. Other starred calls are left for the fence to refuse.
"""
import inspect

import gast

from ..syntax.naming import clone
from ..syntax.nodes import call


class _Starred(gast.NodeTransformer):
    def __init__(self, scope):
        self.scope = scope

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
                                    for n in gast.walk(node.args[starred[0]].value)):  # pure)
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


def write_starred(fdef, scope):
    """fdef with * in displays and in calls of functions of fixed arity written out."""
    fdef.body = [_Starred(scope).visit(stmt) for stmt in fdef.body]
    return fdef
