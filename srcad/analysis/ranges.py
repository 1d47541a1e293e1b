"""ranges: which kinds of real numbers each name of generated code can hold.

A guard of a derivative (safe_div, safe_mul, slope_mul: docs/numerics.md section 1) matters
only at entries where a divisor is 0 or nan, or a zero meets an inf or a nan. Where the values
cannot be so, the plain operation gives the same numbers. The sigmoid a user writes is the
common case: its divisor 1 + exp(-z) is at least 1 (or inf) for every z that is not nan:

    t11 = np.exp(t10)          exp of a real that is not nan:    0, positive or inf
    t12 = 1.0 + t11            1 plus that:                      positive or inf
    share = safe_div(g, t12)   never 0 and never nan: g / t12, the same numbers

Each value is described by the set of classes its entries may fall in (`Classes`, a bit set
of NINF, NEG, ZERO, POS, PINF, NAN), found for every name of a function at once: each name
holds what any of its bindings may give (a name bound in a loop, a stack's values restored
into the names they were pushed from), computed to a fixpoint from the parameters. Two
assumptions, stated in docs/numerics.md:

- the arguments are finite real numbers (a nan or inf argument is not differentiated
  entrywise: `d[x] = d[z] * y` is already a plain product);
- sums, differences, products and quotients of finite numbers do not overflow (they may
  underflow to 0). Functions that overflow where calculus does not (exp past 709.78) and every
  operation on inf, nan and 0 (inf - inf, 0 * inf, x / 0) are followed as they are.

A value that is not known to be a real number (a complex value, an object, a name the build
has no dtype for, the result of an unknown call) is UNKNOWN, and nothing is claimed about it
or anything computed from it; but for ANY_FINITE, a finite value of unknown kind (an argument
of a build without dtypes, a complex argument): sums, differences and products of finite
values are finite whatever their kind (the second assumption), and so are their sines,
cosines, tangents and absolute values (a complex sine overflows only past an imaginary part of
710, an overflow as a product's; the poles of tan and tanh are not floats); nothing else is
claimed (a complex 1 + z * z may be 0: ANY_FINITE says nothing about zeros or signs).

Arrays that share storage are one value here: a store into one (`y[i] = v`, `y += v`,
`np.exp(a, out=y)`) adds what it stores to every name that may be a view of it. What may share
storage is over-approximated (a subscript, an attribute, a method or call that is not known to
make a new array, a list that holds it); a list used as a tape (values appended, then popped
back into the same names) is not a sharing: a pop restores values those names held.

    value_classes(fdef, real, finite_where=..., shapes=...) -> {name: Classes or UNKNOWN}
    expression_classes(node, classes, shapes) -> the Classes of an expression
"""
import gast
import numpy as np

from ..runtime import HELPERS
from ..syntax.naming import clone, loaded_names, walk
from ..syntax.nodes import dotted_parts, list_op

NINF, NEG, ZERO, POS, PINF, NAN = 1, 2, 4, 8, 16, 32
CLASSES = (NINF, NEG, ZERO, POS, PINF, NAN)
FINITE = NEG | ZERO | POS
NONZERO_FINITE = NEG | POS
ALL = NINF | FINITE | PINF | NAN  # any real number
ANY_FINITE = 64  # a finite number of unknown kind (complex, int, float): finite, nothing more
UNKNOWN = None  # not known to be a real number: no claim

_SIGN = {NINF: -1, NEG: -1, ZERO: 0, POS: 1, PINF: 1}
_INF = (NINF, PINF)


def _bits(c):
    return [one for one in CLASSES if c & one]


def _normal(c):
    """c with ANY_FINITE absorbing the real classes it meets: ANY_FINITE where c holds only
    finite numbers, UNKNOWN where it may hold an inf or nan of unknown kind."""
    if c is UNKNOWN or not c & ANY_FINITE:
        return c
    return ANY_FINITE if not c & ~(FINITE | ANY_FINITE) else UNKNOWN


def _pairwise(a, b, rule, closed=False):
    """The classes of rule(x, y) for entries x of a and y of b. closed: finite x and y give a
    finite result of any kind (sums and products): what an ANY_FINITE operand gives."""
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if (a | b) & ANY_FINITE:
        return ANY_FINITE if closed and not (a | b) & ~(FINITE | ANY_FINITE) else UNKNOWN
    out = 0
    for x in _bits(a):
        for y in _bits(b):
            out |= rule(x, y)
    return out


def _negated(c):
    if c is UNKNOWN or c & ANY_FINITE:
        return _normal(c)
    swap = {NINF: PINF, PINF: NINF, NEG: POS, POS: NEG}
    return sum(swap.get(one, one) for one in _bits(c))


