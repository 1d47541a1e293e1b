"""Runtime helpers of generated code.

Generated modules must need nothing but numpy, so the source of every helper a module uses is
written into that module (see emit.py); this file is where they are written once, and tested.
Each helper is linear in its first argument (an adjoint or a tangent) and depends on the others
only through their shapes or piecewise-constant masks, so it is differentiable by a template
that applies the helper to the derivative of its first argument (templates/runtime.py): that is
what makes generated gradients differentiable again (hessians, forward-over-reverse).
"""
import linecache

import numpy as np

HELPERS = {}        # name -> function, in registration order
LINEAR_HELPERS = set()  # f(g, ...) with f(0, ...) == 0: zero tangents fold through them
# helpers whose result is a list, tuple or dict when their value's is (the adjoint of an item of
# a list is a list): forward mode over generated code gives them zero tangents of that shape
CONTAINER_RESULTS = {"unindex", "item_adjoints", "unlist", "unsum", "tuple_adjoint",
                     "concat_adjoint", "unrepeat_items", "repeat_items", "undict", "dict_without",
                     "add_adjoint", "as_gradient",
                     "zero_gradient", "zero_tangent", "unattr", "unconcatenate", "unstack",
                     "tuple_parts"}
LINEAR_TANGENTS = []  # helpers whose tangent is themselves applied to their first tangent
# The guarded operations of the templates (templates/numpy_elementwise.py), each with the plain
# operator (a gast class name) it is wherever its guard does not act: safe_mul, safe_div and
# strong_mul keep a zero adjoint zero against an inf or nan factor (strong zeros); slope_mul is
# safe_mul for a slope finite wherever f is (optimize/singular.py). The passes that read or
# rewrite them take their names from here.
STRONG_ZERO_OPERATIONS = {"safe_mul": "Mult", "safe_div": "Div", "strong_mul": "Mult"}
GUARDED_OPERATIONS = {**STRONG_ZERO_OPERATIONS, "slope_mul": "Mult"}
# (the registry writes those templates when it next looks one up: runtime imports no srcad)


def helper(func=None, *, linear=True, tangent=None, container=False):
    """Register a runtime helper (its source is copied into generated modules that call it).

    A helper may use numpy as `np` and other helpers by name, nothing else. `linear=True` says
    it is linear in its first argument, so a zero first argument gives a zero result.
    tangent="linear" registers its tangent template too, as the helper applied to the tangent
    of its first argument: right when it is linear in that argument and depends on the others
    only through their shapes or piecewise-constant masks. (Any other helper needs a written
    tangent template; generated gradients are differentiated again for Hessians.)
    container=True: its result is a list (or tuple, or dict) of values with derivatives, as
    CONTAINER_RESULTS: code that differentiates a generated gradient adds the adjoints of its
    items item by item (two reads of it, result[0] and result[1], are not joined by +).
    """
    def register(f):
        HELPERS[f.__name__] = f
        LINES[f.__name__] = (f, linecache.getlines(f.__code__.co_filename))  # (as it is now)
        if container:
            CONTAINER_RESULTS.add(f.__name__)
        if linear:
            LINEAR_HELPERS.add(f.__name__)
        if tangent == "linear":
            LINEAR_TANGENTS.append(f)
        elif tangent is not None:
            raise ValueError(f"helper tangent must be 'linear' or None, not {tangent!r}")
        return f
    return register(func) if func is not None else register


LINES = {}  # helper name -> (the helper, the lines of its file when it was registered)


@helper(linear=False)
def on_host(x):
    """Whether a helper may branch on x's values to skip work: NumPy's and Python's numbers, or
    a type marked srcad_on_host. A dask array (looking computes it) or a CuPy array (looking
    copies it from the GPU) gets np.where forms instead: the same numbers."""
    return isinstance(x, (np.ndarray, np.generic, float, int, complex)) or getattr(
        type(x), "srcad_on_host", False)


@helper(linear=False)
def array_like(x):
    """Whether x is another library's array that numpy's functions dispatch to (NEP 18: dask,
    CuPy): not NumPy's nor srcad's own stack of tangents, with a shape and a dtype."""
    kind = type(x)
    return (hasattr(kind, "__array_function__") and not issubclass(kind, np.ndarray)
            and not getattr(kind, "srcad_on_host", False) and hasattr(x, "dtype")
            and hasattr(x, "shape"))


@helper(linear=False)
def size_of(x):
    """np.size(x), from x's shape (np.size of a dask array computes its values)."""
    if type(x) is np.ndarray:
        return x.size
    size = 1
    for n in np.shape(x):
        size *= n
    return size


