"""literals: a user's value written as Python source that evaluates to an equal value, or a
reason why not.

An emitted module carries the values of the globals it reads from a notebook or a script (a
module it cannot import: api/modules.py). Only plain data is written, and only as literals built
with repr (which escapes every string) and numpy's constructors: numbers, strings, bytes, None,
numpy scalars and arrays of numbers or booleans, and tuples, lists and dicts of them. Nothing is
pickled; an object of any other type is refused (NotLiteral, with what it is).

    2.5                        -> 2.5
    float("nan")               -> np.nan
    np.float32(0.1)            -> np.float32(0.10000000149011612)   (exact: float32 -> float64)
    np.array([[1, 2], [3, 4]]) -> np.array([1, 2, 3, 4], dtype='int64').reshape((2, 2))
    {"lr": 0.1, "sizes": (3, 4)} -> {'lr': 0.1, 'sizes': (3, 4)}

Floats are written by repr of the float64 that holds them exactly (a float32 or float16 value
converts to float64 without rounding and back), so a carried value is the same bits, not a
rounded copy (only a NaN's sign and payload are not kept).
"""
import math

import numpy as np

MAX_ITEMS = 100_000  # numbers in one carried value (a bigger array: load it, or pass it in)
MAX_DEPTH = 8
LINE = 96

_KINDS = {"b", "i", "u", "f", "c"}  # numpy dtype kinds written: bool, ints, floats, complex


class NotLiteral(Exception):
    """The value is not plain data srcad writes into a module; str(exc) says what it is."""


def describe(value):
    """What a value is, for messages: 'a numpy.random._generator.Generator'."""
    kind = type(value)
    module = kind.__module__
    name = kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


def literal(value):
    """Python source for value (one expression; it may span lines inside brackets). It needs
    numpy imported as np. Raises NotLiteral for anything but plain data."""
    counter = [0]
    return _write(value, counter, 0)


def _count(counter, n):
    counter[0] += n
    if counter[0] > MAX_ITEMS:
        raise NotLiteral(f"more than {MAX_ITEMS:,} numbers, too many to write into a module")


def _float(x):
    """A Python float as source: repr, or a numpy name for what repr does not write as one."""
    if math.isnan(x):
        return "np.nan"
    if math.isinf(x):
        return "np.inf" if x > 0 else "-np.inf"
    return repr(x)


def _number(x, kind):
    """An item of a numpy array (or a numpy scalar) of dtype kind, as a Python literal."""
    if kind == "b":
        return "True" if bool(x) else "False"
    if kind in "iu":
        return repr(int(x))
    if kind == "f":
        return _float(float(x))
    z = complex(x)
    return f"complex({_float(z.real)}, {_float(z.imag)})"


def _dtype_text(dtype):
    if dtype.kind not in _KINDS:
        raise NotLiteral(f"a numpy array of dtype {dtype} (srcad writes arrays of numbers and "
                         f"booleans)")
    if dtype.kind in "fc" and dtype.itemsize > (8 if dtype.kind == "f" else 16):
        raise NotLiteral(f"a numpy array of dtype {dtype}, whose numbers a Python float does "
                         f"not hold exactly")
    return repr(dtype.name if dtype.isnative else dtype.str)


def _wrapped(items, indent="    "):
    """Items joined by commas, wrapped at LINE characters (valid inside brackets)."""
    lines, line = [], ""
    for item in items:
        piece = item if not line else f", {item}"
        if line and len(line) + len(piece) > LINE:
            lines.append(line + ",")
            line = item
        else:
            line += piece
    lines.append(line)
    return ("\n" + indent).join(lines)


def _array(value, counter):
    dtype_text = _dtype_text(value.dtype)
    _count(counter, value.size)
    kind = value.dtype.kind
    if value.ndim == 0:
        return f"np.array({_number(value[()], kind)}, dtype={dtype_text})"
    if value.size == 0:
        return f"np.zeros({tuple(int(n) for n in value.shape)!r}, dtype={dtype_text})"
    items = _wrapped([_number(x, kind) for x in value.ravel(order="C")])
    text = f"np.array([{items}], dtype={dtype_text})"
    if value.ndim > 1:
        text += f".reshape({tuple(int(n) for n in value.shape)!r})"
    return text


def _write(value, counter, depth):
    if depth > MAX_DEPTH:
        raise NotLiteral(f"nested more than {MAX_DEPTH} levels deep")
    kind = type(value)
    if value is None or kind in (bool, int, str, bytes):
        _count(counter, 1)
        return repr(value)  # (repr of a str or bytes escapes quotes, backslashes, newlines)
    if kind is float:
        _count(counter, 1)
        return _float(value)
    if kind is complex:
        _count(counter, 1)
        return f"complex({_float(value.real)}, {_float(value.imag)})"
    if kind is np.ndarray:
        return _array(value, counter)
    if isinstance(value, np.generic) and kind.__module__ == "numpy":
        dtype = np.dtype(kind)
        dtype_text = _dtype_text(dtype)
        _count(counter, 1)
        return f"np.dtype({dtype_text}).type({_number(value, dtype.kind)})"
    if kind in (tuple, list):
        items = [_write(item, counter, depth + 1) for item in value]
        if kind is tuple:
            return f"({items[0]},)" if len(items) == 1 else f"({_wrapped(items)})"
        return f"[{_wrapped(items)}]"
    if kind is dict:
        items = [f"{_write(key, counter, depth + 1)}: {_write(item, counter, depth + 1)}"
                 for key, item in value.items()]
        return "{" + _wrapped(items) + "}"
    raise NotLiteral(describe(value))