def _add(x, y):
    if NAN in (x, y) or {x, y} == {NINF, PINF}:
        return NAN
    for inf in _INF:
        if inf in (x, y):
            return inf
    if x == ZERO:
        return y
    if y == ZERO or x == y:
        return x
    return FINITE  # a positive and a negative number: any sign, or 0


def _signed(sign, infinite):
    if infinite:
        return PINF if sign > 0 else NINF
    return (POS if sign > 0 else NEG) | ZERO  # (a product or quotient may underflow to 0)


def _mul(x, y, strong=False):
    """x * y; strong: safe_mul's, where a zero factor wins against inf and nan."""
    if ZERO in (x, y) and (strong or not ({x, y} & {NINF, PINF, NAN})):
        return ZERO
    if NAN in (x, y) or ZERO in (x, y):
        return NAN  # (0 * inf)
    return _signed(_SIGN[x] * _SIGN[y], x in _INF or y in _INF)


def _div(x, y, strong=False):
    """x / y; strong: safe_div's, where a zero numerator wins against 0, inf and nan."""
    if x == ZERO and strong:
        return ZERO
    if NAN in (x, y) or (x == ZERO and y == ZERO) or (x in _INF and y in _INF):
        return NAN
    if y == ZERO:
        return NINF | PINF  # (a signed zero)
    if y in _INF or x == ZERO:
        return ZERO
    return _signed(_SIGN[x] * _SIGN[y], x in _INF)


def _closure(c):
    """What sums of any number of entries of class c may give (an empty sum: 0)."""
    if c is UNKNOWN or c & ANY_FINITE:
        return _normal(c)
    out = c | ZERO
    while True:
        more = out | _pairwise(out, out, _add)
        if more == out:
            return out
        out = more


def _unary(table, closed=False):
    """An elementwise function by its table of classes; closed: it maps finite numbers of any
    kind to finite numbers (x ** 2, abs)."""
    def apply(c):
        if c is UNKNOWN:
            return UNKNOWN
        if c & ANY_FINITE:
            return _normal(c) if closed else UNKNOWN
        out = 0
        for one in _bits(c):
            out |= table[one]
        return out
    return apply


_ABS = {NINF: PINF, NEG: POS, ZERO: ZERO, POS: POS, PINF: PINF, NAN: NAN}
_FUNCTIONS = {  # elementwise functions of one real operand, by the class of an entry
    "exp": _unary({NINF: ZERO, NEG: ZERO | POS, ZERO: POS, POS: POS | PINF, PINF: PINF,
                   NAN: NAN}),
    "sqrt": _unary({NINF: NAN, NEG: NAN, ZERO: ZERO, POS: POS, PINF: PINF, NAN: NAN}),
    "log": _unary({NINF: NAN, NEG: NAN, ZERO: NINF, POS: FINITE, PINF: PINF, NAN: NAN}),
    "tanh": _unary({NINF: NEG, NEG: NEG, ZERO: ZERO, POS: POS, PINF: POS, NAN: NAN}, True),
    "abs": _unary(_ABS, True),
    "square": _unary({NINF: PINF, NEG: POS | ZERO, ZERO: ZERO, POS: POS | ZERO, PINF: PINF,
                      NAN: NAN}, True),
    "sin": _unary({NINF: NAN, NEG: FINITE, ZERO: ZERO, POS: FINITE, PINF: NAN, NAN: NAN}, True),
    "arctan": _unary({NINF: NEG, NEG: NEG, ZERO: ZERO, POS: POS, PINF: POS, NAN: NAN}),
    "log1p": _unary({NINF: NAN, NEG: NINF | NEG | NAN, ZERO: ZERO, POS: POS, PINF: PINF,
                     NAN: NAN}),
    "expm1": _unary({NINF: NEG, NEG: NEG, ZERO: ZERO, POS: POS | PINF, PINF: PINF, NAN: NAN}),
    "negative": _negated,
    "positive": _normal,
}
_FUNCTIONS.update(cos=_unary({NINF: NAN, NEG: FINITE, ZERO: POS, POS: FINITE, PINF: NAN,
                              NAN: NAN}, True),
                  tan=_unary({NINF: NAN, NEG: FINITE, ZERO: ZERO, POS: FINITE, PINF: NAN,
                              NAN: NAN}, True), log2=_FUNCTIONS["log"],
                  log10=_FUNCTIONS["log"],
                  absolute=_FUNCTIONS["abs"], fabs=_unary(_ABS))  # (fabs refuses complex)
