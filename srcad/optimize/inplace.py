"""in place: accumulate into adjoint arrays the generated code owns, without new arrays.

    bW = bW + np.outer(bt4, h)          ->   bW += np.outer(bt4, h)
    bx = bx - bt3                       ->   bx -= bt3
    bx = bx + unindex(bt3, x, i)        ->   bx[i] += bt3        (and -, -=)
    by = zero_at(by, i)                 ->   by[i] = 0.0
    bx = unindex(bt3, x, i)             ->   bx = np.zeros((5,), bt3.dtype); bx[i] = bt3
    bx = bx + unindex(bt4, x, j)        ->   bx[j] = bt4      (j disjoint from i: zeros there)
    bx = unindex(g, x, (s, None, s))    ->   bx = np.reshape(g, (64, 3))   (s: a full slice)

A name *owns* its value when the value is an array or number that no other name, list, view or
caller can see: it was made by arithmetic or by a numpy function that returns a new array, and
the name has not been handed on since (assigned to another name, passed to a helper that may
return it, pushed on the stack, returned, viewed by a subscript or a reshape). Ownership is a
dataflow fact: a branch keeps what both arms keep, a loop what holds at its entry and after
its body (iterated to a fixed point). Only owned values are updated in place.

Slices of the fresh zeros of a specialized gradient are followed from np.zeros on: a slice
of axis 0 whose bounds the specialization fixes (int literals, items of a parameter's shape,
and sums, differences and products of them: sizes_of), disjoint from every slice stored since,
still holds zeros, so its adjoint is stored, not added (an LSTM's gate adjoints, written into
the rows of one vector). Anything else done with the array ends this.

In the code for any arguments (not specialized to shapes), the zeros of an argument's gradient
(zero_gradient(x)) are not owned: they are of the argument's kind, a NumPy array for a parameter
in memory, while the adjoints added to them may be dask or CuPy arrays (data on a cluster or a
GPU), which NumPy cannot add into its own array (bw += g raises). bw = bw + g makes the sum of
the adjoints' kind. Specialized code runs on NumPy arrays only (shapes.signature_of).
"""
import gast
from ..syntax.naming import loaded_names, walk

# numpy functions whose result never shares memory with an argument
FRESH_NUMPY = {
    "sum", "mean", "dot", "outer", "matmul", "inner", "tensordot", "einsum", "kron", "exp",
    "log", "sin", "cos", "tanh", "sqrt", "square", "abs", "sign", "where", "zeros", "zeros_like",
    "ones", "ones_like", "copy", "array", "full", "multiply", "add", "subtract", "divide",
    "negative", "maximum", "minimum", "clip", "power", "log1p", "expm1", "cumsum", "cumprod",
    "concatenate", "stack", "prod", "var", "std",
}
FRESH_HELPERS = {"zero_gradient", "unindex", "zero_at", "strong_mul"}  # runtime helpers
# returning new arrays
# calls that surely allocate an array (so its items can be updated in place)
ALLOCATING = {"np.zeros", "np.zeros_like", "np.copy", "np.array", "zero_gradient", "unindex",
              "zero_at"}


def _call_name(node):
    func = node.func
    if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
            func.value.id == "np":
        return "np." + func.attr
    if isinstance(func, gast.Name):
        return func.id
    return None


def is_fresh(value):
    """Whether an expression surely makes a new array or number."""
    if isinstance(value, (gast.BinOp, gast.Constant)):
        return True
    if isinstance(value, gast.UnaryOp):
        return isinstance(value.op, gast.USub)
    if isinstance(value, gast.Call):
        name = _call_name(value)
        return name is not None and (name[3:] in FRESH_NUMPY if name.startswith("np.")
                                     else name in FRESH_HELPERS)
    return False


def _allocates(value):
    return isinstance(value, gast.Call) and _call_name(value) in ALLOCATING


def _meet(a, b):
    """What two paths agree on: owned on both, an array only if an array on both."""
    return {v: ("array" if a[v] == b[v] == "array" else "any") for v in a.keys() & b.keys()}


def _drop(owned, names):
    """owned without names (updated in place: a copy per statement made the pass quadratic)."""
    for v in names:
        owned.pop(v, None)
    return owned


