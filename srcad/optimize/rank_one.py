"""rank-one products (reverse mode, shape-specialized builds): an adjoint bound to an outer
product and read once, in matrix products with matrices, stays an outer product of vectors:

    bKi = np.outer(bt1, y)                 ->   bK = -np.outer(bt_1 @ bt1, bt_1.T @ y)
    bK = -(bt_1 @ bKi @ bt_1)

A @ outer(u, v) = outer(A @ u, v) and outer(u, v) @ B = outer(u, B^T @ v) for matrices A and
B: matrix-vector products (n^2 work) instead of matrix products (n^3). The adjoint of inv(K)
meets one wherever the cotangent of K^-1 is rank one (a quadratic form y^T K^-1 y, a solve with
one right-hand side written through inv). Applies where the probe knows u and v are vectors and
A and B matrices, the outer product is bound once at the top level and read once, at the top
level, and every product it meets on the way out is a matrix product with it on one side.
"""
import gast

from ..analysis.shapes import expression_shape
from ..syntax.naming import walk
from ..syntax.nodes import call


def _outer_of(value):
    """(u, v) for np.outer(u, v) of two names, else None."""
    if (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
            and isinstance(value.func.value, gast.Name) and value.func.value.id == "np"
            and value.func.attr == "outer" and len(value.args) == 2 and not value.keywords
            and all(isinstance(a, gast.Name) for a in value.args)):
        return tuple(value.args)
    return None


def ndim_of(node, shape_of, defs, depth=0):
    """The number of axes of node's value: the probe's, or through a name bound once (defs:
    name -> value) to a transpose (np.swapaxes(Ki, -1, -2), a template's temporary), or None."""
    shape = expression_shape(node, shape_of)
    if shape is not None:
        return len(shape)
    if depth > 8:
        return None
    if isinstance(node, gast.Name) and node.id in defs:
        return ndim_of(defs[node.id], shape_of, defs, depth + 1)
    if isinstance(node, gast.Attribute) and node.attr == "T":
        return ndim_of(node.value, shape_of, defs, depth + 1)
    if (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
            and isinstance(node.func.value, gast.Name) and node.func.value.id == "np"
            and node.func.attr in ("swapaxes", "transpose") and node.args):
        return ndim_of(node.args[0], shape_of, defs, depth + 1)
    return None


def once_bound_values(body, binds):
    """name -> value of each name bound once, by a top-level `name = value` of body."""
    return {s.targets[0].id: s.value for s in body if isinstance(s, gast.Assign)
            and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)
            and binds.get(s.targets[0].id) == 1}


def stores_into(stmts, names):
    """Whether the statements bind any of these names or store into them (then the values a
    statement before them read are not those a statement after them would)."""
    for stmt in stmts:
        for n in walk(stmt):
            if isinstance(n, gast.Name) and n.id in names and isinstance(n.ctx, gast.Store):
                return True
            if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) and (
                    isinstance(n.value, gast.Name) and n.value.id in names):
                return True
    return False


class RankOne:
    def __init__(self, fdef, facts):
        self.fdef = fdef
        self.shape_of = facts.shape_of
        self.loads = facts.loads
        self.binds = facts.binds

    def ndim(self, node):
        return ndim_of(node, self.shape_of, self.defs)

    def carried(self, node, name, pair):
        """The vectors (u', v') of node = outer(u', v'), where node holds the outer product
        `name` = outer(*pair) in matrix products with matrices (to be written out), or None."""
        if isinstance(node, gast.Name) and node.id == name:
            return pair
        if not (isinstance(node, gast.BinOp) and isinstance(node.op, gast.MatMult)):
            return None
        left = self.carried(node.left, name, pair)
        if left is not None and self.ndim(node.right) == 2:  # outer(u, v) @ B
            u, v = left
            return u, gast.BinOp(left=gast.Attribute(value=node.right, attr="T",
                                                     ctx=gast.Load()),
                                 op=gast.MatMult(), right=v)
        right = self.carried(node.right, name, pair)
        if right is not None and self.ndim(node.left) == 2:  # A @ outer(u, v)
            u, v = right
            return gast.BinOp(left=node.left, op=gast.MatMult(), right=u), v
        return None

    def rewrite(self, node, name, pair):
        """node with its largest matrix product around `name` written as one outer product;
        whether that happened."""
        found = self.carried(node, name, pair)
        if found is not None and not isinstance(node, gast.Name):
            return call(["np", "outer"], *found), True
        for field, value in gast.iter_fields(node):
            if isinstance(value, gast.AST):
                new, done = self.rewrite(value, name, pair)
                if done:
                    setattr(node, field, new)
                    return node, True
        return node, False

    def run(self):
        body = self.fdef.body
        self.defs = once_bound_values(body, self.binds)
        k = 0
        while k < len(body):
            stmt = body[k]
            pair = _outer_of(stmt.value) if isinstance(stmt, gast.Assign) and len(
                stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name) else None
            name = stmt.targets[0].id if pair is not None else None
            if pair is None or self.binds.get(name) != 1 or self.loads.get(name) != 1 or any(
                    self.ndim(a) != 1 for a in pair):
                k += 1
                continue
            reader = next((j for j in range(k + 1, len(body)) if any(
                isinstance(n, gast.Name) and n.id == name for n in walk(body[j]))), None)
            if reader is not None and isinstance(body[reader], gast.Assign) and not stores_into(
                    body[k + 1:reader], {a.id for a in pair}):
                body[reader].value, done = self.rewrite(body[reader].value, name, pair)
                if done:  # (its one read is gone: its vectors are read where it was)
                    del body[k]
                    continue
            k += 1
        return self.fdef

def keep_rank_one(fdef, facts):
    """The pass (see the module docstring)."""
    return RankOne(fdef, facts).run()
