"""distributions: scipy.stats' frozen distributions, written as calls of the distribution's methods.

    rv = norm(mu, s)                 ->   rv_loc = mu
    ... rv.logpdf(x) ... rv.cdf(y)        rv_scale = s
                                          ... norm.logpdf(x, rv_loc, rv_scale) ... norm.cdf(y, ...)
    multivariate_normal(m, C).logpdf(x)   ->   multivariate_normal.logpdf(x, m, C)

A frozen distribution's method takes the method's own arguments, then the ones the
distribution was frozen with (scipy's rv_frozen and the multivariate frozen classes pass them
so), and the unfrozen methods have templates (templates/scipy_stats*.py). The values frozen are
kept in names of their own where the distribution was made, so later changes to the names they
were read from do not reach them, as in Python. A name is rewritten only if it is bound once,
to a distribution, and read only as rv.method(...); otherwise the call is left as written (and
refused as a call srcad cannot resolve).
"""
import gast

from ..syntax.naming import clone, walk
from ..syntax.nodes import name
from ..syntax.visitor import Transformer


def is_distribution(value):
    """Whether value is a scipy.stats distribution that freezes when called (norm, poisson,
    multivariate_normal, ...), without importing scipy."""
    return any(c.__name__ in ("rv_generic", "multi_rv_generic")
               and c.__module__.startswith("scipy.stats") for c in type(value).__mro__)


def _frozen(node, scope):
    return isinstance(node, gast.Call) and is_distribution(scope.lookup(node.func))


def _unfrozen(method_call, freeze, args, keywords):
    """rv.m(a, k=v) with rv = D(args, keywords) -> D.m(a, *args, k=v, **keywords)."""
    method = method_call.func.attr
    return gast.copy_location(gast.Call(
        func=gast.Attribute(value=clone(freeze.func), attr=method, ctx=gast.Load()),
        args=method_call.args + [clone(a) for a in args],
        keywords=method_call.keywords + [clone(k) for k in keywords]), method_call)


class _Inline(Transformer):
    def __init__(self, scope):
        self.scope = scope

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, gast.Attribute) and _frozen(node.func.value, self.scope):
            freeze = node.func.value
            return _unfrozen(node, freeze, list(freeze.args), list(freeze.keywords))
        return node


def unfreeze(fdef, scope, fresh):
    """fdef with frozen distributions' method calls written as the distributions' own."""
    fdef.body = [_Inline(scope).visit(stmt) for stmt in fdef.body]
    stores, loads = {}, {}
    parents = {}
    for node in walk(fdef):
        for child in gast.iter_child_nodes(node):
            parents[id(child)] = node
        if isinstance(node, gast.Name):
            table = loads if isinstance(node.ctx, gast.Load) else stores
            table.setdefault(node.id, []).append(node)
    frozen = {}
    for stmt in walk(fdef):
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(
                stmt.targets[0], gast.Name) and _frozen(stmt.value, scope):
            ident = stmt.targets[0].id
            uses = loads.get(ident, [])
            if len(stores.get(ident, [])) == 1 and all(
                    isinstance(parents.get(id(u)), gast.Attribute) and isinstance(
                        parents.get(id(parents[id(u)])), gast.Call) and parents[
                        id(parents[id(u)])].func is parents[id(u)] for u in uses):
                frozen[ident] = stmt
    if not frozen:
        return fdef
    kept = {}
    for ident, stmt in frozen.items():  # rv = D(a, k=v) -> rv_1 = a; rv_k = v
        freeze = stmt.value
        holders = [fresh(f"{ident}_{i}") for i in range(len(freeze.args))]
        named = [(kw.arg, fresh(f"{ident}_{kw.arg}")) for kw in freeze.keywords]
        kept[ident] = (freeze, [name(h) for h in holders],
                       [gast.keyword(arg=k, value=name(h)) for k, h in named])
        stmt.holders = [gast.copy_location(gast.Assign(targets=[name(h, gast.Store())], value=v,
                                                       type_comment=None), stmt)
                        for h, v in zip(holders + [h for _, h in named],
                                        list(freeze.args) + [kw.value for kw in freeze.keywords])]

    class _Uses(Transformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            if isinstance(node.func, gast.Attribute) and isinstance(node.func.value, gast.Name) \
                    and node.func.value.id in kept:
                freeze, args, keywords = kept[node.func.value.id]
                return _unfrozen(node, freeze, args, keywords)
            return node

    def rewrite(stmts):
        out = []
        for stmt in stmts:
            if any(stmt is s for s in frozen.values()):
                out += stmt.holders
                continue
            stmt = _Uses().visit(stmt)
            for field in ("body", "orelse", "finalbody"):
                block = getattr(stmt, field, None)
                if isinstance(block, list) and not isinstance(stmt, (gast.FunctionDef,
                                                                      gast.ClassDef)):
                    setattr(stmt, field, rewrite(block))
            out.append(stmt)
        return out

    fdef.body = rewrite(fdef.body)
    return fdef
