"""ANF: every operation's result is bound to a name, so templates see names only.

    y = np.sin(x * w) + b      ->   t1 = x * w
                                    t2 = np.sin(t1)
                                    y = t2 + b
    h = np.tanh(h)             ->   h_1 = np.tanh(h)      (each assignment gets its own name)

Library constants (np.pi), tuples of names and constants (shapes, axes, the arrays of
np.stack((a, b))) and the slices of an index (x[1:n, ::2]) stay inline; computed index parts
(x[i + 1], y[y > 0]) get names, so the adjoint sweep sees the index the primal used. Every new statement keeps the position of the user statement it comes from.
"""
import gast

from .resolve import LIBRARY_MODULES
from ..syntax.naming import clone, loaded_names, walk
from ..syntax.visitor import Transformer

_ALIASES = {alias.split(".")[0] for alias in LIBRARY_MODULES.values()}


def _name(ident, ctx=None):
    return gast.Name(id=ident, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def is_atom(node):
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, gast.Attribute):  # np.pi, math.inf
        root = node
        while isinstance(root, gast.Attribute):
            root = root.value
        return isinstance(root, gast.Name) and root.id in _ALIASES
    if isinstance(node, gast.UnaryOp) and isinstance(node.operand, gast.Constant):
        return True  # -1
    return False


def is_inline_tuple(node):
    return isinstance(node, (gast.Tuple, gast.List)) and all(
        is_atom(e) or is_inline_tuple(e) for e in node.elts)


class _Linearize:
    def __init__(self, fresh):
        self.fresh = fresh
        self.out = []
        self.origin = None

    def emit(self, target, value):
        stmt = gast.Assign(targets=[_name(target, gast.Store())], value=value, type_comment=None)
        gast.copy_location(stmt, self.origin)
        self.out.append(stmt)

    def atom(self, node, temp=None):
        """An atom for `node`, binding sub-operations to fresh temporaries first."""
        if is_atom(node):
            return node
        if is_inline_tuple(node):
            return node
        op = self.operation(node)
        temp = temp or self.fresh("t")
        self.emit(temp, op)
        return _name(temp)

    def index(self, node):
        """An index with every computed part bound to a name (a mask y > 0 must keep the value
        it had when the primal indexed with it); slices and tuples of atoms stay as written."""
        if is_atom(node) or node is None:
            return node
        if isinstance(node, gast.Slice):
            node.lower, node.upper, node.step = (self.index(p) for p in (node.lower, node.upper,
                                                                       node.step))
            return node
        if isinstance(node, gast.Tuple):
            node.elts = [self.index(e) for e in node.elts]
            return node
        return self.atom(node)

    def operation(self, node):
        """`node` with every operand made an atom (the node itself stays one operation)."""
        if is_atom(node) or is_inline_tuple(node):
            return node
        if isinstance(node, gast.BinOp):
            node.left = self.atom(node.left)
            node.right = self.atom(node.right)
        elif isinstance(node, gast.UnaryOp):
            node.operand = self.atom(node.operand)
        elif isinstance(node, gast.Call):
            for i, arg in enumerate(node.args):  # (h(a, *rest): rest made an atom)
                if isinstance(arg, gast.Starred):
                    arg.value = self.atom(arg.value)
                else:
                    node.args[i] = self.atom(arg)
            for kw in node.keywords:
                kw.value = self.atom(kw.value)
        elif isinstance(node, gast.Subscript):
            node.value = self.atom(node.value)
            node.slice = self.index(node.slice)
        elif isinstance(node, gast.Attribute):
            node.value = self.atom(node.value)
        elif isinstance(node, (gast.Tuple, gast.List)):
            node.elts = [self.atom(e) for e in node.elts]
        elif isinstance(node, gast.Compare):
            node.left = self.atom(node.left)
            node.comparators = [self.atom(c) for c in node.comparators]
        elif isinstance(node, gast.BoolOp):
            node.values = [self.atom(v) for v in node.values]
        return node


def assigned_in_blocks(stmts, inside=False, out=None):
    """Names assigned inside if/for/while blocks (they keep one name and may be overwritten)."""
    out = set() if out is None else out
    for stmt in stmts:
        if isinstance(stmt, (gast.If, gast.For, gast.While)):
            if isinstance(stmt, gast.For):
                out.add(stmt.target.id)
            assigned_in_blocks(stmt.body, True, out)
            assigned_in_blocks(stmt.orelse, True, out)
        elif inside:
            for node in walk(stmt):
                if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
                    out.add(node.id)
    return out



