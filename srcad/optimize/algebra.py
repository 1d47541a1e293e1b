"""algebra: sums of signed products of factors, read from gast expressions and written back.

A Term is a signed product: a numeric coefficient times factors, each with an integer power,
in the order they were read (or, merged, one power per factor); a Sum is a tuple of Terms. What
a factor is, the caller decides: a name, an expression that is not a product (np.sin(x)), or a
Sum (written in parentheses). The passes that rewrite products read and write them here:
cancel (monomials whose powers cancel), proportional (the coefficients of tangents), signs
(the sign heading a product).

    read_product(`-2.0 * x / y ** 2`, leaf, powers=4, merge=True)
        ->  Term(-2.0, (("x", 1), ("y", -2)))
    write(Term(-2.0, (("x", 1), ("y", -2))), render)
        ->  (True, `2.0 * x / y ** 2`)                    (the sign apart)
    write_sum((Term(3.7, (("t3", 1),)), Term(-1, (("t2", 1),))), render)
        ->  (False, `3.7 * t3 - t2`)
"""
import math

import gast

from ..rules.registry import REGISTRY
from ..runtime import LINEAR_HELPERS, STRONG_ZERO_OPERATIONS
from ..syntax.naming import clone, number_value

SAFE = {name: getattr(gast, op) for name, op in STRONG_ZERO_OPERATIONS.items()}  # (as
# operators)


class Term:
    """coef * factor ** power * ...: factors is a tuple of (factor, power). guarded: read
    through safe_mul / safe_div; ops: the operations the expression it was read from takes."""

    __slots__ = ("coef", "factors", "guarded", "ops")

    def __init__(self, coef=1, factors=(), guarded=False, ops=0):
        self.coef = coef
        self.factors = tuple(factors)
        self.guarded = guarded
        self.ops = ops

    @classmethod
    def of(cls, coef, ups=(), downs=()):
        """coef * ups[0] * ups[1] ... / downs[0] / downs[1] ..."""
        return cls(coef, [(f, 1) for f in ups] + [(f, -1) for f in downs])

    @property
    def ups(self):
        """The factors of the numerator, in order."""
        return tuple(f for f, p in self.factors if p > 0)

    @property
    def downs(self):
        """The factors of the denominator, in order."""
        return tuple(f for f, p in self.factors if p < 0)

    @property
    def powers(self):
        """factor -> power (of a merged term)."""
        return dict(self.factors)

    @property
    def mass(self):
        """How many factors the product multiplies and divides by, powers counted."""
        return sum(abs(p) for _, p in self.factors)

    def times(self, other, power=1, merge=False):
        """self * other ** power: other's factors follow self's, or, merged, each factor's
        powers are added (a factor whose powers cancel goes; one that comes back goes last)."""
        coef = self.coef * other.coef if power == 1 else self.coef / other.coef if (
            power == -1) else self.coef * other.coef ** power
        if merge:
            powers = dict(self.factors)
            for factor, p in other.factors:
                total = powers.get(factor, 0) + power * p
                if total:
                    powers[factor] = total
                else:
                    powers.pop(factor, None)
            factors = tuple(powers.items())
        else:
            factors = self.factors + tuple((f, p * power) for f, p in other.factors)
        return Term(coef, factors, self.guarded or other.guarded, self.ops + other.ops)

    def negated(self):
        return Term(-self.coef, self.factors, self.guarded, self.ops)

    def key(self):
        """What like terms share: their factors, in any order."""
        return (tuple(sorted(factor_key(f) for f in self.ups)),
                tuple(sorted(factor_key(f) for f in self.downs)))


ONE = (Term(1),)


def factor_key(factor):
    """A factor as a string that equal factors share (a Sum by its terms)."""
    if isinstance(factor, tuple):
        return "(" + " + ".join(f"{t.coef!r} {t.key()!r}" for t in factor) + ")"
    if isinstance(factor, str):
        return factor
    if (type(factor) is gast.Name and type(factor.ctx) is gast.Load
            and factor.annotation is None and factor.type_comment is None):
        return _NAME_DUMP.format(factor.id)  # (gast.dump's text, without its walk)
    return gast.dump(factor)


_NAME_DUMP = "Name(id={!r}, ctx=Load(), annotation=None, type_comment=None)"


