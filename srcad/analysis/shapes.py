"""Shape probe: run the function's primal once on example arguments and record the shape of every
value each assignment makes. The optimizer then drops the sums over broadcast axes
(unbroadcast, rebroadcast) wherever an operand provably has its result's shape.

    t3 = t1 + t2      shapes: t1 (64, 3), t2 (64, 3), t3 (64, 3)
    bt1 = unbroadcast(bt3, t1)   ->   bt1 = bt3

A shape is trusted only when every statement that assigns the name ran in the probe and all of
them, every time, made that one shape (names assigned in loops must have been seen twice).
The derivative built from a probe is keyed by the arguments' signature: the shapes and dtypes of
arrays, the types of other values, and the values of ints, bools and strings (sizes and flags
that shapes may depend on). Intermediate shapes must be functions of that signature.
"""
import copy

import gast
import numpy as np

from ..runtime import STRONG_ZERO_OPERATIONS
from ..syntax.convert import fill_locations, gast_to_ast
from .isolation import quiet, roots_of, Saved
from ..syntax.naming import bound_counts, walk
from ..syntax.nodes import dotted_parts, parameter_ids, SHAPE_ATTRIBUTES
from ..syntax.visitor import Transformer


_ARRAY, _FLOAT = np.ndarray, float
# keyed by value: sizes, counts and flags a shape or a loop may depend on (NumPy's ints too:
# n = np.sum(mask) is an np.int64)
_BY_VALUE = (int, bool, str, type(None), np.bool_, np.int8, np.int16, np.int32, np.int64,
             np.uint8, np.uint16, np.uint32, np.uint64, np.longlong, np.ulonglong)


def _one(value):
    kind = type(value)
    if kind is _ARRAY:
        return (value.shape, value.dtype.char)
    if kind is _FLOAT:
        return _FLOAT
    if kind in _BY_VALUE:
        return (kind, value)
    if kind is complex or isinstance(value, np.generic):
        return kind
    if kind is list or kind is tuple:  # parameters as lists of (W, b): each item's signature
        items = tuple(map(_one, value))
        return None if None in items or any(map(_complex, items)) else (kind, items)
    if kind is dict and all(type(k) is str for k in value):
        items = tuple((k, _one(v)) for k, v in value.items())
        return None if any(v is None or _complex(v) for _, v in items) else (dict, items)
    return None


def _complex(item):
    """Whether a signature item is of a complex number or array: inside a list, tuple or dict
    such a value gets the code for any arguments, which refuses it (trees.check_real)."""
    return item is complex or (type(item) is type and issubclass(item, np.complexfloating)) or (
        type(item) is tuple and type(item[0]) is tuple and item[1] in ("F", "D", "G"))


def signature_of(args, kwargs):
    """What a specialized derivative is specialized to (None: not specializable). Runs on every
    call, so it is written for speed."""
    key = [_one(a) for a in args]
    if kwargs:
        key += [(k, _one(v)) for k, v in sorted(kwargs.items())]
        if any(item[1] is None for item in key[len(args):]):
            return None
    if None in key:
        return None
    return tuple(key)


def without_values(signature, free, count):
    """signature_of's signature (of count positional arguments) with the values of the
    arguments in free (positions, keyword names) left out: (int,) for (int, 5). The key of a
    build correct for any values of them (analysis/values.py): an item without a value equals
    no item with one, so a key says which values it left out."""
    if not free or signature is None:
        return signature
    out = list(signature)  # (a loop: it runs on every call with keywords)
    for i, item in enumerate(out):
        if i < count:
            if i in free:
                out[i] = _typed(item)
        elif item[0] in free:
            out[i] = (item[0], _typed(item[1]))
    return tuple(out)


def values_left_out(signature, count):
    """signature with every int's, bool's, string's and None's value left out: what calls
    that differ only in such values share (the API caps their builds)."""
    if signature is None:
        return None
    return tuple(_typed(item) if i < count else (item[0], _typed(item[1]))
                 for i, item in enumerate(signature))


def _typed(item):
    """A signature item without its value: (int,) for (int, 5); (list,) for a list's, tuple's
    or dict's items (calls that differ in them count as alike for the API's cap: a list that
    grows from call to call gets VALUES builds, then the code for any arguments); arrays and
    others as they are."""
    return item[:1] if type(item) is tuple and (item[0] in _BY_VALUE or item[0] is list
                                                or item[0] is tuple or item[0] is dict) else item