@helper(tangent="linear")
def unbroadcast(g, x):
    """Sum g over the axes numpy broadcast x along, so the result has x's shape."""
    shape = np.shape(x)
    if np.shape(g) == shape:
        return g
    g = np.sum(g, axis=tuple(range(np.ndim(g) - len(shape)))) if np.ndim(g) > len(shape) else g
    if np.ndim(g) == len(shape):  # (fewer axes: a zero written as 0.0, below)
        axes = tuple(i for i, n in enumerate(shape) if n == 1 and np.shape(g)[i] != 1)
        if axes:
            g = np.sum(g, axis=axes, keepdims=True)
        if np.shape(g) == shape:
            return g
    if size_of(g) == 1 and on_host(g) and not np.any(g):  # a zero written as 0.0 for zeros
        return np.zeros(shape, np.result_type(g, 0.0))  # of some shape
    return np.reshape(g, shape)


@helper(tangent="linear")
def unreduce(g, x, axis=None, keepdims=False):
    """Spread the adjoint g of a reduction of x over `axis` back to x's shape."""
    shape = np.shape(x)
    if axis is not None and not keepdims and shape:  # (numpy reduces a 0-d x over axis 0 too)
        axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
        g = np.expand_dims(g, tuple(a % len(shape) for a in axes))
    return np.broadcast_to(g, shape)


@helper(tangent="linear")
def unreduce_extremum(g, x, y, axis=None, keepdims=False):
    """Adjoint of max/min: g goes to the entries equal to the extremum, shared evenly on ties."""
    if axis is not None and not keepdims and np.ndim(x):  # g and y with the reduced axes
        shape = list(np.shape(x))  # back, of length 1
        for a in (axis if type(axis) is tuple else (axis,)):
            shape[a % len(shape)] = 1
        g = g.reshape(shape) if type(g) is np.ndarray else np.reshape(g, shape)
        y = y.reshape(shape) if type(y) is np.ndarray else np.reshape(y, shape)
    mask = np.equal(x, y)  # an array or numpy bool: its .sum skips np.sum's dispatch
    out = np.multiply(g, mask)
    lanes = y.size if type(y) is np.ndarray else size_of(y)
    if on_host(mask) and np.count_nonzero(mask) == lanes and np.vdot(y, y).real < np.inf:
        return out  # one entry attains each extremum and no lane is NaN (nor inf): no ties
    # (a lazy or GPU mask is not looked at: over a count of 1 the division is exact)
    return out / mask.sum(axis=axis, keepdims=True).astype(out.dtype)  # (float32 stays)


@helper(tangent="linear")
def extremum_tangent(dx, x, y, axis=None, keepdims=False):
    """Tangent of max/min: the mean of dx over the entries that attain the extremum."""
    yk = y
    if axis is not None and not keepdims and np.ndim(x):
        axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
        yk = np.expand_dims(y, tuple(a % np.ndim(x) for a in axes))
    mask = np.equal(x, yk)
    total = np.multiply(dx, mask).sum(axis=axis, keepdims=keepdims)
    return total / mask.sum(axis=axis, keepdims=keepdims).astype(total.dtype)


@helper(linear=False)
def tie_mask(x, y):
    """The mask x == y of the tied operands of np.maximum, np.minimum, np.fmax or np.fmin, or
    None when nothing ties (selection_share then has no tie pass). Against the number 0 (relu:
    np.maximum(x, 0.0)) a count of x's nonzero entries tells that without the comparison."""
    if type(x) is np.ndarray and (type(y) is float or type(y) is int) and y == 0:
        if np.count_nonzero(x) == x.size:
            return None
    elif type(y) is np.ndarray and (type(x) is float or type(x) is int) and x == 0:
        if np.count_nonzero(y) == y.size:
            return None
    tied = x == y
    if not on_host(tied):  # (a lazy or GPU mask is not looked at: no ties gives the same
        return tied  # numbers through selection_share's tie pass)
    return tied if np.count_nonzero(tied) else None


