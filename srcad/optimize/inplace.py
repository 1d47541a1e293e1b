"""in place: accumulate into adjoint arrays the generated code owns, without new arrays.

    bW = bW + np.outer(bt4, h)          ->   bW += np.outer(bt4, h)
    bx = bx - bt3                       ->   bx -= bt3
    bx = bx + unindex(bt3, x, i)        ->   bx[i] += bt3        (and -, -=)
    by = zero_at(by, i)                 ->   by[i] = 0.0
    bx = unindex(bt3, x, i)             ->   bx = np.zeros((5,), bt3.dtype); bx[i] = bt3

A name *owns* its value when the value is an array or number that no other name, list, view or
caller can see: it was made by arithmetic or by a numpy function that returns a new array, and
the name has not been handed on since (assigned to another name, passed to a helper that may
return it, pushed on the stack, returned, viewed by a subscript or a reshape). Ownership is a
dataflow fact: a branch keeps what both arms keep, a loop what holds at its entry and after
its body (iterated to a fixed point). Only owned values are updated in place.

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
FRESH_HELPERS = {"zero_gradient", "unindex", "zero_at"}  # runtime helpers returning new arrays
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
    def __init__(self, loop_indices, shape_of_name=None, specialized=True):
        self.loop_indices = loop_indices  # names that are always ints (range loop variables)
        self.shape_of_name = shape_of_name  # known shapes (a specialized gradient), or None
        self.specialized = specialized  # (else argument zeros are not owned: module docstring)

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
        for stmt in stmts:
            if isinstance(stmt, gast.If):
                stmt.body = self.block(stmt.body, owned)
                stmt.orelse = self.block(stmt.orelse, owned)
            elif isinstance(stmt, (gast.For, gast.While)):
                stmt.body = self.block(stmt.body, self.loop_entry(stmt, owned))
            else:
                stmt = self.unit_views(stmt)
                first = self.scatter(stmt)
                if first is not None:  # two statements: allocate, then store
                    for part in first:
                        owned = self.transfer_one(part, owned)
                    out.extend(first)
                    continue
                stmt = self.rewrite(stmt, owned)
            owned = self.transfer_one(stmt, owned)
            out.append(stmt)
        return out

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
            return gast.Call(func=gast.Attribute(value=gast.Name(
                id="np", ctx=gast.Load(), annotation=None, type_comment=None), attr="reshape",
                ctx=gast.Load()), args=[node.args[0], gast.Constant(value=shape, kind=None)],
                keywords=[])
        for node in walk(stmt):
            for field, value in gast.iter_fields(node):
                if isinstance(value, list):
                    setattr(node, field, [reshaped(v) for v in value])
                else:
                    setattr(node, field, reshaped(value))
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

    def rewrite(self, stmt, owned):
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)):
            return stmt
        var = stmt.targets[0].id
        value = stmt.value
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
    fdef.body = InPlace(indices, facts.shape_of if facts.seeded else None,
                        specialized=specialized).block(fdef.body, {})
    return fdef


def _is_none(node):
    return isinstance(node, gast.Constant) and node.value is None


def _is_full_slice(node):
    """slice(None, None, None), as an index value."""
    return isinstance(node, gast.Call) and _call_name(node) == "slice" and len(node.args) == 3 \
        and not node.keywords and all(isinstance(a, gast.Constant) and a.value is None
                                      for a in node.args)
