"""diagonal products (reverse mode, shape-specialized builds): n^2 work where a matrix product
of n^3 met a diagonal matrix. Two rewrites:

1. A diagonal matrix made from a vector, read as a factor of matrix products, becomes that
   vector scaling the other factor's columns or rows:

    bL = undiag(bt21, L, 0)                          ->   p_1 = np.swapaxes(low_1, -1, -2) * bt21
    p_1 = np.swapaxes(low_1, -1, -2) @ as_lower_factor(bL, L)

    t1 = np.diag(s)                                  ->   t2 = U * s
    t2 = U @ t1                                           ...
    ...                                                   bU = safe_mul(bt2, s)
    bU = safe_matmul(bt2, t1.T)

   A @ diag(v) = A * v (column j of A times v[j]), diag(v) @ B = v[:, None] * B (a vector B:
   v * B), and no n x n matrix of zeros made first. The diagonal matrix is np.diag(v) of a
   vector v (an array: the probe saw it so), undiag(g, a) / undiag(g, a, 0) of a float
   vector g (the adjoint of np.diag(v) of a vector: g on the diagonal of a square matrix of
   zeros), or undiagonal(g, a, 0, 0, 1) of a square a (the adjoint of np.diagonal(a): a float
   vector g, or of np.trace(a): np.expand_dims(number, -1), the number on the whole diagonal,
   A @ (c I) = A * c); read as itself, its transpose (D.T, np.transpose(D),
   np.swapaxes(D, -1, -2): the same matrix) or as_lower_factor(D, l) (D or its transpose:
   Cholesky's adjoint, which meets one from a log-determinant's np.diag(L)). Each read in a
   product is rewritten, in the top-level assignments after the binding, up to the first
   statement that is not an assignment or comes after a store into the vector; where no read
   is left, the matrix is not made.

2. The diagonal of a matrix product (the adjoint of np.diag(v) again, now reading a diagonal:
   undiag(M, v) for a vector v; np.diag(M), np.diagonal(M) in user code) where the product
   M = A @ B of two matrices is bound once and read only there, is the sum of the products of
   rows by columns, without the product (and np.trace(M) the sum of all of them):

    bt1 = U.T @ bt2                                  ->   bs = np.einsum('ij,ji->i', U.T, bt2)
    bs = undiag(bt1, s, 0)

   (safe_matmul(A, B), the strong-zero product, as safe_mul(A, B^T) summed along its rows.)

The numbers: a scaling is the product's to the rounding of a product for finite values (each
entry of A @ diag(v) is one product A[i, j] * v[j] plus exact zeros, a zero's sign aside; where
A holds an inf or a nan, the product spreads nan along the row (inf * 0), the scaling keeps it
to that entry, the derivative of the diagonal product (srcad's strong zeros); safe_matmul and
safe_mul give the same numbers there too); a diagonal of a product sums its terms in another
order (rounding). The values a derivative returns of f's own are f's to the bit
(returns_values): there only derivative names' matrices and diagonals (adjoints, tangents,
templates' temporaries) are rewritten.
"""
import gast

from ..syntax.naming import clone, name_counts, number_value, walk
from ..syntax.nodes import call, constant_node, is_name, name as name_node, numpy_call
from .read_once import (fold_read_once, ndim_of, once_bound_values, replace_first,
                        stores_into)


def _helper_call(node, ident, arity):
    return (isinstance(node, gast.Call) and is_name(node.func, ident) and not node.keywords
            and len(node.args) == arity)


def _transposed(node):
    """X for X.T, else node.T."""
    if isinstance(node, gast.Attribute) and node.attr == "T":
        return node.value
    return gast.Attribute(value=node, attr="T", ctx=gast.Load())


def _int(node):
    """The int a literal (a negated one too) is, else None."""
    value = number_value(node)
    return value if type(value) is int else None


