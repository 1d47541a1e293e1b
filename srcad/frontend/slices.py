"""slices: one elementwise function applied to adjacent slices of one array, applied once to
the slices' union (the gates of an LSTM or a GRU, stacked in one vector):

    i = sigmoid(g[:H])                     sigmoid_g = sigmoid(g[:3 * H])
    f = sigmoid(g[H:2 * H])        ->      i = sigmoid_g[:H]
    o = sigmoid(g[2 * H:3 * H])            f = sigmoid_g[H:2 * H]
                                           o = sigmoid_g[2 * H:3 * H]

An elementwise function of the union, sliced, is the function of each slice: the same
operations on the same numbers, so the values (and, differentiated, the gradients) are the
same bits. One pass over 3H entries costs what one over H does for small H, in the function
and in its derivative (the LSTM benchmark's gradient: 1.9x -> 1.4x the hand-written one).

Applies to two or more consecutive statements `v = F(a[lo:hi])` of one block with
- the same F, elementwise: a numpy ufunc of one argument, or a plain function whose body is
  one `return` of its parameter through numpy ufuncs, + - * / ** and numbers (no other name);
- the same array name a, each slice a plain `lo:hi` (no step) starting where the one before
  it ends (the same linear form of the bounds), the first at 0, the last possibly open (`lo:`);
- bounds that are provably 0 <= lo <= hi: linear forms, with non-negative int coefficients, of
  numbers and of names bound once, at the top level before the group, to `x.shape[k]`,
  `len(x)` or such a form (slicing clips consistently only for such bounds: g[:5], g[5:3]
  are not the union g[:3]);
- targets v that are distinct, are not a or a name of a bound, and are never changed in place
  anywhere in the function (they are views of the union now: `v += 1`, `v[0] = 1`, `v.sort()`
  and `out=v` are left to the statements as written; mutation.changed_root tells).
"""
import types

import gast
import numpy as np

from ..errors import SrcadError
from ..syntax.naming import bound_counts, clone, walk
from ..syntax.nodes import dotted_parts
from .mutation import changed_root
from .parse import parse_function
from .resolve import Scope, assigned_names
from .statements import Fresh


_OWN_BLOCKS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Try)


def batch_slices(fdef, func, templated):
    """fdef with each such group of statements written as one application and its slices (in
    place; see the module docstring). templated(function): whether srcad has a derivative
    template for it (a user's registered rule need not be elementwise: left alone)."""
    batcher = _Batcher(fdef, func, bound_counts(fdef), Fresh(fdef), templated)
    batcher.block(fdef.body, None)
    return fdef


