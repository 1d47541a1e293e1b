"""Forward mode, after the tangents are written: fold tangents proportional to one other tangent.

A tangent that only scales another one (dt2 = 3.7 * dx, dt3 = -dx, dt4 = dx * np.cos(x) / t1)
is substituted into the one later tangent statement that reads it, and there the coefficients
of each tangent are collected:

    t2 = 3.7 * x                          t2 = 3.7 * x
    dt2 = 3.7 * dx                        t3 = 1.0 - x
    t3 = 1.0 - x                   ->     x = t2 * t3
    dt3 = -dx                             dx = dx * (3.7 * t3 - t2)
    x = t2 * t3
    dx = dt2 * t3 + t2 * dt3

(five operations on tangents become three, as a hand-written derivative has them). The rules:

- Only linear arithmetic is folded: +, -, unary -, and * or / by a factor that holds no tangent,
  with the tangent in the numerator. For arrays these are all elementwise, so a collected
  coefficient broadcasts exactly as the products it replaces did. Anything else (calls such as
  np.dot, @, indexing) is left as written, and so is every statement that calls a runtime
  helper: safe_mul and safe_div keep their strong zeros (0 * inf = 0), rebroadcast its shape.
- A folded tangent is bound once and read once, by a later statement of the same block: never
  across loop iterations (a loop-carried tangent such as dx is bound twice) nor into a branch.
  Nothing it reads may be bound again in between, and nothing in between may write into arrays,
  call a user function or run a nested block.
- Different tangents are never mixed: each keeps its own coefficient (dx * a + dy * b).
- A result that would only copy another tangent (dz = dx) is not made: it would alias an array
  that the original code had copied.

Coefficients are sums of signed products (optimize/algebra.py's Terms, read with whole
denominators and written with the number first, then the factors, then each divisor); numbers are
multiplied out (3.7 * 1 -> 3.7, -1 * t2 -> -t2), like terms added (dx * x + x * dx -> 2 * dx * x;
a tangent statement is also rewritten on its own when that saves operations). Regrouping can
change the last bits of a result (dx * (a + b) is not rounded like dx * a + dx * b).
"""

import gast

from ..frontend.resolve import LIBRARY_MODULES
from ..runtime import HELPERS
from ..syntax.naming import loaded_names, walk
from ..syntax.nodes import is_comment
from .algebra import (ONE, Term, add, binop, combine, name_node, negate, number_or_factor,
                      read_product, write, write_sum)

_LIBRARY_ROOTS = {alias.split(".")[0] for alias in LIBRARY_MODULES.values()}
_PURE_BUILTINS = {"abs", "min", "max", "float", "int", "len", "range", "slice", "tuple", "zip",
                  "enumerate", "reversed", "isinstance", "getattr"}


def _as_term(node):
    """A tangent-free expression as a Term: 2.0 * x / y -> Term(2.0, ((x, 1), (y, -1)))."""
    return read_product(node, number_or_factor, whole_denominators=True)


def _scale(coef, term, left=False):
    """coef * term (term * coef if left: its factors go first), without multiplying a sum out
    (that would add operations)."""
    if len(coef) == 1:
        (only,) = coef
        nums = term.ups + only.ups if left else only.ups + term.ups
        return (Term.of(only.coef * term.coef, nums, only.downs + term.downs),)
    if not term.factors:
        if term.coef == 1:
            return coef
        if term.coef == -1:
            return negate(coef)
        if all(abs(t.coef) != 1 for t in coef):  # (2a + 4b) * 3 -> 6a + 12b: no operation more
            return tuple(Term(t.coef * term.coef, t.factors) for t in coef)
    nums = term.ups + (coef,) if left else (coef,) + term.ups
    return (Term.of(term.coef, nums, term.downs),)


FREE = "free"  # _linear's answer for an expression without tangents
# a tangent whose statement has more operations than this is not folded further: a chain of
# proportional tangents (np.sin(np.sin(...)) 400 deep) would otherwise fold into one product of
# 400 factors, an expression too deep for the recursive walkers after this pass (emit's) and
# rebuilt at every step of the chain (quadratic). A chain is cut every MAX_OPERATIONS factors.
MAX_OPERATIONS = 32


def _linear(node, tangents, subst, used):
    """node as {base tangent: coefficient}, FREE if it reads no tangent, None if it is not a
    linear combination srcad folds. subst: tangents to read through (their own forms); the ones
    read are added to used. (Whether a node reads a tangent is found on the way down through
    names, signs and operators, and by one walk of any other node: no subtree walked twice.)"""
    if isinstance(node, gast.Name):
        if node.id not in tangents:
            return FREE
        if node.id in subst:
            used.add(node.id)
            return dict(subst[node.id])
        return {node.id: ONE}
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        form = _linear(node.operand, tangents, subst, used)
        if not isinstance(form, dict) or isinstance(node.op, gast.UAdd):
            return form
        return {base: negate(coef) for base, coef in form.items()}
    if not isinstance(node, gast.BinOp):
        return None if any(isinstance(n, gast.Name) and n.id in tangents
                           for n in walk(node)) else FREE
    left = _linear(node.left, tangents, subst, used)
    right = _linear(node.right, tangents, subst, used)
    if left is FREE and right is FREE:
        return FREE
    if left is None or right is None:
        return None
    if isinstance(node.op, (gast.Add, gast.Sub)):
        if not (isinstance(left, dict) and isinstance(right, dict)):
            return None  # a tangent plus something else: not linear
        out = dict(left)
        for base, coef in right.items():
            if isinstance(node.op, gast.Sub):
                coef = negate(coef)
            out[base] = add(out[base], coef) if base in out else coef
            if out[base] is None:
                return None
        return out
    first = False
    if isinstance(node.op, gast.Mult) and isinstance(left, dict) and right is FREE:
        form, term = left, _as_term(node.right)
    elif isinstance(node.op, gast.Mult) and left is FREE and isinstance(right, dict):
        form, term, first = right, _as_term(node.left), True
    elif isinstance(node.op, gast.Div) and isinstance(left, dict) and right is FREE:
        form, term = left, Term.of(1, (), (node.right,))
    else:
        return None  # a product of tangents, a tangent in a denominator, @, %, ...
    if len(form) != 1:
        return None  # (dx * a + dy * b) * c stays: multiplying it out adds operations
    ((base, coef),) = form.items()
    return {base: _scale(coef, term, first)}