@helper(tangent="linear")
def selection_share(g, wins, tied, loser=False):
    """One operand's share of the adjoint g of np.maximum, np.minimum, np.fmax or np.fmin:
    np.where(tied, 0.5 * g, np.where(wins, g, 0.0)), or for the other operand (loser=True)
    np.where(tied, 0.5 * g, np.where(wins, 0.0, g)); tied is the mask of ties or None for
    none (tie_mask(x, y)). The untaken side gets an exact 0 even where g is inf or nan. The same
    numbers, cheaper: no tie pass when nothing ties, and on large float arrays a bit mask
    instead of np.where, whose branch per entry mispredicts on a random mask (~3x slower at
    1e6 entries)."""
    if (type(g) is np.ndarray and g.size >= 512 and type(wins) is np.ndarray
            and wins.shape == g.shape and wins.dtype == np.bool_
            and (g.dtype == np.float64 or g.dtype == np.float32)):
        ints = np.int64 if g.itemsize == 8 else np.int32
        flags = wins.view(np.int8)  # 0 or 1
        bits = np.subtract(flags, 1, dtype=ints) if loser else np.negative(flags, dtype=ints)
        out = np.bitwise_and(g.view(ints), bits, out=bits).view(g.dtype)  # g or +0.0
    else:
        out = np.where(wins, 0.0, g) if loser else np.where(wins, g, 0.0)
    if tied is not None:
        out = np.where(tied, 0.5 * g, out)
    return out


@helper(tangent="linear")
def unindex(g, x, index):
    """Adjoint of x[index]: zeros shaped like x with g added at index (repeats accumulate).
    For a dict, list or tuple x: the adjoint of that item alone ({key: g}, [None, g, None])."""
    if isinstance(x, dict):
        return {index: g}
    if isinstance(x, (list, tuple)):
        out = [None] * len(x)
        out[index] = g
        return out
    if isinstance(g, (list, tuple)):  # (the adjoint of a display, [0.0, array(0.5)]: an
        g = np.asarray(g)  # array, whose dtype result_type can read)
    out = np.zeros_like(g, shape=np.shape(x), dtype=np.result_type(g, 0.0))  # (g's kind of
    # array: a stack of adjoints, when jacobian runs the code on one)
    if type(index) in (int, slice) or (type(index) is tuple and all(
            type(i) in (int, slice) for i in index)):
        out[index] = g  # a basic index names each item once
    elif not on_host(out) and type(index) is tuple and all(
            i is None or type(i) in (int, slice) for i in index):  # x[:, None] of a dask
        axes, axis = [], 0  # array: its stores take no None, so g without the axes None made
        for i in index:
            if i is None:
                axes.append(axis)
            axis += type(i) is not int
        out[tuple(i for i in index if i is not None)] = np.squeeze(g, axis=tuple(axes))
    else:
        np.add.at(out, index, g)  # an index array may repeat items: they accumulate
    return out


@helper(tangent="linear")
def stored_part(g, index):
    """g[index], the adjoint of the values a store y[index] = v wrote, where an index array
    names an entry more than once: numpy keeps the last value written there, so the earlier
    ones get a zero adjoint."""
    part = g[index]
    flat = np.arange(size_of(g)).reshape(np.shape(g))[index]  # the entry each value went to
    order = np.ravel(flat)
    if np.ndim(flat) == 0 or np.unique(order).size == order.size:
        return part
    _, first_of_reversed = np.unique(order[::-1], return_index=True)
    last = np.zeros(order.size, dtype=bool)
    last[order.size - 1 - first_of_reversed] = True
    return np.where(np.reshape(last, np.shape(flat)), part, 0.0)


@helper(tangent="linear")
def stored_share(g, y):
    """g, the adjoint (or the tangent) of the value a store y[index] = v keeps, where y holds
    floats or complex numbers; zeros shaped like g where y's dtype is an integer or a bool: the
    store rounds v to it, a piecewise-constant function of v, with no derivative. A list keeps
    what is stored as it is."""
    kind = getattr(getattr(y, "dtype", None), "kind", None)
    if kind is None or kind not in "biu":
        return g
    return zero_gradient(g)


@helper(tangent="linear")
def item_adjoints(g, items):
    """The adjoints of the items of a tuple or list display from the adjoint g of its value:
    g's items, zeros shaped like the item where g holds None (no adjoint reached it)."""
    if no_adjoint(g):
        return [zero_gradient(item) for item in items]
    return [zero_gradient(item) if part is None else part for part, item in zip(g, items)]


@helper(tangent="linear")
def unconcatenate(g, arrays, axis=0):
    """Adjoint of np.concatenate(arrays, axis): g cut back into pieces shaped like the arrays."""
    if axis is None:
        sizes = np.cumsum([size_of(a) for a in arrays])[:-1]
        return [np.reshape(p, np.shape(a)) for p, a in zip(np.split(g, sizes), arrays)]
    bounds = np.cumsum([np.shape(a)[axis] for a in arrays])[:-1]
    if on_host(g):
        return np.split(g, bounds, axis=axis)
    axis = axis % np.ndim(g)  # (a dask or CuPy array: the same pieces by slicing; dask has no
    starts = [0] + [int(b) for b in bounds]  # np.split, which would compute g)
    stops = starts[1:] + [np.shape(g)[axis]]
    return [g[(slice(None),) * axis + (slice(start, stop),)] for start, stop in zip(starts, stops)]


