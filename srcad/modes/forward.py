"""forward mode: each primal statement followed by its tangent statement.

    def f(x1, x2):                   def f_jvp(x1, x2, *, dx1, dx2):
        t1 = np.log(x1)                  t1 = np.log(x1)
        t2 = x1 * x2        ->           dt1 = dx1 / x1
        y = t1 + t2                      t2 = x1 * x2
        return y                         dt2 = dx1 * x2 + x1 * dx2
                                         y = t1 + t2
                                         dy = dt1 + dt2
                                         return dy

Tangents of constants are symbolic zeros folded away at build time; a value whose tangent folds
to zero gets no tangent at all. Tangents that only scale one other tangent are then folded into
the statement that reads them (optimize/proportional.py, the pipeline's first pass after this
one): dx = dx * (3.7 * t3 - t2).

kind "grad" is the gradient of a function of one float, by forward mode: the same sweep with the
tangent of that parameter seeded in the body (dx = 1.0) instead of passed in, so it is called
with f's own arguments; it checks that the output is a scalar unless the shape probe showed it.
"""
import math
import operator

import gast
import numpy as np

from ..errors import SrcadError
from ..frontend.anf import assigned_in_blocks
from ..optimize.inplace import is_fresh
from ..rules import operations
from ..rules.calls import bind, Dependencies, is_user_function, positional_params
from ..rules.instantiate import instantiate, materialize_zeros, operand_id, simplify_zeros, Zero
from ..rules.operations import unknown_call
from ..rules.registry import require_template
from ..runtime import CONTAINER_RESULTS, dict_of, dict_with, HELPERS
from ..syntax.naming import clone, loaded_names
from ..syntax.nodes import (appended_names, assign, assigned_name, call, comment, flatten, list_op,
                            name, not_differentiated, origin_comment, parameter_ids, repeats)

# operations whose result shares the operand's storage exactly as their tangents' do (y = x,
# y = t[i], and a display [a, b], which holds its items as the display of tangents holds theirs)
_ALIASING = (operations.copy, operator.getitem, operations.pack)


