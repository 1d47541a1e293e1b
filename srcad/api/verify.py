"""Verify mode: each optimized derivative is checked against the unoptimized one.

With verify on (srcad.grad(f, verify=True), or SRCAD_VERIFY=1 in the environment; the test
suite and the fuzzer turn it on), the first call of every new specialization of a derivative
also runs the derivative built with every optimization pass off (pipeline.PASSES: generic code,
plain template instantiation) on copies of the same arguments, and compares the two results.
It also checks that the call left its arguments as they were. A difference raises VerifyError,
naming the function and the pass that made it, found by bisection: the passes are switched on
one at a time, in the order they run, until the result departs from the reference.

    srcad.grad(f, verify=True)(x)
    VerifyError: srcad's optimized grad of f (model.py:12) differs from the unoptimized one
    on this call's arguments: gradient[2] is 0.41, the unoptimized derivative gives 1.37.
    The first pass that changes it: signs (switch it off with disable="signs").

Verify mode costs one more build and call per specialization: for tests, not production.
"""
import copy
import types

import numpy as np

from ..errors import SrcadError, VerifyError
from ..analysis.isolation import quiet, roots_of, Saved
from ..optimize.manager import verify_requested
from ..pipeline import PASSES
from .trees import check_real

ALL = frozenset(PASSES)


def verify_on(verify):
    """verify, or SRCAD_VERIFY's setting when verify is None."""
    return verify_requested() if verify is None else bool(verify)


def verify_call(derivative, entry, args, kwargs, extra):
    """Call the specialized function of `entry` as derivative.run would, after running the
    unoptimized derivative on copies of the arguments; raise VerifyError if they differ or if the
    call changed its arguments. Returns the call's result."""
    inputs = (args, kwargs, extra)
    before = _copy_inputs(inputs)
    reference = _reference(derivative, args, kwargs)
    expected = _run_copy(derivative, reference, inputs) if reference is not None else None
    result = derivative.invoke(entry, args, kwargs, extra)
    changed = _changed_input(before, inputs)
    if changed is not None:
        raise VerifyError(f"{_what(derivative)} changed its arguments: {changed}. A derivative "
                          f"call must leave its inputs as they were.")
    if reference is None:
        return result
    if isinstance(expected, _Raised):
        raise VerifyError(f"{_what(derivative)}: the unoptimized derivative raised "
                          f"{expected.error!r} on this call's arguments, the optimized one "
                          f"returned a value")
    scale = scale_of(expected, result, args, kwargs, extra)
    difference = first_difference(expected, result, scale=scale)
    if difference is not None:
        raise VerifyError(f"{_what(derivative)} differs from the unoptimized derivative on this "
                          f"call's arguments: {difference}. "
                          f"{_bisect(derivative, inputs, expected, scale)}")
    return result


def _changed_input(before, after):
    """A sentence on the first array argument a call changed, or None. (Lists and dicts it is
    given may grow and shrink: appending to a list passed in is f's own side effect, which the
    derivative call runs too; the arrays they held before must not change.)"""
    (args, kwargs, extra), (args_now, kwargs_now, extra_now) = before, after
    named = [(f"argument {i}", a, b) for i, (a, b) in enumerate(zip(args, args_now))]
    named += [(f"argument {k}=", kwargs[k], kwargs_now[k]) for k in kwargs]
    named += [("the seed or tangent", extra, extra_now)] if extra else []
    for path, was, now in named:
        found = _first_array_change(was, now, path)
        if found is not None:
            return found
    return None


def _first_array_change(was, now, path):
    if isinstance(was, dict) and isinstance(now, dict):
        items = [(f"{path}[{k!r}]", was[k], now[k]) for k in was if k in now]
    elif isinstance(was, (list, tuple)) and isinstance(now, (list, tuple)):
        items = [(f"{path}[{i}]", a, b) for i, (a, b) in enumerate(zip(was, now))]
    elif isinstance(was, np.ndarray):
        return first_difference(was, now, path, exact=True)
    else:
        return None
    for where, a, b in items:
        found = _first_array_change(a, b, where)
        if found is not None:
            return found
    return None


class _Raised:
    def __init__(self, error):
        self.error = error


def _what(derivative):
    func = derivative.func
    code = getattr(func, "__code__", None)
    where = f" ({code.co_filename}:{code.co_firstlineno})" if code is not None else ""
    return f"srcad's optimized {derivative.kind} of {getattr(func, '__qualname__', func)}{where}"


def _reference(derivative, args, kwargs):
    """The unoptimized derivative for these arguments: generic code with every pass off, or, if
    srcad cannot build that, code specialized to them with every other pass off; None if
    neither builds (nothing to compare with)."""
    for disabled in (ALL, ALL - {"specialize"}):
        try:
            if "specialize" in disabled:  # (the code for any arguments refuses complex ones)
                check_real(derivative.target, args, kwargs)
            return derivative.build_for(args, kwargs, disabled | derivative.disabled)
        except SrcadError:
            continue
    return None


def _run_copy(derivative, entry, inputs):
    """Run entry on copies of the inputs, leaving the random generators, lists, dicts and
    objects f reaches as they were, its prints unshown (analysis/isolation.py)."""
    args, kwargs, extra = _copy_inputs(inputs)
    with Saved(roots_of(derivative.target, inputs[0], inputs[1])), quiet():
        try:
            return derivative.invoke(entry, args, kwargs, extra)
        except Exception as error:  # compared, not raised: the optimized call may raise it
            return _Raised(error)


