"""The adjoint sweep of reverse mode, statement by statement: an assignment's template, a call
of a user function (its backward half, fed the tape its forward half recorded), a store into an
array, an append, and the blocks: `if` (the branch the primal took, by its saved test) and loops
(turns in reverse order, values restored from the stack as the primal sweep saved them).

    y = np.sin(x)          ->   # grad of: y = np.sin(x)  (f.py:2)
                                bx = by * np.cos(x)

A mixin of Reverse (reverse.py), whose state it reads: the activity, the records of user calls,
the names surely bound before each statement.
"""
import gast

from .tape import bound_before_blocks, local_names, Restore
from ..rules import operations
from ..rules.calls import bind, is_user_function, positional_params
from ..rules.instantiate import Accumulate, instantiate
from ..rules.operations import unknown_call
from ..rules.registry import require_template
from ..syntax.naming import clone, loaded_names, walk
from ..syntax.nodes import assign, call, list_op, name, not_differentiated, origin_comment


def _made_by_generated_code(value, scope):
    """Whether value is a call of a function srcad generated (a callee's forward half, in a
    derivative differentiated again): its value-and-tape pair follows conventions of its own
    (lists popped item by item, None for holes), which the adjoints of its whole and of its
    items are not known to share."""
    if not isinstance(value, gast.Call):
        return False
    try:
        op = operations.operation(value, scope)[0]
    except operations.UnknownCall:
        return False
    return str(getattr(op, "__module__", None) or "").startswith("srcad_generated")


