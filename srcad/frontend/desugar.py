"""desugar: lower convenient Python into the few forms later passes handle.

    x += e                 ->  x = x + e
    a, b = b, a + b        ->  t1 = b; t2 = a + b; a = t1; b = t2
    a, b = pair            ->  a = pair[0]; b = pair[1]
    x.sum(axis=0)          ->  np.sum(x, axis=0)         (array methods on local values)
    x.T                    ->  np.transpose(x)
    x.item()               ->  scalar_of(x)              (srcad's runtime: x.item())
    np.add.at(y, i, v)     ->  y[...] = added_at(y, i, v) (a store srcad differentiates)
    max(a, b, c)           ->  max(max(a, b), c)         (builtins max and min of 3+ values)
    x.reshape(3, 4)        ->  np.reshape(x, (3, 4))
    "docstring"            ->  (dropped)
"""

import builtins

import gast
import numpy as np

from .. import runtime
from ..syntax.naming import clone, walk
from ..syntax.nodes import attribute_chain
from ..syntax.visitor import Transformer

# array method -> numpy function taking the array first (same remaining arguments)
ARRAY_METHODS = {
    "sum": "sum", "mean": "mean", "prod": "prod", "max": "max", "min": "min", "var": "var",
    "std": "std", "dot": "dot", "ravel": "ravel", "squeeze": "squeeze", "clip": "clip",
    "cumsum": "cumsum", "cumprod": "cumprod", "copy": "copy", "trace": "trace",
    "diagonal": "diagonal", "swapaxes": "swapaxes", "conj": "conj",
    "argmax": "argmax", "argmin": "argmin", "round": "round", "repeat": "repeat",
    "take": "take", "any": "any", "all": "all", "nonzero": "nonzero", "argsort": "argsort",
}  # (not sort: x.sort() sorts x in place and returns None; np.sort(x) is a sorted copy)
# methods whose extra positional arguments form one shape/axes tuple: x.reshape(3, 4)
VARARGS_METHODS = {"reshape": "reshape", "transpose": "transpose"}