def negate(terms):
    """-Sum."""
    return tuple(t.negated() for t in terms)


def add(a, b):
    """a + b with like terms collected; None where two cancel (x - x is not 0 for an infinite
    x: the caller keeps what it had)."""
    terms = list(a)
    for term in b:
        key = term.key()
        for i, other in enumerate(terms):
            if other.key() == key:
                coef = other.coef + term.coef
                if coef == 0:
                    return None
                terms[i] = Term.of(coef, other.ups, other.downs)
                break
        else:
            terms.append(term)
    return tuple(terms)


# ------------------------------------------------------------------------------------------
# reading


def finite_nonzero(value):
    return type(value) in (int, float) and value != 0 and math.isfinite(value)


def read_product(node, leaf, powers=0, whole_denominators=False, safe=False, merge=False,
                 safe_cost=1):
    """The Term a product (* / unary - and, with powers, ** by an integer 0 < |p| <= powers;
    with safe, safe_mul and safe_div) is, or None. leaf(node) is the Term of anything else (a
    name, a number, a call), or None if the expression is not a product of such Terms.
    whole_denominators: the right operand of / is one factor, not read further; merge: one
    power per factor (Term.times). Operations are counted (a safe helper as safe_cost)."""
    return _ProductReader(leaf, powers, whole_denominators, safe, merge, safe_cost).read(node)


class _ProductReader:
    """read_product's recursion (a method, not a closure that calls itself: a closure's cell
    holding its own function is a reference cycle, left for the cyclic collector)."""

    def __init__(self, leaf, powers, whole_denominators, safe, merge, safe_cost):
        self.leaf, self.powers, self.whole_denominators = leaf, powers, whole_denominators
        self.safe, self.merge, self.safe_cost = safe, merge, safe_cost

    def read(self, node):
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
            inner = self.read(node.operand)
            return inner and Term(-inner.coef, inner.factors, inner.guarded, inner.ops + 1)
        op, left, right, guarded = None, None, None, False
        if isinstance(node, gast.BinOp):
            op, left, right = node.op, node.left, node.right
        elif self.safe and (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
                            and node.func.id in SAFE and len(node.args) == 2
                            and not node.keywords):
            op, (left, right), guarded = SAFE[node.func.id](), node.args, True
        if isinstance(op, gast.Pow) and self.powers:
            base = self.read(left)
            if base is None or not (isinstance(right, gast.Constant) and type(right.value) is int
                                    and 0 < abs(right.value) <= self.powers):
                return None
            out = Term().times(base, right.value, self.merge)
            out.ops += 1
            return out
        if not isinstance(op, (gast.Mult, gast.Div)):
            return self.leaf(node)
        a = self.read(left)
        if self.whole_denominators and isinstance(op, gast.Div):  # (the coefficient stays)
            return a and Term(a.coef, a.factors + ((right, -1),), a.guarded, a.ops + 1)
        b = self.read(right)
        if a is None or b is None:
            return None
        out = a.times(b, 1 if isinstance(op, gast.Mult) else -1, self.merge)
        out.guarded |= guarded
        out.ops += self.safe_cost if guarded else 1
        return out


def number_or_factor(node):
    """The leaf of a product whose factors are expressions: a number, or the node itself."""
    value = number_value(node)
    return Term(value) if value is not None else Term(1, ((node, 1),))


# ------------------------------------------------------------------------------------------
# writing


def name_node(ident):
    return gast.Name(id=ident, ctx=gast.Load(), annotation=None, type_comment=None)


def binop(left, op, right):
    return gast.BinOp(left=left, op=op, right=right)


def negated(node):
    return gast.UnaryOp(op=gast.USub(), operand=node)


def power_node(node, power):
    """node, or node ** |power|."""
    return node if abs(power) == 1 else binop(node, gast.Pow(), gast.Constant(value=abs(power),
                                                                               kind=None))


def chain(nodes, op=gast.Mult):
    """nodes[0] op nodes[1] op ... (left to right), or None for no nodes."""
    out = None
    for node in nodes:
        out = node if out is None else binop(out, op(), node)
    return out


