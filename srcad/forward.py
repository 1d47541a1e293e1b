"""Pass 7, forward mode: each primal statement followed by its tangent statement.

    def f(x1, x2):                   def f_jvp(x1, x2, *, dx1, dx2):
        t1 = np.log(x1)                  t1 = np.log(x1)
        t2 = x1 * x2        ->           dt1 = dx1 / x1
        y = t1 + t2                      t2 = x1 * x2
        return y                         dt2 = dx1 * x2 + x1 * dx2
                                         y = t1 + t2
                                         dy = dt1 + dt2
                                         return dy

Tangents of constants are symbolic zeros folded away at build time; a value whose tangent folds
to zero gets no tangent at all.
"""
import gast

from . import operations
from .instantiate import (Zero, instantiate, materialize_zeros, name, operand_id,
                          simplify_zeros)
from .registry import require_template
from .reverse import assign, call, origin_comment


class Forward:
    def __init__(self, fdef, scope, info, namer, activity, wrt, kind="jvp"):
        self.fdef = fdef
        self.scope = scope
        self.info = info
        self.namer = namer
        self.activity = activity
        self.wrt = wrt
        self.kind = kind
        self.has_tangent = set(wrt)

    def active(self, var):
        return var in self.has_tangent

    def tangent_of_assign(self, stmt):
        target = stmt.targets[0].id
        if not self.activity(target):
            return []
        value = stmt.value
        try:
            op, args, keywords = operations.operation(value, self.scope)
        except operations.UnknownCall as exc:
            raise self.info.error(exc.args[0], "srcad cannot differentiate a call to a function "
                                               "it cannot identify",
                                  hint="call numpy/math functions or module-level helpers by "
                                       "name") from None
        if op is None:
            return []
        template = require_template("tangent", op, self.info, value)
        try:
            pieces = instantiate(template, name(target), args, keywords, self.namer.tangent,
                                 self.active, self.namer.fresh)
        except TypeError as exc:
            raise self.info.error(value, f"srcad cannot match this call to its template ({exc})",
                                  hint="check the arguments of the call") from None
        out = []
        for piece in pieces:
            if hasattr(piece, "operand"):  # d[y] = e
                tangent = simplify_zeros(piece.value)
                if isinstance(tangent, Zero):
                    continue
                self.has_tangent.add(target)
                if template.broadcasts and any(
                        isinstance(a, gast.Name) and not self.active(a.id) for a in args):
                    tangent = call(["rebroadcast"], tangent, name(target))
                out.append(assign(self.namer.tangent(target), materialize_zeros(tangent)))
            else:
                out.append(materialize_zeros(piece))
        if target not in self.has_tangent:
            return []
        return out

    def build(self):
        fdef = self.fdef
        body = []
        last_line = None
        for stmt in fdef.body[:-1]:
            block = []
            if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
                block = self.tangent_of_assign(stmt)
            if block and stmt.lineno != last_line:
                header = origin_comment(self.info, stmt, "tangent of")
                if header is not None:
                    body.append(header)
                last_line = stmt.lineno
            body.append(stmt)
            body.extend(block)
        ret = fdef.body[-1]
        for var in self.wrt:
            fdef.args.kwonlyargs.append(name(self.namer.tangent(var), gast.Param()))
            fdef.args.kw_defaults.append(None)
        body.append(gast.Return(value=self.output_tangent(ret.value)))
        fdef.body = body
        return fdef

    def output_tangent(self, value):
        if isinstance(value, (gast.Tuple, gast.List)):
            return gast.Tuple(elts=[self.output_tangent(e) for e in value.elts], ctx=gast.Load())
        var = operand_id(value)
        if var is not None and self.active(var):
            return name(self.namer.tangent(var))
        if var is not None:
            return call(["np", "zeros_like"], name(var))
        return call(["np", "zeros_like"], value)

