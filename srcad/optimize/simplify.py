"""constants: numbers folded, propagated and computed at build time, where that is exact.

What templates instantiated with constants leave is folded (FoldConstants): 2 - 1 -> 1,
x ** 1 -> x, 1.0 * x -> x for a float x, safe_div(2.0, x) -> 2.0 / x for an array x,
(c * x).sum() -> c * x.sum(), two numbers around an operand when one is a power of two; a
derivative name bound once to a number (the seed bout = 1.0) is read as the number; a square
root of a number and arithmetic with it are computed now (s2 = np.sqrt(2.0) goes).

    bout = 1.0                      bt2 = 1.0 / t2
    bt2 = safe_div(bout, t2)  ->    bx = bt2 * 2.0
    bx = bt2 * (3 - 1)
"""
import math

import gast

from ..analysis.defuse import bound_once_at_top
from ..syntax.naming import bound_counts, parents, walk
from ..syntax.nodes import constant_node, dotted_parts
from ..syntax.visitor import Transformer


class FoldConstants(Transformer):
    """2 - 1 -> 1, 1.0 / 4 -> 0.25, x ** 1 -> x, x * 1 -> x, 1.0 * x -> x (x a float),
    -(2.0) -> -2.0: what templates instantiated with constants leave."""

    OPS = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b,
           gast.Mult: lambda a, b: a * b}

    def __init__(self, inexact=(), arrays=(), stored=()):
        self.inexact = inexact  # names surely bound to floats (see surely_inexact)
        self.arrays = arrays  # names surely bound to numpy arrays
        self.stored = stored  # names of arrays the code writes into (y[i] = v)
        self.fresh = False  # whether the statement being folded must keep making a new array

    def visit_Assign(self, node):
        """A value bound to an array the code writes into stays a new array: no identity folds
        in it (y = np.reshape(x * 1, s) must not become a view of x)."""
        self.fresh = bool(self.stored) and any(isinstance(n, gast.Name) and n.id in self.stored
                                               for t in node.targets for n in walk(t))
        node = self.generic_visit(node)
        self.fresh = False
        return node

    def identity(self, node, result):
        """node folded to result (1.0 * x -> x), unless that would make a name share an array
        with another that the code writes into: y = x * 1.0; y[0] = 7.0 must not write into x,
        nor an adjoint bw = 1.0 * y change when y is restored in place later. (An operand of
        arithmetic is read, never kept: there any fold goes.)"""
        if getattr(node, "operand_of_arithmetic", False):
            return result
        if self.fresh or (isinstance(result, gast.Name) and result.id in self.stored):
            return node
        return result

    @staticmethod
    def mark_operands(node):
        """Marks the operands of arithmetic node (a BinOp or UnaryOp) that are arithmetic
        themselves, before they are folded (see identity). (Done by visit_BinOp and
        visit_UnaryOp, not by an override of generic_visit: the class keeps the plain walk,
        which skips the leaves, contexts and operators.)"""
        for child in (getattr(node, "left", None), getattr(node, "right", None),
                      getattr(node, "operand", None)):
            if isinstance(child, gast.BinOp):
                child.operand_of_arithmetic = True

    def surely_array(self, node):
        """Whether an expression's value is surely a numpy array (so / by 0 is inf, not
        ZeroDivisionError): an array name, or arithmetic with one."""
        if isinstance(node, gast.Name):
            return node.id in self.arrays
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            return self.surely_array(node.operand)
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult,
                                                                 gast.Div)):
            return self.surely_array(node.left) or self.surely_array(node.right)
        return False

    def surely_inexact(self, node):
        """Whether an expression's value is surely a float (or complex) number or array, so
        that 1.0 * it is it: an inexact name, a true division, arithmetic with a float."""
        if isinstance(node, gast.Name):
            return node.id in self.inexact
        if isinstance(node, gast.Constant):
            return type(node.value) is float
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            return self.surely_inexact(node.operand)
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult,
                                                                 gast.Div)):
            return isinstance(node.op, gast.Div) or self.surely_inexact(
                node.left) or self.surely_inexact(node.right)
        if isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords and (
                tuple(dotted_parts(node.func) or ()) in _FLOAT_FUNCTIONS):
            return self.surely_inexact(node.args[0])  # (np.exp of a float: that float type)
        return False

    def visit_BinOp(self, node):
        self.mark_operands(node)
        node = self.generic_visit(node)
        left, right = node.left, node.right
        numbers = (int, float)
        # 1.0 * x -> x, x * 1.0 -> x, x / 1.0 -> x, -1.0 * x -> -x (x a float: the same value)
        for one, other in ((left, right), (right, left)):
            if (isinstance(one, gast.Constant) and type(one.value) is float
                    and one.value in (1.0, -1.0) and not isinstance(other, gast.Constant)
                    and (isinstance(node.op, gast.Mult) or (
                        isinstance(node.op, gast.Div) and one is right))
                    and self.surely_inexact(other)):
                return self.identity(node, other) if one.value == 1.0 else gast.UnaryOp(
                    op=gast.USub(), operand=other)
        # x - 0.0 -> x (x a float: the same bits, -0.0 and nan too; not x + 0.0: -0.0 + 0.0 is
        # 0.0, nor 0.0 - x: 0.0 - 0.0 is 0.0, -0.0 is not)
        if (isinstance(node.op, gast.Sub) and isinstance(right, gast.Constant)
                and type(right.value) is float and right.value == 0.0
                and math.copysign(1.0, right.value) > 0 and not isinstance(left, gast.Constant)
                and self.surely_inexact(left)):
            return self.identity(node, left)
        merged = self.merge_numbers(node)
        if merged is not None:
            return merged
        if (isinstance(left, gast.Constant) and isinstance(right, gast.Constant)
                and type(left.value) in numbers and type(right.value) in numbers):
            if type(node.op) in self.OPS:
                return gast.Constant(value=self.OPS[type(node.op)](left.value, right.value),
                                     kind=None)
            if isinstance(node.op, gast.Div) and right.value != 0:
                return gast.Constant(value=left.value / right.value, kind=None)
        if isinstance(right, gast.Constant) and type(right.value) in numbers and right.value == 1:
            if isinstance(node.op, (gast.Pow, gast.Mult, gast.Div)) and type(right.value) is int:
                return self.identity(node, left)
        if isinstance(left, gast.Constant) and type(left.value) is int and left.value == 1 and (
                isinstance(node.op, gast.Mult)):
            return self.identity(node, right)
        return node

    @staticmethod
    def merge_numbers(node):
        """x * 0.015625 * 2 -> x * 0.03125, (2 * x) / 4 -> 0.5 * x: two numbers around one
        operand become one when one of them is a power of two, so the result is the same to
        the last bit (scaling by a power of two is exact)."""
        if not (isinstance(node.op, gast.Mult) or (isinstance(node.op, gast.Div)
                                                   and _number(node.right))):
            return None
        for outer, inner in ((node.right, node.left), (node.left, node.right)):
            if not (_number(outer) and isinstance(inner, gast.BinOp)
                    and isinstance(inner.op, gast.Mult)) or (outer is node.left and isinstance(
                        node.op, gast.Div)):
                continue
            for side in ("left", "right"):
                number = getattr(inner, side)
                if not _number(number):
                    continue
                a, b = number.value, outer.value
                if not (_power_of_two(a) or _power_of_two(b)):
                    continue
                value = a * b if isinstance(node.op, gast.Mult) else a / b
                if not (isinstance(value, (int, float)) and math.isfinite(value)
                        and abs(value) >= 2.0 ** -1000):
                    continue
                merged = gast.BinOp(left=inner.left, op=inner.op, right=inner.right)
                setattr(merged, side, gast.Constant(value=value, kind=None))
                return merged  # (a new node: inner may be shared by another statement)
        return None

    def visit_UnaryOp(self, node):
        self.mark_operands(node)
        node = self.generic_visit(node)
        if isinstance(node.op, gast.USub) and _number(node.operand):
            return gast.Constant(value=-node.operand.value, kind=None)
        if isinstance(node.op, gast.Not) and isinstance(node.operand, gast.Constant) and type(
                node.operand.value) in (bool, type(None)):  # (not False -> True: a template's
            return gast.Constant(value=not node.operand.value, kind=None)  # flag given)
        return node

    def visit_Subscript(self, node):
        """(c, low)[0] -> c: an item of a display of names and constants, at a constant index
        (a template's tuple parameter given a display), is that item (the same object)."""
        node = self.generic_visit(node)
        value, index = node.value, node.slice
        if (isinstance(node.ctx, gast.Load) and isinstance(value, gast.Tuple)
                and isinstance(index, gast.Constant) and type(index.value) is int
                and -len(value.elts) <= index.value < len(value.elts)
                and all(isinstance(e, (gast.Name, gast.Constant)) for e in value.elts)):
            return value.elts[index.value]
        return node

    def visit_Call(self, node):
        """safe_div(2.0, x) -> 2.0 / x, safe_mul(x, 2.0) -> x * 2.0: with a nonzero finite
        number the strong zero (0 * inf = 0) has nothing to guard. (2.0 * x).sum(...) ->
        2.0 * x.sum(...): the number multiplies the (smaller) sum."""
        node = self.generic_visit(node)
        func = node.func
        flagged = _flag_form(node)
        if flagged is not None:
            return flagged if not isinstance(flagged, gast.Name) else self.identity(node, flagged)
        if (isinstance(func, gast.Attribute) and func.attr == "sum"
                and isinstance(func.value, gast.BinOp) and isinstance(func.value.op, gast.Mult)):
            product = func.value
            for number, rest in ((product.left, product.right), (product.right, product.left)):
                if _number(number):
                    func.value = rest
                    return gast.BinOp(left=number, op=gast.Mult(), right=node)
        if not (isinstance(func, gast.Name) and func.id in ("safe_mul", "safe_div", "strong_mul")
                and len(node.args) == 2 and not node.keywords):
            return node
        left, right = node.args
        guards = [left] if func.id == "safe_div" else [left, right]
        if func.id == "safe_div" and not self.surely_array(right):
            return node  # a Python float 0.0 divisor: ZeroDivisionError where safe_div gives inf
        if any(_number(a) and a.value != 0 and a.value - a.value == 0 for a in guards):
            op = gast.Div() if func.id == "safe_div" else gast.Mult()
            return gast.BinOp(left=left, op=op, right=right)
        return node


