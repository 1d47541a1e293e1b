"""NumPy's shape and layout functions: reshape, ravel, transpose, swapaxes, moveaxis, expand_dims,
squeeze, broadcast_to, atleast_*d, the joins (concatenate, stack, hstack, vstack, dstack,
column_stack) and splits (split, array_split, hsplit, vsplit, dsplit), tile, repeat, flips, roll,
rot90, pad, take, take_along_axis, diag, diagonal, triu, tril, and the conversions copy, array,
asarray, ascontiguousarray.

All are linear: the tangent applies the same function to d[x]; the adjoint applies its
transpose (reshape back, transpose back, cut back into pieces, sum over copies, scatter back).
Most are declared @linear with their adjoint, and the registry writes the tangent; the
conversions, padding and atleast_*d have both templates written out.
"""
import numpy as np

from srcad.rules.registry import adjoint, d, linear, tangent
from srcad.runtime import array_like, helper, unbroadcast, unconcatenate, unstack

from .numpy_reductions import undiagonal


# ---------------------------------------------------------------------------------------------
# runtime helpers: the transposes of the layout functions (each linear in its first argument)

@helper(tangent="linear")
def untranspose(g, axes=None):
    """The adjoint of np.transpose(x, axes): g transposed back."""
    if axes is None:
        return np.transpose(g)
    return np.transpose(g, np.argsort(np.mod(axes, np.ndim(g))))


@helper(tangent="linear", container=True)
def unjoin(g, arrays, how):
    """The adjoint of np.hstack, np.vstack, np.dstack or np.column_stack(arrays) (how: "h", "v",
    "d", "column"): g cut back into pieces shaped like the arrays."""
    if how == "h":
        parts = [np.atleast_1d(a) for a in arrays]
        axis = 0 if parts[0].ndim == 1 else 1
    elif how == "v":
        parts, axis = [np.atleast_2d(a) for a in arrays], 0
    elif how == "d":
        parts, axis = [np.atleast_3d(a) for a in arrays], 2
    else:
        parts = [np.asarray(a) if np.ndim(a) >= 2 else np.array(a, ndmin=2).T for a in arrays]
        axis = 1
    bounds = np.cumsum([np.shape(p)[axis] for p in parts])[:-1]
    return [np.reshape(piece, np.shape(a))
            for piece, a in zip(np.split(g, bounds, axis=axis), arrays)]


@helper(tangent="linear")
def untile(g, x, reps):
    """The adjoint of np.tile(x, reps): the sum of g over the copies of x."""
    reps = (reps,) if np.ndim(reps) == 0 else tuple(reps)
    shape = np.shape(x)
    n = max(len(reps), len(shape))
    reps = (1,) * (n - len(reps)) + reps
    padded = (1,) * (n - len(shape)) + shape
    # g's axis i has length reps[i] * padded[i], copy index first
    g = np.reshape(g, tuple(v for r, s in zip(reps, padded) for v in (r, s)))
    return np.reshape(np.sum(g, axis=tuple(range(0, 2 * n, 2))), shape)


@helper(tangent="linear")
def unrepeat(g, x, repeats, axis=None):
    """The adjoint of np.repeat(x, repeats, axis): each entry's copies summed back onto it."""
    shape = np.shape(x)
    dtype = np.result_type(g, 0.0)
    if axis is None:
        source = np.repeat(np.arange(int(np.prod(shape))), repeats)
        out = np.zeros(int(np.prod(shape)), dtype=dtype)
        np.add.at(out, source, g)
        return np.reshape(out, shape)
    axis = axis % len(shape)
    out = np.zeros(shape, dtype=dtype)
    np.add.at(out, (slice(None),) * axis + (np.repeat(np.arange(shape[axis]), repeats),), g)
    return out


