"""singular points (gradients of a scalar, shape-specialized builds): guards that only
matter where the function's value is inf or nan, where it has no derivative, are dropped.

`safe_div(g, d)` is `g / d` except where d has a zero or a nan entry: there a zero g gives 0
(not 0 / 0 = nan) and no warning is raised. Batch normalization divides by D = sqrt(C) itself:

    D = np.sqrt(C)
    y = A / D                     a zero in D makes an entry of y inf or nan (x / 0), a nan in
    t1 = y * w                    D makes one nan, and that inf or nan reaches the output
    out = np.sum(t1)              through the product and the sum
    ...
    bC = safe_div(bD, 2.0 * D)    ->   bC = bD / (2.0 * D)

Wherever D has a zero or a nan, the output is inf or nan, the gradient is not defined, and
the two differ nowhere else: the plain quotient (a third of the cost on small arrays) gives
the same numbers wherever there are numbers to give. (Where the output is not finite, the
generic code and this one may give different infs and nans.)

The facts are found backwards from the returned name over the straight-line top-level
statements of the function (after ANF), for real float values of known, nonempty shapes
(arrays and numbers; a Python number divides plainly only an array: 1.0 / 0.0 raises
ZeroDivisionError where safe_div gives inf). optimize/guards.py reads them too, as what holds
wherever the output is finite:

    N(v):  an inf or nan entry of v makes the output inf or nan (the output has it);
    ZN(v): a zero or nan entry of v makes the output inf or nan.

    u = a + b, a - b, -a, a copy, np.sum/mean/var/std(a, ...), a.sum/mean/var/std(...):
                         N(u) => N(a), N(b)
    u = a * b:           N(u) => N(a), N(b);   ZN(u) => ZN(a), ZN(b)   (0 * inf is nan)
    u = a / b:           N(u) => N(a), ZN(b);  ZN(u) => ZN(a)          (x / 0 is inf or nan)
    u = a ** c, c > 0:   N(u) => N(a);         ZN(u) => ZN(a)
    u = a ** c, c < 0:   N(u) => ZN(a)
    u = np.log(a):       N(u) => N(a), ZN(a)   (also log2, log10)
    u = np.sqrt(a), np.abs(a), np.square(a):   N(u) => N(a);  ZN(u) => ZN(a)

Each holds for every value, whatever the other operands hold (inf + -inf and 0 * inf are nan:
still not finite), so one such path to the output is enough. Not followed: exp (exp(-inf) is
0), tanh, maxima (a -inf entry is not the maximum), matrix products (a BLAS may skip the zero
terms of a product with nan), comparisons, selections, indexing, calls, and anything inside or
after control flow that may return early.
"""
import math

import gast

from ..syntax.naming import bound_counts, number_value, walk
from ..syntax.visitor import Transformer

_ADDITIVE = (gast.Add, gast.Sub)
_SUMS = {"sum", "mean", "var", "std"}
_LOGS = {"log", "log2", "log10"}
_SAME = {"sqrt", "abs", "absolute", "square", "negative", "positive"}


class Singular:
    def __init__(self, fdef, shapes, floats):
        self.shapes = shapes
        self.real = {v for v, char in floats.items() if char and char in "efdg"}
        self.counts = bound_counts(fdef)
        self.facts = {}  # name -> set of "N", "ZN"

    def known(self, name):
        """Followed: a real float value bound once, of a known shape with entries."""
        shape = self.shapes.get(name)
        return (name in self.real and self.counts.get(name) == 1 and shape is not None
                and all(n > 0 for n in shape))

    def give(self, node, fact):
        if isinstance(node, gast.Name) and self.known(node.id):
            self.facts.setdefault(node.id, set()).add(fact)

    def statement(self, target, value):
        """Hand target's facts on to the names value reads (the rules of the docstring)."""
        facts = self.facts.get(target, set())
        n, zn = "N" in facts, "ZN" in facts
        if isinstance(value, gast.Name):
            for fact in facts:
                self.give(value, fact)
        elif isinstance(value, gast.UnaryOp) and isinstance(value.op, (gast.USub, gast.UAdd)):
            for fact in facts:
                self.give(value.operand, fact)
        elif isinstance(value, gast.BinOp):
            self.binop(value, n, zn)
        elif isinstance(value, gast.Call):
            self.call(value, n, zn)

    def binop(self, node, n, zn):
        a, b, op = node.left, node.right, node.op
        if isinstance(op, _ADDITIVE) and n:
            self.give(a, "N")
            self.give(b, "N")
        elif isinstance(op, gast.Mult):
            for fact, holds in (("N", n), ("ZN", zn)):
                if holds:
                    self.give(a, fact)
                    self.give(b, fact)
        elif isinstance(op, gast.Div):
            if n:
                self.give(a, "N")
                self.give(b, "ZN")
            if zn:
                self.give(a, "ZN")
        elif isinstance(op, gast.Pow):
            c = number_value(b)
            if c is None or not math.isfinite(c) or c == 0:
                return
            if c > 0:
                for fact, holds in (("N", n), ("ZN", zn)):
                    if holds:
                        self.give(a, fact)
            elif n:
                self.give(a, "ZN")

    def call(self, node, n, zn):
        func = node.func
        if not isinstance(func, gast.Attribute):
            return
        if isinstance(func.value, gast.Name) and func.value.id == "np":
            name, args = func.attr, node.args
            if not args:
                return
            operand, rest = args[0], args[1:]
        else:  # a.sum(axis=...), a.mean(...)
            name, operand, rest = func.attr, func.value, node.args
            if name not in _SUMS:
                return
        keywords = {k.arg for k in node.keywords}
        if name in _SUMS:
            if n and keywords <= {"axis", "keepdims"} and len(rest) <= 1:
                self.give(operand, "N")
        elif rest or keywords:
            return
        elif name in _LOGS and n:
            self.give(operand, "N")
            self.give(operand, "ZN")
        elif name in _SAME:
            for fact, holds in (("N", n), ("ZN", zn)):
                if holds:
                    self.give(operand, fact)

    def find(self, fdef):
        """name -> facts, over fdef's top-level statements (see the module docstring)."""
        body = fdef.body
        if not body or not isinstance(body[-1], gast.Return) or not isinstance(
                body[-1].value, gast.Name):
            return {}
        if any(isinstance(n, gast.Return) for stmt in body[:-1] for n in walk(stmt)):
            return {}  # an early return: the statements after it may not run
        if not self.known(body[-1].value.id):
            return {}
        self.facts[body[-1].value.id] = {"N"}
        for stmt in reversed(body[:-1]):
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(
                    stmt.targets[0], gast.Name) and stmt.targets[0].id in self.facts:
                self.statement(stmt.targets[0].id, stmt.value)
        return self.facts