class _Recorder(Transformer):
    """After each assignment to a name: __record__(site, 'name', name)."""

    def __init__(self):
        self.sites = {}
        self.loop_depth = 0

    def _record(self, target, origin):
        site = len(self.sites)
        self.sites[site] = (target, self.loop_depth > 0)
        call = gast.Call(func=gast.Name(id="__record__", ctx=gast.Load(), annotation=None,
                                        type_comment=None),
                         args=[gast.Constant(value=site, kind=None),
                               gast.Name(id=target, ctx=gast.Load(), annotation=None,
                                         type_comment=None)], keywords=[])
        return gast.copy_location(gast.Expr(value=call), origin)

    def block(self, stmts):
        """stmts with the records after their assignments: a new list, with new loop and if
        statements around new bodies (the statements of fdef are not changed: the probe
        compiles a converted copy, gast_to_ast's, so nothing is cloned)."""
        out = []
        for stmt in stmts:
            if isinstance(stmt, (gast.For, gast.While)):
                self.loop_depth += 1
                body = self.block(stmt.body)
                if isinstance(stmt, gast.For) and isinstance(stmt.target, gast.Name):
                    body.insert(0, self._record(stmt.target.id, stmt))
                self.loop_depth -= 1
                out.append(_with(stmt, body=body))
            elif isinstance(stmt, gast.If):
                out.append(_with(stmt, body=self.block(stmt.body) or [gast.Pass()],
                                 orelse=self.block(stmt.orelse)))
            else:
                out.append(stmt)
                if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
                    out.append(self._record(stmt.targets[0].id, stmt))
        return out


def _with(node, **fields):
    """A shallow copy of node with these fields replaced."""
    new = copy.copy(node)
    for field, value in fields.items():
        setattr(new, field, value)
    return new


def probe(fdef, func, scope, args, kwargs):
    """(name -> shape, name -> kind, name -> float dtype, NumPy scalars) for the names whose
    shape the example arguments determine; kind is "array", "scalar" or "other" (a dict, list,
    object); floats: the names bound to a float or complex (not float16) every time, with the
    dtype's character ('d' for float64 and Python floats, 'f' for float32, ...; '' if it
    varied); NumPy scalars: the "scalar" names bound to a NumPy scalar every time (not a Python
    number: np.float64(1.0) / 0.0 is inf where 1.0 / 0.0 raises ZeroDivisionError).
    ({}, {}, {}, set()) if the probe fails."""
    recorder = _Recorder()
    params = parameter_ids(fdef)
    entry = [recorder._record(p, fdef) for p in params]
    fdef = _with(fdef, body=entry + recorder.block(fdef.body), name="__srcad_probe__")
    seen = {}
    counts = {}

    kinds_seen = {}
    python_sites = set()  # sites that bound a Python number
    exact_sites = set()
    float_chars = {}

    def record(site, value):
        kind = "array" if type(value) is np.ndarray else "scalar" if isinstance(
            value, (int, float, np.generic)) else "other"
        kinds_seen.setdefault(site, set()).add(kind)
        if kind == "scalar" and not isinstance(value, np.generic):
            python_sites.add(site)
        char = np.result_type(value).char if kind != "other" else None
        if char not in ("f", "d", "g", "F", "D", "G"):
            exact_sites.add(site)  # not a float (or complex; float16 left out: numpy
            # reduces it in float32): 1.0 * value is not value
        else:
            float_chars.setdefault(site, set()).add(char)
        if kind != "other":
            seen.setdefault(site, set()).add(np.shape(value))
        counts[site] = counts.get(site, 0) + 1
    namespace = dict(func.__globals__)
    namespace.update({name: cell.cell_contents for name, cell in scope.cells.items()
                      if _bound(cell)})
    namespace.update({alias: module for alias, module in scope.canonical.items()})
    namespace.update(scope.injected)  # (lifted nested functions, runtime helpers: dict_of)
    namespace["__record__"] = record
    namespace["__srcad_comment__"] = None  # comment markers, compiled as they are
    try:
        module = gast_to_ast(gast.Module(body=[fdef], type_ignores=[]))
        code = compile(fill_locations(module), "<srcad shape probe>", "exec")
        exec(code, namespace)
        reached = [namespace[n] for n in sorted(scope.user_globals | scope.user_cells)
                   if n in namespace]  # (and the random generators, lists, objects they hold:
        with Saved(roots_of(func, args, kwargs) + reached):  # put back after, isolation.py)
            with np.errstate(all="ignore"), quiet():  # the call itself warns and prints
                namespace["__srcad_probe__"](*_private(args), **_private(kwargs))
    except Exception:  # the probe is an optimization: any failure means generic code
        return {}, {}, {}, set()
    by_name = {}
    floats = {}
    for site, (target, in_loop) in recorder.sites.items():
        by_name.setdefault(target, []).append((site, in_loop))
    shapes, kinds = {}, {}
    for target, sites in by_name.items():
        observed_kinds = [kinds_seen.get(site) for site, _ in sites]
        if all(observed_kinds) and len(set().union(*observed_kinds)) == 1:
            kinds[target] = next(iter(set().union(*observed_kinds)))
            if not any(site in exact_sites for site, _ in sites):
                chars = set().union(*(float_chars.get(site, set()) for site, _ in sites))
                floats[target] = chars.pop() if len(chars) == 1 else ""
        observed = [seen.get(site) for site, _ in sites]
        if any(o is None for o in observed):
            continue  # an assignment that did not run: its shape is unknown
        shape_set = set().union(*observed)
        if len(shape_set) != 1:
            continue
        if any(in_loop for _, in_loop in sites) and sum(counts[s] for s, _ in sites) < 2:
            continue  # seen once in a loop: a later iteration might make another shape
        shapes[target] = next(iter(shape_set))
    numpy_scalars = {target for target, sites in by_name.items() if kinds.get(target) == "scalar"
                     and not any(site in python_sites for site, _ in sites)}
    return shapes, kinds, floats, numpy_scalars


