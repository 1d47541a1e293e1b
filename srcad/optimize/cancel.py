"""cancel common factors (reverse mode, shape-specialized builds): a derivative that is
a product or quotient sharing a factor between its numerator and its denominator is written
without it.

The chain rule writes a derivative as a product of local slopes, statement by statement, and
slopes cancel across statements: through u = t * c and log(u), d/dt is (1 / u) * c = 1 / t;
through x / (x / s) in x log(x / s) it is s.

    t2 = t1 * c                                     t2 = t1 * c
    bt2 = 1.0 / t2                             ->   bt1 = 1.0 / t1
    bt1 = bt2 * c                                   bc = 3.0 / c
    bc = (bt2 * t1).sum(axis=(0,), keepdims=True)

A value is a monomial, coefficient * product of names ** integer powers (an algebra.Term with
one power per name), when it is written with * / unary - and ** by a small integer (and
safe_mul, safe_div). The names it is made of are
expanded through the monomials they are bound to (names bound once, at the top level, so their
values never change), down to names that are not monomials (parameters, np.log(...), a sum);
when the powers of some name cancel, the statement is rewritten as the reduced monomial, built
from the largest monomial names already computed (t3 = R * T stays t3) and the remaining leaves.
It is kept only when it takes no more operations than the original and the intermediates only
the original reads (they die: dead code elimination runs after the pass); a strong-zero helper
counts as a few operations.

Only derivative statements are rewritten (adjoints and their temporaries), never the function's
own values, which must stay what the function computes. The rewritten value equals the original
wherever the cancelled factors are finite and nonzero; where one is 0 or inf the original is 0 /
0 (or a strong zero) and the rewritten one is its limit, the derivative's continuous extension.
The strong zero of the factors that remain is kept (safe_mul / safe_div where the original had
one and a remaining factor could be 0 against an inf).

Arrays: a statement whose value made a new array never becomes a bare name of another array
where either of the two is stored into later (the sweep's in-place restore of y[1:] from the
tape would change an adjoint `by = y` with it).

Shapes: the reduced value may be smaller than the original (x / (x / s) with s a number); it is
broadcast back with np.full / np.broadcast_to (which the next pass, sink broadcasts, removes
where elementwise arithmetic broadcasts anyway), and under a sum it becomes a count:
(t1 / (t1 * c)).sum(axis=(0,), keepdims=True) over 3 rows is 3.0 / c.
"""
import itertools
import math

import gast

from ..analysis.shapes import broadcast_of, common_char, expression_shape, reduction
from .algebra import (Term, binop, chain, drop_head_sign, finite_nonzero, name_node, negated,
                      power_node, read_product, write)
from .broadcasts import spread
from ..syntax.naming import load_counts
from ..syntax.nodes import call, constant_node

_MAX_POWER = 4
_SAFE_COST = 3  # a strong-zero helper call costs a few plain operations


def monomial(node, expand):
    """The monomial (a merged algebra.Term of names) an expression is, names read through
    expand(name), or None."""
    return read_product(node, lambda leaf: _leaf(leaf, expand), powers=_MAX_POWER, safe=True,
                        merge=True, safe_cost=_SAFE_COST)


def _leaf(node, expand):
    if isinstance(node, gast.Name):
        return expand(node.id)
    if isinstance(node, gast.Constant):
        return Term(node.value) if finite_nonzero(node.value) else None
    return None