def singular_names(fdef, shapes, kinds, floats, numpy_scalars=frozenset()):
    """name -> its facts ("N", "ZN" above) for the names of fdef (after ANF) bound to arrays
    or numbers; a Python number's facts hold "number" too: g / d by a Python float d = 0.0
    raises ZeroDivisionError (where safe_div gives inf) unless g is an array. shapes, kinds,
    floats, numpy_scalars: what the shape probe saw (shapes.probe)."""
    if not shapes:
        return {}
    out = {}
    for v, facts in Singular(fdef, shapes, floats).find(fdef).items():
        if kinds.get(v) == "array" or v in numpy_scalars:
            out[v] = facts
        elif kinds.get(v) == "scalar":
            out[v] = facts | {"number"}
    return out


class _Unguard(Transformer):
    def __init__(self, facts, arrays):
        self.facts, self.arrays = facts, arrays

    def singular(self, node, fact):
        """Is node a name with this fact, or a nonzero finite number times one?"""
        if isinstance(node, gast.Name):
            return fact in self.facts.get(node.id, ())
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
            for factor, other in ((node.left, node.right), (node.right, node.left)):
                c = number_value(factor)
                if c is not None and c != 0 and math.isfinite(c):
                    return self.singular(other, fact)
        return False

    def visit_Call(self, node):
        node = self.generic_visit(node)
        if not (isinstance(node.func, gast.Name) and len(node.args) == 2 and not node.keywords):
            return node
        a, b = node.args
        if node.func.id == "safe_div" and self.singular(b, "ZN") and plain_division_by(
                b, a, self.facts, self.arrays):
            return gast.BinOp(left=a, op=gast.Div(), right=b)
        if node.func.id == "strong_mul" and self.singular(b, "N"):
            return gast.BinOp(left=a, op=gast.Mult(), right=b)  # (b's infs and nans: no output)
        if node.func.id == "safe_mul":
            for g, slope in ((a, b), (b, a)):
                if self.singular(slope, "N"):
                    return gast.Call(func=gast.Name(id="slope_mul", ctx=gast.Load(),
                                                    annotation=None, type_comment=None),
                                     args=[g, slope], keywords=[])
        return node


def plain_division_by(divisor, numerator, facts, arrays):
    """Whether numerator / divisor cannot raise ZeroDivisionError: the divisor is not a
    Python number (facts: the singular facts) or the numerator is an array (arrays)."""
    number = any("number" in facts.get(n.id, ()) for n in walk(divisor)
                 if isinstance(n, gast.Name))
    return not number or (isinstance(numerator, gast.Name) and numerator.id in arrays)


def drop_singular_guards(derivative, facts):
    """In the derivative's top-level statements: safe_div(g, d) by a divisor d with ZN (or a
    nonzero number times one) is g / d; safe_mul(g, s) by an s with N is slope_mul(g, s),
    which guards g's infs and nans alone (the runtime helper). facts.singular: name -> its
    facts (singular_names); facts.arrays: names of arrays (a quotient of an array by a Python
    number does not raise ZeroDivisionError). Names bound again in the derivative (a loop's stack) are left
    alone."""
    counts, arrays = facts.binds, facts.arrays
    facts = {v: f for v, f in facts.singular.items() if counts.get(v) == 1}
    if facts:
        visitor = _Unguard(facts, arrays)
        derivative.body = [stmt if isinstance(stmt, (gast.For, gast.While, gast.If))
                           else visitor.visit(stmt) for stmt in derivative.body]
    return derivative