# srcad's runtime helpers that spread, sum or select an adjoint g (their first argument): the
# classes of their values from g's (the others pass shapes and masks)
_ADJOINT_HELPERS = {"unreduce": lambda g: g,  # g broadcast back over the reduced axes
                    "unbroadcast": lambda g: _closure(g),  # g summed over broadcast axes
                    "unindex": lambda g: g if g is UNKNOWN else _normal(g | ZERO),  # (into 0s)
                    "selection_share": lambda g: g if g is UNKNOWN else _normal(g | ZERO)}
# (selection_share: g, 0, or a share of g at ties, a quotient: it may underflow)
_REDUCTIONS = {"sum", "mean", "dot", "vdot", "matmul", "inner"}  # sums of entries or products
_SELECTIONS = {"maximum", "minimum", "fmax", "fmin", "max", "min", "amax", "amin"}
_OPERATORS = {gast.Add: lambda a, b: _pairwise(a, b, _add, closed=True),
              gast.Sub: lambda a, b: _pairwise(a, _negated(b), _add, closed=True),
              gast.Mult: lambda a, b: _pairwise(a, b, _mul, closed=True),
              gast.Div: lambda a, b: _pairwise(a, b, _div),
              gast.MatMult: lambda a, b: _reduced([a, b], "matmul")}  # (sums of products)
_GUARDS = {"safe_mul": lambda a, b: _pairwise(a, b, lambda x, y: _mul(x, y, strong=True),
                                             closed=True),
           # (slope_mul(g, s) is g * s where every entry of g is finite, else safe_mul)
           "slope_mul": lambda a, b: _union([_pairwise(a, b, _mul, closed=True), _pairwise(
               a, b, lambda x, y: _mul(x, y, strong=True), closed=True)]),
           "safe_div": lambda a, b: _pairwise(a, b, lambda x, y: _div(x, y, strong=True)),
           # (strong_mul(g, s): only g's zeros are strong)
           "strong_mul": lambda a, b: _pairwise(a, b, lambda x, y: _mul(x, y, strong=x == ZERO),
                                                closed=True)}


class Rules:
    """The rules of the arithmetic of classes: FULL follows every overflow and underflow the
    assumptions leave (exp past 709.78 is inf, below -745.13 it is 0; a product or quotient
    of finite numbers may underflow to 0). ORDINARY takes numbers to be of ordinary magnitudes:
    exp of a finite number is a positive finite number, a product or quotient of nonzero finite
    numbers is nonzero, a mean is of an array with items, np.linalg's solves (solve, inv,
    cholesky, pinv) of finite numbers are finite. ORDINARY is for modes/strong_zeros.py: a
    product made strong where a value is inf or nan at an ordinary point (log(0), 0 / 0), not
    where only an overflow makes it so; the guards pass uses FULL."""

    def __init__(self, functions, operators, mul, ordinary):
        self.functions, self.operators, self.mul = functions, operators, mul
        self.ordinary = ordinary  # (means of arrays with items, finite solves)


def _ordinary(rule):
    """rule (of a product or quotient) without underflow and overflow of finite operands."""
    def apply(x, y):
        out = rule(x, y)
        if x in (NEG, POS) and y in (NEG, POS):
            return out & ~(ZERO | NINF | PINF)
        return out
    return apply


_ORDINARY_MUL, _ORDINARY_DIV = _ordinary(_mul), _ordinary(_div)
FULL = Rules(_FUNCTIONS, _OPERATORS, _mul, ordinary=False)
ORDINARY = Rules(
    dict(_FUNCTIONS, exp=_unary({NINF: ZERO, NEG: POS, ZERO: POS, POS: POS, PINF: PINF,
                                 NAN: NAN}, True),
         expm1=_unary({NINF: NEG, NEG: NEG, ZERO: ZERO, POS: POS, PINF: PINF, NAN: NAN})),
    {**_OPERATORS, gast.Mult: lambda a, b: _pairwise(a, b, _ORDINARY_MUL, closed=True),
     gast.Div: lambda a, b: _pairwise(a, b, _ORDINARY_DIV),
     gast.MatMult: lambda a, b: _reduced([a, b], "matmul", False, _ORDINARY_MUL)},
    _ORDINARY_MUL, ordinary=True)
# calls known to make a new array, never a view of an argument nor the argument itself
_FRESH_METHODS = {"sum", "mean", "dot", "max", "min", "prod", "copy", "std", "var", "cumsum",
                  "cumprod", "any", "all", "argmax", "argmin", "item", "tolist", "astype"}
_FRESH_NAMES = {"float", "int", "len", "range", "tie_mask", "logistic", "zero_gradient",
                "grad_seed"}