# ------------------------------------------------------------------------------------------
# rendering a form as an expression


def _render_base(base, coef):
    if len(coef) == 1:
        only = coef[0]
        return write(Term.of(only.coef, (base,) + only.ups, only.downs))
    negative, total = write_sum(coef)
    return negative, binop(name_node(base), gast.Mult(), total)


def render(form):
    """The expression of {base: coefficient}: dx * (3.7 * t3 - t2), -dx * np.sin(x), ..."""
    _, node = combine([_render_base(base, coef) for base, coef in form.items()], absorb=True)
    return node


# ------------------------------------------------------------------------------------------
# the pass


def _calls_only(value, names):
    """Whether every call in value is of a library function or of one of `names`."""
    for n in walk(value):
        if isinstance(n, gast.Call):
            func = n.func
            if isinstance(func, gast.Name):
                if func.id not in names:
                    return False
                continue
            while isinstance(func, gast.Attribute):
                func = func.value
            if not (isinstance(func, gast.Name) and func.id in _LIBRARY_ROOTS):
                return False
    return True


def _foldable_value(value):
    """A value the pass may read and move: library calls only (no runtime helper: strong zeros)."""
    return _calls_only(value, _PURE_BUILTINS)


def _barrier(stmt):
    """A statement nothing is moved across: a nested block, a store into an array, an
    expression statement (lst.append), a call of anything but a library function or a helper."""
    if not isinstance(stmt, gast.Assign) or not all(isinstance(t, gast.Name)
                                                    for t in stmt.targets):
        return True
    return not _calls_only(stmt.value, _PURE_BUILTINS | set(HELPERS))


def _written(stmt):
    return {n.id for n in walk(stmt) if isinstance(n, gast.Name)
            and isinstance(n.ctx, (gast.Store, gast.Del))}


def fold_proportional(fdef, facts):
    """Fold, in every block of fdef, the tangents (facts.tangents) that scale one other."""
    loads, stores = facts.reads_writes
    _fold_block(fdef.body, set(facts.tangents), loads, stores)
    return fdef


def _fold_block(stmts, tangents, loads, stores):
    for stmt in stmts:
        for field in ("body", "orelse"):
            child = getattr(stmt, field, None)
            if isinstance(child, list) and child:
                _fold_block(child, tangents, loads, stores)
    pending = {}  # tangent -> (index of its statement, form, names it reads)
    readers = {}  # name -> the pending tangents whose statements read it (which a statement
    # binding the name makes stale: found here, not by a look at every pending tangent per
    # statement, which was quadratic in a block of many tangents read late)
    removed = set()
    for j, stmt in enumerate(stmts):
        if is_comment(stmt):
            continue
        target = stmt.targets[0].id if (
            isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name)) else None
        is_tangent = target in tangents and _foldable_value(stmt.value)
        if is_tangent:
            subst = {t: pending[t][1] for t in loaded_names(stmt.value) if t in pending}
            used = set()
            form = _linear(stmt.value, tangents, subst, used)
            if isinstance(form, dict):
                node = render(form)
                # dz = dx would alias an array the original code had copied: leave it
                if not isinstance(node, gast.Name) and (
                        used or _operations(node) < _operations(stmt.value)):
                    stmt.value = node
                    for t in used:
                        removed.add(_unpend(pending, readers, t))
        if _barrier(stmt):
            pending.clear()
            readers.clear()
        else:
            for var in _written(stmt):
                for t in list(readers.get(var, ())):
                    _unpend(pending, readers, t)
        if is_tangent and loads.get(target) == 1 and stores.get(target) == 1 and (
                _operations(stmt.value) <= MAX_OPERATIONS):
            form = _linear(stmt.value, tangents, {}, set())
            if isinstance(form, dict) and len(form) == 1 and target not in form:
                pending[target] = (j, form, loaded_names(stmt.value))
                for var in pending[target][2]:
                    readers.setdefault(var, set()).add(target)
    if removed:
        stmts[:] = _drop(stmts, removed, tangents)


def _unpend(pending, readers, tangent):
    """Drop a pending tangent (and its entries in readers); returns its statement's index."""
    index, _, names = pending.pop(tangent)
    for var in names:
        waiting = readers[var]
        waiting.discard(tangent)
        if not waiting:
            del readers[var]
    return index


def _operations(node):
    return sum(1 for n in walk(node) if isinstance(n, (gast.BinOp, gast.UnaryOp)))


def _drop(stmts, removed, tangents):
    """stmts without the folded ones, and without a `# tangent of:` comment whose line no longer
    has a tangent statement of its own."""
    kept = [s for i, s in enumerate(stmts) if i not in removed]
    groups, current = [], None
    for i, stmt in enumerate(stmts):
        if is_comment(stmt):
            current = [stmt, False, False]  # comment, lost a statement, still has a tangent
            groups.append(current)
        elif current is not None:
            if i in removed:
                current[1] = True
            elif any(isinstance(n, gast.Name) and n.id in tangents for n in walk(stmt)):
                current[2] = True
    orphans = {id(comment) for comment, lost, has in groups if lost and not has}
    return [s for s in kept if id(s) not in orphans]
