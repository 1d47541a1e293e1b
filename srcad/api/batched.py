"""A stack of tangents (or cotangents) that generated code runs on as if it were one: the whole
Jacobian in one sweep.

srcad.jacobian needs J v for every basis vector v (forward mode) or w^T J for every w (reverse).
Instead of one sweep per vector, it passes the derivative code one Batched value holding all of
them along a leading axis. A Batched looks like one tangent to the code: its shape, ndim and
size are one tangent's; each numpy operation on it applies to every tangent of the stack, by a
batching rule that knows where the stack's axis is (what JAX's vmap does to a program, done here
at run time through numpy's __array_ufunc__ and __array_function__ protocols):

    elementwise (ufuncs)       operands aligned on the right, the stack axis kept in front
    sum, mean, cumsum, ...     the axes named shifted by one
    reshape, transpose, [i]    the same, on every tangent
    matmul, dot, einsum, ...   one product over the whole stack

An operation without a rule raises NotBatchable (as does any attempt to make a plain array of a
Batched), and jacobian then takes one sweep per vector as before: a missing rule costs speed,
never a wrong number. Rules exist only for operations whose meaning per tangent is certain.
"""
import numbers

import numpy as np


class NotBatchable(Exception):
    """The derivative code did something with a stack of tangents that has no batching rule."""


def _data(x):
    return x.data if isinstance(x, Batched) else x


def _count(*values):
    for v in values:
        if isinstance(v, Batched):
            return v.data.shape[0]
    raise NotBatchable("no stack among the operands")


def _aligned(x, ndim):
    """x's data with the stack axis first and one tangent's axes padded to ndim on the left;
    an operand without a stack unchanged (numpy aligns it on the right)."""
    if not isinstance(x, Batched):
        return x
    data = x.data
    pad = ndim - (data.ndim - 1)
    return data.reshape(data.shape[:1] + (1,) * pad + data.shape[1:]) if pad > 0 else data


def _ndim(x):
    return x.ndim if isinstance(x, Batched) else np.ndim(x)


def _wrap(data):
    return Batched(data)


def _axis(axis, ndim):
    """One tangent's axis (or axes, or None for all) as axes of the stack's data."""
    if axis is None:
        return tuple(range(1, ndim + 1))
    if isinstance(axis, tuple):
        return tuple(_axis(a, ndim) for a in axis)
    if not isinstance(axis, numbers.Integral) or not -ndim <= axis < max(ndim, 1):
        raise NotBatchable(f"axis {axis!r}")
    return axis % max(ndim, 1) + 1


def _stacked(x, count):
    """x as data with a stack axis: a Batched's own, an array's repeated (a broadcast view)."""
    if isinstance(x, Batched):
        return x.data
    x = np.asarray(x)
    return np.broadcast_to(x, (count,) + x.shape)


