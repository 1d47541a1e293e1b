"""Template instantiation: a registered template + the names of one call -> generated statements.

    template                          call site               reverse instance
    def sin(y, x):                    t3 = np.sin(x)          bx = bx + bt3 * np.cos(x)
        d[x] = d[y] * np.cos(x)       (bt3 the adjoint)       (or bx = bt3 * np.cos(x) if first)

Parameters are replaced by the call's operands (names or constants after ANF), `d[v]` by the
derivative's name, template-local names by fresh temporaries. In forward mode the tangent of a
constant is a symbolic zero that is simplified away (d[y] = d[a] * b + a * d[b] with b constant
becomes dy = da * b); only a zero that cannot be simplified becomes np.zeros_like(v).
"""
import functools

import gast
import numpy as np

from .. import runtime
from .operations import Index, index_value
from .registry import Default, REGISTRY
from ..syntax.naming import clone, number_value, walk
from ..syntax.nodes import call, constant_node, name
from ..syntax.visitor import Transformer


class Accumulate:
    """`d[operand] = value` in an adjoint template: add `value` to the operand's adjoint (an
    operand that is a tuple of names, like the arrays of np.stack, takes a sequence)."""

    def __init__(self, operand, value, broadcasts):
        self.operand = operand
        self.value = value
        self.broadcasts = broadcasts


class Zero(gast.Name):
    """The symbolic zero tangent of `var` (a constant or an inactive value)."""

    def __init__(self, var):
        super().__init__(id="__zero__", ctx=gast.Load(), annotation=None, type_comment=None)
        self.var = var


def _is_d(node):
    return (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)
            and node.value.id == "d")


class _Substitute(Transformer):
    def __init__(self, bound, derivative, fresh_names):
        self.bound = bound
        self.derivative = derivative
        self.fresh_names = fresh_names

    def visit_Subscript(self, node):
        if _is_d(node):
            return self.derivative(self._operand(node.slice))
        index = node.slice
        if isinstance(index, gast.Name) and isinstance(self.bound.get(index.id), Index):
            node.value = self.visit(node.value)
            node.slice = clone(self.bound[index.id].node)
            return node
        return self.generic_visit(node)

    def _operand(self, node):
        if isinstance(node, gast.Name) and isinstance(self.bound.get(node.id), list):
            return gast.Tuple(elts=self.bound[node.id], ctx=gast.Load())  # *items
        if isinstance(node, gast.Name) and node.id in self.bound:
            return self.bound[node.id]
        if isinstance(node, gast.Subscript):  # d[xs[i]]: an element of a *args operand
            seq = self._operand(node.value)
            if isinstance(seq, list) and isinstance(node.slice, gast.Constant):
                return seq[node.slice.value]
        raise ValueError(f"d[...] of a non-parameter in a template: {gast.dump(node)}")

    def visit_Name(self, node):
        if node.id in self.bound:
            value = self.bound[node.id]
            if isinstance(value, Default):
                return constant_node(value.value)
            if isinstance(value, Index):
                return index_value(clone(value.node))
            if isinstance(value, list):
                return gast.List(elts=[clone(v) for v in value], ctx=gast.Load())
            return clone(value)
        if node.id in self.fresh_names:
            return name(self.fresh_names[node.id], node.ctx)
        return node


def _as_node(derived):
    return name(derived) if isinstance(derived, str) else derived


def operand_id(node):
    """The variable name an operand denotes, or None for constants and index expressions."""
    return node.id if isinstance(node, gast.Name) else None