def _name(ident, ctx=None):
    return gast.Name(id=ident, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


class Desugar(Transformer):
    def __init__(self, local_names, fresh, scope=None):
        self.local_names = local_names
        self.fresh = fresh
        self.scope = scope  # (what a free name denotes: the builtins max and min)

    def _known(self, helper):
        """The runtime helper this pass wrote a call of, known to the passes after it (resolve
        ran before: the name is not the user's)."""
        if self.scope is not None:
            self.scope.injected.setdefault(helper, runtime.HELPERS[helper])

    def _builtin_extremum(self, func):
        """Whether a call's function is Python's max or min."""
        if not (isinstance(func, gast.Name) and func.id in ("max", "min")) or (
                func.id in self.local_names or self.scope is None):
            return False
        found, value = self.scope.free_value(func.id)
        return found and value is getattr(builtins, func.id)

    # statements ------------------------------------------------------------------------
    def visit_Expr(self, node):
        if isinstance(node.value, gast.Constant):
            return None  # a docstring or a bare constant does nothing
        store = self._scatter_add(node.value)
        if store is not None:
            return self.visit(gast.copy_location(store, node))
        return self.generic_visit(node)

    def _scatter_add(self, call):
        """np.add.at(y, i, v) -> y[...] = added_at(y, i, v) (np.subtract.at: -v): a store into
        y, which the fence checks (y made by the function, no other name for it read after)
        and the derivative follows; the runtime's added_at adds as np.add.at does."""
        if self.scope is None or not isinstance(call, gast.Call) or len(call.args) != 3 or (
                call.keywords) or not isinstance(call.args[0], gast.Name) or any(
                isinstance(a, gast.Starred) for a in call.args):
            return None
        op = self.scope.lookup(call.func)
        ufunc = getattr(op, "__self__", None)
        if getattr(op, "__name__", None) != "at" or ufunc not in (np.add, np.subtract):
            return None
        target, index, value = call.args
        if ufunc is np.subtract:
            value = gast.UnaryOp(op=gast.USub(), operand=value)
        self._known("added_at")
        store = gast.Subscript(value=_name(target.id),  # (y read, as Python's y[...] = v has)
                               slice=gast.Constant(value=Ellipsis, kind=None), ctx=gast.Store())
        assign = gast.Assign(targets=[store], value=gast.Call(
            func=_name("added_at"), args=[_name(target.id), index, value], keywords=[]),
            type_comment=None)
        for new in walk(assign):  # (at the call's place: errors point at the user's line)
            if isinstance(new, (gast.expr, gast.stmt)) and getattr(new, "lineno", None) is None:
                gast.copy_location(new, call)
        return assign

    def visit_AugAssign(self, node):
        target = node.target
        load = clone(target)
        load.ctx = gast.Load()
        assign = gast.Assign(targets=[target], value=gast.BinOp(left=load, op=node.op,
                                                                 right=node.value),
                             type_comment=None)
        gast.copy_location(assign, node)
        if isinstance(target, gast.Name):  # on an array, Python writes into it (mutation.py)
            assign.augmented = type(node.op)
        return self.visit(assign)

    def visit_Assign(self, node):
        node = self.generic_visit(node)
        if len(node.targets) > 1:  # a = b = e
            first = gast.copy_location(gast.Assign(targets=[node.targets[-1]], value=node.value,
                                                   type_comment=None), node)
            out = [first]
            source = node.targets[-1]
            for target in node.targets[:-1]:
                value = clone(source)
                value.ctx = gast.Load()
                out.extend(self._assign(target, value, node))
            return out
        return self._assign(node.targets[0], node.value, node)

    def _assign(self, target, value, origin):
        if not isinstance(target, (gast.Tuple, gast.List)):
            stmt = gast.copy_location(gast.Assign(targets=[target], value=value,
                                                  type_comment=None), origin)
            if getattr(origin, "augmented", None) is not None:
                stmt.augmented = origin.augmented
            return [stmt]
        if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(target.elts):
            stored = {n.id for t in target.elts for n in walk(t) if isinstance(n, gast.Name)}
            read = {n.id for e in value.elts for n in walk(e) if isinstance(n, gast.Name)}
            if not stored & read:
                out = []
                for t, v in zip(target.elts, value.elts):
                    out.extend(self._assign(t, v, origin))
                return out
            temps = [self.fresh("t") for _ in value.elts]
            out = [gast.copy_location(gast.Assign(targets=[_name(t, gast.Store())], value=v,
                                                  type_comment=None), origin)
                   for t, v in zip(temps, value.elts)]
            for t, temp in zip(target.elts, temps):
                out.extend(self._assign(t, _name(temp), origin))
            return out
        if isinstance(value, gast.Name):
            holder, out = value.id, []
        else:
            holder = self.fresh("t")
            out = [gast.copy_location(gast.Assign(targets=[_name(holder, gast.Store())],
                                                  value=value, type_comment=None), origin)]
        for i, t in enumerate(target.elts):
            item = gast.Subscript(value=_name(holder), slice=gast.Constant(value=i, kind=None),
                                  ctx=gast.Load())
            out.extend(self._assign(t, item, origin))
        return out

    # expressions -----------------------------------------------------------------------
    def visit_Subscript(self, node):
        """(a, b)[1] -> b: an item of a tuple display taken at once."""
        node = self.generic_visit(node)
        if (isinstance(node.value, (gast.Tuple, gast.List)) and isinstance(node.ctx, gast.Load)
                and isinstance(node.slice, gast.Constant) and type(node.slice.value) is int
                and -len(node.value.elts) <= node.slice.value < len(node.value.elts)):
            return node.value.elts[node.slice.value]
        return node

    def _is_local_value(self, node):
        root = node
        while isinstance(root, (gast.Attribute, gast.Subscript)):
            root = root.value
        return isinstance(root, gast.Name) and root.id in self.local_names or not isinstance(
            root, gast.Name)

    def visit_Attribute(self, node):
        node = self.generic_visit(node)
        function = {"T": "transpose", "real": "real", "imag": "imag"}.get(node.attr)
        if function and isinstance(node.ctx, gast.Load) and self._is_local_value(node.value):
            call = gast.Call(func=attribute_chain(["np", function]), args=[node.value],
                             keywords=[])  # x.real: np.real(x) (its template), not getattr
            return gast.copy_location(call, node)
        return node

    def visit_Call(self, node):
        node = self.generic_visit(node)
        func = node.func
        if self._builtin_extremum(func) and len(node.args) > 2 and not node.keywords and not any(
                isinstance(a, gast.Starred) for a in node.args):
            # max(a, b, c) is max(max(a, b), c), to the bit: both keep the first of equal
            # values (a later value replaces the one kept only when it is greater)
            folded = node.args[0]
            for arg in node.args[1:]:
                folded = gast.copy_location(gast.Call(func=clone(func), args=[folded, arg],
                                                      keywords=[]), node)
            return folded
        if not (isinstance(func, gast.Attribute) and self._is_local_value(func.value)):
            return node
        method = func.attr
        if method == "astype" and len(node.args) == 1 and not node.keywords:
            # x.astype(t) -> np.asarray(x, dtype=t): a cast to int or bool has a zero slope
            call = gast.Call(func=attribute_chain(["np", "asarray"]), args=[func.value],
                             keywords=[gast.keyword(arg="dtype", value=node.args[0])])
            return gast.copy_location(call, node)
        if method == "item" and not node.args and not node.keywords:
            # x.item() -> scalar_of(x): the runtime's x.item(), which has an adjoint template
            call = gast.Call(func=_name("scalar_of"), args=[func.value], keywords=[])
            self._known("scalar_of")
            return gast.copy_location(call, node)
        if method == "flatten" and not node.args and not node.keywords:
            # x.flatten() -> np.copy(np.ravel(x)): a new array (np.ravel may be a view of x)
            ravel = gast.Call(func=attribute_chain(["np", "ravel"]), args=[func.value],
                              keywords=[])
            call = gast.Call(func=attribute_chain(["np", "copy"]), args=[ravel], keywords=[])
            return gast.copy_location(call, node)
        if method in VARARGS_METHODS and len(node.args) > 1:
            args = [func.value, gast.Tuple(elts=node.args, ctx=gast.Load())]
        elif method in VARARGS_METHODS or ARRAY_METHODS.get(method):
            args = [func.value] + node.args
        else:
            return node
        target = VARARGS_METHODS.get(method) or ARRAY_METHODS[method]
        call = gast.Call(func=attribute_chain(["np", target]), args=args, keywords=node.keywords)
        return gast.copy_location(call, node)


def desugar(fdef, local_names, fresh, scope=None):
    transformer = Desugar(local_names, fresh, scope)
    body = []
    for stmt in fdef.body:
        result = transformer.visit(stmt)
        if result is None:
            continue
        body.extend(result if isinstance(result, list) else [result])
    fdef.body = body
    return fdef