class Cancel:
    def __init__(self, fdef, facts):
        self.derived = facts.derived
        # arrays whose contents change after they are made: a stored-into name, and the names
        # that may share its storage (views). A derivative made a new array must not become
        # another name's array where either changes later (by = y, where the sweep then
        # restores y[1:] from the tape: by would change too; or by[0] += g would change y)
        self.mutated = facts.mutated
        self.shape_of_name = facts.shape_of
        self.float_of = facts.float_of  # name -> its float dtype character, or None
        # names whose value never changes once bound: parameters never rebound, and names
        # bound exactly once, at the top level (a name bound in a loop changes every turn)
        stable = [p for p in facts.params if facts.binds.get(p) == 1] + list(facts.top_once)
        self.stable = set(stable)
        self.order = {v: i for i, v in enumerate(stable)}  # definition order
        self.full = {}  # stable name bound to a monomial -> that monomial, fully expanded
        self.known = {}  # stable name -> its value, for names that are numbers at build time
        self.defined = []  # stable names bound to monomials so far (cover candidates)
        self.by_names = {}  # the names a defined monomial multiplies -> those defined names
        self.loads = dict(facts.loads)  # (kept up to date by swap)

    # the monomials ---------------------------------------------------------------------------
    def leaf(self, var):
        return Term(1, ((var, 1),))

    def expanded(self, var):
        full = self.full.get(var)
        return Term(full.coef, full.factors, full.guarded) if full else self.leaf(var)

    def shape(self, node):
        return expression_shape(node, self.shape_of_name)

    def char(self, node):
        """The float dtype character every name node reads has (numbers are weak: a Python
        float does not change a float32 array's dtype), or None if they differ or one is not
        known: a rewrite must keep the dtype as well as the shape."""
        return common_char(node, self.float_of)

    def record(self, var, value):
        """After `var = value` at the top level: what later statements may expand var to."""
        if var not in self.stable:
            return
        spread_value = spread(value)  # np.full(S, v): v, as far as products go
        value = spread_value[1] if spread_value else value
        if isinstance(value, gast.Constant) and finite_nonzero(value.value):
            self.known[var] = value.value
        full = monomial(value, self.expanded)
        if full is None or (not full.powers and var in self.known and not spread_value):
            return  # (a name bound to a number is read as itself: R = 8.314 stays R)
        if not self.stable.issuperset(full.powers):
            return  # made of a name that changes later: var must stay var
        self.full[var] = full
        self.defined.append(var)
        self.by_names.setdefault(frozenset(full.powers), []).append(var)
        value_of = [self.known.get(v) for v in full.powers]
        if all(v is not None for v in value_of):
            number = full.coef
            for v, p in zip(value_of, full.powers.values()):
                number *= float(v) ** p
            if finite_nonzero(number):
                self.known[var] = number

    # the rewrite -----------------------------------------------------------------------------
    def reduce(self, node, scale=1):
        """(expression, its shape) for a monomial expression whose factors cancel (times scale),
        if it costs no more operations than the original with the intermediates only the
        original reads; else None."""
        shallow = monomial(node, self.leaf)
        if shallow is None:
            return None
        full = monomial(node, self.expanded)
        before = sum(abs(p) * max(self.expanded(v).mass, 1) for v, p in shallow.powers.items())
        if full is None or full.mass >= before:
            return None
        factors, coef = self.cover(full)
        coef *= scale
        guarded = shallow.guarded or any(self.expanded(v).guarded for v in shallow.powers)
        expr, ops = self.write(coef, factors, guarded)
        original = self.char(node)
        reduced = self.char(expr) if factors else "d"  # a number alone: a Python float
        if original is None or reduced != original:
            return None  # the dtype would change (float32 * float64 / float64 -> float32)
        # what it saves: its own operations, and those of names only it reads (they die)
        kept = {v for v, _ in factors}
        saved = shallow.ops + sum(self.full[v].ops for v in shallow.powers
                                  if v in self.full and v not in kept and self.loads.get(v) == 1)
        if ops > saved:
            return None
        shape = broadcast_of([self.shape_of_name(v) for v, _ in factors] or [()])
        return (expr, shape) if shape is not None else None

    def cover(self, full):
        """full as [(name, power)] and a coefficient: the largest monomial names computed so far
        that fit inside it (with their signs), then the leaves that remain."""
        residual = dict(full.powers)
        coef = full.coef
        factors = []
        candidates = sorted((v for v in self.fitting(residual) if self.full[v].mass >= 2),
                            key=lambda v: (-self.full[v].mass, self.order.get(v, 0)))
        for var in candidates:
            powers = self.full[var].powers
            for sign in (1, -1):
                if all(residual.get(u, 0) * sign * p > 0 and abs(residual[u]) >= abs(p)
                       for u, p in powers.items()):
                    part = self.full[var].coef ** sign
                    if (coef / part) * part != coef:
                        continue  # a coefficient that does not divide out exactly
                    coef /= part
                    for u, p in powers.items():
                        residual[u] -= sign * p
                        if not residual[u]:
                            del residual[u]
                    factors.append((var, sign))
                    break
        leaves = sorted(residual.items(), key=lambda item: (self.order.get(item[0], -1),
                                                             item[0]))
        return factors + leaves, coef

    def fitting(self, residual):
        """The defined names that may fit in a monomial of these names: those whose monomial
        multiplies only names among them (a name outside never fits, and what cover takes out
        only shrinks the residual). Found by the sets of names, for a monomial of a few names,
        not by reading every name defined so far (quadratic in the function)."""
        names = list(residual)
        if len(names) > 10:
            return [v for v in self.defined if set(self.full[v].powers) <= set(names)]
        out = []
        for size in range(1, len(names) + 1):
            for subset in itertools.combinations(names, size):
                out.extend(self.by_names.get(frozenset(subset), ()))
        return out

    def write(self, coef, factors, guarded):
        """(expression, operation count) of coef * prod(name ** power): algebra.write's
        spelling, with safe_mul / safe_div where a factor that may be 0 meets one that may be
        inf (numbers known at build time are neither)."""
        up = [(v, p) for v, p in factors if p > 0]
        down = [(v, p) for v, p in factors if p < 0]
        ops = sum(1 for _, p in factors if abs(p) > 1) + max(len(up) - 1, 0) + max(
            len(down) - 1, 0) + (1 if down else 0) + (1 if up and abs(coef) != 1 else 0) + (
            1 if coef < 0 else 0)
        unknown_up = [v for v, _ in up if v not in self.known]
        unknown_down = [v for v, _ in down if v not in self.known]
        if not (guarded and unknown_up and len(unknown_up) + len(unknown_down) >= 2):
            return write(Term(coef, factors), grouped=True, each=False, float_alone=True,
                         sign_inside=True)[1], ops
        if down and unknown_down:
            numerator = write(Term(coef, up), grouped=True, sign_inside=True)[1]
        else:  # a product of factors that may be 0 * inf
            magnitude = -coef if coef < 0 else coef
            first, *others = (power_node(name_node(v), p) for v, p in up)
            rest = chain(others)
            if magnitude != 1:
                number = constant_node(magnitude)
                rest = number if rest is None else binop(number, gast.Mult(), rest)
            numerator = call(["safe_mul"], negated(first) if coef < 0 else first, rest)
            ops += _SAFE_COST - 1
        if not down:
            return numerator, ops
        denominator = chain([power_node(name_node(v), p) for v, p in down])
        return call(["safe_div"], numerator, denominator), ops + _SAFE_COST - 1

    def visit(self, node, fits, whole=None):
        """node with its monomial parts reduced; fits(shape, original shape) says whether a
        reduced value of that shape may stand where node stands. whole: the name node is the
        whole value of (var = node), which must not become another name's array (aliased)."""
        if monomial(node, self.leaf) is not None and not isinstance(node, (gast.Name,
                                                                          gast.Constant)):
            reduced = self.reduce(node)
            if reduced is not None and whole is not None and self.aliased(reduced[0], whole):
                reduced = None
            if reduced is not None:
                original = self.shape(node)
                if original is not None and fits(reduced[1], original):
                    return self.swap(node, reduced[0])
        if (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
                and node.func.attr == "sum"):
            counted = self.counted_sum(node)
            if counted is not None:
                return counted
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
            # an operand of + or - may shrink when the other spreads the result anyway
            for field, other in (("left", node.right), ("right", node.left)):
                theirs = self.shape(other)
                setattr(node, field, self.visit(getattr(node, field), lambda mine, orig: (
                    theirs is not None and broadcast_of([mine, theirs]) == broadcast_of(
                        [orig, theirs]))))
            if drop_head_sign(node.right):  # a + -b * c  ->  a - b * c
                node.op = gast.Sub() if isinstance(node.op, gast.Add) else gast.Add()
            return node
        for field, value in gast.iter_fields(node):
            if isinstance(value, gast.AST) and isinstance(value, gast.expr):
                setattr(node, field, self.visit(value, _same))
            elif isinstance(value, list):
                setattr(node, field, [self.visit(v, _same) if isinstance(v, gast.expr) else v
                                      for v in value])
        return node

    def counted_sum(self, node):
        """m.sum(axis=A, keepdims=True) of a monomial m that reduces to a value constant along
        the summed axes: that value times the number of entries summed."""
        found = reduction(node, self.shape_of_name)
        if found is None or not found[3] or found[0] is not node.func.value or monomial(
                found[0], self.leaf) is None:
            return None
        inner, full, axes, _ = found
        mine = tuple(1 if i in axes else n for i, n in enumerate(full))
        reduced = self.reduce(inner, float(math.prod(full[a] for a in axes)))
        return self.swap(node, reduced[0]) if reduced is not None and reduced[1] == mine else None

    def run(self, body):
        for stmt in body:
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(
                    stmt.targets[0], gast.Name):
                var = stmt.targets[0].id
                if var in self.derived:
                    stmt.value = self.statement_value(var, stmt.value)
                self.record(var, stmt.value)
            elif (isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name)
                  and stmt.target.id in self.derived and isinstance(stmt.op, (gast.Add,
                                                                            gast.Sub))):
                theirs = self.shape_of_name(stmt.target.id)
                stmt.value = self.visit(stmt.value, lambda mine, orig: (
                    theirs is not None and broadcast_of([mine, theirs]) == theirs == broadcast_of(
                        [orig, theirs])))
                if drop_head_sign(stmt.value):  # bx += -a * b  ->  bx -= a * b
                    stmt.op = gast.Sub() if isinstance(stmt.op, gast.Add) else gast.Add()

    def statement_value(self, var, value):
        """var = value, reduced; a reduced value smaller than var is broadcast to var's shape
        (and what var stands for, for later statements, is the reduced monomial)."""
        mono = monomial(value, self.leaf)
        if mono is None or isinstance(value, (gast.Name, gast.Constant)):
            return self.visit(value, _same, whole=var)
        reduced = self.reduce(value)
        shape = self.shape_of_name(var)
        if reduced is None or shape is None or self.aliased(reduced[0], var):
            return self.visit(value, _same, whole=var)
        expr, mine = reduced
        if mine == shape:
            return self.swap(value, expr)
        if broadcast_of([mine, shape]) != shape:
            return value
        self.record(var, expr)  # later statements read var as the reduced monomial
        self.stable.discard(var)  # (record once: run() must not record the broadcast)
        if mine == ():
            return self.swap(value, call(["np", "full"], constant_node(shape), expr))
        return self.swap(value, call(["np", "broadcast_to"], expr, constant_node(shape)))

    def aliased(self, expr, var):
        """Whether var = expr would make var share an array with another name where the
        original value was a new array, and one of them changes later (is stored into)."""
        return isinstance(expr, gast.Name) and (expr.id in self.mutated or var in self.mutated)

    def swap(self, old, new):
        """new, in place of old: the read counts follow."""
        for node, step in ((old, -1), (new, 1)):
            for var, count in load_counts(node).items():
                self.loads[var] = self.loads.get(var, 0) + step * count
        return new


def _same(mine, original):
    return mine == original


def cancel_factors(fdef, facts):
    """The pass (see the module docstring)."""
    Cancel(fdef, facts).run(fdef.body)
    return fdef
