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

from collections import Counter

import gast

from ..analysis.activity import flow
from ..runtime import CONTAINER_RESULTS, dict_of, dict_with, HELPERS
from .accumulate import Accumulation
from .adjoints import AdjointSweep
from .checkpoints import Checkpointing
from .split import Record, SPLIT
from .strong_zeros import StrongProducts, value_classes_of
from .tape import (closing_break, local_names, overwritten_names, resolve_saves, safe_names,
                   Save)
from ..rules import operations
from ..rules.calls import CALLEE_KINDS, Dependencies, is_user_function, returns_tuple
from ..rules.instantiate import operand_id
from ..rules.registry import REGISTRY
from ..syntax.naming import clone, walk
from ..syntax.nodes import (appended_names, assign, assigned_name, call, comment, flatten, list_op,
                            name, parameter_ids, repeats, SHAPE_ATTRIBUTES as _SHAPE_ATTRIBUTES)


def _counters_read_after_an_inner_loop(body):
    """The counters of loops inside other loops that are read outside their own loop (c = c +
    x[i] after `for i in ...` in an outer loop's turn): each turn of the outer loop binds them
    again, so the value a turn's adjoint reads after the inner loop's adjoint ran is restored
    like a counter bound twice (Reverse.rebound_targets)."""
    loads = []  # (one count for the function, made when a loop inside a loop asks for it)
    out = set()

    def visit(stmts, in_loop):
        for stmt in stmts:
            if isinstance(stmt, gast.For) and in_loop:
                counter = stmt.target.id
                inside = sum(1 for n in walk(stmt) if isinstance(n, gast.Name)
                             and n.id == counter and isinstance(n.ctx, gast.Load))
                if not loads:
                    loads.append(Counter(n.id for s in body for n in walk(s) if isinstance(
                        n, gast.Name) and isinstance(n.ctx, gast.Load)))
                if loads[0][counter] > inside:
                    out.add(counter)
            if isinstance(stmt, (gast.For, gast.While)):
                visit(stmt.body, True)
                visit(stmt.orelse, True)
            elif isinstance(stmt, gast.If):
                visit(stmt.body, in_loop)
                visit(stmt.orelse, in_loop)
    visit(body, False)
    return out