_VIEW_METHODS = {"reshape", "transpose", "ravel", "squeeze", "swapaxes", "flatten"}
_LIST_METHODS = {"append", "pop"}
_FRESH_NUMPY = {"sum", "mean", "dot", "vdot", "matmul", "inner", "outer", "max", "min", "amax",
                "amin", "prod", "zeros", "ones", "full", "zeros_like", "ones_like",
                "full_like", "eye", "array", "where", "clip", "einsum", "tensordot",
                "concatenate", "stack", "cumsum", "var", "std"}
_NUMPY_MUTATING = {"copyto", "put", "place", "putmask", "fill_diagonal"}
# functions whose values are their first argument's entries, rearranged
_VIEW_FUNCTIONS = {"broadcast_to", "swapaxes", "transpose", "reshape", "expand_dims",
                   "squeeze", "ravel", "moveaxis", "atleast_1d", "atleast_2d"}
_SHAPING_HELPERS = {"solve_column"}  # srcad's runtime helpers of that kind
# np.linalg's solves of finite numbers: finite under ORDINARY rules (an exactly singular matrix
# raises LinAlgError; a nearly singular one gives large finite numbers)
_SOLVES = {"solve", "inv", "cholesky", "pinv"}


def _numpy_function(func):
    """The name of np.<name> called, or None."""
    parts = dotted_parts(func)
    return parts[1] if parts and len(parts) == 2 and parts[0] == "np" else None


def _fresh_call(node):
    """Whether a call surely makes new values (no view or alias of what it reads, and changes
    none of its arguments): numpy's ufuncs and reductions without out=, srcad's guards."""
    if any(k.arg == "out" for k in node.keywords):
        return False
    if (dotted_parts(node.func) or [])[:2] == ["np", "linalg"]:
        return True  # (np.linalg's functions make new arrays and change none of their arguments)
    name = _numpy_function(node.func)
    if name is not None:
        return name in _FRESH_NUMPY or isinstance(getattr(np, name, None), np.ufunc)
    if isinstance(node.func, gast.Name):
        return node.func.id in _GUARDS or node.func.id in _FRESH_NAMES
    return isinstance(node.func, gast.Attribute) and node.func.attr in _FRESH_METHODS


def expression_classes(node, classes, shapes=None, rules=None):
    """The Classes of an expression's values (UNKNOWN where nothing is known), reading the
    classes of names from `classes` (a name not there: UNKNOWN). rules: FULL (None) or
    ORDINARY (see Rules)."""
    rules = rules or FULL
    kind = type(node)
    if kind is gast.Name:
        return classes.get(node.id, UNKNOWN)
    if kind is gast.Constant:
        value = node.value
        if isinstance(value, bool):
            return POS if value else ZERO
        if isinstance(value, (int, float)):
            return _number_class(value)
        return UNKNOWN
    if kind is gast.UnaryOp:
        operand = expression_classes(node.operand, classes, shapes, rules)
        if isinstance(node.op, gast.USub):
            return _negated(operand)
        if isinstance(node.op, gast.UAdd):
            return operand
        return ZERO | POS if isinstance(node.op, gast.Not) else UNKNOWN
    if kind is gast.BinOp:
        if isinstance(node.op, gast.Pow):
            exponent = node.right.value if isinstance(node.right, gast.Constant) else None
            if type(exponent) is not int or not 0 <= exponent <= 64:
                return UNKNOWN  # ((-1.0) ** 0.5 of Python floats is complex)
            base = expression_classes(node.left, classes, shapes, rules)
            if exponent == 2:
                return _FUNCTIONS["square"](base)
            out = POS  # (x ** 0 is 1, for every x)
            for _ in range(exponent):  # (a product of finite numbers is finite)
                out = _pairwise(out, base, rules.mul, closed=True)
            return out
        if (isinstance(node.op, gast.Mult) and isinstance(node.left, gast.Name)
                and isinstance(node.right, gast.Name) and node.left.id == node.right.id):
            return _FUNCTIONS["square"](expression_classes(node.left, classes, shapes, rules))
        rule = rules.operators.get(type(node.op))
        if rule is None:
            return UNKNOWN
        if isinstance(node.op, gast.Div) and _is_size(node.left) and _is_size(node.right):
            return ZERO | POS  # (a ratio of sizes, Python ints: 0 / 0 raises, no inf or nan)
        left = expression_classes(node.left, classes, shapes, rules)
        right = expression_classes(node.right, classes, shapes, rules)
        out = rule(left, right)
        if isinstance(node.op, gast.Mult) and out is not UNKNOWN:
            for factor, other in ((node.left, right), (node.right, left)):
                if _at_least_one(factor) and not other & ZERO:
                    out &= ~ZERO  # (2.0 * x does not underflow: it is no nearer 0 than x)
        return out
    if kind is gast.Compare:
        return ZERO | POS
    if kind is gast.IfExp:
        return _union([expression_classes(node.body, classes, shapes, rules),
                       expression_classes(node.orelse, classes, shapes, rules)])
    if kind in (gast.Tuple, gast.List):  # (what indexing or iterating it gives)
        return _union([expression_classes(e, classes, shapes, rules) for e in node.elts])
    if kind is gast.Subscript:
        return expression_classes(node.value, classes, shapes, rules)
    if kind is gast.Attribute:
        if dotted_parts(node) in (["np", "pi"], ["np", "e"], ["math", "pi"], ["math", "e"]):
            return POS
        if node.attr in ("shape", "size", "ndim"):
            return _size_classes(node.value, shapes)
        if node.attr in ("T", "real"):
            return expression_classes(node.value, classes, shapes, rules)
        return UNKNOWN
    if kind is gast.Call:
        return _call_classes(node, classes, shapes, rules)
    return UNKNOWN