@helper(tangent="linear")
def unstack(g, axis=0):
    """Adjoint of np.stack(arrays, axis): the slices of g along axis."""
    return [np.take(g, i, axis=axis) for i in range(np.shape(g)[axis])]


@helper
def safe_matmul(a, b):
    """a @ b, where a zero entry of either operand times an inf or nan entry of the other adds
    0 to the sums (safe_mul's strong zero, in every product): the adjoint of a matrix product
    whose zero rows (an untaken np.where branch's) meet a factor that branch made inf or nan
    (modes/strong_zeros.py). One dot product of the result where it is finite."""
    with np.errstate(invalid="ignore"):
        out = np.matmul(a, b)
    if not on_host(out):  # a dask or CuPy array: no look at its values
        return out
    check = np.vdot(out, out).real  # NaN when an entry is NaN (or inf when one is inf): cheap
    if -np.inf < check < np.inf:
        return out
    left = np.expand_dims(a, -2) if np.ndim(a) == 1 else np.asarray(a)  # (k,) -> (1, k)
    right = np.expand_dims(b, -1) if np.ndim(b) == 1 else np.asarray(b)  # (k,) -> (k, 1)
    left, right = np.expand_dims(left, -1), np.expand_dims(right, -3)  # (.., n, k, 1) (1, k, m)
    with np.errstate(invalid="ignore"):
        terms = left * right
    terms = np.where(np.isnan(terms) & ((left == 0) | (right == 0)), 0, terms)
    out = terms.sum(axis=-2)
    if np.ndim(b) == 1:
        out = out[..., 0]
    if np.ndim(a) == 1:
        out = out[..., 0] if np.ndim(b) == 1 else out[..., 0, :]
    return out


@helper
def matmul_adjoint_a(g, a, b):
    """Adjoint of a in a @ b (1-D operands and batch broadcasting included); products with
    safe_matmul's strong zeros."""
    if np.ndim(b) == 1:
        ga = safe_matmul(np.expand_dims(g, -1), np.expand_dims(b, 0))  # (the outer product)
        if np.ndim(a) == 1:
            ga = np.reshape(ga, np.shape(b))
    elif np.ndim(a) == 1:
        ga = safe_matmul(np.expand_dims(g, -2), np.swapaxes(b, -1, -2))[..., 0, :]
    else:
        ga = safe_matmul(g, np.swapaxes(b, -1, -2))
    return unbroadcast(ga, a)


@helper
def matmul_adjoint_b(g, a, b):
    """Adjoint of b in a @ b (1-D operands and batch broadcasting included); products with
    safe_matmul's strong zeros."""
    if np.ndim(a) == 1:
        if np.ndim(b) > 1:  # (the outer product of a with g, a's axis first)
            gb = safe_matmul(np.reshape(a, (-1, 1)), np.reshape(g, (1, -1)))
            gb = np.reshape(gb, np.shape(a) + np.shape(g))
        else:
            gb = np.reshape(safe_matmul(np.reshape(g, (1, 1)), np.reshape(a, (1, -1))),
                            np.shape(a))
        if np.ndim(b) > 2:
            gb = np.moveaxis(gb, 0, -2)
    elif np.ndim(b) == 1:
        gb = safe_matmul(np.swapaxes(a, -1, -2), np.expand_dims(g, -1))[..., 0]
    else:
        gb = safe_matmul(np.swapaxes(a, -1, -2), g)
    return unbroadcast(gb, b)


@helper(tangent="linear")
def rebroadcast(dy, y):
    """A tangent broadcast up to its value's shape (when only a smaller operand varied)."""
    return dy if np.shape(dy) == np.shape(y) else np.broadcast_to(dy, np.shape(y))


@helper(linear=False)
def no_adjoint(g):
    """Whether g stands for a zero adjoint of any structure: None, or the number 0 (a zero
    written before the value's structure was known)."""
    return g is None or (type(g) in (float, int) and g == 0)


@helper(linear=False)
def keys_of(mapping):
    """The keys of a dict as a list (for k, v in d.items() iterates over them; d[k] is the
    value, whose adjoint reaches d's)."""
    return list(mapping.keys())