# runtime helpers of a matrix m and a flag, given a constant flag -> the numpy call they make (the
# same values, by a call with templates of its own): what the linear algebra templates leave
# where the user's flag is a literal (cho_factor(K, lower=True) -> oriented(m, True))
_FLAG_FORMS = {
    ("oriented", True): ("swapaxes", (-1, -2)), ("oriented", False): None,
    ("triangle", True): ("tril", ()), ("triangle", False): ("triu", ()),
    ("off_triangle", True): ("triu", (1,)), ("off_triangle", False): ("tril", (-1,)),
}


def _flag_form(node):
    """oriented(m, True) -> np.swapaxes(m, -1, -2), triangle(m, False) -> np.triu(m), ...;
    oriented(m, False) -> m (the helper returns m itself); None if node is no such call."""
    if not (isinstance(node.func, gast.Name) and len(node.args) == 2 and not node.keywords
            and isinstance(node.args[1], gast.Constant) and type(node.args[1].value) is bool):
        return None
    key = (node.func.id, node.args[1].value)
    if key not in _FLAG_FORMS:
        return None
    form = _FLAG_FORMS[key]
    if form is None:
        return node.args[0]
    attr, extra = form
    return gast.Call(func=gast.Attribute(value=gast.Name(id="np", ctx=gast.Load(),
                                                         annotation=None, type_comment=None),
                                         attr=attr, ctx=gast.Load()),
                     args=[node.args[0]] + [constant_node(v) for v in extra], keywords=[])