def _is_size(node):
    """Whether a node is the size of an array or a list (a Python int): size_of(x), len(x),
    x.size."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
        return node.func.id in ("size_of", "len") and len(node.args) == 1
    return isinstance(node, gast.Attribute) and node.attr == "size"


def _at_least_one(node):
    """Whether a node is a finite number of magnitude 1 or more."""
    value = node.value if isinstance(node, gast.Constant) else None
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and 1 <= abs(value) < float("inf"))


def _number_class(value):
    if value != value:
        return NAN
    if value in (float("inf"), float("-inf")):
        return PINF if value > 0 else NINF
    return POS if value > 0 else NEG if value < 0 else ZERO


def _union(parts):
    out = 0
    for part in parts:
        if part is UNKNOWN:
            return UNKNOWN
        out |= part
    return _normal(out)


def _size_classes(value, shapes):
    """Sizes: ints, positive where the build knows every axis of the array has items."""
    return POS if _has_items(value, shapes) else ZERO | POS


def _call_classes(node, classes, shapes, rules):
    args = [expression_classes(a, classes, shapes, rules) for a in node.args]
    func = node.func
    if isinstance(func, gast.Name):
        if func.id in _GUARDS and len(args) == 2 and not node.keywords:
            return _GUARDS[func.id](*args)
        if func.id == "len" and len(node.args) == 1:
            return _size_classes(node.args[0], shapes)
        if func.id == "float" and len(args) == 1:
            return args[0]
        if func.id == "grad_seed" and len(args) == 1:
            return POS  # (a one of the output's type)
        if func.id == "range":
            return FINITE if all(a is not UNKNOWN for a in args) else UNKNOWN
        if func.id in _ADJOINT_HELPERS and args and not node.keywords:
            return _ADJOINT_HELPERS[func.id](args[0])
        if func.id in _SHAPING_HELPERS and args:
            return args[0]
        return UNKNOWN
    name = _numpy_function(func)
    if (rules.ordinary and (dotted_parts(func) or [])[:2] == ["np", "linalg"]
            and func.attr in _SOLVES and not node.keywords):
        return _union([FINITE if a is not UNKNOWN and not a & ~FINITE else _normal(a) if (
            a is not UNKNOWN and not a & ~(FINITE | ANY_FINITE)) else UNKNOWN for a in args])
    if name is None:  # a method: x.sum(), x.max(), x.dot(y), x.reshape(...)
        if not isinstance(func, gast.Attribute):
            return UNKNOWN
        receiver = expression_classes(func.value, classes, shapes, rules)
        if func.attr in ("sum", "mean", "dot") and not any(k.arg == "out" for k in node.keywords):
            parts = [receiver] + args[:1] if func.attr == "dot" else [receiver]
            return _reduced(parts, func.attr, rules.ordinary or _has_items(func.value, shapes),
                            rules.mul)
        if func.attr in ("max", "min", "copy", "pop") + tuple(_VIEW_METHODS) and not any(
                k.arg in ("out", "initial") for k in node.keywords):
            return receiver
        return UNKNOWN
    if any(k.arg in ("out", "where", "initial", "dtype") for k in node.keywords):
        return UNKNOWN
    if name in rules.functions and len(args) == 1:
        return rules.functions[name](args[0])
    if name in _REDUCTIONS and args:
        return _reduced(args[:2] if name in ("dot", "vdot", "matmul", "inner") else args[:1],
                        name, rules.ordinary or _has_items(node.args[0], shapes), rules.mul)
    if name in _SELECTIONS and args:
        return _union(args[:2] if name in ("maximum", "minimum", "fmax", "fmin") else args[:1])
    if name == "where" and len(args) == 3:
        return _union(args[1:])
    if name in ("zeros", "zeros_like"):
        return ZERO
    if name in ("ones", "ones_like"):
        return POS
    if name in ("eye", "identity") and not node.keywords:
        return ZERO | POS
    if name in ("full", "full_like") and len(args) >= 2:
        return args[1]
    if name in _VIEW_FUNCTIONS and args:  # (a view of its first argument, or its entries)
        return args[0]
    return UNKNOWN


def _reduced(parts, name, has_items=False, mul=None):
    """A sum of entries (of products, for dot and matmul); a mean is such a sum divided by the
    count (nan for no entries, unless the array is known to have items)."""
    if any(p is UNKNOWN for p in parts):
        return UNKNOWN
    entries = parts[0] if len(parts) == 1 else _pairwise(parts[0], parts[1], mul or _mul,
                                                         closed=True)
    out = _closure(entries)
    return _normal(out | NAN) if name == "mean" and not has_items else out


def _has_items(node, shapes):
    """Whether the build knows every axis of the array a node names has items."""
    shape = shapes.get(node.id) if shapes and isinstance(node, gast.Name) else None
    return shape is not None and all(isinstance(n, int) and n > 0 for n in shape)


class _Groups:
    """Names that may share storage (union-find): one value for the analysis."""

    def __init__(self):
        self.parent = {}

    def find(self, name):
        root = self.parent.setdefault(name, name)
        while root != self.parent[root]:
            root = self.parent[root]
        while self.parent[name] != root:
            self.parent[name], name = root, self.parent[name]
        return root

    def join(self, names):
        names = list(names)
        for other in names[1:]:
            self.parent[self.find(other)] = self.find(names[0])


def _root(node):
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def _tapes(nodes):
    """Lists used only as tapes: bound to [], values appended (a name or a tuple of names) and
    popped back into the same names. name -> the pushed target lists (as tuples of names).
    nodes: every node of the function."""
    uses, bound, pushes, pops, counted = {}, {}, {}, {}, {}
    for stmt in nodes:
        if type(stmt) is gast.Name:
            uses[stmt.id] = uses.get(stmt.id, 0) + 1
        elif isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(
                stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.List) and not (
                stmt.value.elts):
            bound[stmt.targets[0].id] = bound.get(stmt.targets[0].id, 0) + 1
            counted[stmt.targets[0].id] = counted.get(stmt.targets[0].id, 0) + 1
        elif list_op(stmt) and (isinstance(stmt, gast.Expr) or len(stmt.targets) == 1):
            stack = stmt.value.func.value.id
            append = stmt.value.func.attr == "append"
            if not append and isinstance(stmt, gast.Expr):
                continue  # (a value popped and dropped: not a tape's, uncounted)
            names = _names_of(stmt.value.args[0] if append else stmt.targets[0])
            if names is not None:
                if append:
                    pushes.setdefault(stack, set()).add(names)
                else:
                    pops.setdefault(stack, []).append(names)
                counted[stack] = counted.get(stack, 0) + 1
    return {stack: pushes.get(stack, set()) for stack, count in bound.items()
            if count == 1 and counted.get(stack) == uses.get(stack)
            and all(names in pushes.get(stack, ()) for names in pops.get(stack, ()))}


def _restores(value, names, tapes):
    """Whether `names = value` pops a tape back into names it was pushed from: it gives them
    values they held (no new value, no new sharing)."""
    return (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
            and value.func.attr == "pop" and isinstance(value.func.value, gast.Name)
            and not value.args and not value.keywords
            and names in tapes.get(value.func.value.id, ()))


# srcad's runtime helpers whose result is made from their first argument alone (an adjoint
# summed, spread, cast or stored into zeros): it may share storage with that one, never with
# the arrays the others pass (whose shapes and dtypes they read)
_FROM_FIRST = {"unbroadcast", "unindex", "unreduce", "in_dtype_of", "selection_share",
               "unreduce_extremum"}


def _shared_names(value):
    """The names whose storage the value of an expression may share: a subscript's or an
    attribute's base (not its index; not for a size), a view's or a helper's first argument,
    the items of a display, whatever an unknown call reads."""
    if _fresh_value(value):  # (arithmetic, a new array: nothing; and so for the first
        return []  # argument of a helper, unbroadcast(safe_mul(g, s), x))
    kind = type(value)
    if kind is gast.Name:
        return [value.id]
    if kind is gast.Subscript:
        return _shared_names(value.value)
    if kind is gast.Attribute:
        return [] if value.attr in ("shape", "size", "ndim", "dtype") else _shared_names(
            value.value)
    if kind in (gast.Tuple, gast.List):
        return [n for e in value.elts for n in _shared_names(e)]
    if kind is gast.IfExp:
        return _shared_names(value.body) + _shared_names(value.orelse)
    if kind is gast.Call and value.args and isinstance(value.func, gast.Name) and (
            value.func.id in _FROM_FIRST):
        return _shared_names(value.args[0])
    if kind is gast.Call and isinstance(value.func, gast.Attribute) and (
            value.func.attr in _VIEW_METHODS):  # (their arguments are axes and sizes)
        return _shared_names(value.func.value)
    if kind is gast.Call:  # (what it is given; not the function's own name)
        given = value.args + [k.value for k in value.keywords]
        if isinstance(value.func, gast.Attribute):
            given.append(value.func.value)
        return [n for part in given for n in loaded_names(part)]
    return loaded_names(value)


def _names_of(node):
    if isinstance(node, gast.Name):
        return (node.id,)
    if isinstance(node, gast.Tuple) and all(isinstance(e, gast.Name) for e in node.elts):
        return tuple(e.id for e in node.elts)
    return None


def parameter_kinds(params, char_of, callee):
    """value_classes' real, unbounded and any_kind for a function's parameters: those of a float
    dtype (char_of(name): its dtype character or None) are real, any other is a number of
    unknown kind; all finite (the user's arguments), but for a callee's (callee), whose
    parameters are its caller's values: any real numbers, inf and nan too."""
    real = {p for p in params if char_of(p) in ("e", "f", "d", "g")}
    if callee:
        return real, set(params), ()
    return real, (), set(params) - real


def value_classes(fdef, real, finite_where=None, shapes=None, unbounded=(), any_kind=(),
                  rules=None):
    """name -> its Classes (or UNKNOWN) for every name fdef binds or reads.

    real: the parameters and free names known to be real numbers (a float dtype): they are
    taken to be finite, but for those in unbounded (a callee's parameters, which are its
    caller's values: any real number, inf and nan too); any_kind: parameters of unknown kind,
    taken to be finite (ANY_FINITE); any other parameter or free name is UNKNOWN
    (parameter_kinds decides the three). rules: FULL (None) or ORDINARY (Rules). finite_where:
    name -> the classes its values may have where the function's output is finite (the
    singular points' facts, for a gradient whose guards may differ where it is not), applied
    to names that share storage with no other. shapes: name -> shape (sizes of arrays with
    items are positive)."""
    nodes = walk(fdef)  # (every node, once: the statements in reverse order)
    tapes = _tapes(nodes)
    groups = _Groups()
    sources = []  # (name, expression or UNKNOWN or a Classes value): what a name may be given
    handled = set()  # the Name nodes of targets handled below

    def give(name, source):
        groups.find(name)
        sources.append((name, source))

    def share(*names):
        groups.join([n for n in names if n is not None])

    def bind(target, value):
        """target = value (a name, a tuple of names, a store into an array)."""
        if isinstance(target, gast.Name):
            handled.add(target)
            if _restores(value, (target.id,), tapes):
                return
            give(target.id, value)
            share(target.id, *_shared_names(value))
            return
        if isinstance(target, (gast.Tuple, gast.List)):
            names = _names_of(target) if isinstance(target, gast.Tuple) else None
            if names is not None and _restores(value, names, tapes):
                handled.update(target.elts)
                return
            if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(
                    target.elts) and not any(isinstance(e, gast.Starred) for e in target.elts):
                for part, item in zip(target.elts, value.elts):
                    bind(part, item)
                return
            for node in walk(target):
                if isinstance(node, gast.Name):
                    handled.add(node)
                    give(node.id, UNKNOWN)
                    share(node.id, *loaded_names(value))
            return
        root = _root(target)
        if root is not None:  # y[i] = v, y.a = v: y's storage holds v's values now
            for node in walk(target):
                if isinstance(node, gast.Name):
                    handled.add(node)
            give(root, value)
            share(root, *_shared_names(value))

    for stmt in nodes:
        if isinstance(stmt, gast.Assign):
            for target in stmt.targets:
                bind(target, stmt.value)
        elif isinstance(stmt, gast.AugAssign):
            current = _read_of(stmt.target)
            bind(stmt.target, gast.BinOp(left=current, op=stmt.op, right=stmt.value))
        elif isinstance(stmt, gast.For):
            bind(stmt.target, gast.Subscript(value=stmt.iter, slice=gast.Constant(
                value=0, kind=None), ctx=gast.Load()))
        elif isinstance(stmt, gast.Call):
            _call_effects(stmt, tapes, give, share)
    names = [node for node in nodes if type(node) is gast.Name]

    def given(name):
        if name not in real:
            return ANY_FINITE if name in any_kind else UNKNOWN
        return ALL if name in unbounded else FINITE
    for node in names:  # parameters, and anything else that binds a name
        if not isinstance(node.ctx, gast.Load) and node not in handled:
            give(node.id, given(node.id))
    for node in names:  # free names
        if node.id not in groups.parent:
            give(node.id, given(node.id))

    members = {}
    for name in groups.parent:
        members.setdefault(groups.find(name), []).append(name)
    limits = {}
    for name, allowed in (finite_where or {}).items():
        if name in groups.parent and len(members[groups.find(name)]) == 1:
            limits[groups.find(name)] = allowed
    value = {root: 0 for root in members}  # root -> classes so far (0: no value yet)
    view = _View(groups, value)
    readers = view.readers  # root -> the sources whose expressions read it (as evaluated)
    todo = list(range(len(sources)))  # (a stack: the last source first, the first statement's)
    waiting = set(todo)
    while todo:  # values only grow (or become UNKNOWN): a source is evaluated again only
        i = todo.pop()  # when a value it read has grown
        waiting.discard(i)
        name, source = sources[i]
        root = groups.find(name)
        if value[root] is UNKNOWN:
            continue
        view.reader = i
        got = source if source is UNKNOWN or isinstance(source, int) else (
            expression_classes(source, view, shapes, rules))
        new = UNKNOWN if got is UNKNOWN else _normal(value[root] | got)
        if new is not UNKNOWN and root in limits:
            new &= limits[root]  # (ANY_FINITE is kept: limits are of real classes)
        if new != value[root]:
            value[root] = new
            for reader in readers.get(root, ()):
                if reader not in waiting:
                    waiting.add(reader)
                    todo.append(reader)
    return {name: value[groups.find(name)] for name in groups.parent}


class _View:
    """classes.get(name) for expression_classes, through the groups; notes which source read
    which group (readers), so that a source is evaluated again when what it read grows."""

    def __init__(self, groups, value):
        self.groups, self.value = groups, value
        self.readers, self.reader = {}, None

    def get(self, name, default=UNKNOWN):
        if name not in self.groups.parent:
            return default
        root = self.groups.find(name)
        self.readers.setdefault(root, set()).add(self.reader)
        return self.value[root]


def _read_of(target):
    """A target (y, y[i]) as an expression reading it."""
    node = clone(target)
    for n in walk(node):
        if hasattr(n, "ctx"):
            n.ctx = gast.Load()
    return node


def _fresh_value(value):
    """Whether an assigned value is surely a new array or number, sharing no storage with the
    names it reads (arithmetic, constants, calls known to make new values)."""
    if isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Constant)):
        return True
    return isinstance(value, gast.Call) and _fresh_call(value)


