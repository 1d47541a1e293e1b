"""Pass 5, ANF: every operation's result is bound to a name, so templates see names only.

    y = np.sin(x * w) + b      ->   t1 = x * w
                                    t2 = np.sin(t1)
                                    y = t2 + b
    h = np.tanh(h)             ->   h_1 = np.tanh(h)      (each assignment gets its own name)

Index expressions (x[i + 1, ::2]), library constants (np.pi) and tuples of names and constants
(shapes, axes, the arrays of np.stack((a, b))) stay inline: they are read, never differentiated
through. Every new statement keeps the position of the user statement it comes from.
"""
import gast

from .resolve import LIBRARY_MODULES

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

    def atom(self, node):
        """An atom for `node`, binding sub-operations to fresh temporaries first."""
        if is_atom(node):
            return node
        if is_inline_tuple(node):
            return node
        op = self.operation(node)
        temp = self.fresh("t")
        self.emit(temp, op)
        return _name(temp)

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
            node.args = [self.atom(a) for a in node.args]
            for kw in node.keywords:
                kw.value = self.atom(kw.value)
        elif isinstance(node, gast.Subscript):
            node.value = self.atom(node.value)
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


def anf(fdef, fresh):
    lin = _Linearize(fresh)
    for stmt in fdef.body:
        lin.origin = stmt
        if isinstance(stmt, gast.Assign):
            stmt.value = lin.operation(stmt.value)
            lin.out.append(stmt)
        elif isinstance(stmt, gast.Return):
            value = stmt.value
            if isinstance(value, (gast.Tuple, gast.List)):
                value.elts = [lin.atom(e) for e in value.elts]
            else:
                stmt.value = lin.atom(value)
            lin.out.append(stmt)
        elif isinstance(stmt, gast.Expr):
            stmt.value = lin.operation(stmt.value)
            lin.out.append(stmt)
        else:
            lin.out.append(stmt)
    fdef.body = lin.out
    return fdef


class _Rename(gast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.mapping:
            node.id = self.mapping[node.id]
        return node


def version(fdef, params, fresh):
    """Give every re-assignment of a name a new name (h, h_1, h_2), so no value is overwritten."""
    current = {}
    defined = set(params)
    for stmt in fdef.body:
        if isinstance(stmt, gast.Assign):
            stmt.value = _Rename(current).visit(stmt.value)
            target = stmt.targets[0]
            if isinstance(target, gast.Name):
                if target.id in defined:
                    new = fresh(target.id)
                    current[target.id] = new
                    target.id = new
                else:
                    defined.add(target.id)
        else:
            _Rename(current).visit(stmt)
    return fdef