def _shared(node):
    """Names whose values an expression may hand on (keep a reference to, or view)."""
    if isinstance(node, gast.Name):
        return {node.id}
    if isinstance(node, gast.BinOp):
        return set()  # arithmetic makes a new value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return set()
    if isinstance(node, gast.Call):
        name = _call_name(node)
        inner = set()
        for arg in list(node.args) + [kw.value for kw in node.keywords]:
            inner |= _shared_inside(arg)
        if name is not None and name.startswith("np.") and name[3:] in FRESH_NUMPY:
            return inner
        return inner | {a.id for a in node.args if isinstance(a, gast.Name)} | {
            kw.value.id for kw in node.keywords if isinstance(kw.value, gast.Name)}
    out = set()
    for child in gast.iter_child_nodes(node):
        out |= _shared(child)
    return out


def _shared_inside(node):
    """Names handed on by the parts of an expression (a bare name inside arithmetic is not)."""
    if isinstance(node, gast.Name):
        return set()
    return _shared(node)



class InPlace:
    def __init__(self, loop_indices, shape_of_name=None, specialized=True, sizes=None):
        self.loop_indices = loop_indices  # names that are always ints (range loop variables)
        self.shape_of_name = shape_of_name  # known shapes (a specialized gradient), or None
        self.specialized = specialized  # (else argument zeros are not owned: module docstring)
        self.sizes = sizes or {}  # name -> the int it is bound to in every call (sizes_of)
        self.changed = False  # (whether a statement was rewritten)

    # the dataflow: owned names after a block -------------------------------------------
    # owned: name -> "array" (an array it allocated: items may be updated in place) or "any"
    # (a new number or array: it may be rebound with +=). transfer_one updates the dict it is
    # given and returns the owned names after the statement: callers hand it a dict of their
    # own (transfer and block copy theirs once, not once per statement)
    def transfer(self, stmts, owned):
        owned = dict(owned)
        for stmt in stmts:
            owned = self.transfer_one(stmt, owned)
        return owned

    def transfer_one(self, stmt, owned):
        if isinstance(stmt, gast.Assign):
            owned = _drop(owned, _shared(stmt.value))
            target = stmt.targets[0]
            if isinstance(target, gast.Name):
                owned.pop(target.id, None)
                if not self.specialized and isinstance(stmt.value, gast.Call) and _call_name(
                        stmt.value) == "zero_gradient":
                    pass  # (an argument's kind, maybe not its adjoints': module docstring)
                elif _allocates(stmt.value):
                    owned[target.id] = "array"
                elif is_fresh(stmt.value):
                    owned[target.id] = "any"
            elif isinstance(target, gast.Subscript):
                owned = _drop(owned, _shared(target.slice))
            else:
                owned = _drop(owned, {n.id for n in walk(target) if isinstance(n, gast.Name)})
            return owned
        if isinstance(stmt, gast.AugAssign):
            return _drop(owned, _shared(stmt.value))
        if isinstance(stmt, gast.If):
            return _meet(self.transfer(stmt.body, owned), self.transfer(stmt.orelse, owned))
        if isinstance(stmt, (gast.For, gast.While)):
            return self.loop_entry(stmt, owned)
        return _drop(owned, _shared(stmt))

    def loop_entry(self, stmt, owned):
        entry = dict(owned)
        while True:
            new = _meet(entry, self.transfer(stmt.body, entry))
            if new == entry:
                return entry
            entry = new

    # the rewrite --------------------------------------------------------------------------
    def block(self, stmts, owned):
        owned = dict(owned)
        out = []
        written = {}  # name -> the ranges of its axis 0 stored into since np.zeros made it
        for stmt in stmts:
            written = self.still_written(stmt, written)
            if isinstance(stmt, gast.If):
                stmt.body = self.block(stmt.body, owned)
                stmt.orelse = self.block(stmt.orelse, owned)
            elif isinstance(stmt, (gast.For, gast.While)):
                stmt.body = self.block(stmt.body, self.loop_entry(stmt, owned))
            else:
                stmt = self.unit_views(stmt)
                first = self.scatter(stmt)
                if first is not None:  # two statements: allocate, then store
                    self.changed = True
                    for part in first:
                        owned = self.transfer_one(part, owned)
                    out.extend(first)
                    stored = self.stored_range(first[1].targets[0])
                    if stored is not None:
                        written[first[0].targets[0].id] = [stored]
                    continue
                rewritten = self.rewrite(stmt, owned, written)
                self.changed = self.changed or rewritten is not stmt
                stmt = rewritten
            owned = self.transfer_one(stmt, owned)
            out.append(stmt)
        return out

    def stored_range(self, target):
        """(start, stop) of the items of axis 0 that `v[lo:hi] = ...` stores into, for bounds
        that are int literals or sizes (the same ints in every call), v's shape known; else
        None."""
        index, shape = target.slice, self.shape_of_name and self.shape_of_name(target.value.id)
        if not (shape and isinstance(index, gast.Slice) and index.step is None):
            return None
        bounds = [self.int_value(b) for b in (index.lower, index.upper)]
        if any(b is False for b in bounds):
            return None
        start, stop, _ = slice(*bounds).indices(shape[0])
        return start, max(start, stop)

    def int_value(self, node):
        """The int node always is (None for None); False when not known."""
        if node is None or isinstance(node, gast.Constant) and node.value is None:
            return None
        if isinstance(node, gast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, gast.Name) and node.id in self.sizes:
            return self.sizes[node.id]
        return False

    @staticmethod
    def still_written(stmt, written):
        """written, without the names stmt reads or binds, but for bx in bx = bx + unindex(g,
        x, i) (which rewrite follows): what else happens to them is not followed."""
        if not written:
            return written
        seen = {n.id for n in walk(stmt) if isinstance(n, gast.Name)}
        value = getattr(stmt, "value", None)
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) and (
                isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Sub))
                and isinstance(value.left, gast.Name) and value.left.id == stmt.targets[0].id
                and isinstance(value.right, gast.Call)
                and _call_name(value.right) == "unindex"):  # bx = bx + unindex(g, x, i)
            seen = {n.id for n in walk(value.right) if isinstance(n, gast.Name)}
        return {var: ranges for var, ranges in written.items() if var not in seen}

    def unit_views(self, stmt):
        """unindex(g, x, i) where x[i] only inserts axes of length 1 (i of None and full
        slices, x[:, None, :]) and g has that view's shape: np.reshape(g, x's shape), since
        every item of x is one item of g. A view of g, so not owned: nothing updates it in
        place (numpy's add.at, which unindex takes for a None in i: 4.3 us for 64 x 3)."""
        if not (self.shape_of_name and isinstance(stmt, gast.Assign)):
            return stmt

        def reshaped(node):
            shape = self.unit_view_shape(node) if isinstance(node, gast.Call) else None
            if shape is None:
                return node
            self.changed = True
            return gast.Call(func=gast.Attribute(value=gast.Name(
                id="np", ctx=gast.Load(), annotation=None, type_comment=None), attr="reshape",
                ctx=gast.Load()), args=[node.args[0], gast.Constant(value=shape, kind=None)],
                keywords=[])
        stmt.value = reshaped(stmt.value)  # (the forms the adjoints take: bx = unindex(...),
        if isinstance(stmt.value, gast.BinOp):  # bx = bx + unindex(...); no walk per statement)
            stmt.value.left, stmt.value.right = reshaped(stmt.value.left), reshaped(
                stmt.value.right)
        return stmt

    def unit_view_shape(self, node):
        """x's shape, for unindex(g, x, i) with g and x names whose shapes the probe knows, i
        a None or a tuple of None and full slices, and g shaped as x[i] is; else None."""
        if not (_call_name(node) == "unindex" and len(node.args) == 3 and not node.keywords
                and all(isinstance(a, gast.Name) for a in node.args[:2])):
            return None
        g, x, index = node.args
        items = index.elts if isinstance(index, gast.Tuple) else [index]
        shape, g_shape = self.shape_of_name(x.id), self.shape_of_name(g.id)
        if shape is None or g_shape is None or not any(_is_none(i) for i in items):
            return None
        view, axes = [], iter(shape)
        for item in items:
            if _is_none(item):
                view.append(1)
            elif _is_full_slice(item):
                view.append(next(axes, None))
            else:
                return None
        view.extend(axes)
        return tuple(shape) if tuple(view) == tuple(g_shape) else None

    def scatter(self, stmt):
        """bx = unindex(bt, x, i) with x's and bt's array shapes known (a gradient, where every
        adjoint is a float array):  bx = np.zeros(shape, bt.dtype); bx[i] = bt  (no helper)."""
        if not (self.shape_of_name and isinstance(stmt, gast.Assign)
                and isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call)
                and _call_name(stmt.value) == "unindex" and len(stmt.value.args) == 3):
            return None
        g, x, index = stmt.value.args
        if not (isinstance(g, gast.Name) and isinstance(x, gast.Name) and self.basic(index)):
            return None
        shape, g_shape = self.shape_of_name(x.id), self.shape_of_name(g.id)
        if not shape or not g_shape:
            return None
        var = stmt.targets[0].id
        dtype = gast.Attribute(value=gast.Name(id=g.id, ctx=gast.Load(), annotation=None,
                                               type_comment=None), attr="dtype", ctx=gast.Load())
        zeros = gast.Call(func=gast.Attribute(value=gast.Name(id="np", ctx=gast.Load(),
                                                               annotation=None, type_comment=None),
                                              attr="zeros", ctx=gast.Load()),
                          args=[gast.Constant(value=tuple(shape), kind=None), dtype], keywords=[])
        target = gast.Subscript(value=gast.Name(id=var, ctx=gast.Load(), annotation=None,
                                                type_comment=None),
                                slice=self.as_index(index), ctx=gast.Store())
        return [gast.Assign(targets=[gast.Name(id=var, ctx=gast.Store(), annotation=None,
                                               type_comment=None)], value=zeros,
                            type_comment=None),
                gast.Assign(targets=[target], value=g, type_comment=None)]

    def rewrite(self, stmt, owned, written):
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)):
            return stmt
        var = stmt.targets[0].id
        value = stmt.value
        ranges = written.pop(var, None)  # (put back below where what var holds is followed)
        if var not in owned:
            return stmt
        if (isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Sub))
                and isinstance(value.left, gast.Name) and value.left.id == var
                and var not in loaded_names(value.right)):  # bx = bx + g  ->  bx += g
            term = value.right
            if (isinstance(term, gast.Call) and _call_name(term) == "unindex"
                    and len(term.args) == 3 and self.basic(term.args[2])
                    and owned[var] == "array"):  # bx = bx - unindex(g, x, i) -> bx[i] -= g
                target = gast.Subscript(value=gast.Name(id=var, ctx=gast.Load(), annotation=None,
                                                        type_comment=None),
                                        slice=self.as_index(term.args[2]), ctx=gast.Store())
                stored = self.stored_range(target)
                if stored is not None and ranges is not None:
                    written[var] = ranges + [stored]
                    if all(stored[1] <= lo or hi <= stored[0] for lo, hi in ranges):
                        g = term.args[0] if isinstance(value.op, gast.Add) else gast.UnaryOp(
                            op=gast.USub(), operand=term.args[0])  # zeros there: bx[i] = g
                        return gast.Assign(targets=[target], value=g, type_comment=None)
                return gast.AugAssign(target=target, op=type(value.op)(), value=term.args[0])
            return gast.AugAssign(target=gast.Name(id=var, ctx=gast.Store(), annotation=None,
                                                   type_comment=None),
                                  op=type(value.op)(), value=term)
        if (isinstance(value, gast.Call) and _call_name(value) == "zero_at"
                and len(value.args) == 2 and isinstance(value.args[0], gast.Name)
                and value.args[0].id == var and self.basic(value.args[1])
                and owned[var] == "array"):
            target = gast.Subscript(value=gast.Name(id=var, ctx=gast.Load(), annotation=None,
                                                    type_comment=None),
                                    slice=self.as_index(value.args[1]), ctx=gast.Store())
            return gast.Assign(targets=[target], value=gast.Constant(value=0.0, kind=None),
                               type_comment=None)
        return stmt

    def basic(self, index):
        """An index without repeats: ints, range loop names and slices (as slice(...) calls,
        whatever their bounds: a slice names each item once)."""
        if isinstance(index, gast.Constant):
            return isinstance(index.value, int) and not isinstance(index.value, bool)
        if isinstance(index, gast.Name):
            return index.id in self.loop_indices
        if isinstance(index, gast.Tuple):
            return all(self.basic(e) for e in index.elts)
        return isinstance(index, gast.Call) and _call_name(index) == "slice"

    def as_index(self, index):
        """slice(1, None, None) -> 1: (the subscript form of an index value)."""
        if isinstance(index, gast.Call) and _call_name(index) == "slice":
            parts = [None if isinstance(a, gast.Constant) and a.value is None else a
                     for a in index.args]
            return gast.Slice(lower=parts[0], upper=parts[1], step=parts[2])
        if isinstance(index, gast.Tuple):
            return gast.Tuple(elts=[self.as_index(e) for e in index.elts], ctx=gast.Load())
        return index