@helper
def added_at(y, index, v):
    """A copy of y with v added at index as np.add.at adds it (unbuffered: a repeated index adds
    each time). frontend/desugar.py writes np.add.at(y, i, v) as y[...] = added_at(y, i, v), a
    store into y that srcad differentiates (np.subtract.at: v negated)."""
    out = np.array(y, copy=True)
    np.add.at(out, index, v)
    return out


@helper(tangent="linear")
def scalar_of(v):
    """v.item(): the Python number a one-item array or a numpy scalar holds (frontend/desugar.py
    writes x.item() so: a method of a value is not known at build time); other values as they
    are (a tangent that is already a Python number)."""
    item = getattr(v, "item", None)
    return v if item is None else item()


@helper(linear=False)
def list_index(index, size):
    """An index of a list of `size` items counted from its start, as Python reads `index`
    (negative: from the end; out of range: IndexError). frontend/list_reads.py."""
    if not -size <= index < size:
        raise IndexError("list index out of range")
    return index + size if index < 0 else index


@helper(linear=False)
def list_slice(piece, size):
    """A slice of a list of `size` items with its bounds counted from its start, the same items
    as `piece` (bounds clipped as Python clips them). frontend/list_reads.py."""
    start, stop, step = piece.indices(size)
    return slice(start, stop if stop >= 0 else None, step)


@helper(tangent="linear")
def dict_of(values, keys):
    """{keys[0]: values[0], ...}: a dict built in the function ({"W": W}, dict(W=W))."""
    return dict(zip(keys, values))


@helper(tangent="linear")
def undict(g, values, keys):
    """The adjoint of dict_of: the adjoints of the values in key order (zeros for keys no
    contribution reached)."""
    g = {} if no_adjoint(g) else g
    return [zero_gradient(value) if no_adjoint(g.get(key)) else g[key]
            for key, value in zip(keys, values)]


@helper(linear=False)
def dict_with(mapping, key, value):
    """A copy of mapping with mapping[key] = value: a store into a dict built in the function
    (d[k] = v), written as the new dict it makes."""
    out = dict(mapping)
    out[key] = value
    return out


@helper(tangent="linear")
def dict_without(g, key):
    """The adjoint of the dict dict_with copied: g without the entry the store replaced."""
    if no_adjoint(g):
        return g
    return {k: v for k, v in g.items() if k != key}


@helper(tangent="linear")
def concat_adjoint(g, a, b, which):
    """The adjoint of a (which=0) or b (which=1) in a + b: for lists and tuples, which `+`
    joins, the items of g that came from it; for arrays and numbers, g summed down to its
    shape (unbroadcast)."""
    if isinstance(a, (list, tuple)):
        if no_adjoint(g):
            return None
        return list(g[:len(a)]) if which == 0 else list(g[len(a):])
    return unbroadcast(g, b if which else a)


@helper(linear=False)
def repeats_sequence(items, count):
    """Whether items * count repeats a list or tuple (not numpy's product)."""
    return isinstance(items, (list, tuple)) and isinstance(count, (int, np.integer))


@helper(tangent="linear")
def unrepeat_items(g, items, count):
    """The adjoint of items in items * count, count a value no derivative flows through: for
    a list or tuple times an int, which `*` repeats, each item's is the sum of its copies'
    (None where none reached); otherwise numpy's product, g * count summed down to items'
    shape (a list times an array is one)."""
    if repeats_sequence(items, count):
        if no_adjoint(g):
            return None
        size = len(items)
        out = [None] * size
        for start in range(0, len(g), size) if size else ():
            copies = list(g[start:start + size])
            out = [add_adjoint(a, b) for a, b in zip(out, copies + [None] * (size - len(copies)))]
        return out
    return unbroadcast(g * count, items)


@helper(tangent="linear")
def repeat_items(w, g, items, count):
    """The transpose of unrepeat_items(g, items, count) (its adjoint in g): w, the adjoint of
    each item, repeated count times over (a list or tuple times an int), else w spread back to
    g's shape, times count."""
    if repeats_sequence(items, count):
        return None if no_adjoint(w) else list(w) * count
    return rebroadcast(w, g) * count


