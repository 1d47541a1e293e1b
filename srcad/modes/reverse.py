"""reverse mode: the primal sweep, then the adjoint sweep, in one function.

    def f(x1, x2):                        def f_grad(x1, x2):
        t1 = np.log(x1)                       t1 = np.log(x1)
        t2 = x1 * x2                          ...
        y = t1 + t2            ->             y = t1 + t2
        return y                              by = grad_seed(y)
                                              # grad of: y = np.log(x1) + x1 * x2  (f.py:3)
                                              bt1 = by
                                              bt2 = by
                                              bx1 = bt2 * x2
                                              bx2 = bt2 * x1
                                              bx1 = bx1 + bt1 / x1
                                              return bx1, bx2

Adjoints are created by their first contribution (bx = e) and accumulated after (bx = bx + e);
an adjoint that no contribution reaches is never created. Contributions of broadcasting ops go
through unbroadcast, the one place that sums over broadcast axes.
"""

import gast

from ..analysis.activity import flow, operand_names
from ..analysis.shapes import _broadcast, expression_shape, outside_factors
from ..rules import operations
from ..rules.calls import bind, Dependencies, is_user_function, positional_params, returns_tuple
from ..rules.instantiate import Accumulate, instantiate, operand_id
from ..rules.operations import unknown_call
from ..rules.registry import REGISTRY, require_template
from ..syntax.naming import bound_counts, clone, loaded_names, walk
from ..syntax.nodes import (assign, assigned_name, call, comment, constant_node, flatten, list_op,
                            name, origin_comment, SHAPE_ATTRIBUTES as _SHAPE_ATTRIBUTES)