def instantiate(template, result, args, keywords, derivative_name, is_active, fresh,
                shapes=None, array_displays=False):
    """Instantiate `template` for `result = op(*args, **keywords)`.

    derivative_name(var) -> name of d[var]; is_active(var) -> whether var has a derivative;
    fresh(hint) -> a new temporary name; shapes: name -> shape from the shape probe, when the
    build is specialized: np.shape(v), np.ndim(v), np.size(v) of those names become constants
    (and a template `if` on them is decided; on an unknown shape it takes its `else` branch).
    array_displays: the derivative of a list or tuple display operand is np.asarray of the
    display of derivatives (a ufunc makes an array of a list: -[dA] would fail, [dA] * 2 repeat).
    Returns a list of gast statements and Accumulate items.
    """
    fdef = template.node
    bound = template.bind(args, keywords)
    params = [a.id for a in fdef.args.posonlyargs + fdef.args.args]
    bound[params[0]] = result
    if fdef.args.vararg is not None and fdef.args.vararg.id not in bound:
        bound[fdef.args.vararg.id] = []
    locals_ = getattr(template, "stored_names", None)
    if locals_ is None:  # the names a template binds, found once per template
        locals_ = template.stored_names = sorted({n.id for n in walk(fdef) if isinstance(
            n, gast.Name) and isinstance(n.ctx, gast.Store)})
    fresh_names = {local: fresh(local) for local in locals_}

    derivative = functools.partial(_derivative, derivative_name, is_active, array_displays)
    out = []
    _emit(fdef.body, template, _Substitute(bound, derivative, fresh_names),
          _ShapeFacts(shapes or {}), out)
    return out


# (module functions, not closures of instantiate: a closure that calls itself is a reference
# cycle, which only the cyclic collector frees: see pipeline.py, _collector_paused)
def _derivative(derivative_name, is_active, array_displays, operand):
    """The derivative of a template operand: a display's item by item, an active name's, or a
    Zero."""
    if isinstance(operand, (gast.Tuple, gast.List)):
        display = type(operand)(elts=[_derivative(derivative_name, is_active, array_displays, e)
                                      for e in operand.elts], ctx=gast.Load())
        if array_displays and not all(isinstance(e, Zero) for e in display.elts):
            return call(["np", "asarray"], materialize_zeros(display))
        return display
    var = operand_id(operand)
    if var is not None and is_active(var):
        return _as_node(derivative_name(var))
    return Zero(var)


def _emit(stmts, template, substitute, facts, out):
    """The template's statements, substituted, into out (an `if` decided by the call's
    constants; `d[x] = value` an Accumulate)."""
    for stmt in stmts:
        if isinstance(stmt, gast.If):
            test = static_value(facts.visit(substitute.visit(clone(stmt.test))))
            if test is SHAPE_UNKNOWN:
                test = False  # the general branch: it works for every shape
            if test is UNKNOWN:
                raise ValueError(f"template {template.node.name}: `if` must be decidable from "
                                 f"the call's constants (axis, keepdims, ...)")
            _emit(stmt.body if test else stmt.orelse, template, substitute, facts, out)
        elif isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and _is_d(stmt.targets[0]):
            target = substitute._operand(stmt.targets[0].slice)
            value = facts.visit(substitute.visit(clone(stmt.value)))
            out.append(Accumulate(target, value, template.broadcasts))
        else:
            out.append(facts.visit(substitute.visit(clone(stmt))))


UNKNOWN = object()
SHAPE_UNKNOWN = object()  # a shape fact the build does not know: take the general branch

_SHAPE_FUNCTIONS = {"shape": lambda s: s, "ndim": len,
                    "size": lambda s: int(__import__("math").prod(s))}


