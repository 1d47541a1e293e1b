"""Keep generated programs away from the points where they are not differentiable.

Finite differences are a valid oracle only where the program is smooth. This module rewrites a
program's source into an *instrumented* copy that computes the same numbers but checks, at every
place a derivative can jump, that the values are at a safe distance from the jump:

    np.log(e), np.sqrt(e)     e > MARGIN                          (and a ** p, p not an integer)
    np.abs(e), a / b          |e| > MARGIN, |b| > MARGIN          (b not a literal)
    np.maximum(a, b), minimum |a - b| > MARGIN elementwise
    np.max(e), e.min(), ...   no two entries within MARGIN along the reduced axis (ties)
    np.sort(e), e.sort()      no two entries within MARGIN along the sorted axis
    np.sin(e), cos, tan       |e| < 1000 (no meaningful digits beyond)
    a < b, a == b, ...        |a - b| > MARGIN wherever the operands are floats (if, while,
                              a if c else b, np.where masks, y[mask] = ...)

A violated check raises GuardViolation. The generator runs the instrumented copy on every call's
arguments and keeps a program (or a statement) only if no check fails, and the shrinker keeps a
smaller program only under the same condition, so reported programs stay in smooth regions.
The plain source (what srcad sees) never contains the checks.
"""
import ast
import warnings

import numpy as np

MARGIN = 0.02
GUARD = "_fz_guard"  # the name of the Guards object in instrumented code


class GuardViolation(Exception):
    """The program came too close to a point where its derivative is not defined."""


def _floaty(value):
    """True when value holds floating-point numbers (ints and bools compare exactly)."""
    if isinstance(value, (bool, int, np.integer, np.bool_)):
        return False
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "fc"
    return isinstance(value, (float, np.floating))


def _margin(reference):
    return MARGIN * (1.0 + 0.01 * float(np.max(np.abs(reference), initial=0.0)))


class Guards:
    """The checks instrumented code calls. Each returns its (first) argument unchanged."""

    def positive(self, value):
        if np.min(value, initial=np.inf) <= MARGIN or not np.all(np.isfinite(value)):
            raise GuardViolation(f"log/sqrt/power of a value near or below 0: {value!r}")
        return value

    def nonzero(self, value):
        if _floaty(value) and np.min(np.abs(value), initial=np.inf) <= _margin(value):
            raise GuardViolation(f"abs or division near 0: {value!r}")
        return value

    def apart(self, a, b):
        if np.min(np.abs(np.subtract(a, b)), initial=np.inf) <= _margin(np.abs(a) + np.abs(b)):
            raise GuardViolation("maximum/minimum of nearly equal values")
        return a, b

    def distinct(self, value, axis=None):
        """No ties along axis (None: over all entries)."""
        array = np.asarray(value)
        if array.size < 2:
            return value
        if axis is None or array.ndim == 0:
            flat = np.sort(array.ravel())
            gaps = np.diff(flat)
        else:
            gaps = np.diff(np.sort(array, axis=axis), axis=axis)
        if gaps.size and np.min(gaps) <= _margin(array):
            raise GuardViolation("max/min/sort of nearly equal entries")
        return value

    def compare(self, a, b, op):
        if (_floaty(a) or _floaty(b)) and np.min(np.abs(np.subtract(a, b)), initial=np.inf) \
                <= _margin(np.abs(a) + np.abs(b)):
            raise GuardViolation("a comparison of nearly equal floats")
        return _COMPARE[op](a, b)

    def moderate(self, value):
        """The argument of a periodic function: sin(7e11) has no meaningful digits."""
        if np.max(np.abs(value), initial=0.0) > 1e3:
            raise GuardViolation("sin/cos/tan of a huge argument")
        return value

    def power(self, base, exponent):
        self.positive(base)
        return base ** exponent

    def divide(self, a, b):
        self.nonzero(b)
        return a / b


