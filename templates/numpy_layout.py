"""NumPy layout functions: append, insert, delete, resize, rollaxis, unstack,
sliding_window_view, select, full, full_like. The adjoint sends each entry of d[y] back to the
entry it copies."""
import numpy as np

from srcad.rules.registry import adjoint, d, linear, non_differentiable, tangent
from srcad.runtime import helper, unbroadcast, unconcatenate

from .numpy_shapes import through_cast, untake, untranspose


@helper(tangent="linear")
def append_zeros(t, values, axis=None):
    """np.append(t, zeros shaped like values, axis): arr's share of the tangent of np.append."""
    return np.append(t, np.zeros(np.shape(values)), axis)


@helper(tangent="linear")
def prepend_zeros(t, arr, axis=None):
    """np.append(zeros shaped like arr, t, axis): values' share of the tangent."""
    return np.append(np.zeros(np.shape(arr)), t, axis)


@helper(linear=False)
def insert_sources(arr, obj, values, axis=None):
    """Where each entry of np.insert(arr, obj, values, axis) comes from: k >= 0 for entry k of
    arr (flattened), -1 - k for entry k of values (flattened; broadcast copies repeat it)."""
    source = np.reshape(np.arange(np.size(arr)), np.shape(arr))
    labels = np.reshape(-1 - np.arange(np.size(values)), np.shape(values))
    return np.insert(source, obj, labels, axis)


@helper(tangent="linear")
def insert_piece(g, arr, obj, values, axis=None, which=0):
    """The adjoint of np.insert(arr, obj, values, axis) for arr (which=0) or values (which=1):
    g summed back onto the entries it copies."""
    source = np.ravel(insert_sources(arr, obj, values, axis))
    g = np.ravel(g)
    if which == 0:
        out = np.zeros(np.size(arr), dtype=np.result_type(g, float))
        np.add.at(out, source[source >= 0], g[source >= 0])
        return np.reshape(out, np.shape(arr))
    out = np.zeros(np.size(values), dtype=np.result_type(g, float))
    np.add.at(out, -1 - source[source < 0], g[source < 0])
    return np.reshape(out, np.shape(values))


@helper(tangent="linear")
def insert_share(t, arr, obj, values, axis=None, which=0):
    """np.insert with t in the place of arr (which=0) or values (which=1) and zeros in the
    other: one operand's share of the tangent."""
    if which == 0:
        return np.insert(np.asarray(t, dtype=np.result_type(t, float)), obj,
                         np.zeros(np.shape(values)), axis)
    return np.insert(np.zeros(np.shape(arr)), obj, t, axis)


@helper(linear=False)
def delete_kept(arr, obj, axis=None):
    """The indices (along axis; None: of the flattened arr) that np.delete(arr, obj, axis)
    keeps."""
    n = np.size(arr) if axis is None else np.shape(arr)[axis]
    return np.delete(np.arange(n), obj)


@helper(tangent="linear")
def resize_adjoint(g, a, new_shape):
    """The adjoint of np.resize(a, new_shape): each copy of an entry added back onto it."""
    out = np.zeros(np.size(a), dtype=np.result_type(g, float))
    if np.size(a) and np.size(g):
        source = np.resize(np.arange(np.size(a)), new_shape)
        np.add.at(out, np.ravel(source), np.ravel(g))
    return np.reshape(out, np.shape(a))


@helper(linear=False)
def rollaxis_order(ndim, axis, start=0):
    """The permutation np.rollaxis(a, axis, start) applies to a's axes (as a transpose)."""
    axis = axis % ndim
    if start < 0:
        start += ndim
    if axis < start:
        start -= 1
    axes = [i for i in range(ndim) if i != axis]
    axes.insert(start, axis)
    return axes


