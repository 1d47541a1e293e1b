"""complexes: where complex values may be differentiated, and which real values take the real
part of their adjoints.

srcad's convention for a complex value z = u + iv (templates/numpy_fft.py): its adjoint is
dL/du - i dL/dv. Under it the templates of holomorphic ops (+ - * / @, ** n, sums, indexing,
reshapes, exp), of the linear maps np.fft computes, and of np.real, np.imag, np.conj are right;
np.abs is written complex_abs, whose templates hold for complex values; others (np.angle,
comparisons, np.maximum, ...) are not right for them. So a complex value may meet
only those ops, and this is checked where the shape probe knows which values are complex: in a
build specialized to the arguments. A build for any arguments (srcad.source without them, a
helper's derivative) that would make complex values is refused.

    z = np.fft.rfft(x)         x is real, z complex: x's adjoint is the real part of what
    p = z * np.conj(z)         reaches it (real_parts: np.real(...) around each contribution)
    y = np.abs(z)              written complex_abs(z), whose templates hold for complex z
    y = np.maximum(z, 0)       refused, at the user's line
"""
import types

import gast
import numpy as np

from .. import runtime
from ..syntax.naming import walk
from ..syntax.nodes import name

_REAL = ("e", "f", "d", "g")
_COMPLEX = ("F", "D", "G")
_BINARY = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.MatMult)
_CALLS = {np.real, np.imag, np.conj, np.conjugate, np.sum, np.mean, np.reshape, np.transpose,
          np.exp, np.dot, np.matmul, np.multiply, np.add, np.subtract, np.divide, np.negative}
_HELPERS = {"complex_abs"}  # (runtime helpers written here, whose templates hold for them)
_HINT = ("take np.real(z), np.imag(z) or np.abs(z) before other functions: srcad "
         "differentiates complex values through + - * / @, ** n, indexing, np.sum, np.mean, "
         "reshapes, np.exp, np.conj, np.abs and np.fft")


_TRANSFORMS = {"fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "fftn", "ifftn", "rfft2",
               "irfft2", "rfftn", "irfftn", "hfft", "ihfft"}  # (those that make complex values)


def _is_fft(value, transforms=False):
    """Whether value is a function of np.fft (one of _TRANSFORMS)."""
    module = getattr(value, "__module__", "") or getattr(
        getattr(value, "__wrapped__", None), "__module__", "")
    return module == "numpy.fft" and (not transforms or getattr(value, "__name__", "")
                                      in _TRANSFORMS)


def _allowed(value, scope):
    """Whether the right-hand side keeps to the ops whose templates hold for complex values."""
    if isinstance(value, (gast.Name, gast.Constant, gast.Subscript, gast.Tuple, gast.List)):
        return True
    if isinstance(value, gast.UnaryOp):
        return isinstance(value.op, (gast.USub, gast.UAdd))
    if isinstance(value, gast.BinOp):
        if isinstance(value.op, gast.Pow):
            return isinstance(value.right, gast.Constant) and type(value.right.value) is int
        return isinstance(value.op, _BINARY)
    if isinstance(value, gast.Call):
        func = scope.lookup(value.func)
        return func is not None and (_is_fft(func) or any(func is f for f in _CALLS) or (
            isinstance(value.func, gast.Name) and value.func.id in _HELPERS
            and func is runtime.HELPERS.get(value.func.id)))
    return False


def real_parts(fdef, scope, activity, floats, specialized, info, wrt_names=()):
    """The real names whose adjoints take the real part (they meet complex values); a
    SrcadError where a complex value meets an op srcad cannot differentiate it through, where
    the build cannot tell which values are complex, or where it differentiates with respect
    to a complex argument (the API refuses those too: derivatives._check_arguments)."""
    active = {v for v in activity.varied if activity(v)}
    complex_names = {v for v in active if floats.get(v) in _COMPLEX}
    complex_wrt = [v for v in wrt_names if floats.get(v) in _COMPLEX]
    if complex_wrt:
        raise info.error(fdef, f"srcad does not differentiate with respect to complex "
                               f"arguments, and {complex_wrt[0]} is complex",
                         hint="pass the real and imaginary parts as two float arrays")
    makers = [n for n in walk(fdef) if (isinstance(n, gast.Call) and _is_fft(
        scope.lookup(n.func), transforms=True)) or (isinstance(n, gast.Constant) and isinstance(
            n.value, complex))]  # (np.fft's transforms, and 1j)
    if not complex_names and not makers:
        return set()
    if not specialized:
        raise info.error(makers[0] if makers else fdef, "srcad differentiates complex "
                         "values (np.fft) only in a derivative built for the arguments, where "
                         "it knows which values are complex: to first order, in the function "
                         "differentiated itself", hint="call np.fft in the function you "
                         "differentiate, not in a helper of it; pass it arrays and numbers (for "
                         "lists, tuples or dicts of them srcad builds code for any arguments); "
                         "differentiate it once (not hessian or a derivative of a derivative); "
                         "for a convolution, scipy.signal.fftconvolve differentiates to any "
                         "order")
    maybe = {v for v in active if floats.get(v) not in _REAL}  # complex, or not known
    meets = set()
    for stmt in walk(fdef):
        if isinstance(stmt, gast.Return) and stmt.value is not None:
            out = [n.id for n in walk(stmt.value) if isinstance(n, gast.Name)
                   and n.id in complex_names]
            if out:
                raise info.error(stmt, "srcad differentiates functions with real outputs, and "
                                       "this one returns a complex value",
                                 hint="return np.real(...), np.imag(...) or |z| ** 2 as "
                                      "np.real(z * np.conj(z))")
            continue
        if not isinstance(stmt, gast.Assign):
            continue
        targets = {n.id for t in stmt.targets for n in walk(t) if isinstance(n, gast.Name)}
        reads = {n.id for n in walk(stmt.value) if isinstance(n, gast.Name)}
        if not (targets | reads) & maybe:
            continue
        if isinstance(stmt.value, gast.Call) and any(scope.lookup(stmt.value.func) is f for f in (
                np.abs, np.absolute)) and not reads & {v for v in active if floats.get(v)
                                                        in _REAL}:  # |z|: its own templates
            stmt.value.func = name("complex_abs")
            scope.injected["complex_abs"] = runtime.HELPERS["complex_abs"]
        if not _allowed(stmt.value, scope):
            helper = isinstance(stmt.value, gast.Call) and isinstance(
                scope.lookup(stmt.value.func), types.FunctionType)
            if helper:
                raise info.error(stmt, "srcad does not differentiate complex values passed to "
                                       "or returned by a helper", hint="call np.fft in the "
                                       "function you differentiate, not in a helper of it, "
                                       "and pass the helper real values (np.real, np.imag)")
            raise info.error(stmt, "srcad does not differentiate this operation on complex "
                                   "values (or values it cannot tell are real)", hint=_HINT)
        if targets & maybe:
            meets |= {v for v in reads & active if floats.get(v) in _REAL}
    return meets