def _bound(cell):
    try:
        cell.cell_contents
        return True
    except ValueError:
        return False


def _private(values):
    """Copies of mutable arguments, so the probe cannot change the caller's data."""
    if isinstance(values, dict):
        return {k: _private_one(v) for k, v in values.items()}
    return [_private_one(v) for v in values]


def _private_one(value):
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, (list, dict, np.random.Generator, np.random.RandomState)):
        return copy.deepcopy(value)
    return value



# ---------------------------------------------------------------------------------------------
# shapes of generated expressions, from the probed shapes of the names they read

_ELEMENTWISE_OPS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)
# runtime helpers that broadcast like * and / (or map entries, like a ufunc), by their arguments
_ELEMENTWISE_HELPERS = {**dict.fromkeys(STRONG_ZERO_OPERATIONS, 2), "logistic": 1}


def expression_shape(node, shape_of_name):
    """The shape an expression surely has, or None. shape_of_name(name) -> shape or None.

    Knows names, numbers, elementwise arithmetic (+ - * / **, unary -, safe_mul, safe_div,
    logistic, numpy's ufuncs), which broadcasts, and reductions with keepdims=True over constant
    axes."""
    if isinstance(node, gast.Name):
        return shape_of_name(node.id)
    if isinstance(node, gast.Constant):
        return () if type(node.value) in (int, float) else None
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return expression_shape(node.operand, shape_of_name)
    if isinstance(node, gast.BinOp) and isinstance(node.op, _ELEMENTWISE_OPS):
        return broadcast_of([expression_shape(node.left, shape_of_name),
                           expression_shape(node.right, shape_of_name)])
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and (
            len(node.args) == _ELEMENTWISE_HELPERS.get(node.func.id)) and not node.keywords:
        return broadcast_of([expression_shape(a, shape_of_name) for a in node.args])
    numpy = isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and isinstance(
        node.func.value, gast.Name) and node.func.value.id == "np"
    ufunc = getattr(np, node.func.attr, None) if numpy else None
    if isinstance(ufunc, np.ufunc) and ufunc.nout == 1 and len(node.args) == ufunc.nin and (
            not node.keywords):
        return broadcast_of([expression_shape(a, shape_of_name) for a in node.args])
    if numpy and node.func.attr in ("sum", "mean", "max", "min"):
        found = reduction(node, shape_of_name)
        if found is None or not found[3]:  # (keepdims=True: the shape keeps every axis)
            return None
        _, full, axes, _ = found
        return tuple(1 if i in axes else n for i, n in enumerate(full))
    return None