@helper(linear=False)  # add_adjoint(0, b) is b: zeros fold like a sum (instantiate.py)
def add_adjoint(a, b):
    """a + b for adjoints that may be sequences or dicts (added item by item; None, or the
    number 0, is zero)."""
    if no_adjoint(a):
        return b
    if no_adjoint(b):
        return a
    if isinstance(a, dict):
        out = dict(a)
        for key, value in b.items():
            out[key] = add_adjoint(out.get(key), value)
        return out
    if isinstance(a, (list, tuple)):
        # (zip would drop the items of the longer silently.) A list's adjoint is popped as
        # the appends are undone, and a read's, made from the whole list, can be longer: its
        # items past the adjoint's end are zeros (nothing read them then); any other
        # difference in length is srcad's bug
        try:
            longer = len(b) - len(a)
        except TypeError:  # (a number or a 0-d array: no items)
            longer = None
        if longer != 0 and not (longer is not None and longer > 0 and all(
                no_adjoint(x) or not np.any(x) for x in b[len(a):])):
            raise ValueError(f"srcad internal error: two adjoints of one sequence of "
                             f"{len(a)} items differ in length ({type(b).__name__})")
        return [add_adjoint(x, y) for x, y in zip(a, b)]
    return a + b


@helper(tangent="linear")
def unattr(g, x, attribute):
    """Adjoint of x.attribute: the adjoint of that attribute alone."""
    return {attribute: g}


@helper(tangent="linear")
def as_gradient(g, x):
    """The adjoint of a parameter in the parameter's own structure: a dict, list or tuple of
    gradients (zeros for items nothing reached), an object's attributes as a SimpleNamespace,
    an array or scalar as itself; None for what is not a number (a name, a flag, None)."""
    if isinstance(x, (str, bytes, bool, np.bool_, type(None))):
        return None
    if isinstance(x, dict):
        g = {} if no_adjoint(g) else g
        return {key: as_gradient(g.get(key), value) for key, value in x.items()}
    if isinstance(x, (list, tuple)):
        g = [None] * len(x) if no_adjoint(g) else g
        return type(x)(as_gradient(gi, xi) for gi, xi in zip(g, x))
    if isinstance(g, dict) and not isinstance(x, (np.ndarray, float, int)):
        import types
        return types.SimpleNamespace(**{key: as_gradient(value, getattr(x, key))
                                        for key, value in g.items()})
    if g is None or (no_adjoint(g) and np.shape(x) != ()):  # (an array's zero as 0.0)
        return zero_gradient(x)
    return in_dtype_of(g, x)


@helper(tangent="linear")
def in_dtype_of(g, x):
    """The gradient g of a float array (or numpy float) x in x's dtype: a float32 parameter
    has a float32 gradient, however f promoted on the way (float64 constants, in-place casts).
    Anything else passes unchanged."""
    if isinstance(x, (np.ndarray, np.generic)) and x.dtype.kind == "f" and \
            isinstance(g, (np.ndarray, np.generic, float)) and np.result_type(g) != x.dtype:
        return g.astype(x.dtype) if isinstance(g, np.ndarray) else x.dtype.type(g)
    if array_like(x) and x.dtype.kind == "f" and array_like(g) and g.dtype != x.dtype:
        return g.astype(x.dtype)  # (a dask or CuPy array: cast where it is)
    return g


@helper(tangent="linear")
def zero_at(g, index):
    """g with zeros at index (a copy: the adjoint of the values a store overwrote is zero); a
    list of adjoints gets None there (zero, for add_adjoint)."""
    if isinstance(g, (list, tuple)):
        out = list(g)
        out[index] = None
        return out
    dtype = np.result_type(g, 0.0)
    if on_host(g) or not array_like(g):
        out = np.array(g, dtype=dtype)
    else:  # (a dask or CuPy array: copied where it is; dask's astype to its own dtype is itself)
        out = g.astype(dtype) if g.dtype != dtype else g.copy()
    out[index] = 0.0
    return out


@helper(tangent="linear")
def tuple_adjoint(parts, y, indices):
    """The adjoint of a tuple y whose items at `indices` have the adjoints `parts` (the others
    were never used: zeros shaped like them, made for those alone)."""
    given = {i % len(y) for i in indices}
    out = [None if k in given else zero_gradient(item) if isinstance(item, (list, tuple, dict))
           else np.zeros_like(item, dtype=np.result_type(item, 0.0)) for k, item in enumerate(y)]
    for i, part in zip(indices, parts):
        out[i] = part
    return out


@helper(tangent="linear")
def tuple_parts(g, indices, parts):
    """The items of g at indices (the transpose of tuple_adjoint), zeros shaped like the parts
    where no adjoint reached them (None)."""
    return [item_of(g, i, part) for i, part in zip(indices, parts)]


@helper(tangent="linear")
def item_of(g, index, like):
    """g[index] (the transpose of unindex), zeros shaped like `like` where g or its item holds
    no adjoint (None: the item of a list or dict of adjoints that nothing reached)."""
    if no_adjoint(g):
        return zero_gradient(like)
    part = g.get(index) if isinstance(g, dict) else g[index]
    return zero_gradient(like) if no_adjoint(part) else part