class Batched:
    """A stack of `count` values of one shape, data.shape == (count,) + shape."""

    __slots__ = ("data",)
    srcad_on_host = True  # its data is a NumPy array: runtime helpers may branch on values
    __array_priority__ = 1000

    def __init__(self, data):
        self.data = data

    # one tangent's attributes ------------------------------------------------------------
    shape = property(lambda self: self.data.shape[1:])
    ndim = property(lambda self: self.data.ndim - 1)
    size = property(lambda self: int(np.prod(self.data.shape[1:], dtype=int)))
    dtype = property(lambda self: self.data.dtype)
    T = property(lambda self: _transpose(self))

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d value")
        return self.data.shape[1]

    def __array__(self, *args, **kwargs):
        raise NotBatchable("a plain array of a stack of tangents")

    def __bool__(self):
        raise NotBatchable("the truth of a stack of tangents")

    def __repr__(self):
        return f"Batched({self.data.shape[0]} x {self.shape})"

    # numpy's protocols ------------------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if kwargs.get("out") is not None or kwargs.get("where", True) is not True:
            raise NotBatchable(f"{ufunc.__name__} with out= or where=")
        if ufunc is np.matmul and method == "__call__":
            return _matmul(*inputs)
        if method == "__call__" and ufunc.signature is None and ufunc.nout == 1:
            ndim = max(_ndim(x) for x in inputs)
            return _wrap(ufunc(*[_aligned(x, ndim) for x in inputs], **kwargs))
        if method == "at" and ufunc is np.add and isinstance(inputs[0], Batched) and (
                len(inputs) == 3 and not kwargs):  # np.add.at(out, index, g): repeats add up
            target, index, values = inputs
            index = _index(index)
            np.add.at(target.data, index, _aligned(values, target.data[index].ndim - 1))
            return None
        if method in ("reduce", "accumulate") and len(inputs) == 1 and ufunc is np.add:
            x = inputs[0]
            axis = kwargs.pop("axis", 0)
            if method == "accumulate" and axis is None:
                raise NotBatchable("accumulate over all axes")
            kwargs["axis"] = _axis(axis, x.ndim)
            return _wrap(getattr(ufunc, method)(x.data, **kwargs))
        raise NotBatchable(f"{ufunc.__name__}.{method}")

    def __array_function__(self, func, types, args, kwargs):
        rule = RULES.get(func)
        if rule is None:
            raise NotBatchable(getattr(func, "__name__", repr(func)))
        return rule(*args, **kwargs)

    # Python's operators -----------------------------------------------------------------
    def __add__(self, other): return np.add(self, other)  # noqa: E704
    def __radd__(self, other): return np.add(other, self)  # noqa: E704
    def __sub__(self, other): return np.subtract(self, other)  # noqa: E704
    def __rsub__(self, other): return np.subtract(other, self)  # noqa: E704
    def __mul__(self, other): return np.multiply(self, other)  # noqa: E704
    def __rmul__(self, other): return np.multiply(other, self)  # noqa: E704
    def __truediv__(self, other): return np.true_divide(self, other)  # noqa: E704
    def __rtruediv__(self, other): return np.true_divide(other, self)  # noqa: E704
    def __pow__(self, other): return np.power(self, other)  # noqa: E704
    def __rpow__(self, other): return np.power(other, self)  # noqa: E704
    def __matmul__(self, other): return _matmul(self, other)  # noqa: E704
    def __rmatmul__(self, other): return _matmul(other, self)  # noqa: E704
    def __neg__(self): return np.negative(self)  # noqa: E704
    def __pos__(self): return self  # noqa: E704

    def _inplace(self, ufunc, other):
        result = ufunc(self, other)
        if result.data.shape != self.data.shape or not self.data.flags.writeable:
            raise NotBatchable("an in-place operation that broadcasts its target")
        self.data[...] = result.data
        return self

    def __iadd__(self, other): return self._inplace(np.add, other)  # noqa: E704
    def __isub__(self, other): return self._inplace(np.subtract, other)  # noqa: E704
    def __imul__(self, other): return self._inplace(np.multiply, other)  # noqa: E704
    def __itruediv__(self, other): return self._inplace(np.true_divide, other)  # noqa: E704

    def __eq__(self, *args, **kwargs):
        raise NotBatchable("a comparison or logic of tangents, or a number made of them")

    __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __float__ = __int__ = __index__ = __eq__
    __and__ = __or__ = __xor__ = __invert__ = any = all = __eq__
    __hash__ = None
    real = property(lambda self: self)  # (real numbers)

    # items ---------------------------------------------------------------------------------
    def __getitem__(self, index):
        return _wrap(self.data[_index(index)])

    def __setitem__(self, index, value):
        if not self.data.flags.writeable:  # (a broadcast stack: give it storage of its own)
            raise NotBatchable("a store into a broadcast stack")
        index = _index(index)  # (a value without a stack: numpy broadcasts it to every tangent)
        self.data[index] = _aligned(value, self.data[index].ndim - 1)

    # methods generated code calls --------------------------------------------------------
    def sum(self, axis=None, dtype=None, keepdims=False):
        return _sum(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def mean(self, axis=None, keepdims=False):
        return _mean(self, axis=axis, keepdims=keepdims)

    def reshape(self, *shape, order="C"):
        return _reshape(self, shape[0] if len(shape) == 1 else shape, order=order)

    def transpose(self, *axes):
        return _transpose(self, axes[0] if len(axes) == 1 else (axes or None))

    def copy(self):
        return _wrap(self.data.copy())

    def ravel(self):
        return _reshape(self, -1)

    def astype(self, dtype, copy=True):
        return _wrap(self.data.astype(dtype, copy=copy))

    def dot(self, other):
        return _dot(self, other)


def _index(index):
    """One tangent's index as an index of the stack's data (basic and advanced indices alike:
    the stack axis is a leading full slice; a boolean mask or index array of one tangent's axes
    selects the same items of every tangent)."""
    if not isinstance(index, tuple):
        index = (index,)
    if any(isinstance(i, Batched) for i in index):
        raise NotBatchable("an index computed from tangents")
    arrays = [k for k, i in enumerate(index)
              if not isinstance(i, (slice, numbers.Integral, type(None))) and i is not Ellipsis]
    if arrays and arrays != list(range(arrays[0], arrays[0] + len(arrays))):
        raise NotBatchable("separated index arrays")  # (numpy moves their axes to the front)
    return (slice(None),) + index


# rules ------------------------------------------------------------------------------------------
def _sum(x, axis=None, dtype=None, keepdims=False, **kwargs):
    if kwargs:
        raise NotBatchable(f"sum with {sorted(kwargs)}")
    if not isinstance(x, Batched):
        return np.sum(x, axis=axis, dtype=dtype, keepdims=keepdims)
    return _wrap(np.sum(x.data, axis=_axis(axis, x.ndim), dtype=dtype, keepdims=keepdims))


def _mean(x, axis=None, dtype=None, keepdims=False, **kwargs):
    if kwargs:
        raise NotBatchable(f"mean with {sorted(kwargs)}")
    return _wrap(np.mean(x.data, axis=_axis(axis, x.ndim), dtype=dtype, keepdims=keepdims))


def _cumsum(x, axis=None, dtype=None):
    if axis is None:
        if x.ndim > 1:
            x = _reshape(x, -1)
        axis = 0
    return _wrap(np.cumsum(x.data, axis=_axis(axis, x.ndim), dtype=dtype))


def _reshape(x, shape, order="C"):
    if order != "C":
        raise NotBatchable("reshape order")
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    return _wrap(x.data.reshape(x.data.shape[:1] + shape))


def _transpose(x, axes=None):
    axes = tuple(range(x.ndim))[::-1] if axes is None else tuple(a % x.ndim for a in axes)
    return _wrap(x.data.transpose((0,) + tuple(a + 1 for a in axes)))


def _swapaxes(x, a, b):
    return _wrap(np.swapaxes(x.data, _axis(a, x.ndim), _axis(b, x.ndim)))


def _moveaxis(x, source, destination):
    return _wrap(np.moveaxis(x.data, _axis(source, x.ndim), _axis(destination, x.ndim)))


def _expand_dims(x, axis):
    return _wrap(np.expand_dims(x.data, _axis(axis, x.ndim + 1)))


def _squeeze(x, axis=None):
    if axis is None:
        axis = tuple(k for k, n in enumerate(x.shape) if n == 1)
    return _wrap(np.squeeze(x.data, axis=_axis(axis, x.ndim)))


def _broadcast_to(x, shape, subok=False):
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    return _wrap(np.broadcast_to(_aligned(x, len(shape)), x.data.shape[:1] + shape))


def _copy(x, order="K", subok=False):
    return _wrap(np.array(x.data, copy=True))


def _join(function):
    def rule(arrays, axis=0, **kwargs):
        if kwargs or axis is None:
            raise NotBatchable(f"{function.__name__} with {sorted(kwargs)} or axis=None")
        arrays = list(arrays)
        count = _count(*arrays)
        ndim = _ndim(arrays[0]) + (function is np.stack)
        return _wrap(function([_stacked(a, count) for a in arrays], axis=_axis(axis, ndim)))
    return rule


def _where(condition, x, y):
    if isinstance(condition, Batched):
        raise NotBatchable("where with a condition of tangents")
    ndim = max(np.ndim(condition), _ndim(x), _ndim(y))
    return _wrap(np.where(condition, _aligned(x, ndim), _aligned(y, ndim)))


def _matmul(a, b):
    """a @ b for one tangent of each stack (numpy's rules: a vector is a row on the left, a
    column on the right, and leading axes broadcast)."""
    if isinstance(a, Batched) and isinstance(b, Batched):
        raise NotBatchable("a product of two tangents")
    if isinstance(b, Batched):  # A @ X: A has no stack
        a = np.asarray(a)
        if b.ndim == 1:  # A @ x_i (a @ x_i): the rows of X @ A^T (of X @ a)
            if a.ndim > 2:
                raise NotBatchable("a stack of matrices times a vector of tangents")
            return _wrap(np.matmul(b.data, a.T))
        return _wrap(np.matmul(a, _aligned(b, a.ndim)))  # (leading axes broadcast)
    b = np.asarray(b)
    if a.ndim == 1:  # x_i @ B: the rows X @ B
        if b.ndim > 2:
            raise NotBatchable("a vector of tangents times a stack of matrices")
        return _wrap(np.matmul(a.data, b))
    if b.ndim == 1:  # X_i @ b: a vector each
        return _wrap(np.matmul(a.data, b))
    return _wrap(np.matmul(_aligned(a, b.ndim), b))


def _dot(a, b, out=None):
    if out is not None:
        raise NotBatchable("dot with out=")
    if _ndim(a) <= 2 and _ndim(b) <= 2:
        if _ndim(a) == 0 or _ndim(b) == 0:
            return np.multiply(a, b)
        return _matmul(a, b)
    raise NotBatchable("dot of arrays of more than two axes")


def _outer(a, b, out=None):
    if out is not None or (isinstance(a, Batched) and isinstance(b, Batched)):
        raise NotBatchable("outer of this form")
    column = _reshape(a, (-1, 1)) if isinstance(a, Batched) else np.reshape(a, (-1, 1))
    row = _reshape(b, (1, -1)) if isinstance(b, Batched) else np.reshape(b, (1, -1))
    return np.multiply(column, row)


def _einsum(subscripts, *operands, optimize=False, **kwargs):
    if kwargs or not isinstance(subscripts, str) or "->" not in subscripts or (
            "." in subscripts) or sum(isinstance(o, Batched) for o in operands) != 1:
        raise NotBatchable("einsum of this form")
    inputs, output = subscripts.replace(" ", "").split("->")
    letter = next(c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA"
                  if c not in subscripts)
    parts = inputs.split(",")
    parts = [letter + p if isinstance(o, Batched) else p for p, o in zip(parts, operands)]
    return _wrap(np.einsum(",".join(parts) + "->" + letter + output,
                           *[_data(o) for o in operands], optimize=optimize))


def _tensordot(a, b, axes=2):
    if isinstance(a, Batched) and isinstance(b, Batched):
        raise NotBatchable("tensordot of two tangents")
    if isinstance(axes, numbers.Integral):
        left = list(range(_ndim(a) - axes, _ndim(a)))
        right = list(range(axes))
    else:
        left, right = ([k] if isinstance(k, numbers.Integral) else list(k) for k in axes)
    left = [k % _ndim(a) for k in left]
    right = [k % _ndim(b) for k in right]
    if isinstance(a, Batched):
        return _wrap(np.tensordot(a.data, b, axes=([k + 1 for k in left], right)))
    data = np.tensordot(a, b.data, axes=(left, [k + 1 for k in right]))
    kept = np.ndim(a) - len(left)  # the stack axis comes after a's remaining axes: to front
    return _wrap(np.moveaxis(data, kept, 0))


def _solve(a, b):
    if isinstance(a, Batched):
        raise NotBatchable("solve with a matrix of tangents")
    a = np.asarray(a)
    if b.ndim == 1 and a.ndim == 2:  # one vector each: the columns of one matrix
        return _wrap(np.linalg.solve(a, b.data.T).T)
    if a.ndim == 2 and b.ndim == 2:
        return _wrap(np.linalg.solve(a[None], b.data))
    raise NotBatchable("solve of stacked matrices")


def _take(a, indices, axis=None, **kwargs):
    if kwargs or isinstance(indices, Batched) or not isinstance(a, Batched):
        raise NotBatchable("take of this form")
    if axis is None:
        return _wrap(np.take(a.data.reshape(a.data.shape[0], -1), indices, axis=1))
    return _wrap(np.take(a.data, indices, axis=_axis(axis, a.ndim)))


def _take_along_axis(arr, indices, axis):
    if isinstance(indices, Batched) or not isinstance(arr, Batched) or axis is None:
        raise NotBatchable("take_along_axis of this form")
    indices = np.broadcast_to(indices, arr.data.shape[:1] + np.shape(indices))
    return _wrap(np.take_along_axis(arr.data, indices, axis=_axis(axis, arr.ndim)))


def _vdot(a, b):
    """vdot of one tangent with an array (real numbers: no conjugate to take). Of two stacks,
    the vdot of the whole stacks: derivative code is linear in its seed, so a product of two
    stacks is never part of a derivative, only of a guard's check that every entry is finite
    (runtime.safe_mul: `np.vdot(out, out)`), which must hold for every tangent of the stack."""
    if isinstance(a, Batched) and isinstance(b, Batched):
        return np.vdot(a.data, b.data)
    flat = [_reshape(v, -1) if isinstance(v, Batched) else np.ravel(v) for v in (a, b)]
    return _sum(np.multiply(*flat), axis=-1)


def _split(function):
    def rule(ary, indices_or_sections, axis=0):
        if isinstance(indices_or_sections, Batched):
            raise NotBatchable("split points of tangents")
        return [_wrap(p) for p in function(ary.data, indices_or_sections,
                                           axis=_axis(axis, ary.ndim))]
    return rule


def _any(a, axis=None, out=None, keepdims=False, **kwargs):
    """Whether any entry of the whole stack is nonzero. Derivative code is linear in its seed,
    so a test of a stack's values is a test for an all-zero value (einsum_sums skips a term with
    a zero factor; unbroadcast takes 0.0 for zeros of any shape), and all-zero must hold for
    every tangent of the stack."""
    if axis is not None or out is not None or keepdims or kwargs:
        raise NotBatchable("any along an axis")
    return bool(np.any(a.data))


def _cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if (axisa, axisb, axisc, axis) != (-1, -1, -1, None) or (
            isinstance(a, Batched) and isinstance(b, Batched)):
        raise NotBatchable("cross of this form")
    ndim = max(_ndim(a), _ndim(b))
    return _wrap(np.cross(_aligned(a, ndim), _aligned(b, ndim)))


def _diag(v, k=0):
    if k != 0:
        raise NotBatchable("diag off the main diagonal")
    if v.ndim == 1:  # a vector each: its diagonal matrix
        return _wrap(v.data[:, :, None] * np.eye(v.shape[0], dtype=v.dtype))
    if v.ndim == 2:
        return _wrap(np.diagonal(v.data, axis1=1, axis2=2).copy())
    raise NotBatchable("diag of more than two axes")


def _refuse(what):
    raise NotBatchable(what)


def _flip(m, axis=None):
    return _wrap(np.flip(m.data, axis=_axis(axis, m.ndim)))


def _diff(a, n=1, axis=-1, **kwargs):
    if kwargs or not isinstance(a, Batched):
        raise NotBatchable("diff with prepend= or append=")
    return _wrap(np.diff(a.data, n=n, axis=_axis(axis, a.ndim)))


def _diagonal(a, offset=0, axis1=0, axis2=1):
    return _wrap(np.diagonal(a.data, offset, _axis(axis1, a.ndim), _axis(axis2, a.ndim)))


def _trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    if out is not None:
        raise NotBatchable("trace with out=")
    return _wrap(np.trace(a.data, offset, _axis(axis1, a.ndim), _axis(axis2, a.ndim), dtype))


def _at_least(ndim):
    def rule(*arrays):
        out = []
        for a in arrays:
            if not isinstance(a, Batched):
                raise NotBatchable("atleast_nd of a mix")
            shape = a.shape
            if ndim == 1 and len(shape) == 0:
                shape = (1,)
            elif ndim == 2 and len(shape) < 2:
                shape = (1,) * (2 - len(shape)) + shape
            out.append(_reshape(a, shape) if shape != a.shape else a)
        return out[0] if len(out) == 1 else out
    return rule


def _joined(arrays, axis_of):
    """hstack, vstack, column_stack and dstack, in terms of concatenate per tangent."""
    arrays = list(arrays)
    count = _count(*arrays)
    parts, axis = axis_of([a if isinstance(a, Batched) else np.asarray(a) for a in arrays])
    return _wrap(np.concatenate([_stacked(p, count) for p in parts],
                                axis=_axis(axis, _ndim(parts[0]))))


def _hstack(parts):
    parts = [_at_least(1)(p) if isinstance(p, Batched) else np.atleast_1d(p) for p in parts]
    return parts, 0 if _ndim(parts[0]) == 1 else 1


def _vstack(parts):
    return [_at_least(2)(p) if isinstance(p, Batched) else np.atleast_2d(p) for p in parts], 0


def _column_stack(parts):
    return [_reshape(p, (-1, 1)) if _ndim(p) < 2 and isinstance(p, Batched) else
            np.reshape(p, (-1, 1)) if _ndim(p) < 2 else p for p in parts], 1


def _roll(a, shift, axis=None):
    if axis is None:
        return _reshape(_wrap(np.roll(_reshape(a, -1).data, shift, axis=1)), a.shape)
    return _wrap(np.roll(a.data, shift, axis=_axis(axis, a.ndim)))


def _repeat(a, repeats, axis=None):
    if isinstance(repeats, Batched):
        raise NotBatchable("repeat counts of tangents")
    if axis is None:
        a, axis = _reshape(a, -1), 0
    return _wrap(np.repeat(a.data, repeats, axis=_axis(axis, a.ndim)))


def _tile(a, reps):
    reps = (reps,) if isinstance(reps, numbers.Integral) else tuple(reps)
    ndim = max(a.ndim, len(reps))
    data = _aligned(a, ndim)
    return _wrap(np.tile(data, (1,) + (1,) * (ndim - len(reps)) + reps))


def _append(arr, values, axis=None):
    if axis is None:
        flat = [_reshape(v, -1) if isinstance(v, Batched) else np.ravel(v) for v in (arr, values)]
        return _join(np.concatenate)(flat, axis=0)
    return _join(np.concatenate)([arr, values], axis=axis)


def _inner(a, b):
    if _ndim(a) <= 1 and _ndim(b) <= 1:
        return _vdot(a, b) if _ndim(a) == _ndim(b) == 1 else np.multiply(a, b)
    raise NotBatchable("inner of arrays of more than one axis")


def _triangle(function):
    def rule(m, k=0):
        if m.ndim < 2:
            raise NotBatchable(f"{function.__name__} of a vector")
        return _wrap(function(m.data, k))
    return rule


RULES = {
    np.sum: _sum, np.mean: _mean, np.cumsum: _cumsum,
    np.reshape: _reshape, np.ravel: lambda a, order="C": _reshape(a, -1, order),
    np.transpose: _transpose, np.swapaxes: _swapaxes, np.moveaxis: _moveaxis,
    np.expand_dims: _expand_dims, np.squeeze: _squeeze, np.broadcast_to: _broadcast_to,
    np.copy: _copy, np.concatenate: _join(np.concatenate), np.stack: _join(np.stack),
    np.where: _where, np.dot: _dot, np.outer: _outer, np.einsum: _einsum,
    np.tensordot: _tensordot, np.linalg.solve: _solve, np.take: _take,
    np.take_along_axis: _take_along_axis, np.flip: _flip,
    np.triu: _triangle(np.triu), np.tril: _triangle(np.tril),
    np.shape: lambda a: a.shape, np.ndim: lambda a: a.ndim, np.size: lambda a, axis=None: (
        a.size if axis is None else a.shape[axis]),
    np.zeros_like: lambda a, dtype=None, order="K", subok=True, shape=None: Batched(np.zeros(
        a.data.shape[:1] + (a.shape if shape is None else tuple(np.atleast_1d(shape))),
        dtype or a.dtype)),  # (a stack of zeros, which stores of tangents may fill)
    np.vdot: lambda a, b: _vdot(a, b), np.inner: _inner,
    np.diff: _diff, np.diagonal: _diagonal, np.trace: _trace,
    np.atleast_1d: _at_least(1), np.atleast_2d: _at_least(2),
    np.hstack: lambda tup, **kw: _joined(tup, _hstack) if not kw else _refuse("hstack"),
    np.vstack: lambda tup, **kw: _joined(tup, _vstack) if not kw else _refuse("vstack"),
    np.column_stack: lambda tup: _joined(tup, _column_stack),
    np.split: _split(np.split), np.array_split: _split(np.array_split), np.any: _any,
    np.cross: _cross, np.diag: _diag,
    np.roll: _roll, np.repeat: _repeat, np.tile: _tile, np.append: _append,
    np.real: lambda a: a, np.rollaxis: lambda a, axis, start=0: _wrap(np.rollaxis(
        a.data, _axis(axis, a.ndim), _axis(start, a.ndim + 1) if start < a.ndim else a.ndim + 1)),
    np.result_type: lambda *values: np.result_type(*[
        v.dtype if isinstance(v, Batched) else v for v in values]),
}