def _call_effects(node, tapes, give, share):
    """What a call does to the values of the names it is given: out= writes into an array;
    a method that is not known to leave its receiver alone, and a function that is not known
    to leave its arguments alone, may change them (their values become UNKNOWN); a list's
    append makes the list hold the value (unless the list is a tape)."""
    func = node.func
    for keyword in node.keywords:
        if keyword.arg == "out":
            for root in [_root(keyword.value)] + [_root(e) for e in getattr(
                    keyword.value, "elts", ())]:
                if root is not None:
                    give(root, UNKNOWN)
    if _fresh_call(node) or (isinstance(func, gast.Name) and func.id in HELPERS):
        return  # (srcad's runtime helpers make new values: they change none of their arguments)
    if isinstance(func, gast.Attribute) and func.attr in _LIST_METHODS:
        receiver = _root(func.value)
        if receiver in tapes:
            return
        share(receiver, *[n for a in node.args for n in loaded_names(a)])
        return
    if isinstance(func, gast.Attribute) and func.attr in _VIEW_METHODS | {"T"}:
        return  # (a view: shared by the binding that takes it)
    if _numpy_function(func) is not None and _numpy_function(func) not in _NUMPY_MUTATING:
        return  # (np.reshape, np.asarray: views, shared by the binding that takes them)
    changed = [_root(a) for a in node.args] + [_root(k.value) for k in node.keywords]
    if isinstance(func, gast.Attribute):
        changed.append(_root(func.value))
    for root in changed:
        if root is not None:
            give(root, UNKNOWN)