def range_loop_names(stmts):
    names = set()
    for stmt in stmts:
        if isinstance(stmt, gast.For) and isinstance(stmt.target, gast.Name):
            names.add(stmt.target.id)
        if isinstance(stmt, (gast.For, gast.While, gast.If)):
            names |= range_loop_names(stmt.body + stmt.orelse)
    return names


def in_place(fdef, facts):
    """Rewrite accumulations into owned adjoint arrays as in-place updates. Where adjoints are
    all floats (facts.seeded: a gradient), the probe's shapes (facts.shape_of) allocate the
    first adjoint of a subscript without a helper."""
    loop_targets = range_loop_names(fdef.body)
    assigned = {m.id for s in walk(fdef) if isinstance(s, gast.Assign) for t in s.targets
                for m in walk(t) if isinstance(m, gast.Name)}  # (one walk, not one per loop)
    reassigned = loop_targets & assigned
    indices = loop_targets - set(facts.params) - reassigned
    specialized = facts.shape_of is not None  # (None but in builds specialized to shapes)
    sizes = sizes_of(fdef.body, facts.params, facts.shape_of, facts.binds) if specialized else {}
    rewriter = InPlace(indices, facts.shape_of if facts.seeded else None,
                       specialized=specialized, sizes=sizes)
    fdef.body = rewriter.block(fdef.body, {})
    if not rewriter.changed:  # (the rewrites make new nodes: none made, none changed)
        facts.unchanged()
    return fdef