class Reverse(AdjointSweep, Accumulation, Checkpointing):
    """The reverse-mode derivative of one function: build() returns it. This module holds the
    driver and the primal sweep (with the saves the adjoint needs); adjoints.py the adjoint of
    each statement, accumulate.py how contributions reach adjoints, tape.py which saves stay."""
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
        self.appended = appended_names(fdef.body)
        self.counters = {s.target.id for s in flatten(fdef.body)  # (ints: control.py makes
                         if isinstance(s, gast.For) and isinstance(s.target, gast.Name)}
        # every for loop a loop over a range)
        self.sequences = self.find_sequences(fdef)
        self.strong_zeros = True  # strong products (strong_zeros.py; not for the outline)
        self.checkpointed = {}  # id(loop marked srcad.checkpoint) -> its names (checkpoints.py)
        self.recomputed = {}  # id(such a loop) -> the loop with its saves, run again

    def find_sequences(self, fdef):
        """Names whose adjoints may be lists, tuples or dicts (added with add_adjoint, whose
        zero is None; `+` would concatenate them): containers, tuples, appended lists, values
        the probe saw as neither arrays nor numbers; slices, copies, joins (a + b) and
        repetitions (a * k, unless the probe saw an array) of those, and their items unless
        the probe saw an array or a number there (params[0] of a list of (W, b) pairs is a
        tuple: its adjoint gathers two items). In a build for any shapes, also parameters
        passed to a function of the user's (its backward half returns the gradient in the
        argument's structure: two helpers' gradients of params add up), what such a function
        returned when it is read by item, what is read by a string key, and what list(...) or
        tuple(...) copies (its adjoint is a list if it is a sequence)."""
        params = set(parameter_ids(fdef))
        calls = [stmt for stmt in flatten(fdef.body) if isinstance(
            getattr(stmt, "value", None), gast.Call) and is_user_function(
            self.scope.lookup(stmt.value.func), "reverse")]
        passed = {getattr(arg, "value", arg).id for stmt in calls for arg in stmt.value.args + [
            k.value for k in stmt.value.keywords] if isinstance(getattr(arg, "value", arg),
                                                                 gast.Name)}  # (h(*p): p)
        results = {stmt.targets[0].id for stmt in calls if isinstance(stmt, gast.Assign)
                   and isinstance(stmt.targets[0], gast.Name)}
        read = [n for n in walk(fdef) if isinstance(n, gast.Subscript) and isinstance(
            n.value, gast.Name) and isinstance(n.ctx, gast.Load)]
        by_key = {n.value.id for n in read if isinstance(n.slice, gast.Constant) and isinstance(
            n.slice.value, str)}  # d["W"]
        listed = {stmt.value.args[0].id for stmt in flatten(fdef.body) if isinstance(
            getattr(stmt, "value", None), gast.Call) and self.scope.lookup(stmt.value.func) in (
            list, tuple) and stmt.value.args and isinstance(stmt.value.args[0], gast.Name)}
        unknown = (params & passed) | (results & {n.value.id for n in read}) | by_key | listed | (
            self.of_unknown_kind(fdef, params, results) & {n.value.id for n in read})
        displays = {stmt.targets[0].id for stmt in flatten(fdef.body) if isinstance(
            stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) and isinstance(
            stmt.value, (gast.List, gast.Tuple))}  # (lists stored into: not tuple_vars)
        found = set(self.containers) | self.tuple_vars | self.appended | displays | {
            v for v, kind in self.kinds.items() if kind == "other"} | {
            v for v in unknown if v not in self.kinds}
        changed = True
        while changed:
            changed = False
            for stmt in flatten(fdef.body):
                if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)):
                    continue
                value, target = stmt.value, stmt.targets[0].id
                if target in found:  # t = params: what t's adjoint is, params' is too
                    if isinstance(value, gast.Name) and value.id not in found and (
                            self.kinds.get(value.id, "other") == "other"):
                        found.add(value.id)
                        changed = True
                    continue
                if (isinstance(value, gast.Name) and value.id in found) or (
                        isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name)
                        and value.value.id in found and (isinstance(value.slice, gast.Slice) or
                                                         self.kinds.get(target, "other") == "other")
                ) or (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add) and all(
                    isinstance(side, gast.Name) and side.id in found
                    for side in (value.left, value.right))) or (
                        repeats(value, found) and self.kinds.get(target, "other") == "other"
                ) or (isinstance(value, gast.Call) and (
                        _makes_containers(self.scope.lookup(value.func)) or list_op(stmt))
                        and self.kinds.get(target, "other") == "other"):
                    found.add(target)
                    changed = True
        return found

    def of_unknown_kind(self, fdef, params, results):
        """Names that may hold anything, as far as the code shows: parameters, what functions
        of the user's return, and copies and items of those (t = params; W = t[0]); read by item
        in a build for any shapes, they may be lists (the adjoints of two items of a list,
        added with +, would be joined)."""
        out = (set(params) | set(results)) - set(self.kinds)
        changed = True
        while changed:
            changed = False
            for stmt in flatten(fdef.body):
                if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) and (
                        stmt.targets[0].id not in out and stmt.targets[0].id not in self.kinds):
                    value = stmt.value
                    base = value.value if isinstance(value, gast.Subscript) else value
                    if isinstance(base, gast.Name) and base.id in out:
                        out.add(stmt.targets[0].id)
                        changed = True
        return out

    def find_containers(self, fdef):
        """Parameters read by item or attribute (params["W"], layers[0], model.W): they may be
        dicts, lists or objects, so their adjoints add with add_adjoint and are returned in
        their own structure by as_gradient. (Arrays pass through both unchanged.)"""
        params = set(parameter_ids(fdef))
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

    def find_tuple_vars(self, body):
        """Names bound to tuples whose items get adjoints of their own (t1[0] -> bt1_0). Not a
        list stored into (lst[i] = v): the store's adjoint reads lst's adjoint, a list whole."""
        out, body = set(), list(body)
        stored = {s.targets[0].value.id for s in body if isinstance(s, gast.Assign) and isinstance(
            s.targets[0], gast.Subscript) and isinstance(s.targets[0].value, gast.Name)}
        for stmt in body:
            if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) and (
                    stmt.targets[0].id not in stored):
                try:
                    op, _, _ = operations.operation(stmt.value, self.scope)
                except operations.UnknownCall:
                    continue
                template = REGISTRY.adjoint_of(op) if op is not None else None
                if op is operations.pack or (template is not None and template.tuple_result) or (
                        op is not None and is_user_function(op, "reverse") and returns_tuple(op)):
                    out.add(stmt.targets[0].id)
        return out

    def is_active(self, var):
        return self.active(var.split("[", 1)[0])

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
            if op is None or not is_user_function(op, "reverse"):
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
                if id(stmt) in self.checkpointed:
                    out.extend(self.checkpointed_primal(stmt))
                else:
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
        if self.stored_into is None:  # (the arrays some statement stores into: found once)
            self.stored_into = {s.targets[0].value.id for s in flatten(self.fdef.body)
                                if isinstance(s, gast.Assign)
                                and isinstance(s.targets[0], gast.Subscript)}
        return (value.value.id not in self.overwritten and names <= {loop.target.id}
                and value.value.id not in self.stored_into)

    def prepare_loops(self, stmts, depth):
        """Name the iteration counters (while loops and loops left by break) and note depths."""
        if self.assigned is None:  # name -> the assignments to it in the function
            self.assigned = Counter(assigned_name(s) for s in flatten(self.fdef.body))
        for stmt in stmts:
            if isinstance(stmt, (gast.For, gast.While)):
                stmt.depth = depth
                inside = Counter(assigned_name(s) for s in flatten(stmt.body))
                local = {var for var in local_names(stmt.body) if var not in self.params  # a
                         and self.assigned[var] == inside[var]}  # name the function also binds
                # elsewhere has a value before the loop that the adjoint of its first turn needs
                stmt.batch = []  # (its shape, for a zero): not batched
                stmt.recompute = []
                exit_at = closing_break(stmt.body)  # (what follows it is not run on the last
                for inner in stmt.body[:exit_at]:  # turn) assigned unconditionally, once, before
                    # any read
                    var = assigned_name(inner)
                    if (var in local and isinstance(inner.targets[0], gast.Name)
                            and var in self.overwritten and var not in stmt.batch
                            and inside[var] == 1):
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
                self.prepare_checkpoint(stmt, depth, getattr(stmt, "counter", None) is not None)
                self.prepare_loops(stmt.body, depth + 1)
            elif isinstance(stmt, gast.If):
                self.prepare_loops(stmt.body, depth)
                self.prepare_loops(stmt.orelse, depth)

    def build(self):
        fdef = self.fdef
        body = fdef.body[:-1]
        ret = fdef.body[-1]
        params = parameter_ids(fdef)
        self.overwritten = overwritten_names(body, params)
        defined = set(params)
        for stmt in body:  # a top-level first assignment overwrites nothing
            var = assigned_name(stmt)
            if var is not None and isinstance(stmt.targets[0], gast.Name) and var not in defined:
                stmt.first_definition = True
            if var is not None:
                defined.add(var)
            if isinstance(stmt, (gast.If, gast.For, gast.While)):  # (a loop binds its counter)
                defined |= {assigned_name(s) for s in flatten([stmt]) if assigned_name(s)} | {
                    s.target.id for s in flatten([stmt]) if isinstance(s, gast.For)}
        self.safe = safe_names(body, params)
        self.params = set(params)
        targets = [s.target.id for s in flatten(body) if isinstance(s, gast.For)]
        bound = {assigned_name(s) for s in flatten(body)} | self.params
        self.rebound_params = self.params & {assigned_name(s) for s in flatten(body)}
        counts = Counter(targets)
        self.rebound_targets = {t for t in targets if t in bound or counts[t] > 1} | (
            _counters_read_after_an_inner_loop(body))
        self.bound_here = self.safe  # (the names zero() may read: see adjoint_block)
        self.find_records(body)
        self.strong = StrongProducts(value_classes_of(  # (before the sweep rewrites fdef)
            fdef, self.floats, self.shapes, self.kind in CALLEE_KINDS), lambda n: (
            n in self.namer.derived or n in self.temporaries), self.shapes) if (
            self.strong_zeros) else None
        self.assigned = self.stored_into = None  # (counted by prepare_loops when it first asks)
        self.prepare_loops(body, 0)
        seed_stmts = self.seed(ret)
        adjoint = self.adjoint_block(body)
        primal = self.primal_block(body, 0)
        self.fill_recomputations(adjoint)
        results = []
        for var in self.wrt:
            if var in self.containers or var in self.sequences:  # (a list, tuple or dict)
                reached = name(self.namer.adjoint(var)) if var in self.initialized else \
                    gast.Constant(value=None, kind=None)
                results.append(call(["as_gradient"], reached, name(var)))
            elif var in self.initialized:
                results.append(self.in_dtype(name(self.namer.adjoint(var)), var))
            else:
                results.append(call(["zero_gradient"], name(var)))
        value = results[0] if len(results) == 1 else gast.Tuple(elts=results, ctx=gast.Load())
        if self.kind in ("value_and_grad", "aux", "vjp_aux", "record", "backward"):  # f's value
            # as the primal sweep left it (the adjoint sweep restores overwritten names, and
            # stores into arrays, its callees' too, to older values)
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
        kept = (saved if uses_stack else set()) | self.checkpoint_state()
        unbound = sorted(v for v in kept if isinstance(v, str) and v not in self.safe)
        if unbound:
            head.append(comment("saved values start unbound"))
            head.extend(assign(v, gast.Constant(value=None, kind=None)) for v in unbound)
        fdef.body = head + resolved + [gast.Return(value=value)]
        return fdef

    def seed(self, ret):
        """Statements that give the returned value its adjoint (the seed)."""
        value = ret.value
        if self.kind in ("aux", "vjp_aux"):  # f returns (value, aux): no adjoint for aux
            seed_name = self.seed_name(ret)
            if self.kind == "aux":  # value's seed
                seed = call(["aux_seed"], clone(value))
            else:  # value's cotangent, given: f_vjp(x, w, *, bvalue)
                given = self.namer.fresh_name("bvalue")
                self.fdef.args.kwonlyargs.append(name(given, gast.Param()))
                self.fdef.args.kw_defaults.append(None)
                seed = call(["aux_cotangent"], name(given), clone(value))
            out = [assign(seed_name, seed)]
            if isinstance(value, (gast.Tuple, gast.List)):
                self.accumulate_operand(value, name(seed_name), False, out)
            elif operand_id(value) is not None and self.active(operand_id(value)):
                self.initialized.add(operand_id(value))
            return out
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
        return self.namer.fresh_name("bout")  # (a tuple's: not the adjoint of a name `out`)


def _makes_containers(op):
    """Whether op's result may be a list, tuple or dict: list(...), tuple(...), the dicts built in
    a function (dict_of, dict_with), and the runtime helpers that return an adjoint in its
    value's structure (generated code differentiated again: runtime.CONTAINER_RESULTS)."""
    if op in (list, tuple, dict_of, dict_with):
        return True
    name_ = getattr(op, "__name__", None)
    return name_ in CONTAINER_RESULTS and HELPERS.get(name_) is op


# ---------------------------------------------------------------------------------------------
# values the adjoint sweep needs that the primal sweep overwrites