class Forward:
    def __init__(self, fdef, scope, info, namer, activity, wrt, kind="jvp", shapes=None,
                 kinds=None, floats=None):
        self.fdef = fdef
        self.scope = scope
        self.info = info
        self.namer = namer
        self.activity = activity
        self.wrt = wrt
        self.kind = kind
        self.shapes = shapes or {}  # from the shape probe, when specialized (shapes.py)
        self.kinds = kinds or {}  # name -> "scalar", "array" or "other", from the same probe
        self.floats = floats or {}  # name -> float dtype character, from the same probe
        self.has_tangent = set(wrt)
        self.dependencies = Dependencies(namer)
        # names assigned in blocks always carry a tangent (a zero one where it folds away), so
        # every path through a branch or loop agrees on which tangents exist; so do active
        # lists grown by append, whatever made them (list(), list(range(0)), zero_gradient(s)):
        # the tangents of the items appended go into a list of tangents made with the list
        stored = {assigned_name(s) for s in flatten(fdef.body) if isinstance(s, gast.Assign)
                  and isinstance(s.targets[0], gast.Subscript)}
        self.stored = {v for v in stored if activity(v)}
        self.stored_tangents = None  # (build: with the views of those arrays, builder.shares)
        self.sequences = sequence_names(fdef.body, scope, self.kinds)
        self.appended = appended_names(fdef.body)
        self.always = {v for v in assigned_in_blocks(fdef.body) | stored | self.appended
                       if activity(v)}
        self.has_tangent |= self.always

    def active(self, var):
        return var in self.has_tangent

    def zeros(self, var):
        """A zero tangent for var: 0.0 where the shape probe saw a float64 number (a Python
        float stays one, and numba compiles it), np.zeros_like(var) where it saw another float
        array or number, else zero_tangent(var), which also makes the zeros of a list, tuple or
        dict, and float zeros for truth values (a bool array's zeros_like has no negation)."""
        if self.kinds.get(var) == "scalar" and self.floats.get(var) == "d":
            return gast.Constant(value=0.0, kind=None)
        if self.kinds.get(var) in ("array", "scalar") and self.floats.get(var):
            return call(["np", "zeros_like"], name(var))
        return call(["zero_tangent"], name(var))

    def numpy_arithmetic(self, value):
        """Whether value is arithmetic that numpy does on a list operand: - / ** and the rest
        (Python has them for no list), and + with an array or a number the probe saw (+ of
        two lists, or with a display, joins them; list * int repeats: its tangent too)."""
        if not isinstance(value, gast.BinOp) or isinstance(value.op, gast.Mult):
            return False
        if not isinstance(value.op, gast.Add):
            return True
        return all((isinstance(side, gast.Constant) and type(side.value) in (int, float)) or (
            isinstance(side, gast.Name) and (side.id in self.sequences or self.kinds.get(
                side.id) in ("array", "scalar"))) for side in (value.left, value.right))

    def tangent_or_zero(self, var):
        return name(self.namer.tangent(var)) if self.active(var) else self.zeros(var)

    def stored_into(self, var):
        """Whether the code stores into var's array, through var or through a name that may
        share its storage (a view v = var[1:]; mutation.py's summary, builder.shares)."""
        return var in self.stored or bool(self.stored & (getattr(self, "shares", None) or {}).get(
            var, set()))

    def tangent_of_assign(self, stmt):
        target = stmt.targets[0].id
        if not self.activity(target):
            return []
        value = stmt.value
        if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add) and all(
                isinstance(side, gast.Name) and side.id in self.sequences
                for side in (value.left, value.right)):  # a + b joins lists: so do tangents
            self.has_tangent.add(target)
            return [assign(self.namer.tangent(target), gast.BinOp(
                left=self.tangent_or_zero(value.left.id), op=gast.Add(),
                right=self.tangent_or_zero(value.right.id)))]
        try:
            op, args, keywords = operations.operation(value, self.scope)
        except operations.UnknownCall as exc:
            raise unknown_call(self.info, exc.args[0], self.scope) from None
        if op is not None and is_user_function(op, "forward"):
            return self.tangent_of_user_call(op, args, keywords, value, target, stmt)
        if op is None:
            if target in self.always:
                return [assign(self.namer.tangent(target), self.zeros(target))]
            return []
        template = require_template("tangent", op, self.info, value)
        tangent_of = self.namer.tangent
        if isinstance(op, np.ufunc) or self.numpy_arithmetic(value):  # these make an array
            def tangent_of(var):  # of a list operand: so must the list of tangents meet their
                if var in self.sequences:  # template's arithmetic as one (-[da] fails, [da] * 2
                    return call(["np", "asarray"], name(self.namer.tangent(var)))  # repeats the
                return self.namer.tangent(var)  # list; [y] + a's tangent [dy] is a list that a
            # store into the sum would write into)
        try:
            pieces = instantiate(template, name(target), args, keywords, tangent_of,
                                 self.active, self.namer.fresh, self.shapes,
                                 array_displays=isinstance(op, np.ufunc))
        except TypeError as exc:
            raise operations.template_mismatch(self.info, value, op, exc) from None
        out = []
        if isinstance(value, gast.List):  # a list display's tangents are a list too (it may
            self.has_tangent.add(target)  # grow by append, be stored into, or be joined to
            return [assign(self.namer.tangent(target), self.display_tangent(value))]
        for piece in pieces:
            if hasattr(piece, "operand"):  # d[y] = e
                tangent = simplify_zeros(piece.value)
                if isinstance(tangent, Zero):
                    if target in self.always:
                        out.append(assign(self.namer.tangent(target),
                                          self.zeros(target)))
                    continue
                self.has_tangent.add(target)
                shapes = self.shapes
                operands = list(args) + list(keywords.values())  # (norm.pdf(x, loc=m): m too)
                if template.broadcasts and any(
                        isinstance(a, gast.Name) and not self.active(a.id) for a in operands) and (
                        not (target in shapes and all(
                            shapes.get(a.id) == shapes[target] for a in operands
                            if isinstance(a, gast.Name) and self.active(a.id)))):
                    tangent = call(["rebroadcast"], tangent, name(target))
                tangent = materialize_zeros(tangent, self.sequences)
                direct = target in self.stored and op not in _ALIASING
                if not is_fresh(tangent) and (direct or (
                        is_fresh(value) and loaded_names(tangent) & self.stored_tangents)):
                    # the primal made a new array (y = x.copy(), y = x + 0, t = a + y): so must
                    # the tangent (not dy itself, as rebroadcast(dy, t) is), or stores into y
                    # would reach another tangent. (y = x and y = t[i] alias in the primal, or
                    # view, and their tangents alias or view likewise: a store into y, and the
                    # restore of what it overwrote, must reach the tangents of the other names
                    # of that array, as in the primal.)
                    tangent = call(["copy_tangent"], tangent, name(target))
                elif not is_fresh(tangent) and op not in _ALIASING and self.stored_into(target):
                    # stored into through another name (v = y[1:]; v[0] = e): y's tangent is
                    # copied if it is an array (copy_value; a list or tuple holds its items)
                    tangent = call(["copy_value"], tangent)
                out.append(assign(self.namer.tangent(target), tangent))
            else:
                out.append(materialize_zeros(piece, self.sequences))
        if target not in self.has_tangent:
            return []
        return out

    def tangent_of_user_call(self, func, args, keywords, node, target, stmt):
        """t = h(a, b)  ->  t_pair = h_tangent(da, db, a, b); t = t_pair[0]; dt = t_pair[1]:
        the callee's value and tangent from one run of it (its statements run once)."""
        bound = bind(func, args, keywords, self.info, node)
        wrt, tangents = [], []
        for i, p in enumerate(positional_params(func)):
            tangent = self.tangent_of_argument(bound.get(p))
            if tangent is not None:
                wrt.append(i)
                tangents.append(tangent)
        if not wrt:
            return self.zero_tangent(target)
        callee = self.dependencies.name_for(func, "tangent", tuple(wrt))
        value = gast.Call(func=name(callee), args=tangents + clone(args),
                          keywords=[gast.keyword(arg=k, value=clone(v))
                                    for k, v in keywords.items()])
        pair = self.namer.fresh_name(f"{target}_pair")
        stmt.before = [assign(pair, value, stmt)]  # (block writes it before the statement)
        stmt.value = gast.Subscript(value=name(pair), slice=gast.Constant(value=0, kind=None),
                                    ctx=gast.Load())
        self.has_tangent.add(target)
        return [assign(self.namer.tangent(target), gast.Subscript(
            value=name(pair), slice=gast.Constant(value=1, kind=None), ctx=gast.Load()))]

    def display_tangent(self, node):
        """The tangent of an item of a list display, of the same structure: [(a, b), c] ->
        [(da, db), dc], zeros for items without a tangent; a number's is 0.0."""
        if isinstance(node, gast.Name):
            return self.tangent_or_zero(node.id)
        if isinstance(node, (gast.Tuple, gast.List)):
            return type(node)(elts=[self.display_tangent(e) for e in node.elts], ctx=gast.Load())
        if not loaded_names(node):  # a number (-1.0 is a negation of one)
            return gast.Constant(value=0.0, kind=None)
        raise self.info.error(node, "srcad cannot take the tangent of this item of a list",
                              hint="assign the item to a name first")

    def tangent_of_argument(self, arg):
        """The tangent of a call's argument: a name's, or a display of its items' (h([a, b])
        takes [da, db], zeros for items without one); None if nothing in it has a tangent."""
        if isinstance(arg, gast.Name):
            return name(self.namer.tangent(arg.id)) if self.active(arg.id) else None
        if isinstance(arg, (gast.Tuple, gast.List)):
            items = [self.tangent_of_argument(e) for e in arg.elts]
            if all(item is None for item in items):
                return None
            return type(arg)(elts=[item if item is not None else self.zeros(e.id) if isinstance(
                e, gast.Name) else gast.Constant(value=0.0, kind=None)
                for item, e in zip(items, arg.elts)], ctx=gast.Load())
        return None

    def zero_tangent(self, target):
        if target in self.always:
            return [assign(self.namer.tangent(target), self.zeros(target))]
        return []

    def tangent_of_store(self, stmt):
        """y[index] = v  ->  dy[index] = dv (0.0 where v has no tangent)."""
        target = stmt.targets[0]
        var = target.value.id
        if not self.active(var) or not self.activity(var):  # (a parameter's tangent is the
            return []  # caller's array until the function makes its own: never stored into)
        value = stmt.value
        tangent = name(self.namer.tangent(value.id)) if (
            isinstance(value, gast.Name) and self.active(value.id)) else gast.Constant(
            value=0.0, kind=None)
        if var not in self.sequences and not self.floats.get(var) and not (
                isinstance(tangent, gast.Constant)):  # (an int or bool array rounds what is
            tangent = call(["stored_share"], tangent, name(var))  # stored: no tangent)
        store = gast.Subscript(value=name(self.namer.tangent(var)),
                               slice=clone(target.slice), ctx=gast.Store())
        return [gast.Assign(targets=[store], value=tangent, type_comment=None)]

    def tangent_of_list_op(self, stmt):
        """lst.append(v) and v = lst.pop() carry tangents in a parallel list."""
        call_node = stmt.value
        holder = call_node.func.value.id
        if not self.active(holder):  # no tangents (a zero one, list(d) of a zero d, folds away)
            target = getattr(stmt.targets[0], "id", None) if isinstance(stmt, gast.Assign) else None
            if target in self.always:  # but the popped item must carry one: a zero
                return [assign(self.namer.tangent(target), self.zeros(target))]
            return []
        dlist = gast.Attribute(value=name(self.namer.tangent(holder)), attr=call_node.func.attr,
                               ctx=gast.Load())
        if call_node.func.attr == "append":
            item = call_node.args[0]

            def tangent_of(node):  # (a value without a tangent: a zero one, since what is
                if isinstance(node, gast.Name) and self.active(node.id):  # popped may carry one)
                    return name(self.namer.tangent(node.id))
                if isinstance(node, gast.Name):
                    return self.zeros(node.id)
                return gast.Constant(value=0.0, kind=None)
            if isinstance(item, (gast.Tuple, gast.List)):  # stack.append((t2, t3))
                tangent = gast.Tuple(elts=[tangent_of(e) for e in item.elts], ctx=gast.Load())
            else:
                tangent = tangent_of(item)
            return [gast.Expr(value=gast.Call(func=dlist, args=[tangent], keywords=[]))]
        pop = gast.Call(func=dlist, args=[], keywords=[])
        if isinstance(stmt, gast.Assign) and self.activity(stmt.targets[0].id):
            self.has_tangent.add(stmt.targets[0].id)
            return [assign(self.namer.tangent(stmt.targets[0].id), pop)]
        return [gast.Expr(value=pop)]

    def block(self, stmts):
        out = []
        last_line = None
        for stmt in stmts:
            tangent = []
            if getattr(stmt, "turn", False):  # an unrolled loop's next turn: comment it again
                last_line = None
            if list_op(stmt):
                tangent = self.tangent_of_list_op(stmt)
            elif isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
                tangent = self.tangent_of_assign(stmt)
            elif isinstance(stmt, gast.Assign):
                tangent = self.tangent_of_store(stmt)
            elif isinstance(stmt, gast.If):
                stmt.body = self.block(stmt.body) or [gast.Pass()]
                stmt.orelse = self.block(stmt.orelse)
                last_line = None
            elif isinstance(stmt, (gast.For, gast.While)):
                stmt.body = self.block(stmt.body) or [gast.Pass()]
                if isinstance(stmt, gast.For) and self.active(stmt.target.id):  # a counter
                    # (control.py loops over ranges) that reaches values with tangents: zero
                    stmt.body.insert(0, assign(self.namer.tangent(stmt.target.id),
                                               gast.Constant(value=0.0, kind=None)))
                last_line = None
            else:
                not_differentiated(stmt)
            if tangent and getattr(stmt, "lineno", None) and stmt.lineno != last_line:
                header = origin_comment(self.info, stmt, "tangent of")
                if header is not None:
                    out.append(header)
                last_line = stmt.lineno
            out.extend(getattr(stmt, "before", ()))
            out.append(stmt)
            out.extend(tangent)
        return out

    def build(self):
        fdef = self.fdef
        ret = fdef.body[-1]
        params = parameter_ids(fdef)
        # the tangents of arrays a store reaches, through their own name or a view of them: a
        # new value the primal computes from such an array must not share its tangent's storage
        self.stored_tangents = {self.namer.tangent(v) for v in self.activity.varied
                                if self.stored_into(v)}
        # a parameter that is not differentiated but takes varied values in a loop starts with a
        # zero tangent
        head = [assign(self.namer.tangent(p), self.zeros(p))
                for p in params if p in self.always and p not in self.wrt]
        seed = self.seed() if self.kind == "grad" else []  # f_grad(x, w): dx = 1.0 in the body
        body = seed + head + self.block(fdef.body[:-1])
        tangents = [name(self.namer.tangent(var), gast.Param()) for var in self.wrt]
        if self.kind == "tangent":  # h_tangent(dx, dw, x, w): what generated call sites use
            target = fdef.args.posonlyargs or fdef.args.args
            target[:0] = tangents
        elif self.kind != "grad":  # f_jvp(x, w, *, dx, dw)
            fdef.args.kwonlyargs.extend(tangents)
            fdef.args.kw_defaults.extend([None] * len(tangents))
        out = self.output_tangent(ret.value)
        if self.kind == "grad" and not self.scalar_output(ret.value):
            if not isinstance(out, gast.Name):
                result = self.namer.fresh_name("dout")
                body.append(assign(result, out))
                out = name(result)
            body.append(scalar_check(out.id))
        if self.kind == "tangent":  # a callee's: its value too (calls.py)
            out = gast.Tuple(elts=[clone(ret.value), out], ctx=gast.Load())
        body.append(gast.Return(value=out))
        if seed and not any(seed[-1].targets[0].id in loaded_names(s) for s in body):
            body = body[len(seed):]  # the output does not depend on x
        fdef.body = body
        return fdef

    def seed(self):
        """The gradient with respect to one float: its tangent is 1."""
        if len(self.wrt) != 1 or self.kinds.get(self.wrt[0], "scalar") != "scalar":
            raise SrcadError(f"the forward-mode gradient is for a function of one number; "
                             f"{', '.join(self.wrt)} is not one here",
                             hint="use srcad.grad, which picks the mode, or srcad.jvp")
        var = self.wrt[0]
        return [comment(f"forward mode: the tangent of {var} starts at 1, so the tangent of the "
                        f"output is the gradient"),
                assign(self.namer.tangent(var), gast.Constant(value=1.0, kind=None))]

    def scalar_output(self, value):
        """Whether the shape probe showed that the returned value is a scalar (or of size 1)."""
        if not isinstance(value, gast.Name):
            return False
        shape = self.shapes.get(value.id)
        return self.kinds.get(value.id) == "scalar" or (
            shape is not None and math.prod(shape) == 1)

    def output_tangent(self, value):
        if isinstance(value, (gast.Tuple, gast.List)):
            return gast.Tuple(elts=[self.output_tangent(e) for e in value.elts], ctx=gast.Load())
        var = operand_id(value)
        if var is not None and self.active(var):
            return name(self.namer.tangent(var))
        if var is not None:
            return self.zeros(var)
        return call(["np", "zeros_like"], value)