class _ShapeFacts(Transformer):
    """np.shape(v) / np.ndim(v) / np.size(v) (or the runtime's size_of(v)) of a probed name -> its
    constant value; a numpy ufunc of numbers (np.log(1.5), from a template) -> the Python float it
    is: a Python float is weak, so a float32 adjoint times it stays float32 as the user's 1.5 ** x is, where numpy's
    float64 scalar would make it float64 (the same bits: numpy computes it, now)."""

    def __init__(self, shapes):
        self.shapes = shapes

    def visit_Call(self, node):
        node = self.generic_visit(node)
        func = node.func
        value = _number_of(node)
        if type(value) is float and value - value == 0:  # (finite)
            return gast.Constant(value=value, kind=None)
        if (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
                and func.value.id == "np" and func.attr in _SHAPE_FUNCTIONS
                or isinstance(func, gast.Name) and func.id == "size_of") and (
                len(node.args) == 1 and not node.keywords):
            shape_of = _SHAPE_FUNCTIONS["size" if isinstance(func, gast.Name) else func.attr]
            arg = node.args[0]  # (size_of: the runtime's np.size, which a dask array allows)
            if isinstance(arg, gast.Name) and arg.id in self.shapes:
                return constant_node(shape_of(self.shapes[arg.id]))
            if number_value(arg) is not None:  # a number (np.dot(x, 1.23)): shape ()
                return constant_node(shape_of(()))
            node.shape_unknown = True  # (a name, or anything else: the general branch)
        return node

    def visit_BinOp(self, node):
        """5 // 2 + 1 (arithmetic of ints a shape fact made) -> 3: exact, so folded."""
        node = self.generic_visit(node)
        a, b = number_value(node.left), number_value(node.right)
        if type(a) is int and type(b) is int and type(node.op) in _INT_OPS and not (
                isinstance(node.op, (gast.FloorDiv, gast.Mod)) and b == 0):
            return gast.copy_location(gast.Constant(value=_INT_OPS[type(node.op)](a, b),
                                                    kind=None), node)
        return node

    def visit_Subscript(self, node):
        """(5, 3)[-1] (a shape fact indexed by a number: np.shape(a)[axis]) -> 3."""
        node = self.generic_visit(node)
        index = number_value(node.slice)
        if isinstance(node.value, gast.Tuple) and type(index) is int and isinstance(
                node.ctx, gast.Load) and -len(node.value.elts) <= index < len(node.value.elts):
            item = node.value.elts[index]
            if number_value(item) is not None:
                return item
        return node
_INT_OPS = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b,
            gast.Mult: lambda a, b: a * b, gast.FloorDiv: lambda a, b: a // b,
            gast.Mod: lambda a, b: a % b}
_NUMBER_OPS = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b,
               gast.Mult: lambda a, b: a * b, gast.Gt: lambda a, b: a > b,
               gast.GtE: lambda a, b: a >= b, gast.Lt: lambda a, b: a < b,
               gast.LtE: lambda a, b: a <= b}


def _number_of(node):
    """The Python number (or bool) an expression of numbers is: literals, + - * and
    comparisons of them, np.where of them, numpy ufuncs of them (as Python floats, numpy's own
    bits); None for anything else."""
    value = number_value(node)
    if value is not None:
        return value
    if isinstance(node, gast.BinOp) and type(node.op) in _NUMBER_OPS:
        a, b = _number_of(node.left), _number_of(node.right)
        return None if a is None or b is None else _NUMBER_OPS[type(node.op)](a, b)
    if isinstance(node, gast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _NUMBER_OPS:
        a, b = _number_of(node.left), _number_of(node.comparators[0])
        return None if a is None or b is None else _NUMBER_OPS[type(node.ops[0])](a, b)
    if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
            and isinstance(node.func.value, gast.Name) and node.func.value.id == "np"
            and not node.keywords):
        return None
    args = [_number_of(a) for a in node.args]
    if not args or any(a is None for a in args):
        return None
    if node.func.attr == "where" and len(args) == 3:
        return args[1] if args[0] else args[2]
    ufunc = getattr(np, node.func.attr, None)
    if not (isinstance(ufunc, np.ufunc) and ufunc.nout == 1 and ufunc.nin == len(args)):
        return None
    with np.errstate(all="ignore"):
        value = ufunc(*args)
    return float(value) if isinstance(value, np.floating) else None


_COMPARE = {gast.Is: lambda a, b: a is b, gast.IsNot: lambda a, b: a is not b,
            gast.Eq: lambda a, b: a == b, gast.NotEq: lambda a, b: a != b}