def _bisect(derivative, inputs, expected, scale):
    """Which pass first makes the result depart from the reference: switch passes on one at a
    time, in the order they run."""
    args, kwargs, _ = inputs
    for k in range(1, len(PASSES) + 1):
        disabled = frozenset(PASSES[k:]) | derivative.disabled
        try:
            entry = derivative.build_for(args, kwargs, disabled)
        except SrcadError:
            continue
        got = _run_copy(derivative, entry, inputs)
        if isinstance(got, _Raised) or first_difference(expected, got,
                                                          scale=scale) is not None:
            return (f"The first pass that changes it: {PASSES[k - 1]} (switch it off with "
                    f"disable={PASSES[k - 1]!r}, and please report this bug).")
    return "No single pass reproduces the difference when the passes are switched on in turn."


def _copy_inputs(inputs):
    """Copies of (args, kwargs, extra); the keys of extra stay the same objects."""
    args, kwargs, extra = inputs
    memo = {id(key): key for key in (extra or {})}
    return (_snapshot(args, memo), _snapshot(kwargs, memo),
            {key: _snapshot(value, memo) for key, value in extra.items()} if extra else extra)


def _snapshot(value, memo=None):
    try:
        return copy.deepcopy(value, dict(memo or {}))
    except Exception:  # not copyable: compared as itself
        return value


def scale_of(*values):
    """The largest finite magnitude among the numbers in values (nested): the results and the
    inputs of a call. Rounding errors of a derivative's parts are relative to the magnitudes
    the computation meets, not to each entry: an entry that is exactly 0 in one build (an
    invariance, a cancellation) is 1e-16 in another."""
    largest = 0.0
    for value in values:
        if isinstance(value, dict):
            largest = max(largest, scale_of(*value.values()))
        elif isinstance(value, (tuple, list)):
            largest = max(largest, scale_of(*value))
        elif isinstance(value, types.SimpleNamespace):
            largest = max(largest, scale_of(*vars(value).values()))
        elif _numeric(value):
            a = np.abs(np.asarray(value))
            if a.dtype.kind in "fciu":
                finite = a[np.isfinite(a)]
                largest = max(largest, float(np.max(finite, initial=0.0)))
    return largest


def first_difference(expected, got, path="result", exact=False, scale=0.0):
    """A sentence on the first place where got differs from expected, or None. exact: bit for
    bit (arguments before and after a call); else to rounding relative to scale (the passes
    reorder operations). Where expected is nan or inf, f's derivative is not defined (the
    passes may give a number there: cancel.py, singular.py)."""
    if isinstance(expected, dict) or isinstance(got, dict):
        if not (isinstance(expected, dict) and isinstance(got, dict)) or set(expected) != set(got):
            return f"{path} is {_show(got)}, expected {_show(expected)}"
        for key in expected:
            found = first_difference(expected[key], got[key], f"{path}[{key!r}]", exact, scale)
            if found:
                return found
        return None
    if isinstance(expected, (tuple, list)) or isinstance(got, (tuple, list)):
        if type(expected) is not type(got) or len(expected) != len(got):
            return f"{path} is {_show(got)}, expected {_show(expected)}"
        for i, (a, b) in enumerate(zip(expected, got)):
            found = first_difference(a, b, f"{path}[{i}]", exact, scale)
            if found:
                return found
        return None
    if isinstance(expected, types.SimpleNamespace) or isinstance(got, types.SimpleNamespace):
        return first_difference(getattr(expected, "__dict__", expected),
                                 getattr(got, "__dict__", got), path, exact, scale)
    if _numeric(expected) and _numeric(got):
        return _numbers_differ(expected, got, path, exact, scale)
    if expected is None or got is None or isinstance(expected, (str, bool, int)):
        return None if expected == got else f"{path} is {_show(got)}, expected {_show(expected)}"
    return None  # other objects: not compared


def _numeric(value):
    return isinstance(value, (int, float, complex, np.ndarray, np.generic)) and not isinstance(
        value, bool) and np.asarray(value).dtype.kind in "iufc"


def _numbers_differ(expected, got, path, exact, scale):
    a, b = np.asarray(expected), np.asarray(got)
    if a.shape != b.shape:
        return f"{path} has shape {b.shape}, expected {a.shape}"
    if exact:
        same = a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
        return None if same else f"{path} was {_show(expected)} and is now {_show(got)}"
    if a.dtype.kind not in "fciub" or b.dtype.kind not in "fciub":
        return None
    wide = np.complex128 if "c" in a.dtype.kind + b.dtype.kind else np.float64
    a, b = a.astype(wide), b.astype(wide)
    defined = np.isfinite(a)  # (elsewhere the derivative is not defined: any value goes)
    if not np.all(np.isfinite(b[defined])):
        return f"{path} is {_show(got)}, expected {_show(expected)} (not finite where it should be)"
    single = any(np.asarray(v).dtype in (np.float32, np.complex64) for v in (expected, got))
    rtol = 1e-4 if single else 1e-8
    error = np.max(np.abs(a[defined] - b[defined]), initial=0.0)
    if error > rtol * scale + 1e-300:
        return f"{path} is {_show(got)}, expected {_show(expected)} (difference {error:.3g})"
    return None


def _show(value):
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."