class _Batcher:
    def __init__(self, fdef, func, binds, fresh, templated):
        self.scope = Scope(func, assigned_names(fdef))
        self.templated = templated
        self.binds, self.fresh = binds, fresh
        self.changed = _changed_in_place(fdef)
        self.forms = {}  # name bound once at the top level -> (its statement's index, form)
        self.elementwise = {}  # id of the function object -> whether it is elementwise

    # the blocks ------------------------------------------------------------------------------
    def block(self, stmts, top_index):
        i = 0
        while i < len(stmts):
            stmt = stmts[i]
            index = i if top_index is None else top_index  # (the top-level statement holding it)
            for field in ("body", "orelse"):  # (not into a try, whose handlers may see
                child = getattr(stmt, field, None)  # which target a raising statement left
                if isinstance(child, list) and not isinstance(stmt, _OWN_BLOCKS):  # unbound)
                    self.block(child, index)
            if top_index is None:
                self.note_form(stmt, i)
            group = self.group(stmts, i, index)
            if len(group) >= 2:
                stmts[i:i + len(group)] = self.rewrite(group)
                i += len(group) + 1
            else:
                i += 1

    def note_form(self, stmt, index):
        """A name bound once at the top level to a non-negative linear form of ints."""
        if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Name)
                and self.binds.get(stmt.targets[0].id) == 1):
            form = self.form(stmt.value, index)
            if form is not None and _non_negative(form):
                self.forms[stmt.targets[0].id] = (index, form)

    # a group -------------------------------------------------------------------------------
    def member(self, stmt):
        """(target, F node, array name, lo node, hi node) of `v = F(a[lo:hi])`, else None."""
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call)
                and len(stmt.value.args) == 1 and not stmt.value.keywords):
            return None
        arg = stmt.value.args[0]
        if not (isinstance(arg, gast.Subscript) and isinstance(arg.value, gast.Name)
                and isinstance(arg.slice, gast.Slice) and arg.slice.step is None
                and dotted_parts(stmt.value.func) is not None):
            return None
        return (stmt.targets[0].id, stmt.value.func, arg.value.id, arg.slice.lower,
                arg.slice.upper)

    def group(self, stmts, start, index):
        """The statements from start on that make one group (fewer than two: none)."""
        first = self.member(stmts[start])
        if first is None or not _is_zero(first[3]):
            return []
        target, func, array, _, upper = first
        if upper is None:
            return []
        key = dotted_parts(func)
        end = self.form(upper, index)
        if end is None or not _non_negative(end):
            return []
        group, targets, names = [stmts[start]], [target], _names(upper)
        for stmt in stmts[start + 1:]:
            found = self.member(stmt)
            if found is None or dotted_parts(found[1]) != key or found[2] != array:
                break
            lo = self.form(found[3], index) if found[3] is not None else None
            if lo != end:
                break
            hi = self.form(found[4], index) if found[4] is not None else None
            if found[4] is not None and (hi is None or not _non_negative(_minus(hi, lo))):
                break
            group.append(stmt)
            targets.append(found[0])
            names |= _names(found[3]) | _names(found[4])
            end = hi
            if hi is None:
                break  # (an open slice ends the group)
        if len(group) < 2:
            return []
        if (len(set(targets)) < len(targets) or array in targets or names & set(targets)
                or any(t in self.changed for t in targets)
                or not self.is_elementwise(func)):
            return []
        return group

    def rewrite(self, group):
        """`union = F(a[:last])` and each target as a slice of union."""
        first = group[0].value
        last = group[-1].value.args[0].slice.upper
        union = self.fresh(f"{dotted_parts(first.func)[-1]}_{first.args[0].value.id}")
        whole = gast.Subscript(value=clone(first.args[0].value), slice=gast.Slice(
            lower=None, upper=clone(last), step=None), ctx=gast.Load())
        out = [gast.copy_location(gast.Assign(
            targets=[gast.Name(id=union, ctx=gast.Store(), annotation=None, type_comment=None)],
            value=gast.Call(func=clone(first.func), args=[whole], keywords=[]),
            type_comment=None), group[0])]
        for stmt in group:
            piece = stmt.value.args[0]
            piece.value = gast.Name(id=union, ctx=gast.Load(), annotation=None,
                                    type_comment=None)
            stmt.value = piece
            out.append(stmt)
        return out

    # bounds ----------------------------------------------------------------------------------
    def form(self, node, index):
        """node as a linear form {atom: int coefficient} (None: the constant term), atoms being
        non-negative ints, or None. index: the top-level statement the node is in (a name's
        binding must come before it)."""
        if isinstance(node, gast.Constant) and type(node.value) is int:
            return {None: node.value} if node.value else {}
        if isinstance(node, gast.Name):
            known = self.forms.get(node.id)
            return dict(known[1]) if known is not None and known[0] < index else None
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
            left, right = self.form(node.left, index), self.form(node.right, index)
            if left is None or right is None:
                return None
            return _plus(left, right) if isinstance(node.op, gast.Add) else _minus(left, right)
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
            for factor, other in ((node.left, node.right), (node.right, node.left)):
                if isinstance(factor, gast.Constant) and type(factor.value) is int:
                    inner = self.form(other, index)
                    return None if inner is None else {
                        atom: c * factor.value for atom, c in inner.items() if c * factor.value}
            return None
        if self.is_size(node):  # x.shape[k], len(x): an atom of its own (its text)
            return {gast.dump(node): 1}
        return None

    def is_size(self, node):
        """x.shape[k] (k a non-negative int) or len(x) (the builtin), of a name x bound once
        and never changed in place: the same non-negative int wherever it is read."""
        if (isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant)
                and type(node.slice.value) is int and node.slice.value >= 0
                and isinstance(node.value, gast.Attribute) and node.value.attr == "shape"):
            array = node.value.value
        elif (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
              and len(node.args) == 1 and not node.keywords
              and self.scope.lookup(node.func) is len):
            array = node.args[0]
        else:
            return False
        return (isinstance(array, gast.Name) and self.binds.get(array.id) == 1
                and array.id not in self.changed)

    # the function ------------------------------------------------------------------------------
    def is_elementwise(self, node):
        value = self.scope.lookup(node, unwrap=False)
        if value is None or (not isinstance(value, np.ufunc) and self.templated(value)):
            return False  # (a function with a derivative of its own: that is what it means)
        known = self.elementwise.get(id(value))
        if known is None:
            known = self.elementwise[id(value)] = _elementwise_function(value)
        return known