def _container_helper(op):
    """A runtime helper whose result may be a list or dict (runtime.CONTAINER_RESULTS)."""
    name = getattr(op, "__name__", None)
    return name in CONTAINER_RESULTS and HELPERS.get(name) is op


def sequence_names(body, scope, kinds):
    """Names that may hold lists, tuples or dicts: bound to displays, list(...), tuple(...) or a
    dict built in the function, appended to, seen by the probe as neither arrays nor numbers,
    and copies, joins (a + b) and repetitions (a * k, unless the probe saw an array) of
    those."""
    found = {v for v, kind in kinds.items() if kind == "other"} | {
        s.value.func.value.id for s in flatten(body) if list_op(s)}
    changed = True
    while changed:
        changed = False
        for stmt in flatten(body):
            if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
                    and stmt.targets[0].id not in found):
                continue
            value = stmt.value
            if isinstance(value, (gast.List, gast.Tuple)) or (
                    isinstance(value, gast.Name) and value.id in found) or (
                    isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add) and all(
                        isinstance(side, gast.Name) and side.id in found
                        for side in (value.left, value.right))) or (
                    repeats(value, found) and kinds.get(stmt.targets[0].id) != "array") or (
                    isinstance(value, gast.Call) and scope.lookup(value.func) in (
                        list, tuple, dict_of, dict_with)) or (
                    isinstance(value, gast.Call) and kinds.get(stmt.targets[0].id) != "array"
                    and _container_helper(scope.lookup(value.func))):
                found.add(stmt.targets[0].id)
                changed = True
    return found


def scalar_check(var):
    """What srcad.grad says when the output is not a scalar (forward mode has no seed to check
    it, as reverse mode's grad_seed does)."""
    return gast.parse(
        f"if type({var}) is not float and size_of({var}) != 1:\n"
        f"    raise ValueError(f'srcad.grad needs a function with a scalar output, this one "
        f"returned shape {{np.shape({var})}}; use srcad.vjp or srcad.jacobian')\n").body[0]