_COMPARE = {"Lt": lambda a, b: a < b, "LtE": lambda a, b: a <= b, "Gt": lambda a, b: a > b,
            "GtE": lambda a, b: a >= b, "Eq": lambda a, b: a == b, "NotEq": lambda a, b: a != b}

_POSITIVE = {"log", "sqrt", "log2", "log10"}
_NONZERO = {"abs", "absolute", "fabs", "sign"}
_APART = {"maximum", "minimum", "fmax", "fmin"}
_PERIODIC = {"sin", "cos", "tan"}
_TIES = {"max", "min", "amax", "amin", "sort", "argmax", "argmin", "median"}


def _guard_call(method, *args):
    return ast.Call(func=ast.Attribute(value=ast.Name(id=GUARD, ctx=ast.Load()), attr=method,
                                       ctx=ast.Load()), args=list(args), keywords=[])


def _is_np(func):
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
        func.value.id in ("np", "numpy")


def _integer_constant(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and \
        float(node.value).is_integer()


def _constant(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant)


def _axis_of(call, position):
    for keyword in call.keywords:
        if keyword.arg == "axis":
            return keyword.value
    if len(call.args) > position:
        return call.args[position]
    return None


class _Instrument(ast.NodeTransformer):
    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if _is_np(func) and node.args:
            name = func.attr
            if name in _POSITIVE:
                node.args[0] = _guard_call("positive", node.args[0])
            elif name in _NONZERO:
                node.args[0] = _guard_call("nonzero", node.args[0])
            elif name in _PERIODIC:
                node.args[0] = _guard_call("moderate", node.args[0])
            elif name in _APART and len(node.args) >= 2:
                pair = _guard_call("apart", node.args[0], node.args[1])
                node.args[:2] = [ast.Starred(value=pair, ctx=ast.Load())]
            elif name in _TIES:
                axis = _axis_of(node, 1)
                if name == "sort" and axis is None:
                    axis = ast.Constant(value=-1)
                node.args[0] = _guard_call("distinct", node.args[0],
                                           axis if axis is not None else ast.Constant(None))
        elif isinstance(func, ast.Attribute) and func.attr in ("max", "min", "sort") \
                and not _is_np(func):
            axis = _axis_of(node, 0)
            if func.attr == "sort" and axis is None:
                axis = ast.Constant(value=-1)
            func.value = _guard_call("distinct", func.value,
                                     axis if axis is not None else ast.Constant(None))
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) != 1 or type(node.ops[0]).__name__ not in _COMPARE:
            return node
        return _guard_call("compare", node.left, node.comparators[0],
                           ast.Constant(type(node.ops[0]).__name__))

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow) and not _integer_constant(node.right):
            return _guard_call("power", node.left, node.right)
        if isinstance(node.op, ast.Div) and not _constant(node.right):
            return _guard_call("divide", node.left, node.right)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Div) and not _constant(node.value):
            node.value = _guard_call("nonzero", node.value)
        if isinstance(node.op, ast.Pow) and not _integer_constant(node.value):
            target = ast.Name(id=node.target.id, ctx=ast.Load()) if isinstance(
                node.target, ast.Name) else None
            if target is not None:
                return [ast.Expr(value=_guard_call("positive", target)), node]
        return node


def instrument(source):
    """The instrumented copy of module or statement source (see the module docstring)."""
    tree = ast.parse(source)
    tree = _Instrument().visit(tree)
    ast.fix_missing_locations(tree)
    return tree


def instrumented_code(source, filename="<fuzz>"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        return compile(instrument(source), filename, "exec")


def namespace():
    """A fresh namespace for instrumented code: numpy, srcad (a loop may be marked
    srcad.checkpoint), scipy where installed (stmts.linalg's scipy.linalg forms) and the
    guards."""
    import srcad
    out = {"np": np, "srcad": srcad, GUARD: Guards(), "__name__": "fuzz_instrumented"}
    try:
        import scipy.linalg
    except ImportError:
        return out
    out["scipy"] = scipy
    return out