@helper(tangent="linear")
def unpad(g, x, pad_width, mode="constant"):
    """The adjoint of np.pad(x, pad_width, mode) for the modes that copy entries of x (constant,
    edge, reflect, symmetric, wrap): each entry of g goes back to the entry it is a copy of."""
    shape = np.shape(x)
    if mode == "constant":
        widths = np.broadcast_to(np.asarray(pad_width, dtype=int), (len(shape), 2))
        return g[tuple(slice(before, before + n) for (before, _), n in zip(widths, shape))]
    if mode not in ("edge", "reflect", "symmetric", "wrap"):
        raise ValueError(f"srcad differentiates np.pad in the modes constant, edge, reflect, "
                         f"symmetric and wrap, not {mode!r}")
    size = int(np.prod(shape))
    source = np.pad(np.reshape(np.arange(size), shape), pad_width, mode=mode)
    out = np.zeros(size, dtype=np.result_type(g, 0.0))
    np.add.at(out, np.ravel(source), np.ravel(g))
    return np.reshape(out, shape)


@helper(tangent="linear")
def repad(dx, pad_width, mode="constant"):
    """np.pad(dx, pad_width, mode) with zeros as the constant: the tangent of a padding in a mode
    that copies entries (the others, like "mean" or "maximum", are refused)."""
    if mode not in ("constant", "edge", "reflect", "symmetric", "wrap"):
        raise ValueError(f"srcad differentiates np.pad in the modes constant, edge, reflect, "
                         f"symmetric and wrap, not {mode!r}")
    return np.pad(dx, pad_width, mode=mode)


@helper(tangent="linear")
def pad_constant(c, x, pad_width):
    """The part of np.pad(x, pad_width, constant_values=c) that comes from c (x's part zeroed)."""
    dtype = np.result_type(np.asarray(c) if isinstance(c, (tuple, list)) else c, 0.0)
    return np.pad(np.zeros(np.shape(x), dtype=dtype), pad_width, constant_values=c)  # (c may
    # be a display of tangents, (dt, 0.0): constant_values=(x[0], 2.0))


@helper(tangent="linear")
def unpad_constant(g, x, pad_width, constant_values):
    """The adjoint of constant_values in np.pad(x, pad_width, constant_values=...): g summed over
    the padding each value fills (numpy fills axis after axis, so a corner takes the later
    axis's value), shaped like constant_values."""
    shape = np.shape(x)
    n = len(shape)
    # mark each padded entry with -1 - (2 * axis + side): which (axis, side) value it holds
    marks = np.reshape(-1 - np.arange(2 * n), (n, 2))
    source = np.pad(np.reshape(np.arange(int(np.prod(shape))), shape), pad_width,
                    constant_values=marks)
    padded = source < 0
    sums = np.zeros(2 * n, dtype=np.result_type(g, 0.0))
    np.add.at(sums, -1 - source[padded], g[padded])
    sums = np.reshape(sums, (n, 2))
    c_shape = np.shape(constant_values)
    if int(np.prod(c_shape)) == 1:
        return np.reshape(np.sum(sums), c_shape)
    if int(np.prod(c_shape)) == 2 and c_shape != (2, 1):  # (before, after) for every axis
        return np.reshape(np.sum(sums, axis=0), c_shape)
    return unbroadcast(sums, constant_values)


@helper(tangent="linear")
def untake(g, a, indices, axis=None, mode="raise"):
    """The adjoint of np.take(a, indices, axis, mode): g added back at the indices (repeated
    indices accumulate)."""
    shape = np.shape(a)
    n = int(np.prod(shape)) if axis is None else shape[axis]
    indices = np.asarray(indices)
    if mode == "wrap":
        indices = np.mod(indices, n)
    elif mode == "clip":
        indices = np.clip(indices, 0, n - 1)
    dtype = np.result_type(g, 0.0)
    if axis is None:
        out = np.zeros(n, dtype=dtype)
        np.add.at(out, indices, g)
        return np.reshape(out, shape)
    out = np.zeros(shape, dtype=dtype)
    np.add.at(out, (slice(None),) * (axis % len(shape)) + (indices,), g)
    return out


