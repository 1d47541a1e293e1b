"""guards (shape-specialized builds): a strong-zero guard whose operands cannot meet it is
the plain operation.

safe_div(a, b) differs from a / b only where b has a zero or a nan entry; safe_mul(a, b) and
slope_mul(a, b) differ from a * b only where a zero meets an inf or a nan. analysis/ranges.py
finds which classes of numbers (negative, zero, positive, infinite, nan) each name can hold, and
where a guard's operands cannot hold the combination it guards against, the guard goes:

    t12 = 1.0 + t11                       (t11 = np.exp(t10): 0, positive or inf)
    share_1 = safe_div(bsig, t12)    ->   share_1 = bsig / t12        (t12: positive or inf)
    bt12 = -safe_div(share_1, t12)   ->   bt12 = -(share_1 / t12)     (1 / t12's other share)

    safe_div(a, b)  ->  a / b   b cannot be 0 or nan
    safe_mul(a, b)  ->  a * b   a or b is a nonzero finite number, or both are finite
    slope_mul(g, s) ->  g * s   the same
    strong_mul(g, s) -> g * s   s is finite, or g cannot be 0 (modes/strong_zeros.py)

(the same numbers; numpy warns where the guard would have silenced it, which cannot happen
here). In a gradient, the names the singular points' analysis (singular.py) proves finite, or
free of zeros and nans, wherever the output is finite are taken so: there the guards are
dropped as the singular pass drops them, with the same meaning (the numbers may differ only
where the output is inf or nan).
"""
import gast

from ..analysis.ranges import (ANY_FINITE, FINITE, NAN, NINF, NONZERO_FINITE, PINF, UNKNOWN,
                               ZERO)
from ..analysis.ranges import expression_classes, parameter_kinds, value_classes
from ..runtime import GUARDED_OPERATIONS
from ..syntax.visitor import Transformer
from .singular import plain_division_by

_PLAIN = {name: getattr(gast, op) for name, op in GUARDED_OPERATIONS.items()}


def _within(classes, allowed):
    return classes is not UNKNOWN and not classes & ~allowed


def plain_operation(name, a, b):
    """Whether guard `name` of operands of these classes computes what the plain operation
    does (ANY_FINITE: finite, and nothing known of zeros)."""
    finite = FINITE | ANY_FINITE
    if name == "safe_div":
        return _within(b, ~(ZERO | NAN | ANY_FINITE))
    if name == "strong_mul":  # (a zero a against b's infs and nans)
        return _within(b, finite) or _within(a, ~(ZERO | ANY_FINITE))
    return (_within(a, NONZERO_FINITE) or _within(b, NONZERO_FINITE)
            or (_within(a, finite) and _within(b, finite)))