def _elementwise_function(value):
    """Whether value is a ufunc of one argument or a plain function returning its one parameter
    through ufuncs, arithmetic and numbers."""
    if isinstance(value, np.ufunc):
        return value.nin == 1 and value.nout == 1
    if not isinstance(value, types.FunctionType):
        return False
    try:
        fdef, _ = parse_function(value)
    except SrcadError:
        return False
    args = fdef.args
    body = [s for s in fdef.body if not (isinstance(s, gast.Expr) and isinstance(
        s.value, gast.Constant) and isinstance(s.value.value, str))]
    if (len(args.args) != 1 or args.posonlyargs or args.kwonlyargs or args.vararg
            or args.kwarg or len(body) != 1 or not isinstance(body[0], gast.Return)
            or body[0].value is None):
        return False
    scope = Scope(value, assigned_names(fdef))
    return _elementwise(body[0].value, args.args[0].id, scope)


def _elementwise(node, param, scope):
    if isinstance(node, gast.Name):
        return node.id == param
    if isinstance(node, gast.Constant):
        return type(node.value) in (int, float)
    if isinstance(node, gast.UnaryOp):
        return isinstance(node.op, (gast.USub, gast.UAdd)) and _elementwise(
            node.operand, param, scope)
    if isinstance(node, gast.BinOp):
        return isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)) and (
            _elementwise(node.left, param, scope) and _elementwise(node.right, param, scope))
    if isinstance(node, gast.Call):
        if node.keywords or dotted_parts(node.func) is None:
            return False
        ufunc = scope.lookup(node.func)
        return (isinstance(ufunc, np.ufunc) and ufunc.nin == len(node.args)
                and ufunc.nout == 1
                and all(_elementwise(a, param, scope) for a in node.args))
    return False


def _changed_in_place(fdef):
    """Names whose values a statement may change in place (mutation.changed_root: v += x,
    v[i] = x, v.shape = s, v.sort()) or an out= argument writes into."""
    out = set()
    for node in walk(fdef):
        if isinstance(node, gast.keyword) and node.arg == "out":
            out |= {n.id for n in walk(node.value) if isinstance(n, gast.Name)}
        else:
            out.add(changed_root(node))
    out.discard(None)
    return out


def _is_zero(node):
    return node is None or (isinstance(node, gast.Constant) and type(node.value) is int
                            and node.value == 0)


def _names(node):
    return set() if node is None else {n.id for n in walk(node) if isinstance(n, gast.Name)}


def _plus(a, b):
    out = dict(a)
    for atom, c in b.items():
        out[atom] = out.get(atom, 0) + c
        if not out[atom]:
            del out[atom]
    return out


def _minus(a, b):
    return _plus(a, {atom: -c for atom, c in b.items()})


def _non_negative(form):
    return all(c >= 0 for c in form.values())
