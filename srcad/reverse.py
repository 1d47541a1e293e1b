"""Pass 7, reverse mode: the primal sweep, then the adjoint sweep, in one function.

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

from . import operations
from .instantiate import Accumulate, instantiate, name, operand_id
from .registry import REGISTRY, require_template


def assign(target, value, origin=None):
    stmt = gast.Assign(targets=[name(target, gast.Store())], value=value, type_comment=None)
    if origin is not None:
        gast.copy_location(stmt, origin)
    return stmt


def call(func_parts, *args):
    from .resolve import attribute_chain
    return gast.Call(func=attribute_chain(func_parts), args=list(args), keywords=[])


def comment(text):
    """A comment line in generated code (emit turns this marker into `# text`)."""
    marker = gast.Expr(value=name("__srcad_comment__"))
    marker.comment = text
    return marker


def origin_comment(info, stmt, prefix):
    text = info.statement_text(stmt)
    if text is None:
        return None
    filename = info.filename.replace("\\", "/").rsplit("/", 1)[-1]
    return comment(f"{prefix}: {text}  ({filename}:{stmt.lineno})")


class Reverse:
    def __init__(self, fdef, scope, info, namer, activity, wrt, kind):
        self.fdef = fdef
        self.scope = scope
        self.info = info
        self.namer = namer
        self.active = activity
        self.wrt = wrt
        self.kind = kind
        self.initialized = set()
        self.tuple_vars = self.find_tuple_vars(fdef.body)

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
                if op is operations.pack or (template is not None and template.tuple_result):
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
    def accumulate(self, var, value, broadcasts, out):
        if broadcasts:
            value = call(["unbroadcast"], value, name(var))
        adjoint = self.namer.adjoint(var)
        if var in self.initialized:
            value = gast.BinOp(left=name(adjoint), op=gast.Add(), right=value)
        self.initialized.add(var)
        out.append(assign(adjoint, value))

    def accumulate_operand(self, operand, value, broadcasts, out):
        if isinstance(operand, (gast.Tuple, gast.List)):
            active = [(i, e.id) for i, e in enumerate(operand.elts)
                      if isinstance(e, gast.Name) and self.active(e.id)]
            if isinstance(value, (gast.Tuple, gast.List)):
                for i, var in active:
                    self.accumulate(var, value.elts[i], broadcasts, out)
                return
            if not active:
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
            return
        var = operand_id(operand)
        if var is not None and self.active(var):
            self.accumulate(var, value, broadcasts, out)

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
            raise self.info.error(exc.args[0], "srcad cannot differentiate a call to a function "
                                               "it cannot identify",
                                  hint="call numpy/math functions or module-level helpers by "
                                       "name") from None
        result = name(target)
        if op is None:
            return out
        else:
            template = require_template("adjoint", op, self.info, value)
            try:
                pieces = instantiate(template, result, args, keywords, self.namer.adjoint,
                                     self.is_active, self.namer.fresh)
            except TypeError as exc:
                raise self.info.error(value, f"srcad cannot match this call to its template "
                                             f"({exc})", hint="check the arguments of the call")
            for piece in pieces:
                if isinstance(piece, Accumulate):
                    self.accumulate_operand(piece.operand, piece.value, piece.broadcasts, out)
                else:
                    out.append(piece)
        # the value is dead before this statement: its adjoint is spent
        self.initialized.discard(target)
        return out

    def build(self):
        fdef = self.fdef
        body = fdef.body[:-1]
        ret = fdef.body[-1]
        primal = list(body)
        adjoint = []
        seed_stmts = self.seed(ret)
        last_line = None
        for stmt in reversed(body):
            if not isinstance(stmt, gast.Assign):
                continue
            block = self.adjoint_of_assign(stmt)
            if not block:
                continue
            if stmt.lineno != last_line:
                header = origin_comment(self.info, stmt, "grad of")
                if header is not None:
                    adjoint.append(header)
                last_line = stmt.lineno
            adjoint.extend(block)
        results = []
        for var in self.wrt:
            if var in self.initialized:
                results.append(name(self.namer.adjoint(var)))
            else:
                results.append(call(["np", "zeros_like"], name(var)))
        value = results[0] if len(results) == 1 else gast.Tuple(elts=results, ctx=gast.Load())
        if self.kind == "value_and_grad":
            value = gast.Tuple(elts=[ret.value, value], ctx=gast.Load())
        fdef.body = primal + seed_stmts + adjoint + [gast.Return(value=value)]
        return fdef

    def seed(self, ret):
        """Statements that give the returned value its adjoint (the seed)."""
        value = ret.value
        if self.kind == "vjp":
            seed_name = self.seed_name(ret)
            arg = name(seed_name, gast.Param())
            self.fdef.args.kwonlyargs.append(arg)
            self.fdef.args.kw_defaults.append(None)
            if isinstance(value, (gast.Tuple, gast.List)):
                out = []
                self.accumulate_operand(value, name(seed_name), False, out)
                return out
            var = operand_id(value)
            if var is not None and self.active(var):
                self.initialized.add(var)
            return []
        if isinstance(value, (gast.Tuple, gast.List)):
            raise self.info.error(ret, "srcad.grad needs a function returning one scalar, this "
                                       "one returns a tuple",
                                  hint="use srcad.vjp for functions with several outputs")
        var = operand_id(value)
        if var is None or not self.active(var):
            return []
        self.initialized.add(var)
        return [assign(self.namer.adjoint(var), call(["grad_seed"], name(var)))]

    def seed_name(self, ret):
        value = ret.value
        var = operand_id(value)
        if var is not None:
            return self.namer.adjoint(var)
        return self.namer.adjoint("out")