def _number(node):
    return isinstance(node, gast.Constant) and type(node.value) in (int, float)


def _power_of_two(value):
    return value != 0 and math.isfinite(value) and math.frexp(value)[0] in (0.5, -0.5)


def propagate_constants(fdef, names, once=None):
    """A name in `names` bound once, at the top level, to a number: its reads read the number.

        bout = 1.0                      bt2 = safe_div(1.0, t2)   ->   bt2 = 1.0 / t2
        bt2 = safe_div(bout, t2)  ->

    (the reverse pass gives it the names of adjoints: the seed of a scalar output is 1.0).
    once: defuse.bound_once_at_top(fdef, ...), when the caller has it."""
    once = once if once is not None else bound_once_at_top(fdef, bound_counts(fdef))
    constants = {var: stmt.value.value for var, stmt in once.items()
                 if var in names and _number(stmt.value)}
    return _substitute_numbers(fdef, constants)


def _substitute_numbers(fdef, values):
    """fdef with every read of a name in values (name -> number) replaced by the number."""
    if not values:
        return fdef

    class Substitute(Transformer):
        def visit_Name(self, node):
            if isinstance(node.ctx, gast.Load) and node.id in values:
                return gast.Constant(value=values[node.id], kind=None)
            return node
    fdef.body = [Substitute().visit(stmt) for stmt in fdef.body]
    return fdef



# numpy's elementwise functions (and the runtime's logistic) whose value has their float
# operand's dtype
_FLOAT_FUNCTIONS = {("np", f) for f in ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
                                        "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh",
                                        "arcsin", "arccos", "arctan", "arcsinh", "arccosh",
                                        "arctanh")} | {("logistic",)}