class Reverse:
    def __init__(self, fdef, scope, info, namer, activity, wrt, kind, shapes=None, kinds=None,
                 floats=None):
        self.fdef = fdef
        self.scope = scope
        self.info = info
        self.namer = namer
        self.active = activity
        self.wrt = wrt
        self.kind = kind
        self.shapes = shapes or {}  # from the shape probe, when specialized (shapes.py)
        self._adjoint_of = {}  # adjoint name -> its primal name (see shape_of_name)
        self.local_shapes = {}  # shapes of templates' own temporaries (share = d[z] / y)
        self.temporaries = set()  # the names of those temporaries
        self.floats = floats or {}  # name -> float dtype character, from the probe
        self.kinds = kinds or {}
        self.initialized = set()
        self.tuple_vars = self.find_tuple_vars(flatten(fdef.body))
        self.dependencies = Dependencies(namer)
        self.containers = self.find_containers(fdef)
        self.appended = {s.value.func.value.id for s in flatten(fdef.body)
                         if list_op(s) and s.value.func.attr == "append"}
        self.counters = {s.target.id for s in flatten(fdef.body)  # (ints: control.py makes
                         if isinstance(s, gast.For) and isinstance(s.target, gast.Name)}
        # every for loop a loop over a range)
        self.sequences = self.find_sequences(fdef)

    def find_sequences(self, fdef):
        """Names whose adjoints may be lists, tuples or dicts (added with add_adjoint, whose
        zero is None; `+` would concatenate them): containers, tuples, appended lists, values
        the probe saw as neither arrays nor numbers, and slices and copies of those."""
        found = set(self.containers) | self.tuple_vars | self.appended | {
            v for v, kind in self.kinds.items() if kind == "other"}
        changed = True
        while changed:
            changed = False
            for stmt in flatten(fdef.body):
                if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
                        and stmt.targets[0].id not in found):
                    continue
                value = stmt.value
                if (isinstance(value, gast.Name) and value.id in found) or (
                        isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name)
                        and value.value.id in found and isinstance(value.slice, gast.Slice)) or (
                        isinstance(value, gast.Call)
                        and self.scope.lookup(value.func) in (list, tuple)):
                    found.add(stmt.targets[0].id)
                    changed = True
        return found

    def find_containers(self, fdef):
        """Parameters read by item or attribute (params["W"], layers[0], model.W): they may be
        dicts, lists or objects, so their adjoints add with add_adjoint and are returned in
        their own structure by as_gradient. (Arrays pass through both unchanged.)"""
        params = {a.id for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
        out = set()
        for stmt in flatten(fdef.body):
            value = getattr(stmt, "value", None)
            if isinstance(value, (gast.Subscript, gast.Attribute)) and isinstance(
                    value.value, gast.Name) and value.value.id in params:
                if isinstance(value, gast.Attribute) and value.attr in _SHAPE_ATTRIBUTES:
                    continue
                if self.kinds.get(value.value.id) == "array":
                    continue  # the shape probe saw an array here
                out.add(value.value.id)
        return out

    def in_dtype(self, adjoint, var):
        """The gradient of parameter var in var's dtype (runtime.in_dtype_of): generic builds
        ask at run time; specialized ones only where var is narrower than float64 (a float64
        parameter's gradient is float64 already) or is bound again in f (the probe's dtype is
        then its last value's; the sweep has restored the argument by the return)."""
        if self.shapes and self.floats.get(var) not in ("f", "e") and \
                var not in self.rebound_params:
            return adjoint
        return call(["in_dtype_of"], adjoint, name(var))

    def find_tuple_vars(self, body):
        """Names bound to tuples whose items get adjoints of their own (t1[0] -> bt1_0)."""
        out = set()
        for stmt in body:
            if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
                try:
                    op, _, _ = operations.operation(stmt.value, self.scope)
                except operations.UnknownCall:
                    continue
                template = REGISTRY.adjoint_of(op) if op is not None else None
                if op is operations.pack or (template is not None and template.tuple_result) or (
                        op is not None and is_user_function(op) and returns_tuple(op)):
                    out.add(stmt.targets[0].id)
        return out

    def is_active(self, var):
        return self.active(var.split("[", 1)[0])

    def item_adjoints(self, var):
        """(index, adjoint name) of the items of tuple `var` that received adjoints."""
        prefix = var + "["
        items = sorted(int(key[len(prefix):-1]) for key in self.initialized
                       if key.startswith(prefix))
        return [(i, self.namer.adjoint(f"{var}[{i}]")) for i in items]

    def gather_items(self, var, out):
        """Before the statement that made tuple `var`: its item adjoints as one sequence."""
        items = self.item_adjoints(var)
        if not items:
            return
        if var in self.initialized:
            raise self.info.error(None, f"srcad cannot yet differentiate a tuple used both whole "
                                        f"and item by item ({var})",
                                  hint="unpack the tuple once (a, b = ...) and use the items")
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
        return target if _broadcast(shapes) == self.shapes[target] else True

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
        adjoint = self.namer.adjoint(var)
        if var in self.appended:  # a list built with append: its adjoint is a list, popped
            value = call(["list"], value)  # item by item in the reverse loop
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
            if isinstance(value, gast.Name):
                holder = value.id
            else:
                holder = self.namer.fresh("t")
                out.append(assign(holder, value))
            for i, var in active:
                item = gast.Subscript(value=name(holder), slice=gast.Constant(value=i, kind=None),
                                      ctx=gast.Load())
                self.accumulate(var, item, broadcasts, out)
            for i, element in nested:  # [[a, b], [c, d]]: the rows' items in turn
                item = gast.Subscript(value=name(holder), slice=gast.Constant(value=i, kind=None),
                                      ctx=gast.Load())
                self.accumulate_operand(element, item, broadcasts, out)
            return
        var = operand_id(operand)
        if var is not None and self.active(var):
            self.accumulate(var, value, broadcasts, out)

    def _any_active(self, display):
        return any((isinstance(e, gast.Name) and self.active(e.id)) or (
            isinstance(e, (gast.Tuple, gast.List)) and self._any_active(e)) for e in display.elts)

    # statements --------------------------------------------------------------------------
    def adjoint_of_assign(self, stmt):
        target = stmt.targets[0].id
        if not self.active(target):
            return []
        out = []
        value = stmt.value
        if target in self.tuple_vars:
            items = self.item_adjoints(target)
            if items and isinstance(value, (gast.Tuple, gast.List)):  # a display: item by item
                last = max(i for i, _ in items)
                if last >= len(value.elts):
                    raise self.info.error(stmt, f"srcad cannot yet differentiate items of a list "
                                                f"that grows by append read by index "
                                                f"({target}[{last}])",
                                          hint="stack the items into an array (np.stack) and "
                                               "index that, or build the list in one display")
                for i, adjoint in items:
                    self.initialized.discard(f"{target}[{i}]")
                    self.accumulate_operand(value.elts[i], name(adjoint), False, out)
                return out
            self.gather_items(target, out)
        if target not in self.initialized:
            return out
        if (isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name)
                and value.value.id in self.tuple_vars and isinstance(value.slice, gast.Constant)
                and isinstance(value.slice.value, int)):
            item = f"{value.value.id}[{value.slice.value}]"
            self.accumulate(item, name(self.namer.adjoint(target)), False, out)
            self.initialized.discard(target)
            return out
        try:
            op, args, keywords = operations.operation(value, self.scope)
        except operations.UnknownCall as exc:
            raise unknown_call(self.info, exc.args[0]) from None
        result = name(target)
        if op is None:
            return out
        if is_user_function(op):
            self.adjoint_of_user_call(op, args, keywords, value, target, out)
        else:
            template = require_template("adjoint", op, self.info, value)
            try:
                pieces = instantiate(template, result, args, keywords, self.namer.adjoint,
                                     self.is_active, self.namer.fresh, self.shapes)
            except TypeError as exc:
                raise self.info.error(value, f"srcad cannot match this call to its template "
                                             f"({exc})", hint="check the arguments of the call")
            for piece in pieces:
                if isinstance(piece, Accumulate):
                    self.accumulate_operand(piece.operand, piece.value,
                                            piece.broadcasts and self.broadcast_result(
                                                target, args), out)
                else:
                    if isinstance(piece, gast.Assign) and isinstance(piece.targets[0], gast.Name):
                        self.temporaries.add(piece.targets[0].id)
                        shape = self.expr_shape(piece.value)  # a fresh name, bound once
                        if shape is not None:
                            self.local_shapes[piece.targets[0].id] = shape
                    out.append(piece)
        # the value is dead before this statement: its adjoint is spent
        self.initialized.discard(target)
        return out

    def active_parameters(self, func, args, keywords, node):
        """(position, argument) of the callee's parameters that carry adjoints here: a name, or
        a list or tuple display holding one (h([a, b]))."""
        params = positional_params(func)
        bound = bind(func, args, keywords, self.info, node)
        return [(i, bound[p]) for i, p in enumerate(params)
                if (isinstance(bound.get(p), gast.Name) and self.active(bound[p].id)) or (
                    isinstance(bound.get(p), (gast.Tuple, gast.List))
                    and self._any_active(bound[p]))]

    def find_records(self, body):
        """The calls of user functions that carry adjoints: each runs the callee's forward half
        in the primal sweep (its value and tape, kept in `t_record`), and its backward half,
        from that tape, in the adjoint sweep (calls.py)."""
        self.records = {}
        for stmt in flatten(body):
            if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
                    and self.active(stmt.targets[0].id)):
                continue
            try:
                op, args, keywords = operations.operation(stmt.value, self.scope)
            except operations.UnknownCall:
                continue
            if op is None or not is_user_function(op):
                continue
            active = self.active_parameters(op, args, keywords, stmt.value)
            if not active:
                continue
            wrt = tuple(i for i, _ in active)
            target = stmt.targets[0].id
            record = Record(self.namer.fresh_name(f"{target}_record"),
                            self.dependencies.name_for(op, "record", wrt),
                            self.dependencies.name_for(op, "backward", wrt))
            self.records[id(stmt.value)] = self.records[id(stmt)] = record
            if target in self.overwritten:
                self.overwritten.add(record.name)

    def adjoint_of_user_call(self, func, args, keywords, node, target, out):
        """t = h(a, b): the callee's backward half gives one adjoint per parameter, from the
        tape its forward half recorded in the primal sweep."""
        active = self.active_parameters(func, args, keywords, node)
        if not active:
            return
        record = self.records[id(node)]
        tape = gast.Subscript(value=name(record.name), slice=gast.Constant(value=1, kind=None),
                              ctx=gast.Load())
        value = gast.Call(func=name(record.backward),
                          args=[name(self.namer.adjoint(target)), tape] + clone(args),
                          keywords=[gast.keyword(arg=k, value=clone(v))
                                    for k, v in keywords.items()])
        if len(active) == 1:
            self.accumulate_operand(active[0][1], value, False, out)
            return
        holder = self.namer.fresh("t")
        out.append(assign(holder, value))
        for k, (_, argument) in enumerate(active):
            item = gast.Subscript(value=name(holder), slice=gast.Constant(value=k, kind=None),
                                  ctx=gast.Load())
            self.accumulate_operand(argument, item, False, out)

    # subscript stores: y[index] = v ---------------------------------------------------------
    def adjoint_of_store(self, stmt):
        target = stmt.targets[0]
        var = target.value.id
        if not self.active(var) or var not in self.initialized:
            return []
        out = []
        adjoint = self.namer.adjoint(var)
        part = gast.Subscript(value=name(adjoint), slice=clone(target.slice),
                              ctx=gast.Load())
        if not self.basic_index(target.slice):  # an index array may name an entry twice
            part = call(["stored_part"], name(adjoint),
                        operations.index_value(clone(target.slice)))
        self.accumulate_operand(stmt.value, part, True, out)
        out.append(assign(adjoint, call(["zero_at"], name(adjoint),
                                        operations.index_value(clone(target.slice)))))
        return out

    def basic_index(self, index):
        """Whether an index surely names each entry once (ints, slices, None, ...): its names
        are loop counters or what the shape probe saw as numbers."""
        if isinstance(index, gast.Slice):
            return True
        if isinstance(index, gast.Tuple):
            return all(self.basic_index(e) for e in index.elts)
        if isinstance(index, gast.Constant):
            return index.value is None or index.value is Ellipsis or type(index.value) is int
        if isinstance(index, gast.UnaryOp) and isinstance(index.operand, gast.Constant):
            return type(index.operand.value) is int
        if isinstance(index, gast.Name):
            return index.id in self.counters or self.kinds.get(index.id) == "scalar"
        return False

    def adjoint_of_append(self, stmt):
        """lst.append(v): v's adjoint is the last item of lst's adjoint (a list), taken off."""
        holder = stmt.value.func.value.id
        if not self.active(holder) or holder not in self.initialized:
            return []
        pop = gast.Call(func=gast.Attribute(value=name(self.namer.adjoint(holder)), attr="pop",
                                            ctx=gast.Load()), args=[], keywords=[])
        item = stmt.value.args[0]
        if isinstance(item, gast.Name) and self.active(item.id):
            out = []
            self.accumulate(item.id, pop, False, out)
            return out
        return [gast.Expr(value=pop)]

    # blocks ----------------------------------------------------------------------------------
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
        elif var in self.bound_here:
            value = call(["zero_gradient"], name(var))
        elif var in self.appended:
            value = gast.Constant(value=None, kind=None)  # add_adjoint's zero
        elif var in self.shapes and self.kinds.get(var) == "array":  # shape known: allocate it
            value = call(["np", "zeros"], constant_node(self.shapes[var]))
        else:
            value = gast.Constant(value=0.0, kind=None)
        return assign(self.namer.adjoint(var), value)

    def adjoint_block(self, stmts):
        out = []
        last_line = None
        for stmt in reversed(stmts):
            if getattr(stmt, "turn", False):  # an unrolled loop's turn: comment the next again
                last_line = None
            if isinstance(stmt, gast.Assign):
                if isinstance(stmt.targets[0], gast.Subscript):
                    block = self.adjoint_of_store(stmt)
                    restore = Restore(stmt.targets[0], id(stmt), slice_=True)
                else:
                    block = self.adjoint_of_assign(stmt)
                    restore = Restore(stmt.targets[0].id, id(stmt)) if (
                        stmt.targets[0].id in self.overwritten
                        and not getattr(stmt, "first_definition", False)
                        and not getattr(stmt, "batched", False)) else None
                    if restore is not None and id(stmt) in self.records:
                        block = block + [Restore(self.records[id(stmt)].name,
                                                 ("record", id(stmt)))]
                if block and stmt.lineno != last_line:
                    header = origin_comment(self.info, stmt, "grad of")
                    if header is not None:
                        out.append(header)
                    last_line = stmt.lineno
                out.extend(block)
                if restore is not None:
                    out.append(restore)
            elif list_op(stmt) and stmt.value.func.attr == "append":
                out.extend(self.adjoint_of_append(stmt))
            elif isinstance(stmt, (gast.If, gast.For, gast.While)):
                outer = self.bound_here  # a block at the top level: what is bound before it
                self.bound_here = self.bound_at.get(id(stmt), outer)  # has a value when its
                out.extend(self.adjoint_if(stmt) if isinstance(stmt, gast.If)  # adjoint runs
                           else self.adjoint_loop(stmt))
                self.bound_here = outer
                last_line = None
        return out

    def adjoint_if(self, stmt):
        before = set(self.initialized)
        body = self.adjoint_block(stmt.body)
        after_body = self.initialized
        self.initialized = set(before)
        orelse = self.adjoint_block(stmt.orelse)
        after_else = self.initialized
        union = after_body | after_else
        body += [self.zero(v) for v in sorted(union - after_body) if "[" not in v]
        orelse += [self.zero(v) for v in sorted(union - after_else) if "[" not in v]
        self.initialized = union
        if not body and not orelse:
            return []
        return [gast.If(test=clone(stmt.test), body=body or [gast.Pass()],
                        orelse=orelse)]

    def adjoint_loop(self, stmt):
        after = set(self.initialized)
        carried = self.loop_carried(stmt.body) - {v for v in local_names(stmt.body) if v not in after}
        pre = [self.zero(v) for v in sorted(carried - after)]
        self.initialized = after | carried
        body = self.adjoint_block(stmt.body)
        if stmt.batch:  # this iteration's own values, saved together at the end of its body
            body.insert(0, Restore(tuple(stmt.batch), ("batch", id(stmt))))
        for again in reversed(stmt.recompute):  # cheap ones are computed again instead
            body.insert(0, Restore(again.targets[0].id, ("again", id(again)), recompute=again))
        body += [self.zero(v) for v in sorted(carried - self.initialized)]
        self.initialized = after | carried
        counter = getattr(stmt, "counter", None)
        out = list(pre)
        if counter is not None and self.depth_of(stmt) > 0:
            out.append(Restore(counter, ("count", id(stmt)), always=True))
        if isinstance(stmt, gast.For) and stmt.target.id in self.rebound_targets:
            # the loop's counter is also bound elsewhere: what it held before the loop comes
            # back after the loop's adjoint (an unrolled loop before it reads i = 1)
            after_loop = [Restore(stmt.target.id, ("target", id(stmt)))]
        else:
            after_loop = []
        if not body:
            return out + after_loop
        if isinstance(stmt, gast.For):
            # the same values backwards: r[::-1] (r[:n][::-1] after a break at iteration n)
            source = name(stmt.iter.id) if counter is None else gast.Subscript(
                value=name(stmt.iter.id), slice=gast.Slice(lower=None, upper=name(counter),
                                                           step=None), ctx=gast.Load())
            backwards = gast.Subscript(value=source, slice=gast.Slice(
                lower=None, upper=None, step=gast.UnaryOp(op=gast.USub(), operand=gast.Constant(
                    value=1, kind=None))), ctx=gast.Load())
            loop = gast.For(target=name(stmt.target.id, gast.Store()), iter=backwards, body=body,
                            orelse=[], type_comment=None)
        else:
            loop = gast.For(target=name("_", gast.Store()), iter=call(["range"], name(counter)),
                            body=body, orelse=[], type_comment=None)
        out.append(loop)
        return out + after_loop

    def loop_carried(self, body):
        """Active names whose adjoints a loop body adds to (the candidates for carrying)."""
        names = set()
        for stmt in flatten(body):
            found = flow(stmt, self.scope)  # (an assignment, or lst.append(v): v's adjoint)
            if found is None or not self.active(found[0]):
                continue
            names.add(found[0])
            names |= {n for n in found[1] if self.active(n)}
        return names

    def depth_of(self, stmt):
        return getattr(stmt, "depth", 0)

    # the primal sweep ---------------------------------------------------------------------
    def primal_block(self, stmts, depth):
        out = []
        for stmt in stmts:
            if isinstance(stmt, gast.Assign):
                target = stmt.targets[0]
                if isinstance(target, gast.Subscript):
                    out.append(Save(target, id(stmt), slice_=True))
                elif target.id in self.overwritten and not getattr(
                        stmt, "first_definition", False) and not getattr(stmt, "batched", False):
                    out.append(Save(target.id, id(stmt)))
                    if id(stmt) in self.records:
                        out.append(Save(self.records[id(stmt)].name, ("record", id(stmt))))
                if id(stmt) in self.records:  # t = h(a, b): t_record = h_forward(a, b);
                    record = self.records[id(stmt)]  # t = t_record[0]
                    call_node = stmt.value
                    out.append(assign(record.name, gast.Call(
                        func=name(record.forward), args=clone(call_node.args),
                        keywords=clone(call_node.keywords)), stmt))
                    stmt.value = gast.Subscript(value=name(record.name), slice=gast.Constant(
                        value=0, kind=None), ctx=gast.Load())
                out.append(stmt)
            elif isinstance(stmt, gast.If):
                stmt.body = self.primal_block(stmt.body, depth)
                stmt.orelse = self.primal_block(stmt.orelse, depth)
                out.append(stmt)
            elif isinstance(stmt, (gast.For, gast.While)):
                counter = getattr(stmt, "counter", None)
                stmt.body = self.primal_block(stmt.body, depth + 1)
                if stmt.batch:  # before the loop's closing `if flag: break`, if it has one
                    stmt.body.insert(closing_break(stmt.body),
                                     Save(tuple(stmt.batch), ("batch", id(stmt))))
                if counter is not None:
                    out.append(assign(counter, gast.Constant(value=0, kind=None)))
                    stmt.body.insert(0, assign(counter, gast.BinOp(
                        left=name(counter), op=gast.Add(), right=gast.Constant(value=1, kind=None))))
                if isinstance(stmt, gast.For) and stmt.target.id in self.rebound_targets:
                    out.append(Save(stmt.target.id, ("target", id(stmt))))
                out.append(stmt)
                if counter is not None and depth > 0:
                    out.append(Save(counter, ("count", id(stmt)), always=True))
            else:
                out.append(stmt)
        return out

    def cheap_to_recompute(self, stmt, loop):
        """v = xs[t] (an item of an array no statement overwrites, at the loop's index):
        computing it again in the reverse loop is cheaper than saving it."""
        value = stmt.value
        if not (isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name)
                and isinstance(loop, gast.For) and isinstance(loop.target, gast.Name)):
            return False
        names = {n.id for n in walk(value.slice) if isinstance(n, gast.Name)}
        return (value.value.id not in self.overwritten and names <= {loop.target.id}
                and not any(isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript)
                            and s.targets[0].value.id == value.value.id
                            for s in flatten(self.fdef.body)))

    def prepare_loops(self, stmts, depth):
        """Name the iteration counters (while loops and loops left by break) and note depths."""
        for stmt in stmts:
            if isinstance(stmt, (gast.For, gast.While)):
                stmt.depth = depth
                inside = {id(s) for s in flatten(stmt.body)}  # a name the function also binds
                outside = self.params | {assigned_name(s) for s in flatten(self.fdef.body)
                                         if id(s) not in inside}  # elsewhere has a value
                local = local_names(stmt.body) - outside  # before the loop that the adjoint of
                stmt.batch = []  # its first turn needs (its shape, for a zero): not batched
                stmt.recompute = []
                exit_at = closing_break(stmt.body)  # (what follows it is not run on the last
                for inner in stmt.body[:exit_at]:  # turn) assigned unconditionally, once, before
                    # any read
                    var = assigned_name(inner)
                    if (var in local and isinstance(inner.targets[0], gast.Name)
                            and var in self.overwritten and var not in stmt.batch
                            and sum(assigned_name(s) == var for s in flatten(stmt.body)) == 1):
                        inner.batched = True
                        if self.cheap_to_recompute(inner, stmt):
                            stmt.recompute.append(inner)  # x[t] again, not a saved view
                        else:
                            stmt.batch.append(var)
                            if id(inner) in self.records:  # (its callee's tape goes with it)
                                stmt.batch.append(self.records[id(inner)].name)
                breaks = any(isinstance(s, gast.Break) for s in flatten(stmt.body))
                if isinstance(stmt, gast.While) or breaks:
                    stmt.counter = self.namer.fresh("n")
                self.prepare_loops(stmt.body, depth + 1)
            elif isinstance(stmt, gast.If):
                self.prepare_loops(stmt.body, depth)
                self.prepare_loops(stmt.orelse, depth)

    def build(self):
        fdef = self.fdef
        body = fdef.body[:-1]
        ret = fdef.body[-1]
        params = [a.id for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs]
        self.overwritten = overwritten_names(body, params)
        defined = set(params)
        for stmt in body:  # a top-level first assignment overwrites nothing
            var = assigned_name(stmt)
            if var is not None and isinstance(stmt.targets[0], gast.Name) and var not in defined:
                stmt.first_definition = True
            if var is not None:
                defined.add(var)
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                defined |= {assigned_name(s) for s in flatten([stmt]) if assigned_name(s)}
        self.safe = safe_names(body, params)
        self.params = set(params)
        targets = [s.target.id for s in flatten(body) if isinstance(s, gast.For)]
        bound = {assigned_name(s) for s in flatten(body)} | self.params
        self.rebound_params = self.params & {assigned_name(s) for s in flatten(body)}
        self.rebound_targets = {t for t in targets if t in bound or targets.count(t) > 1}
        self.bound_at = {}  # id(top-level statement) -> names surely bound before it runs
        bound = set(params)
        for stmt in body:
            self.bound_at[id(stmt)] = set(bound)
            bound |= surely_bound([stmt])
        self.bound_here = self.safe  # (the names zero() may read: see adjoint_block)
        self.find_records(body)
        self.prepare_loops(body, 0)
        seed_stmts = self.seed(ret)
        adjoint = self.adjoint_block(body)
        primal = self.primal_block(body, 0)
        results = []
        for var in self.wrt:
            if var in self.containers:
                reached = name(self.namer.adjoint(var)) if var in self.initialized else \
                    gast.Constant(value=None, kind=None)
                results.append(call(["as_gradient"], reached, name(var)))
            elif var in self.initialized:
                results.append(self.in_dtype(name(self.namer.adjoint(var)), var))
            else:
                results.append(call(["zero_gradient"], name(var)))
        value = results[0] if len(results) == 1 else gast.Tuple(elts=results, ctx=gast.Load())
        if self.kind in ("value_and_grad", "record", "backward"):  # f's value as the primal
            # sweep left it (the adjoint sweep restores overwritten names, and stores into
            # arrays, its callees' too, to older values)
            kept = self.namer.fresh_name("value")
            stores = self.records or any(isinstance(s, gast.Assign) and isinstance(
                s.targets[0], gast.Subscript) for s in flatten(body))
            primal.append(assign(kept, call(["copy_value"], clone(ret.value)) if stores and (
                isinstance(ret.value, gast.Name)) else clone(ret.value)))
            value = gast.Tuple(elts=[name(kept), value], ctx=gast.Load())
        if self.kind in ("record", "backward"):  # where split_half cuts the adjoint in two
            primal.append(gast.Expr(value=name(SPLIT)))
        sweep = primal + seed_stmts + adjoint
        stack = self.namer.fresh("stack") if "stack" in self.namer.taken else "stack"
        self.namer.reserve(stack)
        returned = gast.Expr(value=value)  # (what the return reads: zero_gradient(a) of a
        resolved, saved, uses_stack = resolve_saves(  # parameter bound again must see it)
            sweep, seed_stmts + adjoint + [returned], stack, getattr(self, "shares", {}))
        head = []
        if uses_stack:
            head.append(assign(stack, gast.List(elts=[], ctx=gast.Load())))
            unbound = sorted(v for v in saved if isinstance(v, str) and v not in self.safe)
            if unbound:
                head.append(comment("saved values start unbound"))
                head.extend(assign(v, gast.Constant(value=None, kind=None)) for v in unbound)
        fdef.body = head + resolved + [gast.Return(value=value)]
        return fdef

    def seed(self, ret):
        """Statements that give the returned value its adjoint (the seed)."""
        value = ret.value
        if self.kind in ("vjp", "adjoint", "record", "backward"):
            seed_name = self.seed_name(ret)
            arg = name(seed_name, gast.Param())
            if self.kind == "vjp":  # f_vjp(x, w, *, by)
                self.fdef.args.kwonlyargs.append(arg)
                self.fdef.args.kw_defaults.append(None)
            else:  # h_adjoint(by, x, w): what call sites in other generated code use
                (self.fdef.args.posonlyargs or self.fdef.args.args).insert(0, arg)
            out = []
            if self.kind == "vjp":  # the user's cotangent must be shaped like the output
                out.append(gast.Expr(value=call(["check_cotangent"], name(seed_name),
                                                clone(value))))
            if isinstance(value, (gast.Tuple, gast.List)):
                self.accumulate_operand(value, name(seed_name), False, out)
                return out
            var = operand_id(value)
            if var is not None and self.active(var):
                self.initialized.add(var)
            return out
        if isinstance(value, (gast.Tuple, gast.List)):
            raise self.info.error(ret, "srcad.grad needs a function returning one scalar, this "
                                       "one returns a tuple",
                                  hint="use srcad.vjp for functions with several outputs")
        var = operand_id(value)
        if var is not None and self.kinds.get(var) == "other":  # (what the probe saw)
            raise self.info.error(ret, "srcad.grad needs a function returning a number, and this "
                                       "one returns a list, dict or other object here",
                                  hint="return a number (np.sum(...) of it, or one item); use "
                                       "srcad.vjp for several outputs")
        if var is None or not self.active(var):
            return []
        self.initialized.add(var)
        if self.kinds.get(var) == "scalar" and self.shapes.get(var) == () and (
                self.floats.get(var) == "d"):
            seed = gast.Constant(value=1.0, kind=None)  # the probe saw a float64 scalar output
        else:
            seed = call(["grad_seed"], name(var))
        return [assign(self.namer.adjoint(var), seed)]

    def seed_name(self, ret):
        value = ret.value
        var = operand_id(value)
        if var is not None:
            return self.namer.adjoint(var)
        return self.namer.adjoint("out")


