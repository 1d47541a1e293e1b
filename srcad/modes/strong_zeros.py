"""Strong zeros: an adjoint's zero stays 0 against a factor that is inf or nan.

An adjoint entry that is 0 says the output does not depend on that entry: the untaken branch
of an `np.where`, a masked entry. Multiplied by a value that is inf or nan there (the branch
computed `np.log(0)`, `0 / 0`, `np.sqrt(-1.0)`), a plain product makes it nan, and the nan
reaches the gradient where the derivative is 0:

    np.where(p > 0, p * np.log(p), 0.0)      at p = 0:
    bp = bt3 * t2                            0 * log(0) = 0 * -inf = nan
    bp = strong_mul(bt3, t2)                 0: the untaken branch's zero is strong

So every product a template writes of an adjoint by a primal value (`d[z] * y`, `d[z] *
np.cos(x)`) goes through `strong_mul` where the value may be inf or nan at an ordinary point,
and stays a plain product where it cannot: which classes of numbers each value of f can hold
is analysis/ranges.py's, found for the primal function once per build, under its assumptions
(the arguments are finite; a callee's parameters, its caller's values, may be anything) and
its ORDINARY rules: an `np.exp` that overflows to inf or underflows to a zero divisor, a
product past 1.8e308, are not followed here (guarding them would cost what they do not earn:
a Gaussian mixture's `(X - mu) / np.exp(logs)` is inf only for logs below -745, and its
guard blocked the contraction that makes its gradient fast, 1.12x -> 2.36x the hand-written
one). docs/numerics.md section 8 keeps those as a known gap. A function of finite values
(`x * y`, `np.sin(x)`, `x @ W`) keeps its plain products: the generated code reads as before
wherever nothing can be inf or nan.

Matrix products of an adjoint by such a value (`x.T @ d[z]`, `np.outer(x, d[z])`) go through
safe_matmul, whose sums add 0 for a zero times an inf or nan (and the runtime's matmul_adjoint_a
and matmul_adjoint_b, the code for any shapes, multiply so always: one dot product of the result
where it is finite; so do tensordot_adjoint_a/b and einsum_sums, the derivatives of
np.tensordot, np.inner, np.dot of more axes and np.einsum). Left as they are: the guarded
helpers (safe_mul, slope_mul and safe_div are strong already).
"""
import gast

from ..analysis.ranges import (ANY_FINITE, FINITE, ORDINARY, UNKNOWN, expression_classes,
                               parameter_kinds, value_classes)
from ..syntax.nodes import call, dotted_parts, parameter_ids

_FINITE = FINITE | ANY_FINITE


def value_classes_of(fdef, floats, shapes, callee):
    """name -> the classes of numbers it may hold (analysis/ranges.py), for the primal function
    fdef. floats: name -> float dtype character (the probe's; none in a build for any
    arguments, whose parameters are then finite numbers of unknown kind); callee: fdef is a
    helper's, whose parameters are its caller's values (any real number, inf and nan too)."""
    real, unbounded, any_kind = parameter_kinds(parameter_ids(fdef), floats.get, callee)
    return value_classes(fdef, real, shapes=shapes, unbounded=unbounded, any_kind=any_kind,
                         rules=ORDINARY)


class StrongProducts:
    """Rewrites the products of an instantiated adjoint template (see the module docstring).
    classes: the primal values' classes; carries(name): whether a name holds an adjoint (or a
    template's temporary made from one)."""

    def __init__(self, classes, carries, shapes=None):
        self.classes, self.carries, self.shapes = classes, carries, shapes

    def may_be_unbounded(self, node):
        """Whether a primal expression may have an inf or nan entry."""
        found = expression_classes(node, self.classes, self.shapes, ORDINARY)
        return found is UNKNOWN or bool(found & ~_FINITE)

    def rewrite(self, node):
        """node with its products of an adjoint by a value that may be inf or nan made strong
        (bottom-up: `d[z] * 2 * x` is strong_mul(d[z] * 2, x) where x may be inf)."""
        return self._rewrite(node)[0]

    def _rewrite(self, node):
        """(node rewritten, whether it reads an adjoint), in one walk of it."""
        if type(node) is gast.Name:
            return node, isinstance(node.ctx, gast.Load) and self.carries(node.id)
        carried = {}
        for field, value in gast.iter_fields(node):
            if isinstance(value, list):
                parts = [self._rewrite(v) if isinstance(v, gast.AST) else (v, False)
                         for v in value]
                setattr(node, field, [part for part, _ in parts])
                carried[field] = [reads for _, reads in parts]
            elif isinstance(value, gast.AST):
                part, carried[field] = self._rewrite(value)
                setattr(node, field, part)
        reads = any(any(c) if isinstance(c, list) else c for c in carried.values())
        if type(node) is gast.BinOp and type(node.op) in (gast.Mult, gast.MatMult):
            sides = (node.left, node.right, carried["left"], carried["right"])
        elif _product_call(node):
            sides = (node.args[0], node.args[1], *carried["args"])
        else:
            return node, reads
        left, right, left_reads, right_reads = sides
        if left_reads == right_reads or not self.may_be_unbounded(right if left_reads else left):
            return node, reads  # (a product of adjoints, of values, or by a finite value)
        if type(node) is gast.BinOp and type(node.op) is gast.Mult:
            adjoint, factor = (left, right) if left_reads else (right, left)
            strong = call(["strong_mul"], adjoint, factor)
        elif type(node) is gast.BinOp or _product_call(node) == "dot":  # (a matrix product:
            strong = call(["safe_matmul"], left, right)  # its operands in their order)
        else:  # np.outer(a, b): a column times a row
            strong = call(["safe_matmul"], call(["np", "reshape"], left, _shape(-1, 1)),
                          call(["np", "reshape"], right, _shape(1, -1)))
        return gast.copy_location(strong, node), True


def _product_call(node):
    """"outer" or "dot" for np.outer(a, b) or np.dot(a, b). (The templates write np.dot of
    operands of one or two axes only, where it is a @ b: dot's and outer's adjoints.)"""
    if type(node) is gast.Call and len(node.args) == 2 and not node.keywords:
        parts = dotted_parts(node.func)
        if parts in (["np", "outer"], ["np", "dot"]):
            return parts[1]
    return None


def _shape(*sizes):
    return gast.Tuple(elts=[gast.Constant(value=n, kind=None) for n in sizes], ctx=gast.Load())