def anf(fdef, fresh, fresh_name):
    carried = assigned_in_blocks(fdef.body)
    fdef.body = _anf_block(fdef.body, fresh, carried, fresh_name)
    return fdef


def _anf_block(stmts, fresh, carried, fresh_name=None):
    lin = _Linearize(fresh)
    for stmt in stmts:
        lin.origin = stmt
        if (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
                and isinstance(stmt.value, gast.Name) and stmt.value.id == stmt.targets[0].id):
            continue  # x = x does nothing (and its adjoint, added to itself, would double)
        if isinstance(stmt, gast.Assign):
            target = stmt.targets[0]
            stmt.value = lin.operation(stmt.value)
            if (isinstance(target, gast.Name) and target.id in carried
                    and not is_atom(stmt.value) and target.id in loaded_names(stmt.value)):
                # s = s * a in a loop: the adjoint needs the old and the new s at once
                temp = fresh("t")
                lin.emit(temp, stmt.value)
                stmt.value = _name(temp)
            elif isinstance(target, gast.Subscript):
                target.value = lin.atom(target.value)
                target.slice = lin.index(target.slice)
                if not is_atom(stmt.value):
                    stmt.value = lin.atom(stmt.value)
            lin.out.append(stmt)
        elif isinstance(stmt, gast.Return):
            value = stmt.value
            if isinstance(value, (gast.Tuple, gast.List)):
                value.elts = [lin.atom(e) for e in value.elts]
            else:  # the returned value is `out` (its adjoint, the vjp's seed, is `bout`)
                stmt.value = lin.atom(value, fresh_name("out") if fresh_name and not is_atom(
                    value) else None)
            lin.out.append(stmt)
        elif isinstance(stmt, gast.Expr):
            stmt.value = lin.operation(stmt.value)
            lin.out.append(stmt)
        elif isinstance(stmt, gast.If):
            stmt.test = lin.atom(stmt.test)
            stmt.body = _anf_block(stmt.body, fresh, carried) or [gast.Pass()]
            stmt.orelse = _anf_block(stmt.orelse, fresh, carried)
            lin.out.append(stmt)
        elif isinstance(stmt, gast.For):
            stmt.iter = lin.atom(stmt.iter)
            stmt.body = _anf_block(stmt.body, fresh, carried) or [gast.Pass()]
            lin.out.append(stmt)
        elif isinstance(stmt, gast.While):
            # while <cond>: body  ->  c = <cond>; while c: body; c = <cond>
            if not isinstance(stmt.test, gast.Name):
                again = clone(stmt.test)
                temp = fresh("t")
                lin.emit(temp, lin.operation(stmt.test))
                carried.add(temp)
                tail = gast.copy_location(gast.Assign(targets=[_name(temp, gast.Store())],
                                                      value=again, type_comment=None), stmt)
                stmt.test = _name(temp)
                stmt.body = stmt.body + [tail]
            stmt.body = _anf_block(stmt.body, fresh, carried) or [gast.Pass()]
            lin.out.append(stmt)
        else:
            lin.out.append(stmt)
    return lin.out


class _Rename(Transformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.mapping:
            node.id = self.mapping[node.id]
        return node


def version(fdef, params, fresh):
    """Give every re-assignment of a name a new name (h, h_1, h_2), so no value is overwritten.
    Names assigned inside if/for/while keep one name (the reverse pass saves what they overwrite)."""
    current = {}
    defined = set(params)
    fixed = assigned_in_blocks(fdef.body)
    for stmt in fdef.body:
        if isinstance(stmt, gast.Assign):
            stmt.value = _Rename(current).visit(stmt.value)
            target = stmt.targets[0]
            if isinstance(target, gast.Subscript):
                _Rename(current).visit(target)
            elif isinstance(target, gast.Name) and target.id in fixed:
                current.pop(target.id, None)
            elif isinstance(target, gast.Name):
                if target.id in defined:
                    new = fresh(target.id)
                    current[target.id] = new
                    target.id = new
                else:
                    defined.add(target.id)
        elif isinstance(stmt, (gast.If, gast.For, gast.While)):
            _Rename(current).visit(stmt)
            for name in fixed:
                current.pop(name, None)
        else:
            _Rename(current).visit(stmt)
    return fdef