# ---------------------------------------------------------------------------------------------
# values the adjoint sweep needs that the primal sweep overwrites


class Record:
    """A call of a user function in reverse mode: the name of its value-and-tape pair and the
    names of the callee's forward and backward halves."""

    def __init__(self, name, forward, backward):
        self.name = name
        self.forward = forward
        self.backward = backward


SPLIT = "__srcad_split__"  # the statement between the primal sweep and the adjoint sweep


def split_half(fdef, kind, namer):
    """One half of a callee's adjoint, built whole (h(bout, x, w) returning (value, gradients),
    with the SPLIT marker after its primal sweep) and cut at the marker:

        record:    def h_forward(x, w):                    (the primal sweep)
                       ...
                       return value, (t1, t3, stack)       (what the adjoint sweep reads)
        backward:  def h_backward(bout, tape, x, w):
                       t1, t3, stack = tape
                       ...                                 (the adjoint sweep)
                       return bx, bw

    Both halves come from builds of the same function, so they agree on every name."""
    body = fdef.body
    cut = next(i for i, stmt in enumerate(body) if isinstance(stmt, gast.Expr)
               and isinstance(stmt.value, gast.Name) and stmt.value.id == SPLIT)
    forward, backward, ret = body[:cut], body[cut + 1:-1], body[-1]
    value, gradients = ret.value.elts
    bound = set(bound_counts(gast.Module(body=forward, type_ignores=[])))
    tape = sorted(bound & loaded_names(gast.Module(body=backward + [gradients],
                                                   type_ignores=[])))
    args = fdef.args
    seed = (args.posonlyargs or args.args).pop(0)
    if kind == "record":
        surely = {t.id for stmt in forward if isinstance(stmt, gast.Assign)
                  for t in stmt.targets if isinstance(t, gast.Name)}  # (bound at the top level)
        surely |= {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
        unbound = [assign(t, gast.Constant(value=None, kind=None)) for t in tape
                   if t not in surely]  # (bound in a branch or a loop that may not run)
        fdef.body = unbound + forward + [gast.Return(value=gast.Tuple(elts=[value, gast.Tuple(
            elts=[name(t) for t in tape], ctx=gast.Load())], ctx=gast.Load()))]
        return fdef
    holder = namer.fresh_name("tape")
    (args.posonlyargs or args.args)[:0] = [seed, name(holder, gast.Param())]
    unpack = [gast.Assign(targets=[gast.Tuple(elts=[name(t, gast.Store()) for t in tape],
                                              ctx=gast.Store())], value=name(holder),
                          type_comment=None)] if tape else []
    fdef.body = unpack + backward + [gast.Return(value=gradients)]
    return fdef


class Save(gast.Expr):
    """Placeholder: before an overwrite, push the old value (kept only if the adjoint reads it)."""

    def __init__(self, var, pair, slice_=False, always=False):
        super().__init__(value=gast.Constant(value=None, kind=None))
        self.var = var
        self.pair = pair  # the Restore with the same pair undoes this save
        self.slice_ = slice_
        self.always = always


class Restore(gast.Expr):
    """Placeholder: after the adjoint of an overwrite, pop the old value back."""

    def __init__(self, var, pair, slice_=False, always=False, recompute=None):
        super().__init__(value=gast.Constant(value=None, kind=None))
        self.var = var
        self.pair = pair
        self.slice_ = slice_
        self.always = always
        self.recompute = recompute  # a statement that makes the value again (no stack entry)


def _placeholders(stmts):
    for stmt in flatten(stmts):
        if isinstance(stmt, (Save, Restore)):
            yield stmt


# runtime helpers and numpy functions that read an argument's shape only: a store into an array
# (y[i] = v) never changes its shape, so such reads need no saved copy of the overwritten part
SHAPE_ONLY = {"unbroadcast": 1, "unreduce": 1, "unindex": 1, "unconcatenate": 1,
              "zeros_like": 0, "tuple_adjoint": 1}


def _names_read(node, values_only):
    if values_only and isinstance(node, gast.Call):
        func = node.func
        fname = func.attr if isinstance(func, gast.Attribute) else getattr(func, "id", None)
        skip = SHAPE_ONLY.get(fname)
        names = set()
        for i, arg in enumerate(node.args):
            if i == skip and isinstance(arg, gast.Name):
                continue
            names |= _names_read(arg, values_only)
        for kw in node.keywords:
            names |= _names_read(kw.value, values_only)
        return names | _names_read(func, values_only)
    if isinstance(node, gast.Name):
        return {node.id} if isinstance(node.ctx, gast.Load) else set()
    names = set()
    for child in gast.iter_child_nodes(node):
        names |= _names_read(child, values_only)
    return names


def _key(holder):
    return holder.var.value.id if holder.slice_ else holder.var




def _reads(stmts, values_only=False):
    """Names the statements read (values_only: not counting reads of a shape alone)."""
    names = set()
    for stmt in flatten(stmts):
        if isinstance(stmt, (Save, Restore)):
            continue
        if isinstance(stmt, (gast.If, gast.While)):
            names |= _names_read(stmt.test, values_only)
        elif isinstance(stmt, gast.For):
            names |= _names_read(stmt.iter, values_only)
        else:
            names |= _names_read(stmt, values_only)
    return names


def resolve_saves(sweep, adjoint, stack, shares=None):
    """Turn placeholder pairs into stack pushes and pops where the adjoint sweep reads the value
    after the restore point (anywhere in an enclosing loop counts), and drop the others.
    A store into an array is undone where the adjoint reads the array's values, itself or
    through a name that may share its memory (shares: name -> such names, mutation.py; t1 =
    y[1:] is a view whose values the store changes). Returns the statements and the set of
    names saved one by one."""
    shares = shares or {}
    kept = {}
    changed = True
    while changed:  # a kept slice restore reads its index names, a kept restore keeps its if
        changed = False
        after = {}
        _scan(adjoint, set(), set(), after, kept)
        for holder in _placeholders(adjoint):
            if not isinstance(holder, Restore):
                continue
            reads, value_reads = after[id(holder)]
            names = holder.var if isinstance(holder.var, tuple) else (_key(holder),)
            want = {v for v in names if holder.always or v in (
                value_reads if holder.slice_ else reads) or (
                holder.slice_ and shares.get(v, set()) & value_reads)}
            if want - kept.get(holder.pair, set()):
                kept.setdefault(holder.pair, set()).update(want)
                changed = True
    saved = set()
    pushes = []

    def rewrite(stmts):
        out = []
        for stmt in stmts:
            if isinstance(stmt, (Save, Restore)):
                names = kept.get(stmt.pair)
                if not names:
                    continue
                if getattr(stmt, "recompute", None) is not None:
                    out.append(clone(stmt.recompute))
                    continue
                pushes.append(stmt)
                if isinstance(stmt.var, tuple):
                    out.append(_batch(stmt, tuple(v for v in stmt.var if v in names), stack))
                    continue
                if isinstance(stmt, Save) and not stmt.slice_:
                    saved.add(stmt.var)
                out.append(_save(stmt, stack) if isinstance(stmt, Save) else _restore(stmt, stack))
                continue
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                stmt.body = rewrite(stmt.body)
                stmt.orelse = rewrite(stmt.orelse)
                if isinstance(stmt, gast.If) and not stmt.body and not stmt.orelse:
                    continue
                stmt.body = stmt.body or [gast.Pass()]
            out.append(stmt)
        return out

    return rewrite(sweep), saved, bool(pushes)


def _is_kept(holder, kept):
    return bool(kept.get(holder.pair))


def _index_names(holder):
    return {n.id for n in walk(holder.var.slice) if isinstance(n, gast.Name)}


def _block_reads(stmts, kept):
    """(reads, value reads) of a block, kept placeholders' index reads included."""
    reads, values = set(), set()
    for stmt in flatten(stmts):
        if isinstance(stmt, Restore) and stmt.slice_ and _is_kept(stmt, kept):
            reads |= _index_names(stmt)
            values |= _index_names(stmt)
    live = [s for s in stmts if not (isinstance(s, gast.If) and _dead_if(s, kept))]
    return reads | _reads(live), values | _reads(live, values_only=True)


def _dead_if(stmt, kept):
    """An if that holds nothing but dropped placeholders (it will be removed)."""
    return all(isinstance(s, (Save, Restore)) and not _is_kept(s, kept)
               for s in flatten(stmt.body + stmt.orelse) if not isinstance(s, (gast.If, gast.Pass)))


def _scan(stmts, later, later_values, after, kept):
    """Backwards over a block: note, for each restore, the names read after it."""
    for stmt in reversed(stmts):
        if isinstance(stmt, Restore):
            after[id(stmt)] = (set(later), set(later_values))
            if stmt.slice_ and _is_kept(stmt, kept):
                later |= _index_names(stmt)
                later_values |= _index_names(stmt)
        elif isinstance(stmt, Save):
            continue
        elif isinstance(stmt, gast.If):
            dead = _dead_if(stmt, kept)
            for branch in (stmt.body, stmt.orelse):
                _scan(branch, set(later), set(later_values), after, kept)
            if not dead:
                reads, values = _block_reads(stmt.body + stmt.orelse, kept)
                test = _names_read(stmt.test, False)
                later |= reads | test
                later_values |= values | test
        elif isinstance(stmt, (gast.For, gast.While)):
            reads, values = _block_reads(stmt.body, kept)
            header = _names_read(stmt.iter if isinstance(stmt, gast.For) else stmt.test, False)
            _scan(stmt.body, later | reads | header, later_values | values | header, after, kept)
            later |= reads | header
            later_values |= values | header
        else:
            later |= _names_read(stmt, False)
            later_values |= _names_read(stmt, True)


def _save(holder, stack):
    if holder.slice_:
        value = call(["np", "copy"], clone(holder.var))
        value.args[0].ctx = gast.Load()
    else:
        value = name(holder.var)
    push = gast.Call(func=gast.Attribute(value=name(stack), attr="append", ctx=gast.Load()),
                     args=[value], keywords=[])
    return gast.Expr(value=push)


def _batch(holder, names, stack):
    """stack.append((t2, t3)) / t2, t3 = stack.pop(): one entry per loop iteration."""
    if isinstance(holder, Save):
        value = name(names[0]) if len(names) == 1 else gast.Tuple(
            elts=[name(n) for n in names], ctx=gast.Load())
        return gast.Expr(value=gast.Call(func=gast.Attribute(value=name(stack), attr="append",
                                                             ctx=gast.Load()),
                                         args=[value], keywords=[]))
    target = name(names[0], gast.Store()) if len(names) == 1 else gast.Tuple(
        elts=[name(n, gast.Store()) for n in names], ctx=gast.Store())
    pop = gast.Call(func=gast.Attribute(value=name(stack), attr="pop", ctx=gast.Load()),
                    args=[], keywords=[])
    return gast.Assign(targets=[target], value=pop, type_comment=None)


def _restore(holder, stack):
    pop = gast.Call(func=gast.Attribute(value=name(stack), attr="pop", ctx=gast.Load()),
                    args=[], keywords=[])
    if holder.slice_:
        target = clone(holder.var)
        target.ctx = gast.Store()
        return gast.Assign(targets=[target], value=pop, type_comment=None)
    return assign(holder.var, pop)


def closing_break(body):
    """The position of a loop body's closing `if flag: break` (control.py leaves at most one
    break, at the end of the body; a while loop's condition is computed again after it, anf.py),
    or the body's length. Values saved once per turn are saved before it: on the last turn the
    statements after it do not run."""
    for i, stmt in enumerate(body):
        if isinstance(stmt, gast.If) and any(isinstance(s, gast.Break) for s in stmt.body):
            return i
    return len(body)


def overwritten_names(body, params):
    """Names whose earlier values a later assignment may overwrite: assigned inside a loop,
    assigned by two statements, or parameters assigned again."""
    counts = {}
    in_loops = set()

    def walk(stmts, in_loop):
        for stmt in stmts:
            var = assigned_name(stmt)
            if var is not None and not isinstance(stmt.targets[0], gast.Subscript):
                counts[var] = counts.get(var, 0) + 1
                if in_loop:
                    in_loops.add(var)
            if isinstance(stmt, gast.If):
                walk(stmt.body, in_loop)
                walk(stmt.orelse, in_loop)
            elif isinstance(stmt, (gast.For, gast.While)):
                walk(stmt.body, True)

    walk(body, False)
    return in_loops | {v for v, n in counts.items() if n > 1} | (set(counts) & set(params))


def surely_bound(stmts):
    """The names a block binds on every path through it (both arms of an if; a loop may not
    run at all)."""
    out = set()
    for stmt in stmts:
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
            out.add(stmt.targets[0].id)
        elif isinstance(stmt, gast.If):
            out |= surely_bound(stmt.body) & surely_bound(stmt.orelse)
    return out


def safe_names(body, params):
    """Names surely bound wherever the adjoint sweep may need a zero shaped like them:
    parameters and names assigned at the top level before the first block."""
    safe = set(params)
    for stmt in body:
        if isinstance(stmt, (gast.If, gast.For, gast.While)):
            break
        var = assigned_name(stmt)
        if var is not None:
            safe.add(var)
    return safe


def local_names(body):
    """Names a loop body writes before it reads them: each iteration's own values."""
    seen = set()
    local = set()
    for stmt in flatten(body):
        if isinstance(stmt, (gast.If, gast.While)):
            seen |= {n.id for n in walk(stmt.test) if isinstance(n, gast.Name)}
            continue
        if isinstance(stmt, gast.For):
            seen |= {n.id for n in walk(stmt.iter) if isinstance(n, gast.Name)}
            continue
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
            seen |= {n.id for n in walk(stmt.value) if isinstance(n, gast.Name)}
            var = stmt.targets[0].id
            if var not in seen:
                local.add(var)
            seen.add(var)
        else:
            seen |= {n.id for n in walk(stmt) if isinstance(n, gast.Name)}
    return local