class AdjointSweep:
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
                    item = value.elts[i]
                    if isinstance(item, (gast.Tuple, gast.List)):  # a row read at one index
                        self.accumulate_operand(item, call(  # holds None for the others
                            ["item_adjoints"], name(adjoint), clone(item)), False, out)
                    else:
                        self.accumulate_operand(item, name(adjoint), False, out)
                if target in self.initialized:  # used whole too (np.stack(t)): its adjoint's
                    self.initialized.discard(target)  # items (zeros for None) reach the
                    self.accumulate_operand(value, call(  # display's items
                        ["item_adjoints"], name(self.namer.adjoint(target)), clone(value)),
                        False, out)
                return out
            self.gather_items(target, out, refuse=_made_by_generated_code(value, self.scope))
        if target not in self.initialized:
            return out
        if (isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name)
                and value.value.id in self.tuple_vars and isinstance(value.slice, gast.Constant)
                and isinstance(value.slice.value, int)):
            item = f"{value.value.id}[{value.slice.value}]"
            if target in self.sequences:  # the item is a list: its adjoints add item by item
                self.sequences.add(item)  # (nested[1] read twice: + would join the lists)
            self.accumulate(item, name(self.namer.adjoint(target)), False, out)
            self.initialized.discard(target)
            return out
        if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add) and all(
                self.may_be_sequence(side) for side in (value.left, value.right)):
            for which, side in enumerate((value.left, value.right)):  # a + b may join lists
                self.accumulate_operand(side, call(
                    ["concat_adjoint"], name(self.namer.adjoint(target)), clone(value.left),
                    clone(value.right), gast.Constant(value=which, kind=None)), False, out)
            self.initialized.discard(target)
            return out
        repeated = [(items, count) for items, count in ((value.left, value.right), (
            value.right, value.left)) if self.may_be_sequence(items) and not self.may_be_sequence(
            count) and not (isinstance(count, gast.Name) and self.active(count.id))] if (
            isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult)) else []
        for items, count in repeated:  # items * k may repeat a list ([h0] * T): each item's
            self.accumulate_operand(items, call(  # adjoint sums its copies'
                ["unrepeat_items"], name(self.namer.adjoint(target)), clone(items),
                clone(count)), False, out)
        if repeated:
            self.initialized.discard(target)
            return out
        try:
            op, args, keywords = operations.operation(value, self.scope)
        except operations.UnknownCall as exc:
            raise unknown_call(self.info, exc.args[0], self.scope) from None
        result = name(target)
        if op is None:  # a value no derivative flows through (np.ones(n), x.shape, a < b):
            self.initialized.discard(target)  # what the adjoint held belongs to the value
            return out  # this statement overwrote (a loop's turns share one adjoint name)
        if is_user_function(op, "reverse"):
            self.adjoint_of_user_call(op, args, keywords, value, target, out)
        else:
            template = require_template("adjoint", op, self.info, value)
            try:
                pieces = instantiate(template, result, args, keywords, self.namer.adjoint,
                                     self.is_active, self.namer.fresh, self.shapes)
            except TypeError as exc:
                raise operations.template_mismatch(self.info, value, op, exc) from None
            for piece in pieces:
                if isinstance(piece, gast.Assign) and isinstance(piece.targets[0], gast.Name):
                    self.temporaries.add(piece.targets[0].id)  # (share = d[z] / y: carries it)
                if self.strong is not None and isinstance(piece, (
                        Accumulate, gast.Assign, gast.AugAssign)):
                    piece.value = self.strong.rewrite(piece.value)  # (strong_zeros.py)
                if isinstance(piece, Accumulate):
                    self.accumulate_operand(piece.operand, piece.value,
                                            piece.broadcasts and self.broadcast_result(
                                                target, args), out)
                else:
                    if isinstance(piece, gast.Assign) and isinstance(piece.targets[0], gast.Name):
                        shape = self.expr_shape(piece.value)  # a fresh name, bound once
                        if shape is not None:
                            self.local_shapes[piece.targets[0].id] = shape
                    out.append(piece)
        # the value is dead before this statement: its adjoint is spent
        self.initialized.discard(target)
        return out

    def may_be_sequence(self, node):
        """Whether node may be a list or tuple (whose adjoint is a list, not an array)."""
        return isinstance(node, (gast.List, gast.Tuple)) or (
            isinstance(node, gast.Name) and node.id in self.sequences)

    def active_parameters(self, func, args, keywords, node):
        """(position, argument) of the callee's parameters that carry adjoints here: a name, or
        a list or tuple display holding one (h([a, b]))."""
        params = positional_params(func)
        bound = bind(func, args, keywords, self.info, node)
        return [(i, bound[p]) for i, p in enumerate(params)
                if (isinstance(bound.get(p), gast.Name) and self.active(bound[p].id)) or (
                    isinstance(bound.get(p), (gast.Tuple, gast.List))
                    and self._any_active(bound[p]))]

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
        elif var in self.sequences:  # a list's adjoint may hold None (nothing reached it)
            part = call(["item_of"], name(adjoint), operations.index_value(clone(target.slice)),
                        clone(stmt.value))
        if var not in self.sequences and not self.floats.get(var):  # (an int or bool array
            part = call(["stored_share"], part, name(var))  # rounds what is stored: none)
        zeroed = assign(adjoint, call(["zero_at"], name(adjoint),
                                      operations.index_value(clone(target.slice))))
        if var in loaded_names(stmt.value):  # y[idx] = y: the stored value's adjoint goes
            held = self.namer.fresh("t")  # into y's own, after the overwritten entries' are
            out += [assign(held, part), zeroed]  # zeroed (not before: it would be zeroed too)
            self.accumulate_operand(stmt.value, name(held), True, out)
            return out
        self.accumulate_operand(stmt.value, part, True, out)
        out.append(zeroed)
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
            if holder in self.returned():  # (a list f returns: its adjoint is the caller's,
                pop = call(["item_of"], gast.List(elts=[pop], ctx=gast.Load()),  # which holds
                           gast.Constant(value=0, kind=None), name(item.id))  # None for items
            self.accumulate(item.id, pop, False, out)  # it did not read: zeros for them)
            return out
        if isinstance(item, (gast.Tuple, gast.List)) and self._any_active(item):
            out = []  # lst.append((a, b)): the popped item's adjoint, item by item
            self.accumulate_operand(item, call(["item_adjoints"], pop, clone(item)), False, out)
            return out
        return [gast.Expr(value=pop)]

    def returned(self):
        """The names f's return statements read."""
        if getattr(self, "_returned", None) is None:
            self._returned = set().union(*(loaded_names(n.value) for n in walk(self.fdef)
                                           if isinstance(n, gast.Return) and n.value))
        return self._returned

    def adjoint_of_pop(self, stmt):
        """v = lst.pop() (generated code differentiated again pops its stacks): v's adjoint goes
        back onto lst's adjoint as its last item, where the adjoint of the append that put v
        there takes it off (a zero where v has none)."""
        holder, target = stmt.value.func.value.id, stmt.targets[0].id
        if not self.active(holder):
            return []
        out = []
        if holder not in self.initialized:  # zeros for what the list holds here (the items
            out.append(assign(self.namer.adjoint(holder),  # left after the primal's pops)
                              call(["zero_gradient"], name(holder))))
            self.initialized.add(holder)
        item = name(self.namer.adjoint(target)) if (
            self.active(target) and target in self.initialized) else call(["zero_gradient"],
                                                                          name(target))
        self.initialized.discard(target)
        return out + [gast.Expr(value=gast.Call(func=gast.Attribute(
            value=name(self.namer.adjoint(holder)), attr="append", ctx=gast.Load()),
            args=[item], keywords=[]))]

    # blocks ----------------------------------------------------------------------------------
    def adjoint_block(self, stmts):
        out = []
        last_line = None
        bound_at = bound_before_blocks(stmts, self.bound_here)  # (what zero() may read in a
        # block's adjoint: names bound before it, in this block or around it; a loop body's
        # names bound earlier in the turn too, so that a zero is not the number 0.0, which
        # an adjoint's subscript or a helper could not take where the value has axes)
        for stmt in reversed(stmts):
            if getattr(stmt, "turn", False):  # an unrolled loop's turn: comment the next again
                last_line = None
            if isinstance(stmt, gast.Assign):
                if isinstance(stmt.targets[0], gast.Subscript):
                    block = self.adjoint_of_store(stmt)
                    restore = Restore(stmt.targets[0], id(stmt), slice_=True)
                else:
                    block = self.adjoint_of_pop(stmt) if list_op(stmt) else \
                        self.adjoint_of_assign(stmt)
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
                outer = self.bound_here  # what is bound before the block has a value when
                self.bound_here = bound_at[id(stmt)]  # its adjoint runs
                out.extend(self.adjoint_if(stmt) if isinstance(stmt, gast.If)
                           else self.adjoint_loop(stmt))
                self.bound_here = outer
                last_line = None
            else:
                not_differentiated(stmt)
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
            loop = self.checkpointed_adjoint(stmt, body) if id(stmt) in self.checkpointed else \
                gast.For(target=name(stmt.target.id, gast.Store()), iter=backwards, body=body,
                         orelse=[], type_comment=None)
        else:
            loop = gast.For(target=name("_", gast.Store()), iter=call(["range"], name(counter)),
                            body=body, orelse=[], type_comment=None)
        out.append(loop)
        return out + after_loop

