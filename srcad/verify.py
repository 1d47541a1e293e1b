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
import os
import random
import types

import numpy as np

from .errors import SrcadError, VerifyError
from .pipeline import PASSES

ALL = frozenset(PASSES)


def verify_on(verify):
    """verify, or SRCAD_VERIFY's setting when verify is None."""
    if verify is None:
        return os.environ.get("SRCAD_VERIFY", "").lower() not in ("", "0", "false", "no", "off")
    return bool(verify)


def verify_call(derivative, entry, args, kwargs, extra):
    """Call the specialized function of `entry` as derivative.run would, after running the
    unoptimized derivative on copies of the arguments; raise VerifyError if they differ or if the
    call changed its arguments. Returns the call's result."""
    inputs = (args, kwargs, extra)
    before = _snapshot(inputs)
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
    difference = _first_difference(expected, result)
    if difference is not None:
        raise VerifyError(f"{_what(derivative)} differs from the unoptimized derivative on this "
                          f"call's arguments: {difference}. "
                          f"{_bisect(derivative, inputs, expected)}")
    return result


def _changed_input(before, after):
    """A sentence on the first argument a call changed, or None."""
    (args, kwargs, extra), (args_now, kwargs_now, extra_now) = before, after
    named = [(f"argument {i}", a, b) for i, (a, b) in enumerate(zip(args, args_now))]
    named += [(f"argument {k}=", kwargs[k], kwargs_now[k]) for k in kwargs]
    named += [("the seed or tangent", extra, extra_now)] if extra else []
    for path, was, now in named:
        found = _first_difference(was, now, path, exact=True)
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
            return derivative.build_for(args, kwargs, disabled | derivative.disabled)
        except SrcadError:
            continue
    return None


def _run_copy(derivative, entry, inputs):
    """Run entry on copies of the inputs, leaving the global random states as they were."""
    args, kwargs, extra = _snapshot(inputs)
    states = np.random.get_state(), random.getstate()
    try:
        return derivative.invoke(entry, args, kwargs, extra)
    except Exception as error:  # compared, not raised: the optimized call may raise it too
        return _Raised(error)
    finally:
        np.random.set_state(states[0])
        random.setstate(states[1])


def _bisect(derivative, inputs, expected):
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
        if isinstance(got, _Raised) or _first_difference(expected, got) is not None:
            return (f"The first pass that changes it: {PASSES[k - 1]} (switch it off with "
                    f"disable={PASSES[k - 1]!r}, and please report this bug).")
    return "No single pass reproduces the difference when the passes are switched on in turn."


def _snapshot(value):
    try:
        return copy.deepcopy(value)
    except Exception:  # not copyable: compared as itself
        return value


def _first_difference(expected, got, path="result", exact=False):
    """A sentence on the first place where got differs from expected, or None. exact: bit for
    bit (arguments before and after a call); else to rounding (the passes reorder operations)."""
    if isinstance(expected, dict) or isinstance(got, dict):
        if not (isinstance(expected, dict) and isinstance(got, dict)) or set(expected) != set(got):
            return f"{path} is {_show(got)}, expected {_show(expected)}"
        for key in expected:
            found = _first_difference(expected[key], got[key], f"{path}[{key!r}]", exact)
            if found:
                return found
        return None
    if isinstance(expected, (tuple, list)) or isinstance(got, (tuple, list)):
        if type(expected) is not type(got) or len(expected) != len(got):
            return f"{path} is {_show(got)}, expected {_show(expected)}"
        for i, (a, b) in enumerate(zip(expected, got)):
            found = _first_difference(a, b, f"{path}[{i}]", exact)
            if found:
                return found
        return None
    if isinstance(expected, types.SimpleNamespace) or isinstance(got, types.SimpleNamespace):
        return _first_difference(getattr(expected, "__dict__", expected),
                                 getattr(got, "__dict__", got), path, exact)
    if _numeric(expected) and _numeric(got):
        return _numbers_differ(expected, got, path, exact)
    if exact and isinstance(expected, (np.random.RandomState, np.random.Generator)):
        return None  # (a random state is drawn from: its change is the user's own statement)
    if expected is None or got is None or isinstance(expected, (str, bool, int)):
        return None if expected == got else f"{path} is {_show(got)}, expected {_show(expected)}"
    return None  # other objects: not compared


def _numeric(value):
    return isinstance(value, (int, float, complex, np.ndarray, np.generic)) and not isinstance(
        value, bool)


def _numbers_differ(expected, got, path, exact):
    a, b = np.asarray(expected), np.asarray(got)
    if a.shape != b.shape:
        return f"{path} has shape {b.shape}, expected {a.shape}"
    if exact:
        same = a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
        return None if same else f"{path} was {_show(expected)} and is now {_show(got)}"
    if a.dtype.kind not in "fciub" or b.dtype.kind not in "fciub":
        return None
    a, b = a.astype(np.complex128 if "c" in a.dtype.kind + b.dtype.kind else np.float64), \
        b.astype(np.complex128 if "c" in a.dtype.kind + b.dtype.kind else np.float64)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    if not np.array_equal(nan_a, nan_b):
        return f"{path} is {_show(got)}, expected {_show(expected)} (NaN in other places)"
    a, b = np.where(nan_a, 0, a), np.where(nan_b, 0, b)
    inf_a, inf_b = np.isinf(a), np.isinf(b)
    if not np.array_equal(inf_a, inf_b) or not np.array_equal(a[inf_a], b[inf_b]):
        return f"{path} is {_show(got)}, expected {_show(expected)} (inf in other places)"
    a, b = np.where(inf_a, 0, a), np.where(inf_b, 0, b)
    single = any(np.asarray(v).dtype in (np.float32, np.complex64) for v in (expected, got))
    rtol = 1e-4 if single else 1e-9
    scale = max(np.max(np.abs(a), initial=0.0), np.max(np.abs(b), initial=0.0))
    error = np.max(np.abs(a - b), initial=0.0)
    if error > rtol * scale + 1e-300:
        return f"{path} is {_show(got)}, expected {_show(expected)} (difference {error:.3g})"
    return None


def _show(value):
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."