@helper(tangent="linear")
def copy_tangent(dy, y):
    """A copy of the tangent dy of y, for the stores into y's new array to go into (a tangent
    shared with another name would take them too), in y's float dtype where dy's is narrower:
    a float16 tangent (of a mask's np.tanh) of a value that a float64 operand which does not
    vary made float64 would round what is stored into it, and the int zeros of an int array's
    tangent (y = y_int + 0.0; y[1:] += s) would truncate it."""
    wide, narrow = getattr(y, "dtype", None), getattr(dy, "dtype", None)
    if wide is not None and narrow is not None and wide.kind in "fc" and (
            np.promote_types(narrow, wide) != narrow):
        return dy.astype(np.promote_types(narrow, wide))  # (a copy)
    return np.copy(dy)


@helper(tangent="linear")
def copy_value(y):
    """y, copied if it is an array (an array the adjoint sweep restores in place must not
    change the value a value_and_grad returns), srcad's stack of tangents too (a store into a
    tangent copied so must not write into the tangent it was copied from). A NumPy array is
    copied in its own memory order: a sum of a C-ordered copy of a transposed array adds in
    another order than the function's sum of it did (a last bit of the value differed)."""
    if isinstance(y, np.ndarray):
        return y.copy(order="K")
    return y.copy() if array_like(y) or getattr(type(y), "srcad_on_host", False) else y


@helper(linear=False)
def zero_tangent(x):
    """A zero tangent for x: zeros shaped like an array or number, the same structure of zeros
    for a list, tuple or dict (np.zeros_like of a list of arrays of two shapes fails); float
    zeros for truth values, as arithmetic with them gives (-np.zeros_like(mask) raises)."""
    if type(x) is np.ndarray:
        return np.zeros(x.shape) if x.dtype == np.bool_ else np.zeros_like(x)
    if type(x) in (float, bool, np.bool_):  # (a number, not a 0-d NumPy array: CuPy adds no
        return 0.0  # NumPy arrays)
    if x is None:  # (add_adjoint's zero: an adjoint no contribution reached yet)
        return None
    if isinstance(x, (list, tuple)):
        return type(x)(zero_tangent(item) for item in x)
    if isinstance(x, dict):
        return {key: zero_tangent(value) for key, value in x.items()}
    return np.zeros_like(x)


@helper(linear=False)
def check_own_update(value, others, names, where):
    """Refuse an update in place (`y += e`) of an array or list that another of f's inputs
    shares (others, named names: f's other arguments, the global and closure values it reads,
    and their items and attributes, one level down). In Python the update writes into that
    storage, and the other name sees it; the derivative computes y + e as a new value (it
    writes into no array it was given), so with shared storage it would compute another
    function than f. where: the user's statement and line."""
    if isinstance(value, np.ndarray):
        def shared(other):
            return isinstance(other, np.ndarray) and np.may_share_memory(value, other) and (
                arrays_overlap(value, other))
    elif isinstance(value, (list, dict)):
        def shared(other):
            return other is value
    else:  # (a number, a tuple: += makes a new one, in Python too)
        return
    for other, label in zip(others, names):
        if isinstance(other, (list, tuple)):
            parts = [(item, f"{label}[{i}]") for i, item in enumerate(other)]
        elif isinstance(other, dict):
            parts = [(item, f"{label}[{key!r}]") for key, item in other.items()]
        elif isinstance(other, (np.ndarray, str, bytes, int, float, complex)):
            parts = []
        else:  # (an object: its attributes, as model.W reads them)
            parts = [(item, f"{label}.{key}") for key, item in getattr(
                other, "__dict__", {}).items()]
        for item, spelled in [(other, label)] + parts:
            if shared(item):
                raise ValueError(
                    f"{where} updates an array in place that {spelled} shares (the same array, "
                    f"or a view of it): in Python {spelled} sees the update, and srcad's "
                    f"derivative, which never writes into the arrays it is given, cannot "
                    f"compute that; pass a copy (.copy()) to one of them, or write the update "
                    f"as a new value (y = y + e)")


@helper(linear=False)
def arrays_overlap(a, b):
    """Whether two arrays whose memory bounds overlap share an element (interleaved views of one
    array do not); a question too hard to answer counts as yes."""
    try:
        return np.shares_memory(a, b, max_work=10000)
    except getattr(np, "exceptions", np).TooHardError:
        return True