@helper(tangent="linear")
def select_pieces(g, condlist, choicelist):
    """The adjoint of the choices of np.select(condlist, choicelist, default): g where the
    choice's condition is the first true one, summed to the choice's shape."""
    taken = np.zeros(np.shape(g), dtype=bool)
    out = []
    for cond, choice in zip(condlist, choicelist):
        mine = np.logical_and(np.broadcast_to(cond, np.shape(g)), np.logical_not(taken))
        out.append(unbroadcast(np.where(mine, g, 0.0), choice))
        taken = np.logical_or(taken, mine)
    return out


@helper(tangent="linear")
def select_rest(g, condlist, default):
    """The adjoint of np.select's default: g where no condition is true."""
    taken = np.zeros(np.shape(g), dtype=bool)
    for cond in condlist:
        taken = np.logical_or(taken, cond)
    return unbroadcast(np.where(taken, 0.0, g), default)


@helper(tangent="linear")
def window_adjoint(g, x, window_shape, axis=None):
    """The adjoint of sliding_window_view(x, window_shape, axis): every window's copy of an
    entry added back onto it."""
    source = np.lib.stride_tricks.sliding_window_view(
        np.reshape(np.arange(np.size(x)), np.shape(x)), window_shape, axis)
    out = np.zeros(np.size(x), dtype=np.result_type(g, float))
    np.add.at(out, np.ravel(source), np.ravel(g))
    return np.reshape(out, np.shape(x))


@helper(tangent="linear")
def insert_transpose(w, arr, obj, values, axis=None, which=0):
    """The transpose of insert_piece: w (shaped like arr, which=0, or values, which=1) where
    np.insert(arr, obj, values, axis) puts that operand's entries, zeros elsewhere."""
    if which == 0:
        return np.insert(w, obj, 0.0, axis=axis)
    return np.insert(np.zeros(np.shape(arr), dtype=np.result_type(w, float)), obj, w, axis=axis)


# the adjoints of the helpers above: each sums copies back, so its transpose makes them
@adjoint(insert_piece)
def insert_piece_adjoint(z, g, arr, obj, values, axis=None, which=0):
    d[g] = insert_transpose(d[z], arr, obj, values, axis, which)


@adjoint(resize_adjoint)
def resize_adjoint_adjoint(z, g, a, new_shape):
    d[g] = np.resize(d[z], new_shape)


@adjoint(window_adjoint)
def window_adjoint_adjoint(z, g, x, window_shape, axis=None):
    d[g] = np.lib.stride_tricks.sliding_window_view(d[z], window_shape, axis)


# ---------------------------------------------------------------------------------------------
# layout: the adjoint sends each entry of d[y] back to the entry it copies

@adjoint(np.append)
def append(y, arr, values, axis=None):
    d[arr] = unconcatenate(d[y], [arr, values], axis)[0]
    d[values] = unconcatenate(d[y], [arr, values], axis)[1]


@tangent(np.append)
def append(y, arr, values, axis=None):
    d[y] = append_zeros(d[arr], values, axis) + prepend_zeros(d[values], arr, axis)


# an integer arr makes an integer result: a rounding, derivative 0 (through_cast)
@adjoint(np.insert)
def insert(y, arr, obj, values, axis=None):
    d[arr] = insert_piece(through_cast(d[y], y), arr, obj, values, axis, 0)
    d[values] = insert_piece(through_cast(d[y], y), arr, obj, values, axis, 1)


@tangent(np.insert)
def insert(y, arr, obj, values, axis=None):
    d[y] = through_cast(insert_share(d[arr], arr, obj, values, axis, 0)
                        + insert_share(d[values], arr, obj, values, axis, 1), y)


@linear(np.delete)
def delete(y, arr, obj, axis=None):
    d[arr] = untake(d[y], arr, delete_kept(arr, obj, axis), axis)


@linear(np.resize)
def resize(y, a, new_shape):
    d[a] = resize_adjoint(d[y], a, new_shape)


@linear(np.rollaxis)
def rollaxis(y, a, axis, start=0):
    d[a] = untranspose(d[y], rollaxis_order(np.ndim(a), axis, start))


