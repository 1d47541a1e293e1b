"""What the findings share: central differences (the right numbers) and a report of srcad's
numbers next to them. Each finding script exits with status 1 while its bug is there and 0 once
it is fixed:

    for f in tests/fuzz/findings/[a-z]*.py; do .venv/bin/python $f; done
"""
import sys
import traceback

import numpy as np

_FAILED = []


def flat(value):
    if isinstance(value, (tuple, list)):
        return np.concatenate([flat(v) for v in value]) if value else np.zeros(0)
    return np.ravel(np.asarray(value, dtype=float))


def numeric_vjp(f, args, i, dy=1.0, h=1e-6):
    """<dy, d f / d args[i]> by central differences, entry by entry (dy=1.0: the gradient of a
    scalar f)."""
    x = np.asarray(args[i], dtype=float)
    g = np.zeros(x.shape)
    for j in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[j] += h
        down[j] -= h
        a, b = list(args), list(args)
        a[i] = up if isinstance(args[i], np.ndarray) else float(up)
        b[i] = down if isinstance(args[i], np.ndarray) else float(down)
        g[j] = float(flat(dy) @ (flat(f(*a)) - flat(f(*b)))) / (2 * h)
    return g if isinstance(args[i], np.ndarray) else float(g)


def numeric_jvp(f, args, wrt, tangents, h=1e-6):
    """J v by a central difference along the tangents."""
    a, b = list(args), list(args)
    for i, t in zip(wrt, tangents):
        a[i] = args[i] + h * t
        b[i] = args[i] - h * t
    return (flat(f(*a)) - flat(f(*b))) / (2 * h)


def compare(label, got, want, rtol=1e-5, atol=1e-7):
    """Print srcad's number and the right one; remember a mismatch."""
    got_flat, want_flat = flat(got), flat(want)
    same = got_flat.shape == want_flat.shape and np.allclose(got_flat, want_flat, rtol=rtol,
                                                             atol=atol)
    print(f"{label}\n    srcad: {_show(got)}\n    right: {_show(want)}"
          f"{'' if same else '    <-- differs'}")
    if not same:
        _FAILED.append(label)
    return same


def expect(label, condition, detail):
    """A property that must hold (a dtype, an unchanged argument, ...)."""
    print(f"{label}: {detail}{'' if condition else '    <-- wrong'}")
    if not condition:
        _FAILED.append(label)


def derivative(label, call):
    """call(): a derivative's result; None (and a note: not a bug) when srcad refuses the
    function with SrcadError, as it may instead of giving a wrong number."""
    import srcad
    try:
        return call()
    except srcad.SrcadError as exc:
        print(f"{label}\n    refused: {str(exc).splitlines()[0]}  (a refusal, not a wrong number)")
        return None


def runs(label, call):
    """call() must not raise; prints the exception (the bug) if it does. Returns its value."""
    try:
        return call()
    except Exception as exc:  # noqa: BLE001 - the crash is the finding
        last = traceback.extract_tb(exc.__traceback__)[-1]
        print(f"{label}\n    raises {type(exc).__name__}: {str(exc).splitlines()[0]}\n"
              f"    (in {last.filename.rsplit('/', 1)[-1]}:{last.lineno}: {last.line})")
        _FAILED.append(label)
        return None


def done():
    if _FAILED:
        print(f"\nBUG PRESENT: {len(_FAILED)} check(s) differ")
        sys.exit(1)
    print("\nfixed: srcad agrees with the right numbers")
    sys.exit(0)


def _show(value):
    if isinstance(value, tuple):
        return "(" + ", ".join(_show(v) for v in value) + ")"
    text = np.array2string(np.asarray(value, dtype=float), precision=6, separator=", ") if \
        np.ndim(value) else repr(float(value)) if isinstance(value, (int, float, np.generic)) \
        else repr(value)
    return " ".join(text.split())
