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

from ..syntax.nodes import call, numpy_call
from .read_once import fold_read_once, ndim_of, once_bound_values, replace_first


def _outer_of(value):
    """(u, v) for np.outer(u, v) of two names, else None."""
    if (numpy_call(value, "outer") and len(value.args) == 2 and not value.keywords
            and all(isinstance(a, gast.Name) for a in value.args)):
        return tuple(value.args)
    return None


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

    def run(self):
        body = self.fdef.body
        self.defs = once_bound_values(body, self.binds)

        def reads_of(name, value):
            pair = _outer_of(value)
            if pair is None or any(self.ndim(a) != 1 for a in pair):
                return None
            return {a.id for a in pair}

        def rewrite(name, value, reader):
            """reader with its largest matrix product around `name` written as one outer
            product (its vectors are read where the outer product was)."""
            pair = _outer_of(value)

            def at(node):
                found = None if isinstance(node, gast.Name) else self.carried(node, name, pair)
                return None if found is None else call(["np", "outer"], *found)
            return replace_first(reader, at)

        fold_read_once(body, self.binds, self.loads, reads_of, rewrite)
        return self.fdef


def keep_rank_one(fdef, facts):
    """The pass (see the module docstring)."""
    return RankOne(fdef, facts).run()