@helper(linear=False)
def check_cotangent(dy, y):
    """Refuse a vjp's cotangent dy that is not shaped like the output y (item by item for a
    tuple of outputs)."""
    if isinstance(y, (tuple, list)):
        if not isinstance(dy, (tuple, list)) or len(dy) != len(y):
            raise ValueError(f"srcad.vjp: the function returns {len(y)} outputs, so the "
                             f"cotangent must be a tuple of {len(y)}, not {type(dy).__name__}")
        for dy_item, y_item in zip(dy, y):
            check_cotangent(dy_item, y_item)
    elif np.shape(dy) != np.shape(y):
        raise ValueError(f"srcad.vjp: the cotangent has shape {np.shape(dy)}, the output has "
                         f"shape {np.shape(y)}: pass a cotangent shaped like the output")


@helper(linear=False)
def grad_seed(y):
    """The adjoint seed of a scalar output: a one of y's type. Refuses non-scalar outputs."""
    number = isinstance(y, (float, int, np.ndarray, np.generic)) or array_like(y)
    if not number or isinstance(y, (bool, np.bool_)):  # (None, a tuple, a flag)
        raise TypeError(f"srcad.grad needs a function with a number as its output, this one "
                        f"returned {type(y).__name__}")
    if size_of(y) != 1:
        raise ValueError(f"srcad.grad needs a function with a scalar output, this one returned "
                         f"shape {np.shape(y)}; use srcad.vjp or srcad.jacobian for it")
    if isinstance(y, (np.ndarray, np.generic)) or array_like(y):  # (a dask array's: lazy)
        return np.ones_like(y, dtype=float_type(y))
    return 1.0


def grad_hook(x, fn):
    """x itself; in reverse mode, x's adjoint is fn(the adjoint of this value): a hook that
    observes or replaces a gradient as it flows (clipping, logging a norm, scaling), like
    PyTorch's tensor.register_hook. Forward mode passes tangents through unchanged (srcad.grad_hook;
    its templates are in templates/runtime.py)."""
    return x


def checkpoint(iterable, every=None):
    """The iterable itself: `for t in srcad.checkpoint(range(T)):` marks a loop whose reverse
    mode keeps only every `every`-th turn's state (default: about the square root of the number
    of turns) and runs each stretch of turns again, from its saved state, when the adjoint sweep
    reaches it: memory O(sqrt T) instead of O(T), for one more run of the loop's turns."""
    return iterable


@helper(linear=False)
def checkpoint_segments(turns, every):
    """The turns of a checkpointed loop in stretches of `every` turns (None: about the square
    root of their number), each a range: reverse mode keeps the state at the start of each."""
    count = len(turns)
    every = every or max(1, int(np.ceil(np.sqrt(count))))
    return [turns[start:start + every] for start in range(0, count, every)]


def stop_gradient(x):
    """x itself, as a constant: inside a differentiated function its derivative is zero in
    every mode (srcad.stop_gradient; declared non-differentiable in templates/runtime.py)."""
    return x


@helper(linear=False)
def aux_seed(y):
    """The adjoint seed of f's (value, aux) pair (has_aux=True): value's seed, zeros for aux
    (in its structure: the code that made aux may also make the value)."""
    if not isinstance(y, (tuple, list)) or len(y) != 2:
        raise TypeError(f"srcad: with has_aux=True the function must return a pair (value, "
                        f"aux), this one returned {type(y).__name__}")
    return grad_seed(y[0]), zero_gradient(y[1])


@helper(linear=False)
def aux_cotangent(dy, y):
    """The cotangent of f's (value, aux) pair (has_aux=True) from value's cotangent dy."""
    if not isinstance(y, (tuple, list)) or len(y) != 2:
        raise TypeError(f"srcad: with has_aux=True the function must return a pair (value, "
                        f"aux), this one returned {type(y).__name__}")
    check_cotangent(dy, y[0])
    return dy, zero_gradient(y[1])


@helper(linear=False)
def float_type(x):
    """The float dtype of x's gradient: x's own if it is a float, float64 for integers."""
    dtype = getattr(x, "dtype", None)  # (an array's: np.asarray of a dask array computes it)
    return np.result_type(dtype if isinstance(dtype, np.dtype) else np.asarray(x).dtype,
                          np.float32)


@helper(linear=False)
def zero_gradient(x):
    """The gradient of an argument the output does not depend on: float zeros shaped like it
    (for a dict, list, tuple or object of parameters: zeros in its structure)."""
    if isinstance(x, (dict, list, tuple)):
        return as_gradient(None, x)
    if array_like(x):  # zeros of x's kind: lazy and chunked like x for dask, on the GPU for CuPy
        return np.zeros_like(x, dtype=float_type(x))
    return np.zeros(np.shape(x), dtype=float_type(x))