@helper(tangent="linear")
def untake_along_axis(g, arr, indices, axis=-1):
    """The adjoint of np.take_along_axis(arr, indices, axis): g added back at the indices."""
    shape = np.shape(arr)
    dtype = np.result_type(g, 0.0)
    if axis is None:
        out = np.zeros(int(np.prod(shape)), dtype=dtype)
        np.add.at(out, indices, g)
        return np.reshape(out, shape)
    axis = axis % len(shape)
    index = tuple(indices if i == axis else
                  np.reshape(np.arange(n), tuple(-1 if j == i else 1 for j in range(len(shape))))
                  for i, n in enumerate(shape))
    out = np.zeros(shape, dtype=dtype)
    np.add.at(out, index, g)
    return out


# The adjoints of these helpers (generated gradients differentiated in reverse mode again):
# each sums copies back, so its transpose makes the copies: the op it is the adjoint of.
@adjoint(unrepeat)
def unrepeat_adjoint(z, g, x, repeats, axis=None):
    d[g] = np.repeat(d[z], repeats, axis=axis)


@adjoint(unpad)
def unpad_adjoint(z, g, x, pad_width, mode="constant"):
    d[g] = repad(d[z], pad_width, mode)


@adjoint(unpad_constant)
def unpad_constant_adjoint(z, g, x, pad_width, constant_values):
    d[g] = pad_constant(d[z], x, pad_width)


@adjoint(untake)
def untake_adjoint(z, g, a, indices, axis=None, mode="raise"):
    d[g] = np.take(d[z], indices, axis=axis, mode=mode)


@adjoint(untake_along_axis)
def untake_along_axis_adjoint(z, g, arr, indices, axis=-1):
    d[g] = np.take_along_axis(d[z], indices, axis=axis)


@helper(tangent="linear")
def undiag(g, v, k=0):
    """The adjoint of np.diag(v, k): the k-th diagonal of g if v is 1-D (diag built a matrix),
    else g written on the k-th diagonal of a zero matrix (diag read it)."""
    if np.ndim(v) == 1:
        part = np.diagonal(g, k)  # (a view: a copy of it; np.array would compute a dask array)
        return part.copy() if array_like(part) else np.array(part)
    return undiagonal(g, v, k, 0, 1)


@helper(tangent="linear")
def cast_back(g, y, x):
    """The adjoint g of a conversion of x whose result is y, in x's float dtype (float64 for an
    integer x): zero when y is an integer or boolean array (a rounding, whose derivative is 0
    wherever it exists). A float32 x promoted to float64 gets a float32 gradient, as x is."""
    if not np.issubdtype(np.result_type(y), np.inexact):
        return np.zeros(np.shape(g))
    dtype = np.result_type(np.asarray(x).dtype, np.float32)
    return g if np.result_type(g) == dtype else np.asarray(g, dtype=dtype)


@helper(tangent="linear")
def through_cast(g, y):
    """The derivative g passed through a conversion whose result is y: zero when y is an integer
    or boolean array (a rounding, whose derivative is 0 wherever it exists), else g."""
    if np.issubdtype(np.result_type(y), np.inexact):
        return g
    return np.zeros(np.shape(g))


# tangents of the helpers: each is linear in its first argument and uses the others only
# through their shapes, so its tangent is itself applied to the first argument's tangent

# ---------------------------------------------------------------------------------------------
# axes: transpose, swapaxes, moveaxis

@linear(np.transpose, np.permute_dims)
def transpose(y, a, axes=None):
    d[a] = untranspose(d[y], axes)


@linear(np.matrix_transpose)
def matrix_transpose(y, x):
    d[x] = np.matrix_transpose(d[y])


@linear(np.swapaxes)
def swapaxes(y, a, axis1, axis2):
    d[a] = np.swapaxes(d[y], axis1, axis2)


