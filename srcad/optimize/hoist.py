"""hoist row products (shape-specialized builds, forward mode): a loop over the rows of a matrix
that multiplies each row by a matrix the loop does not change (a recurrence's input projection
U x_t) makes every row's product before the loop, as one matrix product, and reads its row in
the loop:

    for t in t4:                           # U.dot(xs[t]) for every t at once
        t6 = xs[t]                         U_xs = np.dot(xs, U.T)
        t7 = np.dot(U, t6)         ->      for t in t4:
        ...                                    t7 = U_xs[t]
                                               ...
                                           del U_xs

(t6 = xs[t] goes too when nothing reads it after: not the loop, and after the loop only loops
that bind it anew before they read it, as the adjoint sweep's own t6 = xs[t].)

One matrix product for T rows costs about what two matrix-vector products do (measured in
reverse mode: the RNN benchmark's gradient, T = 50, 344 -> 316 us; docs/performance.md). Not
in reverse mode all the same: its peak memory is the end of the primal loop, where the tape is
full, and the T rows of products add to it (that RNN's peak 57 -> 69 KiB, over the benchmark's
1.5x of the hand-written gradient's). Forward mode keeps no tape; there, and in the forward
sweeps of second derivatives (a Hessian-vector product through a gradient's loops), it runs.
Row t of np.dot(xs, U.T) is np.dot(U, xs[t]) for every integer t, negative ones and
out-of-range ones (an IndexError) too; the sums may add in another order (BLAS's matrix
product against its matrix-vector product), so where the code returns f's values
(returns_values) only products that feed no value are hoisted. In forward mode a tangent's
product (dU.dot(xs[t])) stays in the loop: the build knows no tangent's shape.

Applies, for a loop `for t in R:` at the top level of the function, to a product
np.dot(M, r), M.dot(r), M @ r, np.matmul(M, r) (M (m, k): np.dot(X, M.T)) or with r first
(M (k, m): np.dot(X, M)), where r is X[t] or a name the loop body binds once, at its top level
and before the product, to X[t]; when
- X and M are arrays of known shapes, X (n, k): a parameter or a name bound once at the top
  level before the loop, bound nowhere else, never written into (nor a view of one that is:
  the fact mutated), so every turn reads the values they had before the loop;
- t is the loop's name, which the body does not bind (an int of a range);
- R is range(n) or its reverse with n = X.shape[0] or len(X), through the names bound once at
  the top level (t4 = range(t3), t3 = t2[0], t2 = xs.shape): the loop reads every row, so the
  hoisted product does no work the loop would not have done;
- the products have at most MAX_ITEMS items (the loop needed one row's memory at a time).
"""
import gast

from ..analysis.defuse import feeding_values
from ..syntax.naming import walk
from ..syntax.nodes import assign, call, comment, is_name, name, numpy_call, reversed_name


# the most items a hoisted product may have: the loop made one row at a time (in forward mode,
# where nothing is taped, a long loop over many rows kept O(row) memory; 2^22 float64 items
# are 32 MiB)
MAX_ITEMS = 1 << 22


def _product(node):
    """(left, right) of a matrix product node (np.dot(a, b), a.dot(b), a @ b, np.matmul(a, b)),
    else None."""
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.MatMult):
        return node.left, node.right
    if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
            and not node.keywords):
        return None
    if numpy_call(node, "dot", "matmul") and len(node.args) == 2:
        return node.args[0], node.args[1]
    if node.func.attr == "dot" and len(node.args) == 1 and not numpy_call(node):
        return node.func.value, node.args[0]
    return None