def outside_factors(value, full, mine, shape_of_name):
    """For a sum of `value` (shaped `full`) down to the shape `mine`: (negate, [(op, factor)],
    rest) with value == +-rest op factor op factor ..., rest still shaped full and each factor's
    shape broadcasting into mine, right-aligned (so it is constant along the summed axes, and
    multiplying the sum by it keeps mine). `mine` must be right-aligned with `full` (summed
    leading axes dropped, other summed axes kept as 1). Peels from the top of the expression:
    unary minus, * or / by a factor.

        -bz * z / y   (y shaped like mine)   ->   (True, [(Div, y)], bz * z)"""
    def shape(node):
        return expression_shape(node, shape_of_name)

    def constant_along(node):
        mine_of = shape(node)
        return mine_of is not None and len(mine_of) <= len(mine) and all(
            f in (1, m) for f, m in zip(reversed(mine_of), reversed(mine)))

    negate, factors = False, []
    while True:
        if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub):
            negate, value = not negate, value.operand
            continue
        if not isinstance(value, gast.BinOp):
            break
        left, right = value.left, value.right
        if isinstance(value.op, gast.Mult) and isinstance(left, gast.UnaryOp) and isinstance(
                left.op, gast.USub):  # -a * b: the sign first
            negate, value.left = not negate, left.operand
            continue
        if isinstance(value.op, (gast.Mult, gast.Div)) and constant_along(right) and (
                shape(left) == full):
            factors.append((value.op, right))
            value = left
        elif isinstance(value.op, gast.Mult) and constant_along(left) and shape(right) == full:
            factors.append((value.op, left))
            value = right
        else:
            break
    factors.reverse()  # innermost first, as the original expression applied them
    return negate, factors, value


def broadcast_of(shapes):
    """The shape numpy broadcasts these shapes to, or None (one unknown, or no broadcast)."""
    if any(s is None for s in shapes):
        return None
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return None


def reduction(node, shape_of_name, shape_of=None):
    """(operand, its shape, the axes reduced, keepdims) for a reduction written x.f(axis=A,
    keepdims=K) or np.f(x, axis=A, keepdims=K), A and K constants (absent: every axis, False),
    x's shape known (shape_of(x), expression_shape's by default); else None. Which f it is, is
    the caller's question (node.func.attr)."""
    if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)):
        return None
    if isinstance(node.func.value, gast.Name) and node.func.value.id == "np":
        if len(node.args) != 1:
            return None
        operand = node.args[0]
    elif node.args:
        return None
    else:
        operand = node.func.value
    keywords = {k.arg: k.value for k in node.keywords}
    axis, keep = keywords.get("axis"), keywords.get("keepdims")
    if set(keywords) - {"axis", "keepdims"} or not (
            keep is None or isinstance(keep, gast.Constant) and type(keep.value) is bool):
        return None
    if isinstance(axis, gast.Tuple) and all(isinstance(e, gast.Constant) for e in axis.elts):
        axis = tuple(e.value for e in axis.elts)
    elif axis is None or isinstance(axis, gast.Constant):
        axis = None if axis is None else axis.value
    else:
        return None
    full = shape_of(operand) if shape_of else expression_shape(operand, shape_of_name)
    axes = None if full is None else _axes(axis, len(full))
    return None if axes is None else (operand, full, axes, keep is not None and keep.value)


def _axes(axis, ndim):
    """The set of non-negative axes `axis` (None, an int or a tuple of ints) names, or None."""
    if axis is None:
        return set(range(ndim))
    items = axis if isinstance(axis, tuple) else (axis,)
    if not all(type(a) is int and -ndim <= a < ndim for a in items):
        return None
    return {a % ndim for a in items}


def narrower_floats(floats):
    """Whether the probe's float dtypes (probe's floats: name -> character) have one narrower
    than float64 (float32, float16): seeded with the weak Python float 1.0, such a number
    carries into the adjoints (1.0 * np.float32(2.0) is a float32 number), so a float64 value's
    adjoint is not surely float64."""
    return any(char in ("f", "e") for char in floats.values())


def float_chars(fdef, float_of, binds=None):
    """name -> the float dtype character of its values ('d', 'f', ...), or None: the probe's
    (float_of: names it saw, adjoints as their values) and, for names bound once, at the top
    level (template temporaries), the one character of the names their value reads (numbers
    are weak: 2.0 * x has x's dtype). Not for a name bound again in a block: m = x, then
    m = x > 0.3 in a branch, is not x's dtype (np.tanh(m) was taken for float64: float16).
    Passes that rewrite arithmetic keep these. binds: naming.bound_counts(fdef), if known."""
    chars = {}
    counts = bound_counts(fdef) if binds is None else binds

    def char_of(name):
        return chars.get(name) or float_of(name)
    for stmt in fdef.body:
        if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Name) and char_of(stmt.targets[0].id) is None
                and counts.get(stmt.targets[0].id) == 1):
            chars[stmt.targets[0].id] = common_char(stmt.value, char_of)
    return char_of