def sizes_of(body, params, shape_of, binds):
    """name -> the int it holds in every call of code specialized to the parameters' shapes:
    names bound once, at the top level, to an int literal, to s[k] of s = p.shape for a
    parameter p (whose shape the specialization fixes), or to a + b, a - b, a * b of such."""
    shapes, sizes = {}, {}

    def value(node):
        if isinstance(node, gast.Constant) and type(node.value) is int:
            return node.value
        return sizes.get(node.id) if isinstance(node, gast.Name) else None
    for stmt in body:
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Name)
                and binds.get(stmt.targets[0].id) == 1):
            continue
        var, node = stmt.targets[0].id, stmt.value
        if isinstance(node, gast.Attribute) and node.attr == "shape" and isinstance(
                node.value, gast.Name) and node.value.id in params and binds.get(
                node.value.id, 0) <= 1 and shape_of(node.value.id) is not None:
            shapes[var] = tuple(shape_of(node.value.id))
        elif isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and (
                node.value.id in shapes and isinstance(node.slice, gast.Constant)
                and type(node.slice.value) is int):
            try:
                sizes[var] = shapes[node.value.id][node.slice.value]
            except IndexError:
                pass
        elif isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub,
                                                                   gast.Mult)):
            left, right = value(node.left), value(node.right)
            if left is not None and right is not None:
                sizes[var] = {gast.Add: left + right, gast.Sub: left - right,
                              gast.Mult: left * right}[type(node.op)]
        elif value(node) is not None:
            sizes[var] = value(node)
    return sizes


def _is_none(node):
    return isinstance(node, gast.Constant) and node.value is None


def _is_full_slice(node):
    """slice(None, None, None), as an index value."""
    return isinstance(node, gast.Call) and _call_name(node) == "slice" and len(node.args) == 3 \
        and not node.keywords and all(isinstance(a, gast.Constant) and a.value is None
                                      for a in node.args)
