"""How a contribution reaches an adjoint in reverse mode: the first creates it (bx = e), later
ones add to it (bx = bx + e); a broadcasting op's contribution is summed over the broadcast axes
first (unbroadcast), which shape-specialized builds write as the one sum it is or leave out;
items of tuples and lists have adjoints of their own; an adjoint no contribution reached is a
zero of its value's shape (zero), and a gradient is returned in its parameter's dtype.

A mixin of Reverse (reverse.py), whose state it reads: shapes and dtypes from the probe, the
adjoints created so far (initialized), the names surely bound where a zero is written.
"""
import gast

from ..analysis.shapes import broadcast_of, expression_shape, narrower_floats, outside_factors
from ..rules.instantiate import operand_id
from ..syntax.nodes import assign, call, constant_node, name
from ..syntax.naming import clone


# helpers whose list of adjoints may hold None for items nothing reached (zeros are
# written in by item_adjoints before a display's items read them)
_HOLES = {"unindex", "unlist", "concat_adjoint", "unrepeat_items"}

class Accumulation:
    def in_dtype(self, adjoint, var):
        """The gradient of parameter var in var's dtype (runtime.in_dtype_of): generic builds
        ask at run time; specialized ones only where var is narrower than float64, where a
        narrower float takes part in f (a float64 parameter's gradient is float64 otherwise:
        seeded with the weak 1.0, 1.0 * np.float32(2.0) is a float32 number, and the gradient
        of np.sum(v) * np.float32(2.0) was float32 for a float64 v), or where var is bound again
        in f (the probe's dtype is then its last value's; the sweep has restored the argument
        by the return)."""
        if self.shapes and self.floats.get(var) not in ("f", "e") and \
                var not in self.rebound_params and not narrower_floats(self.floats):
            return adjoint
        return call(["in_dtype_of"], adjoint, name(var))

    def item_adjoints(self, var):
        """(index, adjoint name) of the items of tuple `var` that received adjoints."""
        prefix = var + "["
        items = sorted(int(key[len(prefix):-1]) for key in self.initialized
                       if key.startswith(prefix))
        return [(i, self.namer.adjoint(f"{var}[{i}]")) for i in items]

    def gather_items(self, var, out, refuse=False):
        """Before the statement that made tuple `var`: its item adjoints as one sequence. Used
        whole too (cho_solve(factor, y) and factor[0]), the whole's adjoint and the items' add
        item by item; refuse: refused instead (a pair srcad's generated code made)."""
        items = self.item_adjoints(var)
        if not items:
            return
        if var in self.initialized and refuse:
            raise self.info.error(None, f"srcad cannot yet differentiate a tuple used both whole "
                                        f"and item by item ({var}) that a derivative srcad "
                                        f"generated returns",
                                  hint="differentiate fewer times through this helper, or let "
                                       "srcad write the helper into its caller")
        if var in self.initialized:
            self.sequences.add(var)
        value = call(["tuple_adjoint"], gast.Tuple(elts=[name(n) for _, n in items],
                                                   ctx=gast.Load()), name(var),
                     gast.Tuple(elts=[gast.Constant(value=i, kind=None) for i, _ in items],
                                ctx=gast.Load()))
        for i, _ in items:
            self.initialized.discard(f"{var}[{i}]")
        self.accumulate(var, value, False, out)

    # accumulation ------------------------------------------------------------------------
    def same_shape(self, a, b):
        """Whether the shape probe showed a and b always have one and the same shape."""
        return a in self.shapes and b in self.shapes and self.shapes[a] == self.shapes[b]

    def broadcast_result(self, target, args):
        """target, if the probe shows it has the broadcast shape of the operands (so a
        broadcasting template's contributions are shaped like it), else True (shape unknown)."""
        shapes = [expression_shape(a, self.shapes.get) for a in args  # (-0.5: a number)
                  if not isinstance(a, gast.Constant) or isinstance(a.value, (int, float))]
        if target not in self.shapes or any(s is None for s in shapes):
            return True
        return target if broadcast_of(shapes) == self.shapes[target] else True

    def shape_of_name(self, ident):
        """The probed shape of a primal name, or of the primal value an adjoint name belongs to
        (an adjoint has its value's shape), or None."""
        if ident in self.shapes:
            return self.shapes[ident]
        if ident in self.local_shapes:
            return self.local_shapes[ident]
        if len(self._adjoint_of) != len(self.namer.adjoints):
            self._adjoint_of = {adj: var for var, adj in self.namer.adjoints.items()}
        var = self._adjoint_of.get(ident)
        return self.shapes.get(var) if var is not None else None

    def unbroadcast(self, value, result, var):
        """Sum value (shaped like result) down to var's shape: written out as one sum when the
        shape probe knows both shapes, else the runtime helper unbroadcast. Factors constant
        along the summed axes (shaped like var, or scalars) and signs are taken out of the sum:

            (-bz * z / y).sum(axis=(0,))   ->   -(bz * z).sum(axis=(0,)) / y"""
        if not (isinstance(result, str) and result in self.shapes and var in self.shapes):
            return call(["unbroadcast"], value, name(var))
        full, mine = self.shapes[result], self.shapes[var]
        lead = len(full) - len(mine)
        axes = list(range(lead)) + [lead + i for i, n in enumerate(mine)
                                    if n == 1 and full[lead + i] != 1]
        negate, factors, value = outside_factors(value, full, mine, self.shape_of_name)
        if not mine:  # the sum of everything (to a (1,) shape: below, keeping the axis)
            summed = self.total_sum(value, full)
        elif lead == 0:  # summed over axes var has with length 1: keep them
            summed = gast.Call(func=gast.Attribute(value=value, attr="sum", ctx=gast.Load()),
                               args=[], keywords=[
                                   gast.keyword(arg="axis", value=constant_node(tuple(axes))),
                                   gast.keyword(arg="keepdims", value=constant_node(True))])
        else:
            summed = gast.Call(func=gast.Attribute(value=value, attr="sum", ctx=gast.Load()),
                               args=[], keywords=[
                                   gast.keyword(arg="axis", value=constant_node(tuple(axes)))])
            if lead != len(axes):
                summed = call(["np", "reshape"], summed, constant_node(tuple(mine)))
        if negate:
            summed = gast.UnaryOp(op=gast.USub(), operand=summed)
        for op, factor in factors:
            summed = gast.BinOp(left=summed, op=op, right=factor)
        return summed

    def total_sum(self, value, full):
        """The sum of all of value's entries (an array: unbroadcast is called only where the
        shapes differ): np.dot for a product of two vectors, else its .sum method."""
        if (len(full) == 1 and isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult)
                and all(self.expr_shape(side) == full for side in (value.left, value.right))):
            return call(["np", "dot"], value.left, value.right)
        return gast.Call(func=gast.Attribute(value=value, attr="sum", ctx=gast.Load()),
                         args=[], keywords=[])

    def expr_shape(self, node):
        return expression_shape(node, self.shape_of_name)

    def accumulate(self, var, value, broadcasts, out):
        """Add value to var's adjoint. broadcasts: False, or the name of the broadcasting op's
        result (value is shaped like it), or True (shape unknown): sum it down to var's shape."""
        if broadcasts and not (isinstance(broadcasts, str) and self.same_shape(broadcasts, var)):
            value = self.unbroadcast(value, broadcasts, var)
        if var in getattr(self, "real_parts", ()):  # a real value meeting complex ones: the
            value = call(["np", "real"], value)  # real part of its adjoint (analysis/complexes)
        adjoint = self.namer.adjoint(var)
        if var in self.appended:  # a list built with append: its adjoint is a list, popped
            value = call(["item_adjoints"], value, name(var))  # item by item in the reverse
            # loop (zeros where it holds None: an item no contribution reached)
        if var in self.initialized and var in self.sequences:
            value = call(["add_adjoint"], name(adjoint), value)
        elif var in self.initialized:
            if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub):
                value = gast.BinOp(left=name(adjoint), op=gast.Sub(), right=value.operand)
            else:
                value = gast.BinOp(left=name(adjoint), op=gast.Add(), right=value)
        self.initialized.add(var)
        out.append(assign(adjoint, value))

    def accumulate_operand(self, operand, value, broadcasts, out):
        if isinstance(operand, (gast.Tuple, gast.List)):
            active = [(i, e.id) for i, e in enumerate(operand.elts)
                      if isinstance(e, gast.Name) and self.active(e.id)]
            nested = [(i, e) for i, e in enumerate(operand.elts)
                      if isinstance(e, (gast.Tuple, gast.List)) and self._any_active(e)]
            if isinstance(value, (gast.Tuple, gast.List)):
                for i, var in active:
                    self.accumulate(var, value.elts[i], broadcasts, out)
                for i, element in nested:
                    self.accumulate_operand(element, value.elts[i], broadcasts, out)
                return
            if not active and not nested:
                return
            if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and (
                    value.func.id in _HOLES):  # (a display read at an index, or list() of it:
                value = call(["item_adjoints"], value, clone(operand))  # None for the items
                # it did not read)
            if isinstance(value, gast.Name):
                holder = value.id
            else:
                holder = self.namer.fresh("t")
                out.append(assign(holder, value))
            for i, var in active:
                item = gast.Subscript(value=name(holder), slice=gast.Constant(value=i, kind=None),
                                      ctx=gast.Load())
                self.accumulate(var, item, broadcasts, out)
            for i, element in nested:  # [[a, b], [c, d]]: the rows' items in turn (a row's
                item = gast.Subscript(value=name(holder), slice=gast.Constant(value=i, kind=None),
                                      ctx=gast.Load())  # adjoint may be None: no adjoint
                self.accumulate_operand(element, call(["item_adjoints"], item, clone(element)),
                                        broadcasts, out)
            return
        var = operand_id(operand)
        if var is not None and self.active(var):
            self.accumulate(var, value, broadcasts, out)

    def _any_active(self, display):
        return any((isinstance(e, gast.Name) and self.active(e.id)) or (
            isinstance(e, (gast.Tuple, gast.List)) and self._any_active(e)) for e in display.elts)

    # statements --------------------------------------------------------------------------
    def zero(self, var):
        """A zero adjoint for var: shaped like var where var surely has a value here (in its
        structure: zero_gradient of a list is a list of zeros), else the number 0.0, which
        arithmetic broadcasts and the helpers of sequence adjoints (add_adjoint, as_gradient)
        take for no adjoint. (A parameter read by item may be an array or a list: its adjoint
        may meet either.)"""
        if var in self.tuple_vars and var not in self.appended:
            value = gast.Constant(value=None, kind=None)  # (items tracked one by one)
        elif var in self.bound_here and var in self.shapes and var in self.floats and (
                self.kinds.get(var) == "array"):  # a float array of a known shape
            value = call(["np", "zeros"], constant_node(self.shapes[var]),
                         gast.Attribute(value=name(var), attr="dtype", ctx=gast.Load()))
        elif var in self.bound_here and self.kinds.get(var) == "scalar" and (
                self.floats.get(var) == "d" and self.shapes.get(var) == ()):
            value = gast.Constant(value=0.0, kind=None)  # a float64 number: a Python float
            # (a 0-d array would make every later bx += ... an array operation, ~1 us)
        elif var in self.bound_here:
            value = call(["zero_gradient"], name(var))
        elif var in self.appended:
            value = gast.Constant(value=None, kind=None)  # add_adjoint's zero
        elif var in self.shapes and self.kinds.get(var) == "array":  # shape known: allocate it
            value = call(["np", "zeros"], constant_node(self.shapes[var]))
        else:
            value = gast.Constant(value=0.0, kind=None)
        return assign(self.namer.adjoint(var), value)

