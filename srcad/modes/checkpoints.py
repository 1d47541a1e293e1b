"""Checkpointed loops in reverse mode: the primal sweep keeps the loop's state only at the start
of every k-th turn; the adjoint sweep, stretch by stretch from the last, puts that state back,
runs the stretch's turns again with the saves the adjoint reads, and runs their adjoints.

    for t in srcad.checkpoint(range(T)):          segments = checkpoint_segments(t1, None)
        h = np.tanh(W @ h + xs[t])                checkpoints = []
                                                  for segment in segments:
                                       ->             checkpoints.append((h,))
                                                      for t in segment:
                                                          h = np.tanh(W @ h + xs[t])
                                                  ...
                                                  for segment in segments[::-1]:
                                                      (h,) = checkpoints.pop()
                                                      for t in segment:
                                                          stack.append(h)
                                                          h = np.tanh(W @ h + xs[t])
                                                      for t in segment[::-1]:
                                                          h = stack.pop()
                                                          # grad of: h = ...

With k about sqrt(T) the tape holds one stretch and the checkpoints sqrt(T) states: memory
O(sqrt T) instead of O(T), for one more run of the loop's turns. The state is every name the
loop binds that has a value outside it (the adjoint of the code before the loop reads those
values as the loop found them) or that a turn reads before binding (what the turn before
left). Values are kept by reference: a turn binds new arrays, and the fence refuses writes
into arrays here (stores and appends, which would change a kept state, are refused).

A mixin of Reverse (reverse.py): prepare_loops marks the loops, primal_block and adjoint_loop
write them, build puts the runs again into the adjoint sweep (which is written first).
"""
import gast

from .tape import exposed_reads, Rerun, Save
from ..syntax.naming import clone
from ..syntax.nodes import (assign, assigned_name, call, comment, constant_node, flatten, list_op,
                            name, origin_comment)


class Recompute(gast.Expr):
    """Placeholder in the adjoint sweep: the stretch's turns again, with their saves (the
    primal sweep's loop body is written after the adjoint sweep: build fills it in)."""

    def __init__(self, loop, segment):
        super().__init__(value=gast.Constant(value=None, kind=None))
        self.loop = loop
        self.segment = segment


class Checkpointing:
    def prepare_checkpoint(self, loop, depth, counted):
        """Check a marked loop (loop.checkpoint: every k turns, "sqrt" for about sqrt(T)); name
        what its sweeps share; unmark it where checkpointing does not apply: the halves of a
        callee's adjoint, which read their tape by position (they keep every turn)."""
        every = getattr(loop, "checkpoint", None)
        if every is None:
            return
        if self.kind in ("record", "backward"):
            loop.checkpoint = None
            return
        if depth > 0 or counted:
            raise self.info.error(loop, "srcad.checkpoint marks a for loop without break that "
                                        "is not inside another loop",
                                  hint="mark the outer loop, or take the break out (a flag, "
                                       "or a shorter range)")
        for stmt in flatten(loop.body):
            if (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Subscript)
                    ) or list_op(stmt):
                raise self.info.error(stmt, "srcad cannot checkpoint a loop that writes into an "
                                            "array or list: the kept states would change",
                                      hint="bind new values (h = ...) in the loop, or leave "
                                           "srcad.checkpoint out")
        bound = {assigned_name(s) for s in flatten(loop.body) if assigned_name(s)} | {
            s.target.id for s in flatten(loop.body) if isinstance(s, gast.For)}
        inside = {id(s) for s in flatten(loop.body)}
        outside = self.params | {assigned_name(s) for s in flatten(self.fdef.body[:-1])
                                 if assigned_name(s) and id(s) not in inside}
        carried = bound & exposed_reads(loop.body, {loop.target.id})
        state = sorted((bound & outside) | carried)
        self.checkpointed[id(loop)] = (self.namer.fresh("segments"),
                                       self.namer.fresh("checkpoints"), state, every)

    def checkpointed_primal(self, loop):
        """The loop in the primal sweep: in stretches, the state kept at each one's start, no
        saves (the loop with its saves is kept for the adjoint sweep's runs again)."""
        segments, checkpoints, state, every = self.checkpointed[id(loop)]
        self.recomputed[id(loop)] = clone(loop)
        plain = _without_saves(clone(loop.body))
        segment = self.namer.fresh("segment")
        keep = gast.Expr(value=gast.Call(func=gast.Attribute(
            value=name(checkpoints), attr="append", ctx=gast.Load()),
            args=[gast.Tuple(elts=[name(v) for v in state], ctx=gast.Load())], keywords=[]))
        turns = gast.For(target=name(loop.target.id, gast.Store()), iter=name(segment),
                         body=plain, orelse=[], type_comment=None)
        every = constant_node(None if every == "sqrt" else every)
        header = origin_comment(self.info, loop, "checkpoints of")
        return [header] * (header is not None) + [
                assign(segments, call(["checkpoint_segments"], clone(loop.iter), every)),
                assign(checkpoints, gast.List(elts=[], ctx=gast.Load())),
                gast.For(target=name(segment, gast.Store()), iter=name(segments),
                         body=[keep, turns], orelse=[], type_comment=None)]

    def checkpointed_adjoint(self, loop, body):
        """The loop in the adjoint sweep: the stretches backwards, each from its kept state,
        run again (a placeholder until the primal sweep is written), then its turns' adjoints
        (body) backwards."""
        segments, checkpoints, state, _ = self.checkpointed[id(loop)]
        segment = self.namer.fresh("segment")
        back = gast.Subscript(value=name(segment), slice=gast.Slice(
            lower=None, upper=None, step=constant_node(-1)), ctx=gast.Load())
        restore = gast.Assign(targets=[gast.Tuple(elts=[name(v, gast.Store()) for v in state],
                                                  ctx=gast.Store())],
                              value=call([checkpoints, "pop"]), type_comment=None)
        adjoints = gast.For(target=name(loop.target.id, gast.Store()), iter=back, body=body,
                            orelse=[], type_comment=None)
        stretches = gast.Subscript(value=name(segments), slice=gast.Slice(
            lower=None, upper=None, step=constant_node(-1)), ctx=gast.Load())
        return gast.For(target=name(segment, gast.Store()), iter=stretches,
                        body=[restore, comment("the stretch's turns again, from its kept state"),
                              Recompute(id(loop), segment), adjoints], orelse=[],
                        type_comment=None)

    def checkpoint_state(self):
        """The names some checkpointed loop keeps (those not bound before it start as None)."""
        return {v for _, _, state, _ in self.checkpointed.values() for v in state}

    def fill_recomputations(self, stmts):
        """Put each stretch's turns, with their saves, where the adjoint sweep runs them again."""
        for block in _blocks(stmts):
            for k, stmt in enumerate(block):
                if isinstance(stmt, Recompute):
                    loop = self.recomputed[stmt.loop]
                    block[k] = Rerun(target=name(loop.target.id, gast.Store()),
                                     iter=name(stmt.segment), body=clone(loop.body), orelse=[],
                                     type_comment=None)


def _blocks(stmts):
    """Every statement list in stmts, nested ones too."""
    yield stmts
    for stmt in stmts:
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                yield from _blocks(inner)


def _without_saves(stmts):
    out = []
    for stmt in stmts:
        if isinstance(stmt, Save):
            continue
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                setattr(stmt, field, _without_saves(inner))
        out.append(stmt)
    return out