def static_value(node):
    """The value of a template condition known at build time (constants of the call), or UNKNOWN
    (or SHAPE_UNKNOWN when what is missing is a shape the build was not specialized to)."""
    if getattr(node, "shape_unknown", False):
        return SHAPE_UNKNOWN
    if (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
            and node.func.id == "isinstance" and len(node.args) == 2):
        # isinstance(y, int): decided for a constant; a name takes the general branch
        value, kind = node.args[0], node.args[1]
        kinds = {"int": int, "float": float, "bool": bool}
        if isinstance(value, gast.Constant) and isinstance(kind, gast.Name) and kind.id in kinds:
            return isinstance(value.value, kinds[kind.id]) and not (
                kind.id == "int" and isinstance(value.value, bool))
        return SHAPE_UNKNOWN
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.Tuple):
        items = [static_value(e) for e in node.elts]
        return UNKNOWN if any(i is UNKNOWN for i in items) else tuple(items)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
        value = static_value(node.operand)
        return value if value in (UNKNOWN, SHAPE_UNKNOWN) else not value
    if isinstance(node, gast.BoolOp):  # left to right, as Python short-circuits
        decisive = isinstance(node.op, gast.Or)  # the value that ends the evaluation
        for part in node.values:
            value = static_value(part)
            if value is UNKNOWN or value is SHAPE_UNKNOWN:
                return value
            if bool(value) == decisive:
                return decisive
        return not decisive
    if (isinstance(node, gast.Compare) and len(node.ops) == 1
            and isinstance(node.ops[0], (gast.Is, gast.IsNot))):
        # `v is None` for a value the call passes (a name, an expression): it was passed, so it
        # is not the default None
        sides = [node.left, node.comparators[0]]
        if any(isinstance(s, gast.Constant) and s.value is None for s in sides) and not all(
                isinstance(s, gast.Constant) for s in sides):
            return isinstance(node.ops[0], gast.IsNot)
    _ORDER = {gast.GtE: lambda a, b: a >= b, gast.Gt: lambda a, b: a > b,
              gast.LtE: lambda a, b: a <= b, gast.Lt: lambda a, b: a < b}
    if isinstance(node, gast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _ORDER:
        left, right = static_value(node.left), static_value(node.comparators[0])
        if UNKNOWN in (left, right):
            return UNKNOWN
        if SHAPE_UNKNOWN in (left, right):
            return SHAPE_UNKNOWN
        return _ORDER[type(node.ops[0])](left, right)
    if isinstance(node, gast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
        left, right = static_value(node.left), static_value(node.comparators[0])
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        if left is SHAPE_UNKNOWN or right is SHAPE_UNKNOWN:
            return SHAPE_UNKNOWN
        return _COMPARE[type(node.ops[0])](left, right)
    return UNKNOWN


# ---------------------------------------------------------------------------------------------
# symbolic zeros (forward mode)

# calls linear in their first argument (f(0, ...) == 0) and products (zero if any argument is)
# other than those of the ops declared @linear or @bilinear, which REGISTRY.linear_call knows:
# conversions (their tangents go through through_cast or a copy), np.conj (the registry would
# spell it np.conjugate) and np.cross (its adjoint broadcasts, its tangent does not)
LINEAR_FIRST = {"np.asarray", "np.array", "np.ascontiguousarray", "np.copy", "np.conj"}
MULTILINEAR = {"np.cross"}


def _call_name(node):
    parts = []
    func = node.func
    while isinstance(func, gast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, gast.Name):
        parts.append(func.id)
        return ".".join(reversed(parts))
    return None


def _zero_of_linear(declared, args, keywords):
    """The Zero a call of a declared linear op is (every operand it is linear in is zero) or
    of a bilinear one (one of them is); None if it is not zero or does not bind."""
    try:
        bound = declared.bind(args, {kw.arg: kw.value for kw in keywords})
    except TypeError:
        return None
    zeros = [bound[p] for p in declared.operands if isinstance(bound[p], Zero)]
    if zeros and (declared.bilinear or len(zeros) == len(declared.operands)):
        return zeros[0]
    return None


def linear_helpers():
    return set(runtime.LINEAR_HELPERS)


def simplify_zeros(node):
    """Fold symbolic zeros out of an expression; returns a Zero if the whole value is zero."""
    if isinstance(node, Zero):
        return node
    if isinstance(node, gast.BinOp):
        left, right = simplify_zeros(node.left), simplify_zeros(node.right)
        lz, rz = isinstance(left, Zero), isinstance(right, Zero)
        op = type(node.op)
        if op is gast.Add:
            if lz and rz:
                return left
            if lz:
                return right
            if rz:
                return left
        elif op is gast.Sub:
            if lz and rz:
                return left
            if rz:
                return left
            if lz:
                return gast.UnaryOp(op=gast.USub(), operand=right)
        elif op in (gast.Mult, gast.MatMult):
            if lz or rz:
                return left if lz else right
        elif op in (gast.Div, gast.FloorDiv, gast.Mod):
            if lz:
                return left
        node.left, node.right = left, right
        return node
    if isinstance(node, gast.UnaryOp):
        operand = simplify_zeros(node.operand)
        if isinstance(operand, Zero) and isinstance(node.op, (gast.USub, gast.UAdd)):
            return operand
        node.operand = operand
        return node
    if isinstance(node, gast.Call):
        args = [simplify_zeros(a) for a in node.args]
        for kw in node.keywords:
            kw.value = simplify_zeros(kw.value)
        fname = _call_name(node)
        if args and isinstance(args[0], Zero) and (
                fname in LINEAR_FIRST or fname in linear_helpers()):
            return args[0]
        if fname in MULTILINEAR and any(isinstance(a, Zero) for a in args):
            return next(a for a in args if isinstance(a, Zero))
        declared = REGISTRY.linear_call(fname)
        zero = None if declared is None else _zero_of_linear(declared, args, node.keywords)
        if zero is not None:
            return zero
        if fname == "add_adjoint" and len(args) == 2 and any(isinstance(a, Zero) for a in args):
            return args[1] if isinstance(args[0], Zero) else args[0]  # a sum
        node.args = args
        return node
    if isinstance(node, gast.Subscript):
        value = simplify_zeros(node.value)
        if isinstance(value, Zero):
            return value
        node.value = value
        return node
    if isinstance(node, (gast.List, gast.Tuple)):
        elts = [simplify_zeros(e) for e in node.elts]
        node.elts = elts
        return node
    return node


class _MaterializeZeros(Transformer):
    def __init__(self, containers):
        self.containers = containers

    def visit_Zero(self, node):
        if isinstance(node.var, str) and node.var in self.containers:
            return call(["zero_tangent"], name(node.var))  # (zeros in a list's or dict's shape)
        if isinstance(node.var, str):
            return gast.Call(func=gast.Attribute(value=name("np"), attr="zeros_like",
                                                 ctx=gast.Load()),
                             args=[name(node.var)], keywords=[])
        return gast.Constant(value=0.0, kind=None)

    def visit_Subscript(self, node):
        """An item of a zero (d[pair][0] in a template, pair's tangent zero): the zeros of the
        item, np.zeros_like(pair[0]). The zeros of the whole were wrong for a tuple whose items
        differ (np.zeros_like((c, True)) raises) and for a container of arrays (a list's)."""
        if isinstance(node.value, Zero) and isinstance(node.value.var, str):
            item = gast.Subscript(value=name(node.value.var), slice=node.slice, ctx=gast.Load())
            return call(["zero_tangent"], item)
        return self.generic_visit(node)

    def visit(self, node):
        if isinstance(node, Zero):
            return self.visit_Zero(node)
        return super().visit(node)


def materialize_zeros(node, containers=()):
    """Zeros that survived simplification become np.zeros_like(v) (or 0.0 for a constant);
    zero_tangent(v) for the names in containers (lists, tuples, dicts)."""
    return _MaterializeZeros(containers).visit(node)