def _zero(node):
    return _int(node) == 0


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
        self.mutated = facts.mutated  # (a vector written into, or sharing with one, is not
        # the one the matrix was made of)

    def shape(self, node):
        return self.shape_of(node.id) if isinstance(node, gast.Name) else None

    def may_rewrite(self, name):
        """Whether the value bound to name may be computed another way (not one of f's own
        values that the derivative returns, which stay f's to the bit)."""
        return not self.returns_values or name in self.derived

    # --- 1. diagonal matrices as factors

    def vector_of(self, value):
        """(the name of the vector, or a number node, whose diagonal matrix value is; whether
        it is a number), or None."""
        if numpy_call(value, "diag") and len(value.args) == 1 and not value.keywords:
            shape = self.shape(value.args[0])
            if shape is not None and len(shape) == 1 and self.plain_vector(value.args[0].id):
                return value.args[0].id, False
            return None
        if _helper_call(value, "undiag", 2) or (_helper_call(value, "undiag", 3)
                                                and _zero(value.args[2])):
            vector, square = value.args[:2]
            shape, outer = self.shape(vector), self.shape(square)
            if shape is None or outer is None or len(shape) != 1 or outer != (shape[0],) * 2:
                return None  # (a vector square: undiag reads g's diagonal; no matrix is made)
            return (vector.id, False) if self.float_vector(vector.id) else None
        if not (isinstance(value, gast.Call) and is_name(value.func, "undiagonal")
                and not value.keywords and len(value.args) in (2, 3, 5)
                and all(_zero(a) for a in value.args[2:3])
                and [_int(a) for a in value.args[3:]] in ([], [0, 1], [-2, -1])):
            return None  # (undiagonal(g, a, offset, axis1, axis2): g on a's main diagonal)
        g, square = value.args[:2]
        outer = self.shape(square)
        if outer is None or len(outer) != 2 or outer[0] != outer[1]:
            return None
        if numpy_call(g, "expand_dims") and len(g.args) == 2 and _int(g.args[1]) == -1 and (
                isinstance(g.args[0], gast.Constant) and type(g.args[0].value) is float or (
                    self.shape(g.args[0]) == () and self.float_vector(g.args[0].id))):
            return g.args[0], True  # (a number on the whole diagonal: trace's adjoint)
        shape = self.shape(g)
        if shape in ((outer[0],), (1,)) and self.float_vector(g.id):
            return g.id, False
        return None

    def plain_vector(self, ident):
        """Whether ident is an array nothing writes into (the values a matrix was made of)."""
        return ident in self.arrays and ident not in self.mutated

    def float_vector(self, ident):
        """plain_vector, and a float (undiag's and undiagonal's matrices are floats whatever
        g is: for an int g, A * g would be ints where A @ undiag(g, a) is floats)."""
        return ident in self.inexact and ident not in self.mutated and (
            ident in self.arrays or self.shape_of(ident) == ())

    def is_matrix(self, node, name):
        """Whether node is the diagonal matrix `name`: itself, its transpose, or
        as_lower_factor of either."""
        if is_name(node, name):
            return True
        if isinstance(node, gast.Attribute) and node.attr == "T":
            return self.is_matrix(node.value, name)
        if numpy_call(node, "transpose") and len(node.args) == 1 and not node.keywords:
            return self.is_matrix(node.args[0], name)
        axes = [_int(a) for a in node.args[1:]] if numpy_call(node, "swapaxes") else None
        if (axes is not None and len(node.args) == 3 and not node.keywords
                and None not in axes and sorted(axes) in ([-2, -1], [0, 1])):
            return self.is_matrix(node.args[0], name)
        return (_helper_call(node, "as_lower_factor", 2) and isinstance(node.args[1], gast.Name)
                and self.is_matrix(node.args[0], name))

    def scaled(self, node, name, scale):
        """The scaling by scale (a vector's name or a number node, and whether it is a number)
        that node is, if node is a matrix product (a @ b or the strong-zero
        safe_matmul(a, b)) with the diagonal matrix `name` as one factor, else None."""
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.MatMult):
            left, right, product = node.left, node.right, None
        elif _helper_call(node, "safe_matmul", 2):
            (left, right), product = node.args, "safe_mul"
        else:
            return None
        factor, number = scale

        def made():
            return clone(factor) if isinstance(factor, gast.AST) else name_node(factor)

        def times(a, b):
            return call([product], a, b) if product else gast.BinOp(left=a, op=gast.Mult(),
                                                                     right=b)
        if self.is_matrix(right, name) and not self.is_matrix(left, name) and (
                not isinstance(left, gast.Constant)):  # A @ D: A has one axis or more
            return times(left, made())  # (matmul takes no scalar), its last D's length
        if self.is_matrix(left, name) and not self.is_matrix(right, name):
            other = ndim_of(right, self.shape_of, self.defs)  # D @ B
            if other == 1 or (number and other is not None and other >= 1):
                return times(made(), right)
            if other is not None and other >= 2:
                column = gast.Subscript(value=made(), slice=gast.Tuple(elts=[
                    gast.Slice(lower=None, upper=None, step=None), constant_node(None)],
                    ctx=gast.Load()), ctx=gast.Load())
                return times(column, right)
        return None

    def scale_all(self, node, name, scale):
        """node with every product that has the diagonal matrix `name` as a factor written as
        a scaling (innermost first), and how many reads of `name` went."""
        count = 0
        for field, value in gast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for i, item in enumerate(items):
                if isinstance(item, gast.AST):
                    new, found = self.scale_all(item, name, scale)
                    count += found
                    if isinstance(value, list):
                        value[i] = new
                    else:
                        setattr(node, field, new)
        new = self.scaled(node, name, scale)
        if new is None:
            return node, count
        return new, count + 1

    def factors(self):
        body = self.fdef.body
        k = 0
        while k < len(body):
            stmt = body[k]
            name = stmt.targets[0].id if isinstance(stmt, gast.Assign) and len(
                stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name) else None
            scale = self.vector_of(stmt.value) if name is not None and self.binds.get(
                name) == 1 and self.may_rewrite(name) else None
            if scale is None:
                k += 1
                continue
            factor = scale[0]
            read = ({factor} if isinstance(factor, str) else  # (what the scaling reads)
                    {n.id for n in walk(factor) if isinstance(n, gast.Name)})
            left = self.loads.get(name, 0)
            for j in range(k + 1, len(body)):
                if not left:
                    break
                if not any(is_name(n, name) for n in walk(body[j])):
                    continue
                if not isinstance(body[j], gast.Assign) or stores_into(body[k + 1:j], read):
                    break
                body[j].value, gone = self.scale_all(body[j].value, name, scale)
                left -= gone  # (a read that is not a product's keeps the matrix; the reads
                # after it may still be products)
            if left:
                k += 1
            else:
                del body[k]

    # --- 2. diagonals of products

    def matrix_of_diagonal(self, node):
        """The name M whose diagonal node reads (undiag(M, v) of a vector v, np.diag(M),
        np.diagonal(M), np.trace(M) of a square M), else None."""
        if _helper_call(node, "undiag", 2) or (_helper_call(node, "undiag", 3)
                                                and _zero(node.args[2])):
            vector = self.shape(node.args[1])  # (the v of np.diag(v) this is the adjoint of)
            if vector is None or len(vector) != 1:
                return None
        elif not (numpy_call(node, "diag", "diagonal", "trace") and len(node.args) == 1
                  and not node.keywords):
            return None
        matrix = node.args[0]
        shape = self.shape(matrix)
        if shape is None or len(shape) != 2 or shape[0] != shape[1]:
            return None
        return matrix.id

    def product_of(self, value):
        """(A, B, strong) of value = A @ B or safe_matmul(A, B) of two matrices, else None."""
        if isinstance(value, gast.BinOp) and isinstance(value.op, gast.MatMult):
            pair, strong = (value.left, value.right), False
        elif _helper_call(value, "safe_matmul", 2):
            pair, strong = tuple(value.args), True
        else:
            return None
        if any(ndim_of(a, self.shape_of, self.defs) != 2 for a in pair):
            return None
        return pair + (strong,)

    def diagonals(self):
        def reads_of(name, value):
            found = self.product_of(value)
            if found is None or not self.may_rewrite(name):
                return None
            return {n.id for a in found[:2] for n in walk(a) if isinstance(n, gast.Name)}

        def rewrite(name, value, reader):
            a, b, strong = self.product_of(value)

            def at(node):  # (the one read of the product: it is the diagonal's, or none is)
                if not (isinstance(node, gast.Call) and self.matrix_of_diagonal(node) == name):
                    return None
                trace = numpy_call(node, "trace")  # (the sum of the diagonal)
                if strong:  # sum_k a_ik b_ki with safe_matmul's strong zeros
                    terms = call(["safe_mul"], a, _transposed(b))
                    return gast.Call(func=gast.Attribute(value=terms, attr="sum",
                                                         ctx=gast.Load()),
                                     args=[], keywords=[] if trace else [gast.keyword(
                                         arg="axis", value=constant_node(-1))])
                return call(["np", "einsum"], constant_node("ij,ji->" if trace else "ij,ji->i"),
                            a, b)
            return replace_first(reader, at)

        binds, loads = name_counts(self.fdef)  # (the first rewrite took reads away)
        fold_read_once(self.fdef.body, binds, loads, reads_of, rewrite)

    def run(self):
        self.defs = once_bound_values(self.fdef.body, self.binds)
        self.factors()
        self.diagonals()
        return self.fdef


def scale_by_diagonals(fdef, facts):
    """The pass (see the module docstring)."""
    return Diagonal(fdef, facts).run()