class Hoist:
    def __init__(self, fdef, facts):
        self.fdef = fdef
        self.facts = facts
        self.looked = False  # (whether a loop at the top level was looked at)
        self.top_once = facts.top_once
        self.binds = facts.binds
        self.params = set(facts.params)
        self.mutated = facts.mutated
        self.arrays = facts.arrays
        self.values = (feeding_values(fdef, facts.derived) if facts.returns_values else None)
        self.shape_of = facts.shape_of or facts.shapes.get  # (forward mode: the probe's)

    def resolve(self, node):
        """node, or the value of the name it is (bound once at the top level), followed."""
        while is_name(node) and node.id in self.top_once:
            node = self.top_once[node.id].value
        return node

    def row_count_of(self, node):
        """The array whose row count node is (X.shape[0], len(X)), else None."""
        node = self.resolve(node)
        if (isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant)
                and node.slice.value == 0 and type(node.slice.value) is int):
            shape = self.resolve(node.value)
            if (isinstance(shape, gast.Attribute) and shape.attr == "shape"
                    and is_name(shape.value)):
                return shape.value.id
        if (isinstance(node, gast.Call) and is_name(node.func, "len") and len(node.args) == 1
                and not node.keywords and is_name(node.args[0])):
            return node.args[0].id
        return None

    def rows_read(self, iterable):
        """The array every row of which the loop over iterable reads (range(n) or its
        reverse, n its row count), else None."""
        node = self.resolve(iterable)
        if reversed_name(node) is not None:
            node = self.resolve(node.value)
        if (isinstance(node, gast.Call) and is_name(node.func, "range") and len(node.args) == 1
                and not node.keywords):
            return self.row_count_of(node.args[0])
        return None

    def unchanged(self, ident, before):
        """Whether ident holds one array, the same in every turn of a loop at fdef.body's
        position `before`: a parameter or a name bound once at the top level before it."""
        if ident in self.mutated or ident not in self.arrays or self.binds.get(ident) != 1:
            return False
        if ident in self.params:
            return True
        stmt = self.top_once.get(ident)
        return stmt is not None and self.fdef.body.index(stmt) < before

    def run(self):
        body = []
        for position, stmt in enumerate(self.fdef.body):
            if isinstance(stmt, gast.For) and is_name(stmt.target):
                body.extend(self.loop(stmt, position))
                self.looked = True
            else:
                body.append(stmt)
        self.fdef.body = body
        return self.fdef

    def loop(self, stmt, position):
        """[the hoisted products, the loop], the loop's products replaced by rows."""
        index = stmt.target.id
        rows = self.rows_read(stmt.iter)
        if rows is None or not self.unchanged(rows, position):
            return [stmt]
        shape = self.shape_of(rows)
        if shape is None or len(shape) != 2:
            return [stmt]
        bound_in_loop = {}
        with_products = set()  # (the ids of the body's statements holding a matrix product)
        for inner in stmt.body:
            for n in walk(inner):
                if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                    bound_in_loop[n.id] = bound_in_loop.get(n.id, 0) + 1
                elif _product(n) is not None:
                    with_products.add(id(inner))
        if not with_products or bound_in_loop.get(index):  # (bound again in the body)
            return [stmt]
        hoisted = {}  # (the matrix, whether it is on the left) -> the name of the products
        before = []
        row_names = set()  # names bound to X[t] at the top level of the body, so far

        def is_row(node):
            return (is_name(node) and node.id in row_names) or (
                isinstance(node, gast.Subscript) and is_name(node.value, rows)
                and is_name(node.slice, index))

        def rewrite(node, target):
            found = _product(node)
            if found is None:
                return None
            left, right = found
            if is_row(right) and is_name(left):
                matrix, on_left = left.id, True
            elif is_row(left) and is_name(right):
                matrix, on_left = right.id, False
            else:
                return None
            mshape = self.shape_of(matrix)
            if (not self.unchanged(matrix, position) or mshape is None or len(mshape) != 2
                    or mshape[1 if on_left else 0] != shape[1]
                    or shape[0] * mshape[0 if on_left else 1] > MAX_ITEMS):
                return None
            if self.values is not None and (target is None or target not in self.facts.derived
                                            or target in self.values):
                return None  # (f's values stay f's to the bit)
            key = (matrix, on_left)
            if key not in hoisted:
                hoisted[key] = self.facts.fresh_name(f"{matrix}_{rows}")
                other = (gast.Attribute(value=name(matrix), attr="T", ctx=gast.Load())
                         if on_left else name(matrix))
                shown = f"{matrix}.dot({rows}[{index}])" if on_left else (
                    f"{rows}[{index}].dot({matrix})")
                before.append(comment(f"{shown} for every {index} at once"))
                before.append(assign(hoisted[key], call(["np", "dot"], name(rows), other)))
                new_shapes = getattr(self.facts, "new_shapes", None)
                if new_shapes is not None:
                    new_shapes[hoisted[key]] = (shape[0], mshape[0 if on_left else 1])
            return gast.Subscript(value=name(hoisted[key]), slice=name(index), ctx=gast.Load())

        replacer = _Replacer(rewrite)
        for inner in stmt.body:
            if isinstance(inner, gast.Assign) and len(inner.targets) == 1:
                target = inner.targets[0]
                replacer.target = target.id if is_name(target) else None
            else:
                replacer.target = None
            if id(inner) in with_products:
                replacer.visit(inner)
            if (isinstance(inner, gast.Assign) and len(inner.targets) == 1
                    and is_name(inner.targets[0]) and bound_in_loop.get(inner.targets[0].id) == 1
                    and isinstance(inner.value, gast.Subscript) and is_row(inner.value)):
                row_names.add(inner.targets[0].id)
        if hoisted:
            later = self.fdef.body[position + 1:]
            stmt.body = [inner for inner in stmt.body if not (
                isinstance(inner, gast.Assign) and is_name(inner.targets[0])
                and inner.targets[0].id in row_names
                and _dead_after(inner.targets[0].id, stmt.body, later))]
        if not hoisted:
            return before + [stmt]
        # (read by the loop alone: their memory back after it, a reverse sweep's peak)
        return before + [stmt, gast.Delete(targets=[name(made, gast.Del())
                                                     for made in hoisted.values()])]


def _reads(node, ident):
    return any(isinstance(n, gast.Name) and n.id == ident and isinstance(n.ctx, gast.Load)
               for n in walk(node))


def _dead_after(ident, body, later):
    """Whether a row name the loop body binds (body) is read by nothing once its products are
    hoisted: not in the body, and after the loop (later: the function's statements after it)
    only by loops that bind it anew before they read it (the adjoint sweep's t6 = xs[t])."""
    if any(_reads(inner, ident) for inner in body):
        return False
    for stmt in later:
        if not _reads(stmt, ident):
            continue
        if not isinstance(stmt, gast.For) or _reads(stmt.iter, ident):
            return False
        first = next((inner for inner in stmt.body if ident in
                      {n.id for n in walk(inner) if isinstance(n, gast.Name)}), None)
        if not (isinstance(first, gast.Assign) and len(first.targets) == 1
                and is_name(first.targets[0], ident) and not _reads(first.value, ident)):
            return False
    return True


class _Replacer(gast.NodeTransformer):
    """Replaces each node rewrite(node, target) gives a node for (target: the name the
    statement binds, or None)."""

    def __init__(self, rewrite):
        self.rewrite = rewrite
        self.target = None

    def visit(self, node):
        if isinstance(node, gast.expr):
            new = self.rewrite(node, self.target)
            if new is not None:
                return new
        return self.generic_visit(node)


def hoist_row_products(fdef, facts):
    """The pass (see the module docstring)."""
    hoist = Hoist(fdef, facts)
    hoist.run()
    if not hoist.looked:  # (no loop at the top level: nothing to hoist from)
        facts.unchanged()
    return fdef