class _Quotient:
    """What the classes alone do not see: guards whose operands are made from one quotient
    z = x / y (names bound once, at the top level: one value each). Where y is 0 or nan, z is
    inf or nan, and so is any product with z as a factor (f * inf is inf or, for f = 0, nan):
    such a product is never 0 there, and neither is its quotient by y. So

        safe_div(f * z, y)           cannot meet a zero numerator over y's zeros and nans;
        safe_mul((f * z) / y, z)     cannot meet a zero share against z's infs and nans, nor,
                                     where f is finite, an inf or nan share against z's zeros
                                     (z is 0 only where x is 0 or y is inf: the share is 0)

    which is where the adjoint of z = x / y meets the adjoint of a function of z whose slope
    is z (z ** 2: the mixture's Mahalanobis terms)."""

    def __init__(self, top, binds, classes, shapes):
        self.top, self.binds, self.classes, self.shapes = top, binds, classes, shapes

    def value(self, node):
        """A name bound once at the top level: its value; anything else: itself."""
        if isinstance(node, gast.Name) and node.id in self.top:
            return self.top[node.id].value
        return node

    def divisor(self, node):
        """y, for a name bound once to x / y with y bound once (a parameter, or at the top)."""
        value = self.value(node) if isinstance(node, gast.Name) else None
        if (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Div)
                and isinstance(value.right, gast.Name) and self.binds.get(value.right.id) == 1):
            return value.right.id
        return None

    def factors(self, node, depth=4):
        """The factors of a product (through - and names bound once to products)."""
        if not depth:
            return [node]
        if isinstance(node, gast.Name):
            value = self.value(node)
            return self.factors(value, depth - 1) if _product(value) else [node]
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
            return self.factors(node.left, depth - 1) + self.factors(node.right, depth - 1)
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
            return self.factors(node.operand, depth - 1)
        return [node]

    def carried(self, numerator, y):
        """(z, the other factors) for a factor z of numerator that is a quotient by y."""
        factors = self.factors(numerator)
        for i, factor in enumerate(factors):
            if isinstance(factor, gast.Name) and self.divisor(factor) == y:
                return factor.id, factors[:i] + factors[i + 1:]
        return None, None

    def plain_division(self, numerator, divisor):
        return isinstance(divisor, gast.Name) and self.carried(numerator, divisor.id)[0] is not None

    def plain_product(self, a, b):
        for share, z in ((a, b), (b, a)):
            y = self.divisor(z) if isinstance(z, gast.Name) else None
            value = self.value(share) if isinstance(share, gast.Name) else None
            if y is None or value is None:
                continue
            if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Div):
                numerator, by = value.left, value.right
            elif (isinstance(value, gast.Call) and isinstance(value.func, gast.Name)
                  and value.func.id == "safe_div" and len(value.args) == 2):
                numerator, by = value.args
            else:
                continue
            if not (isinstance(by, gast.Name) and by.id == y):
                continue
            carried, others = self.carried(numerator, y)
            if carried == z.id and all(_within(expression_classes(
                    f, self.classes, self.shapes), FINITE) for f in others):
                return True
        return False


def _product(node):
    return (isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult)
            or isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub))


class _Unguard(Transformer):
    def __init__(self, classes, shapes, quotient, singular, arrays):
        self.classes, self.shapes, self.quotient = classes, shapes, quotient
        self.singular, self.arrays = singular, arrays

    def singular_divisor(self, numerator, divisor):
        """A Python number whose zeros and nans make the output inf or nan, dividing an
        array: (the classes leave Python numbers' singular facts out: a Python float divided
        by 0.0 raises where safe_div gives inf)."""
        return (isinstance(divisor, gast.Name) and "ZN" in self.singular.get(divisor.id, ())
                and plain_division_by(divisor, numerator, self.singular, self.arrays))

    def visit_Call(self, node):
        node = self.generic_visit(node)
        func = node.func
        if not (isinstance(func, gast.Name) and func.id in _PLAIN and len(node.args) == 2
                and not node.keywords):
            return node
        a, b = (expression_classes(arg, self.classes, self.shapes) for arg in node.args)
        if not (plain_operation(func.id, a, b) or (
                self.quotient.plain_division(*node.args) or self.singular_divisor(*node.args)
                if func.id == "safe_div" else self.quotient.plain_product(*node.args))):
            return node
        return gast.copy_location(gast.BinOp(left=node.args[0], op=_PLAIN[func.id](),
                                             right=node.args[1]), node)


def drop_unmet_guards(derivative, facts):
    """derivative with the guards its values cannot meet written as plain operations (see
    the module docstring). facts: params and float_of (parameters of a float dtype are real
    numbers, any other is a number of unknown kind; both finite, but for a callee's, whose
    parameters are its caller's values: callee), shapes, singular (singular.py's facts, for a
    gradient) and binds."""
    real, unbounded, any_kind = parameter_kinds(facts.params, facts.float_of, facts.callee)
    singular = {v: held for v, held in (facts.singular or {}).items()
                if facts.binds.get(v) == 1}  # (as singular.py: a name bound once, at the top)
    finite_where = {}
    for name, held in singular.items():
        if "number" in held:  # (a Python number: x / 0.0 raises; see _Unguard)
            continue
        allowed = ~0
        if "N" in held:
            allowed &= ~(NINF | PINF | NAN)
        if "ZN" in held:
            allowed &= ~(ZERO | NAN)
        finite_where[name] = allowed
    classes = value_classes(derivative, real, finite_where, facts.shapes, unbounded, any_kind)
    quotient = _Quotient(facts.top_once, facts.binds, classes, facts.shapes)
    return _Unguard(classes, facts.shapes, quotient, singular, facts.arrays).visit(derivative)
