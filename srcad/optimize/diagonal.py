"""diagonal products (reverse mode, shape-specialized builds): a diagonal matrix made from a
vector and read once, as a factor of a matrix product, becomes that vector scaling the other
factor's columns or rows:

    bL = undiag(bt21, L, 0)                          ->   p_1 = np.swapaxes(low_1, -1, -2) * bt21
    p_1 = np.swapaxes(low_1, -1, -2) @ as_lower_factor(bL, L)

A @ diag(v) = A * v (column j of A times v[j]) and diag(v) @ B = v[:, None] * B (a vector B:
v * B): n^2 multiplications instead of a matrix product's n^3, and no n x n matrix of zeros
made first. The adjoint of np.diag(L) (a log-determinant from a Cholesky factor, a trace of
a diagonal) meets one in Cholesky's adjoint (L^T L_bar); user code writes them too
(U @ np.diag(s) @ Vt, a weighted X^T @ np.diag(w) @ X).

The diagonal matrix is np.diag(v) of a vector v (an array: the probe saw it so), or
undiag(g, a) / undiag(g, a, 0) of a vector g (the adjoint of np.diag(v) of a vector: g on the
diagonal of a square matrix of zeros); as_lower_factor(D, l) around it is D or its transpose (Cholesky's adjoint sees a
dask factor through it), the same matrix for a diagonal D. Applies where the probe knows the
vector's and the square matrix's shapes, the matrix is bound once at the top level and read
once, in a later top-level assignment, as one side of a matrix product (on the left, where
the number of axes of the other side is known: a vector or a stack of matrices), and the
vector is not stored into between the two.

The numbers are those of the product for finite values (each entry of A @ diag(v) is one
product A[i, j] * v[j] plus exact zeros; a zero's sign aside); where A holds an inf or a nan,
the product spreads nan along the row (inf * 0), the scaling keeps it to that entry, what the
derivative of the diagonal product is (srcad's strong zeros: modes/strong_zeros.py). The
values a derivative returns of f's own are f's to the bit (returns_values): there only
derivative names' matrices (adjoints, tangents, templates' temporaries) are rewritten.
"""
import gast

from ..syntax.nodes import constant_node, is_name, name as name_node
from .read_once import fold_read_once, ndim_of, once_bound_values, replace_first


def _numpy_call(node, attr):
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
            and is_name(node.func.value, "np") and node.func.attr == attr)


class Diagonal:
    def __init__(self, fdef, facts):
        self.fdef = fdef
        self.shape_of = facts.shape_of
        self.loads = facts.loads
        self.binds = facts.binds
        self.derived = facts.derived
        self.returns_values = facts.returns_values
        self.arrays = facts.arrays  # (a list's diagonal matrix: the list cannot scale rows)
        self.inexact = facts.inexact  # (undiag's matrix is float whatever g is: g must be)

    def vector_of(self, value):
        """The vector (a Name) whose diagonal matrix value is, or None."""
        if _numpy_call(value, "diag") and len(value.args) == 1 and not value.keywords:
            vector = value.args[0]
            shape = self.shape_of(vector.id) if isinstance(vector, gast.Name) else None
            return vector if shape is not None and len(shape) == 1 else None
        if not (isinstance(value, gast.Call) and is_name(value.func, "undiag")
                and not value.keywords and len(value.args) in (2, 3)):
            return None
        vector, square = value.args[:2]
        if len(value.args) == 3 and not (isinstance(value.args[2], gast.Constant)
                                         and type(value.args[2].value) is int
                                         and value.args[2].value == 0):
            return None
        if not (isinstance(vector, gast.Name) and isinstance(square, gast.Name)
                and vector.id in self.inexact):
            return None  # (an int g: A * g would be ints where A @ undiag(g, a) is floats)
        shape, outer = self.shape_of(vector.id), self.shape_of(square.id)
        if shape is None or outer is None or len(shape) != 1 or outer != (shape[0],) * 2:
            return None  # (a vector square: undiag reads g's diagonal; no matrix is made)
        return vector

    def is_matrix(self, node, name):
        """Whether node is the diagonal matrix `name` (or as_lower_factor of it)."""
        if is_name(node, name):
            return True
        return (isinstance(node, gast.Call) and is_name(node.func, "as_lower_factor")
                and len(node.args) == 2 and not node.keywords and is_name(node.args[0], name)
                and isinstance(node.args[1], gast.Name))

    def scaled(self, node, name, vector):
        """The scaling by vector that node is, if node is a matrix product with the diagonal
        matrix `name` as a factor, else None."""
        if not (isinstance(node, gast.BinOp) and isinstance(node.op, gast.MatMult)):
            return None
        if self.is_matrix(node.right, name) and not self.is_matrix(node.left, name) and (
                not isinstance(node.left, gast.Constant)):  # A @ D: A has one axis or more
            # (matmul takes no scalar), its last of D's length; A * v scales it
            return gast.BinOp(left=node.left, op=gast.Mult(), right=name_node(vector))
        if self.is_matrix(node.left, name) and not self.is_matrix(node.right, name):
            other = ndim_of(node.right, self.shape_of, self.defs)  # D @ B
            if other == 1:
                return gast.BinOp(left=name_node(vector), op=gast.Mult(), right=node.right)
            if other is not None and other >= 2:
                column = gast.Subscript(value=name_node(vector), slice=gast.Tuple(elts=[
                    gast.Slice(lower=None, upper=None, step=None), constant_node(None)],
                    ctx=gast.Load()), ctx=gast.Load())
                return gast.BinOp(left=column, op=gast.Mult(), right=node.right)
        return None

    def run(self):
        body = self.fdef.body
        self.defs = once_bound_values(body, self.binds)

        def reads_of(name, value):
            vector = self.vector_of(value)
            if vector is None or vector.id not in self.arrays or (
                    self.returns_values and name not in self.derived):
                return None
            return {vector.id}

        def rewrite(name, value, reader):
            vector = self.vector_of(value).id
            return replace_first(reader, lambda node: self.scaled(node, name, vector))

        fold_read_once(body, self.binds, self.loads, reads_of, rewrite)
        return self.fdef


def scale_by_diagonals(fdef, facts):
    """The pass (see the module docstring)."""
    return Diagonal(fdef, facts).run()