@linear(np.moveaxis)
def moveaxis(y, a, source, destination):
    d[a] = np.moveaxis(d[y], destination, source)


# ---------------------------------------------------------------------------------------------
# same entries, new shape: the adjoint reshapes back

@linear(np.reshape, keywords=("order",))
def reshape(y, a, shape=None, order="C", *, copy=None):
    d[a] = np.reshape(d[y], np.shape(a), order=order)


@linear(np.ravel, keywords=("order",))
def ravel(y, a, order="C"):
    d[a] = np.reshape(d[y], np.shape(a), order=order)


@linear(np.expand_dims)
def expand_dims(y, a, axis):
    d[a] = np.reshape(d[y], np.shape(a))


@linear(np.squeeze)
def squeeze(y, a, axis=None):
    d[a] = np.reshape(d[y], np.shape(a))


# np.atleast_1d/2d/3d(x) with one array (several give a list: the call is refused by the
# template): leading or trailing axes of length 1 added, a reshape both ways
@adjoint(np.atleast_1d, np.atleast_2d, np.atleast_3d)
def atleast_nd(y, ary):
    d[ary] = np.reshape(d[y], np.shape(ary))


@tangent(np.atleast_1d, np.atleast_2d, np.atleast_3d)
def atleast_nd_tangent(y, ary):
    d[y] = np.reshape(d[ary], np.shape(y))


# ---------------------------------------------------------------------------------------------
# copies and conversions: the identity, except that a conversion to an integer or boolean
# dtype rounds, so its derivative is zero (through_cast)

@adjoint(np.copy)
def copy(y, a, order="K", subok=False):
    d[a] = d[y]


@tangent(np.copy)
def copy(y, a, order="K", subok=False):
    d[y] = np.copy(d[a])  # a copy: a store into y must not write into the tangent of a


# np.array(x) copies x; np.array([a, b]) stacks a and b (d[object] is then their derivatives)
@adjoint(np.array)
def array(y, object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0):
    d[object] = np.reshape(cast_back(d[y], y, object), np.shape(object))


@tangent(np.array)
def array(y, object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0):
    d[y] = through_cast(np.array(d[object], ndmin=ndmin), y)


@adjoint(np.asarray)
def asarray(y, a, dtype=None, order=None, *, device=None, copy=None):
    d[a] = np.reshape(cast_back(d[y], y, a), np.shape(a))


@tangent(np.asarray)
def asarray(y, a, dtype=None, order=None, *, device=None, copy=None):
    d[y] = through_cast(np.asarray(d[a]), y)


@adjoint(np.ascontiguousarray)
def ascontiguousarray(y, a, dtype=None):
    d[a] = np.reshape(cast_back(d[y], y, a), np.shape(a))


@tangent(np.ascontiguousarray)
def ascontiguousarray(y, a, dtype=None):
    d[y] = through_cast(np.ascontiguousarray(d[a]), y)


# ---------------------------------------------------------------------------------------------
# broadcasting and copies of entries: the adjoint sums over the copies

@linear(np.broadcast_to)
def broadcast_to(y, array, shape, subok=False):
    d[array] = unbroadcast(d[y], array)


@linear(np.tile)
def tile(y, A, reps):
    d[A] = untile(d[y], A, reps)


@linear(np.repeat)
def repeat(y, a, repeats, axis=None):
    d[a] = unrepeat(d[y], a, repeats, axis)


# ---------------------------------------------------------------------------------------------
# joins: the adjoint cuts d[y] back into pieces, one per array