@linear(np.unstack, tuple_result=True)
def unstack(y, x, *, axis=0):
    d[x] = np.stack(d[y], axis)


@adjoint(np.lib.stride_tricks.sliding_window_view)
def sliding_window_view(y, x, window_shape, axis=None, *, subok=False):
    d[x] = window_adjoint(d[y], x, window_shape, axis)


@tangent(np.lib.stride_tricks.sliding_window_view)
def sliding_window_view(y, x, window_shape, axis=None, *, subok=False):
    d[y] = np.lib.stride_tricks.sliding_window_view(d[x], window_shape, axis)


# select: each entry comes from the first choice whose condition holds, else from default
@linear(np.select)
def select(y, condlist, choicelist, default=0):
    d[choicelist] = select_pieces(d[y], condlist, choicelist)
    d[default] = select_rest(d[y], condlist, default)


# full, full_like: the fill value broadcast (rounded away, derivative 0, into an integer dtype)
@adjoint(np.full)
def full(y, shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    d[fill_value] = unbroadcast(through_cast(d[y], y), fill_value)


@tangent(np.full)
def full(y, shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    d[y] = through_cast(np.full(np.shape(y), d[fill_value]), y)


@adjoint(np.full_like)
def full_like(y, a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    d[fill_value] = unbroadcast(through_cast(d[y], y), fill_value)


@tangent(np.full_like)
def full_like(y, a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    d[y] = through_cast(np.full(np.shape(y), d[fill_value]), y)


# linspace(start, stop, num) = start (1 - t) + stop t with t_k = k / (num - 1) (k / num without
# the endpoint): linear in start and stop (arrays of them: the samples run along axis)
@helper(linear=False)
def linspace_levels(num, endpoint, axis, y, retstep=False):
    """t of linspace's samples y, shaped to multiply y (its samples along axis)."""
    if retstep:
        raise ValueError("srcad does not differentiate np.linspace with retstep=True: the step "
                         "is (stop - start) / (num - 1); compute it so")
    shape = [1] * np.ndim(y)
    shape[axis] = num
    return np.reshape(np.linspace(0.0, 1.0, num, endpoint=endpoint), shape)


@adjoint(np.linspace)
def linspace(y, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    t = linspace_levels(num, endpoint, axis, y, retstep)
    g = through_cast(d[y], y)
    d[start] = unbroadcast(np.sum(g * (1.0 - t), axis=axis), start)
    d[stop] = unbroadcast(np.sum(g * t, axis=axis), stop)


@tangent(np.linspace)
def linspace(y, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    t = linspace_levels(num, endpoint, axis, y, retstep)
    d[y] = through_cast(np.expand_dims(d[start], axis) * (1.0 - t)
                        + np.expand_dims(d[stop], axis) * t, y)


# arange(start, stop, step) = start + k step (k = 0, 1, ...): 1 in start, k in step; the count
# depends on the values (analysis/values.py: a shape they decide), not differentiably. One
# argument is the stop: it only counts.
@adjoint(np.arange)
def arange(y, start, stop=None, step=None, dtype=None, *, device=None, like=None):
    if stop is None:
        pass
    elif step is None:
        d[start] = np.sum(through_cast(d[y], y))
    else:
        d[start] = np.sum(through_cast(d[y], y))
        d[step] = np.sum(through_cast(d[y], y) * np.arange(np.size(y)))


@tangent(np.arange)
def arange(y, start, stop=None, step=None, dtype=None, *, device=None, like=None):
    if stop is None:
        d[y] = np.zeros(np.shape(y))
    elif step is None:
        d[y] = through_cast(d[start] * np.ones(np.shape(y)), y)
    else:
        d[y] = through_cast(d[start] * np.ones(np.shape(y)) + d[step] * np.arange(np.size(y)),
                            y)


non_differentiable(insert_sources, delete_kept, rollaxis_order, linspace_levels)