_ROOTS = {("np", "sqrt"), ("math", "sqrt")}  # correctly rounded: the same bits everywhere
_SAFE_USES = (gast.Add, gast.Sub, gast.Mult)


def _constant_value(node, known):
    """The value of a number expression (literals, names in known, + - * /, unary -, np.sqrt
    and math.sqrt of one), computed as numpy would, or None."""
    if _number(node):
        return node.value
    if isinstance(node, gast.Name):
        return known.get(node.id)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = _constant_value(node.operand, known)
        return None if inner is None else -inner
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult,
                                                             gast.Div)):
        a, b = _constant_value(node.left, known), _constant_value(node.right, known)
        if a is None or b is None or (isinstance(node.op, gast.Div) and b == 0):
            return None
        return FoldConstants.OPS[type(node.op)](a, b) if type(node.op) in FoldConstants.OPS \
            else a / b
    if (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
            and isinstance(node.func.value, gast.Name)
            and (node.func.value.id, node.func.attr) in _ROOTS
            and len(node.args) == 1 and not node.keywords):
        inner = _constant_value(node.args[0], known)
        return math.sqrt(inner) if type(inner) in (int, float) and inner >= 0 else None
    return None


def fold_computed_constants(fdef, once, float64=()):
    """s2 = np.sqrt(2.0), t13 = 1.0 + s2: names bound once, at the top level, to a square root of
    a number or to arithmetic with such names, are replaced by their values (computed now; the
    same bits numpy computes when the function runs: + - * / and sqrt are correctly rounded).

    Their values become Python floats instead of numpy float64 scalars, which behave the same
    in + - * (and as a divisor: the value is known nonzero) and as numpy's arguments, so only
    names read only so are folded (a float64 numerator over a Python 0.0 gives inf, a Python
    float numerator raises), and only with float64 values (float64: the names the probe saw
    as float64 or Python floats): a float64 scalar makes a float32 array's product float64, a
    Python float does not. Numbers the user named (R = 8.314) keep their names. once:
    defuse.bound_once_at_top(fdef, ...)."""
    known = {}
    for stmt in once.values():
        if not any(isinstance(n, gast.Call) or (isinstance(n, gast.Name) and n.id in known)
                   for n in walk(stmt.value)):
            continue  # a literal or arithmetic of literals: FoldConstants' job, or the user's
        value = _constant_value(stmt.value, known)
        if type(value) is float and math.isfinite(value) and value != 0:
            known[stmt.targets[0].id] = value
    if not known:
        return fdef
    parent_of = parents(fdef)
    defining = {}  # a folded name -> the folded names its definition reads
    for stmt in fdef.body:
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) and (
                stmt.targets[0].id in known):
            defining[id(stmt)] = stmt.targets[0].id
    while True:  # drop names read where a Python float is not a float64 (to a fixed point)
        unsafe = set()
        for node in walk(fdef):
            if not (isinstance(node, gast.Name) and node.id in known
                    and isinstance(node.ctx, gast.Load)):
                continue
            parent = parent_of.get(id(node))
            owner = parent
            while owner is not None and not isinstance(owner, gast.stmt):
                owner = parent_of.get(id(owner))
            if defining.get(id(owner)) in known:
                continue  # read where another folded value is defined: that goes too
            float64_only = all(n.id in float64 or n.id in known or n.id == "np"
                               for n in walk(parent) if isinstance(n, gast.Name))
            if float64_only and isinstance(parent, gast.BinOp) and (
                    isinstance(parent.op, _SAFE_USES) or (
                        isinstance(parent.op, gast.Div) and node is parent.right)):
                continue
            if float64_only and isinstance(parent, gast.Call) and isinstance(
                    parent.func, gast.Attribute) and isinstance(parent.func.value, gast.Name) and (
                    parent.func.value.id == "np"):
                continue
            unsafe.add(node.id)
        if not unsafe:
            break
        for var in unsafe:
            del known[var]
    return _substitute_numbers(fdef, known)



def constants(fdef, facts):
    """The pass (see the module docstring). Binds no name: bound counts stay valid."""
    if facts.derived:
        fdef = propagate_constants(fdef, facts.derived, facts.top_once)
    if facts.float64:
        fdef = fold_computed_constants(fdef, facts.top_once, facts.float64)
    # (y = np.reshape(t1, s) shares t1's array: t1 = x * 1 stays)
    fold = FoldConstants(facts.inexact, facts.arrays, facts.mutated)
    fdef.body = [fold.visit(stmt) for stmt in fdef.body]
    return fdef