def common_char(node, char_of):
    """The one float dtype character of the names an expression reads, or None; None too where
    a part of it is not a float however its operands are (a comparison, np.isnan, .argmax(),
    x.shape: 1.0 * (a + b) of two masks is an `or`, not a count)."""
    if any(_not_float(n) for n in walk(node)):
        return None
    found = {char_of(n.id) for n in walk(node) if isinstance(n, gast.Name)
             and isinstance(n.ctx, gast.Load) and n.id != "np"
             and n.id not in STRONG_ZERO_OPERATIONS}
    return found.pop() if len(found) == 1 else None


# The float dtype of an expression's value, where the expression surely has one (result_char):
# arithmetic promotes to the wider float (numbers are weak: 2.0 * x has x's dtype), and these
# functions and methods keep their float operands' dtype.
_FLOAT_ORDER = {"e": 0, "f": 1, "d": 2, "g": 3}  # float16 < float32 < float64 < longdouble
_KEEPING_FUNCTIONS = frozenset((
    "np.sin", "np.cos", "np.tan", "np.exp", "np.expm1", "np.log", "np.log1p", "np.sqrt",
    "np.tanh", "np.sinh", "np.cosh", "np.arctan", "np.abs", "np.square", "np.negative",
    "np.cbrt", "np.reciprocal", "logistic", *STRONG_ZERO_OPERATIONS))
_KEEPING_REDUCTIONS = frozenset(("np.sum", "np.mean"))  # of their first operand
_KEEPING_METHODS = frozenset(("sum", "mean"))
_REDUCTION_KEYWORDS = frozenset(("axis", "keepdims"))
WEAK = "weak"  # result_char of a Python number


def result_char(node, char_of):
    """The float dtype character of node's value ('d', 'f', ...; WEAK for a Python number), or
    None where it is not surely one float dtype: names by char_of, arithmetic + - * / ** by
    numpy's promotion of floats (a number takes the other operand's), elementwise functions and
    sums (without keywords other than axis and keepdims) by their operand's. Anything else
    (other calls, comparisons, subscripts, complex values) is None: not known."""
    if isinstance(node, gast.Constant):
        return WEAK if type(node.value) in (int, float) else None
    if isinstance(node, gast.Name):
        char = char_of(node.id)
        return char if char in _FLOAT_ORDER else None
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return result_char(node.operand, char_of)
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult,
                                                             gast.Div, gast.Pow)):
        return _promoted(result_char(node.left, char_of), result_char(node.right, char_of))
    if not isinstance(node, gast.Call):
        return None
    called = ".".join(dotted_parts(node.func) or ())
    if called in _KEEPING_FUNCTIONS and node.args and not node.keywords:
        operands = node.args
    elif called in _KEEPING_REDUCTIONS and node.args and all(
            k.arg in _REDUCTION_KEYWORDS for k in node.keywords):
        operands = node.args[:1]
    elif isinstance(node.func, gast.Attribute) and node.func.attr in _KEEPING_METHODS and all(
            k.arg in _REDUCTION_KEYWORDS for k in node.keywords):
        operands = [node.func.value]
    else:
        return None
    out = WEAK
    for operand in operands:
        out = _promoted(out, result_char(operand, char_of))
    return None if out == WEAK else out  # (np.exp(2.0): a numpy float64, not weak)


def _promoted(a, b):
    if a is None or b is None:
        return None
    if a == WEAK or b == WEAK:
        return b if a == WEAK else a
    return a if _FLOAT_ORDER[a] >= _FLOAT_ORDER[b] else b


# functions and methods whose value is a bool, an int or a shape whatever their operands' dtype
_NOT_FLOAT_CALLS = frozenset((
    "shape", "size", "ndim", "len", "int", "bool", "range", "astype", "argmax", "argmin",
    "argsort", "nonzero", "flatnonzero", "argwhere", "count_nonzero", "searchsorted", "digitize",
    "isnan", "isinf", "isfinite", "isclose", "allclose", "signbit", "array_equal", "all", "any",
    "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and",
    "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",
    "invert"))


def _not_float(node):
    if isinstance(node, (gast.Compare, gast.BoolOp)):
        return True
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.Not, gast.Invert)):
        return True
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.BitAnd, gast.BitOr,
                                                             gast.BitXor)):
        return True
    if isinstance(node, gast.Constant) and isinstance(node.value, bool):
        return True
    if isinstance(node, gast.Attribute) and node.attr in SHAPE_ATTRIBUTES:
        return True
    if isinstance(node, gast.Call):
        func = node.func
        called = func.attr if isinstance(func, gast.Attribute) else getattr(func, "id", None)
        return called in _NOT_FLOAT_CALLS
    return False
