"""A user function called from differentiated code gets its derivative in two halves, so that
its statements run once per call: the forward half runs in the caller's primal sweep and
returns the value and a tape; the backward half runs in the caller's adjoint sweep from that
tape (split_half cuts one reverse-mode build of the callee in two).
"""
import gast

from ..syntax.naming import bound_counts, loaded_names
from ..syntax.nodes import assign, call, name


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
    made = {stmt.targets[0].id for stmt in forward if isinstance(stmt, gast.Assign) and isinstance(
        stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.List) and not stmt.value.elts}
    tops = {t: namer.fresh_name(f"{t}_top") for t in tape if t in made}
    heads = [assign(top, call(["len"], name(stack))) for stack, top in tops.items()]
    fdef.body = unpack + heads + _read_down(backward, tops) + [gast.Return(value=gradients)]
    return fdef


def _read_down(stmts, tops):
    """The stacks the record made, read from the top down instead of popped:
    `h = stack.pop()` becomes `stack_top = stack_top - 1; h = stack[stack_top]`. The tape stays
    whole, and reads of a list's items are what a derivative of this derivative differentiates
    (grad(grad(f)) through a helper's loop)."""
    out = []
    for stmt in stmts:
        value = getattr(stmt, "value", None)
        if (isinstance(stmt, gast.Assign) and isinstance(value, gast.Call)
                and isinstance(value.func, gast.Attribute) and value.func.attr == "pop"
                and isinstance(value.func.value, gast.Name) and value.func.value.id in tops
                and not value.args):
            stack = value.func.value.id
            top = tops[stack]
            out.append(assign(top, gast.BinOp(left=name(top), op=gast.Sub(),
                                              right=gast.Constant(value=1, kind=None))))
            stmt.value = gast.Subscript(value=name(stack), slice=name(top), ctx=gast.Load())
        for field in ("body", "orelse"):
            if isinstance(getattr(stmt, field, None), list):
                setattr(stmt, field, _read_down(getattr(stmt, field), tops))
        out.append(stmt)
    return out


