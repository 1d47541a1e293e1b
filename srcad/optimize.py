"""Pass 8, optimize: remove what the derivative does not need.

Dead-code elimination: an assignment whose target is never read again is dropped when its value
has no side effects (library and runtime calls are pure; calls of user functions are kept), and
a comment left heading no code goes with it. Run to a fixed point.

    t4 = np.sin(x2)      # the primal value only the output needed
    y = t3 - t4          ->   (both gone from a gradient that never reads y or t4)
"""
import gast

from .resolve import LIBRARY_MODULES
from .runtime import HELPERS

_PURE_ROOTS = {alias.split(".")[0] for alias in LIBRARY_MODULES.values()} | {
    "slice", "len", "range", "float", "int", "abs", "min", "max", "tuple", "list", "zip",
    "enumerate", "reversed", "isinstance"}


def _is_pure(value):
    for node in gast.walk(value):
        if isinstance(node, gast.Call):
            root = node.func
            while isinstance(root, gast.Attribute):
                root = root.value
            if not (isinstance(root, gast.Name) and (root.id in _PURE_ROOTS or root.id in HELPERS)):
                return False
    return True


def _loads(node):
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(
        n.ctx, gast.Load)}


def _is_comment(stmt):
    return hasattr(stmt, "comment")


def eliminate_dead_code(body):
    """One backward sweep of liveness over a straight-line body; returns the kept statements."""
    live = set()
    kept = []
    for stmt in reversed(body):
        if isinstance(stmt, gast.Assign) and all(isinstance(t, gast.Name) for t in stmt.targets):
            targets = {t.id for t in stmt.targets}
            if not targets & live and _is_pure(stmt.value):
                continue
            live -= targets
            live |= _loads(stmt.value)
        elif not _is_comment(stmt):
            live |= _loads(stmt)
        kept.append(stmt)
    kept.reverse()
    # a comment that now heads nothing (next is a comment or the end) goes too
    out = []
    for i, stmt in enumerate(kept):
        if _is_comment(stmt):
            following = kept[i + 1] if i + 1 < len(kept) else None
            if following is None or _is_comment(following) or isinstance(following, gast.Return):
                continue
        out.append(stmt)
    return out


class FoldConstants(gast.NodeTransformer):
    """2 - 1 -> 1, x ** 1 -> x, x * 1 -> x: what templates instantiated with constants leave."""

    OPS = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b,
           gast.Mult: lambda a, b: a * b}

    def visit_BinOp(self, node):
        node = self.generic_visit(node)
        left, right = node.left, node.right
        numbers = (int, float)
        if (isinstance(left, gast.Constant) and isinstance(right, gast.Constant)
                and type(left.value) in numbers and type(right.value) in numbers
                and type(node.op) in self.OPS):
            return gast.Constant(value=self.OPS[type(node.op)](left.value, right.value), kind=None)
        if isinstance(right, gast.Constant) and type(right.value) in numbers and right.value == 1:
            if isinstance(node.op, (gast.Pow, gast.Mult, gast.Div)) and type(right.value) is int:
                return left
        if isinstance(left, gast.Constant) and type(left.value) is int and left.value == 1 and (
                isinstance(node.op, gast.Mult)):
            return right
        return node


def optimize(fdef):
    fdef.body = [FoldConstants().visit(stmt) for stmt in fdef.body]
    while True:
        before = len(fdef.body)
        fdef.body = eliminate_dead_code(fdef.body)
        if len(fdef.body) == before:
            return fdef