@linear(np.concatenate)
def concatenate(y, arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    d[arrays] = unconcatenate(d[y], arrays, axis)


@linear(np.stack)
def stack(y, arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    d[arrays] = unstack(d[y], axis)


@linear(np.hstack)
def hstack(y, tup, *, dtype=None, casting="same_kind"):
    d[tup] = unjoin(d[y], tup, "h")


@linear(np.vstack)
def vstack(y, tup, *, dtype=None, casting="same_kind"):
    d[tup] = unjoin(d[y], tup, "v")


@linear(np.dstack)
def dstack(y, tup):
    d[tup] = unjoin(d[y], tup, "d")


@linear(np.column_stack)
def column_stack(y, tup):
    d[tup] = unjoin(d[y], tup, "column")


# splits return a list of pieces (tuple_result): d[y] is the list of the pieces' adjoints
# (zeros for pieces the code never used), joined back the way the array was cut

@linear(np.array_split, tuple_result=True)
@linear(np.split, tuple_result=True)
def split(y, ary, indices_or_sections, axis=0):
    d[ary] = np.concatenate(d[y], axis)


@linear(np.hsplit, tuple_result=True)
def hsplit(y, ary, indices_or_sections):
    d[ary] = np.hstack(d[y])


@linear(np.vsplit, tuple_result=True)
def vsplit(y, ary, indices_or_sections):
    d[ary] = np.vstack(d[y])


@linear(np.dsplit, tuple_result=True)
def dsplit(y, ary, indices_or_sections):
    d[ary] = np.dstack(d[y])


# ---------------------------------------------------------------------------------------------
# permutations of entries: the adjoint applies the inverse permutation

@linear(np.flip)
def flip(y, m, axis=None):
    d[m] = np.flip(d[y], axis)


@linear(np.fliplr)
def fliplr(y, m):
    d[m] = np.fliplr(d[y])


@linear(np.flipud)
def flipud(y, m):
    d[m] = np.flipud(d[y])


@linear(np.roll)
def roll(y, a, shift, axis=None):
    d[a] = np.roll(d[y], np.negative(shift), axis)


@linear(np.rot90)
def rot90(y, m, k=1, axes=(0, 1)):
    d[m] = np.rot90(d[y], -k, axes)


# ---------------------------------------------------------------------------------------------
# pad: the adjoint of the array is the inner block of d[y] (plus, in the copying modes, the
# copies in the border); a constant fill gets d[y] summed over the border it fills

@adjoint(np.pad)
def pad(y, array, pad_width, mode="constant", constant_values=0):
    d[array] = unpad(d[y], array, pad_width, mode)
    d[constant_values] = unpad_constant(d[y], array, pad_width, constant_values)


@tangent(np.pad)
def pad(y, array, pad_width, mode="constant", constant_values=0):
    d[y] = repad(d[array], pad_width, mode) + pad_constant(d[constant_values], array, pad_width)


# ---------------------------------------------------------------------------------------------
# selections: the adjoint scatters d[y] back (adding where an entry was picked twice)

@linear(np.take)
def take(y, a, indices, axis=None, out=None, mode="raise"):
    d[a] = untake(d[y], a, indices, axis, mode)


@linear(np.take_along_axis)
def take_along_axis(y, arr, indices, axis=-1):
    d[arr] = untake_along_axis(d[y], arr, indices, axis)


# bincount(x, weights): the weights added up by bin, linear in them; each weight's adjoint is
# its bin's (the bins' count, max(x) + 1, is decided by x's values: analysis/values.py)
@linear(np.bincount, keywords=("weights",))
def bincount(y, x, weights=None, minlength=0):
    d[weights] = np.take(d[y], x)


@linear(np.diagonal)
def diagonal(y, a, offset=0, axis1=0, axis2=1):
    d[a] = undiagonal(d[y], a, offset, axis1, axis2)


@linear(np.diag)
def diag(y, v, k=0):
    d[v] = undiag(d[y], v, k)


# triu, tril keep a triangle and zero the rest: a mask, its own adjoint
@linear(np.triu)
def triu(y, m, k=0):
    d[m] = np.triu(d[y], k)


@linear(np.tril)
def tril(y, m, k=0):
    d[m] = np.tril(d[y], k)