def render_factor(factor):
    """(negative, node) of a factor: a name, a copy of an expression, a Sum in parentheses."""
    if isinstance(factor, tuple):
        return write_sum(factor)
    if isinstance(factor, str):
        return False, name_node(factor)
    return False, clone(factor)


def write(term, grouped=False, each=True, float_alone=False, sign_inside=False):
    """(negative, node) of a Term: the number (left out if its magnitude is 1 and a factor
    follows), the numerator's factors, then the denominator's. grouped: the number times the
    product of the factors (2.0 * (a * b)), else one chain (2.0 * a * b); each: divided by
    each factor of the denominator in turn (a / b / c), else by their product (a / (b * c));
    float_alone: a number alone is written as a float (1.0 / x); sign_inside: the minus heads
    the numerator (-(2.0 * a) / b) and negative is False."""
    negative = term.coef < 0
    magnitude = -term.coef if negative else term.coef
    ups, downs = [], []
    for factor, power in term.factors:
        sign, node = render_factor(factor)
        negative ^= sign
        (ups if power > 0 else downs).append(power_node(node, power))
    number = None
    if magnitude != 1 or not ups:
        number = gast.Constant(value=float(magnitude) if float_alone and not ups else magnitude,
                               kind=None)
    if grouped:
        product = chain(ups)
        numerator = number if product is None else product if number is None else binop(
            number, gast.Mult(), product)
    else:
        numerator = chain(([number] if number is not None else []) + ups)
    if sign_inside and negative:
        numerator, negative = negated(numerator), False
    if not downs:
        return negative, numerator
    if each:
        return negative, chain([numerator] + downs, gast.Div)
    return negative, binop(numerator, gast.Div(), chain(downs))


def write_sum(terms, absorb=False):
    """(negative, node) of a Sum: a positive term first, the others added or subtracted. All
    negative: (True, the sum of their magnitudes), or with absorb, (False, the first one with
    its leading factor negated, the others subtracted): -a * b - c."""
    return combine([write(t) for t in terms], absorb)


def combine(parts, absorb=False):
    """The sum of (negative, node) parts, as write_sum writes it."""
    negative = all(sign for sign, _ in parts)
    if negative and absorb:
        node = negate_head(parts[0][1])
        for _, part in parts[1:]:
            node = binop(node, gast.Sub(), part)
        return False, node
    if negative:
        parts = [(False, node) for _, node in parts]
    first = next(i for i, (sign, _) in enumerate(parts) if not sign)
    order = [parts[first]] + parts[:first] + parts[first + 1:]
    node = order[0][1]
    for sign, part in order[1:]:
        node = binop(node, gast.Sub() if sign else gast.Add(), part)
    return negative, node


def negate_head(node):
    """-(a * b / c) as (-a) * b / c: exact, and one operation."""
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Mult, gast.Div)):
        node.left = negate_head(node.left)
        return node
    return negated(node)


def odd_in(parent, child):
    """Whether parent is odd in child (the sign of child is the sign of parent): a product or
    quotient of it, its sum (x.sum(...)), a product of two by an op declared @bilinear
    (np.dot), a runtime helper linear in it (its first argument)."""
    if isinstance(parent, gast.BinOp) and isinstance(parent.op, (gast.Mult, gast.Div)):
        return child is parent.left or child is parent.right
    if not isinstance(parent, gast.Call) or not any(child is a for a in parent.args):
        return isinstance(parent, gast.Call) and isinstance(parent.func, gast.Attribute) and (
            parent.func.value is child and parent.func.attr == "sum")
    func = parent.func
    if isinstance(func, gast.Name):
        return (func.id in SAFE and len(parent.args) == 2 and not parent.keywords) or (
            func.id in LINEAR_HELPERS and child is parent.args[0])
    return (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
            and func.value.id == "np" and getattr(REGISTRY.linear_call(f"np.{func.attr}"),
                                                  "bilinear", False)
            and len(parent.args) == 2 and not parent.keywords)


def drop_head_sign(node):
    """Remove the unary minus heading a product or quotient (-a * b / c), the inverse of
    negate_head; whether there was one."""
    parent = None
    while isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Mult, gast.Div)):
        parent, node = node, node.left
    if parent is None or not (isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub)):
        return False
    parent.left = node.operand
    return True
