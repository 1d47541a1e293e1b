"""Parameters as trees: dicts, lists and tuples nesting arrays and floats (what JAX calls a
pytree), so check_grads and jacobian take the parameters users pass to grad.

    leaves({"W": W, "layers": [(A, b)], "n": 3})   ->   [W, A, b]    (3 is not a float: a constant)
    tree_map(lambda a, v: a + h * v, params, direction)   ->   params moved along direction

A leaf is an array or a float; ints, strings, None and other objects inside a tree are constants
(a layer count, an activation name) and pass through unchanged. Dicts keep their key order.
"""
import numpy as np

from ..errors import SrcadError


def is_leaf(value):
    return isinstance(value, (np.ndarray, float, np.floating))


def leaves(tree):
    """The array and float leaves of tree, depth first, in the tree's own order."""
    if isinstance(tree, dict):
        return [leaf for value in tree.values() for leaf in leaves(value)]
    if isinstance(tree, (list, tuple)):
        return [leaf for value in tree for leaf in leaves(value)]
    return [tree] if is_leaf(tree) else []


def tree_map(func, tree, *others):
    """tree with each leaf replaced by func(leaf, the same leaf of each of others)."""
    if isinstance(tree, dict):
        return {key: tree_map(func, value, *(other[key] for other in others))
                for key, value in tree.items()}
    if isinstance(tree, (list, tuple)):
        items = [tree_map(func, value, *(other[i] for other in others))
                 for i, value in enumerate(tree)]
        return type(tree)(items) if isinstance(tree, tuple) and not hasattr(tree, "_fields") \
            else (type(tree)(*items) if isinstance(tree, tuple) else items)
    return func(tree, *others) if is_leaf(tree) else tree


def leaves_like(tree, other):
    """The values of other (a tree of tree's structure) where tree has its leaves."""
    out = []
    tree_map(lambda leaf, value: out.append(value), tree, other)
    return out


def unflatten(tree, values):
    """tree with its leaves replaced, in order, by values (as leaves() lists them)."""
    values = iter(values)
    return tree_map(lambda leaf: next(values), tree)


def top_level_float(value):
    """value, an int counted as a float at the top level (an int argument in wrt)."""
    return float(value) if isinstance(value, (int, np.integer)) and not isinstance(
        value, bool) else value


def one_hot(tree, dtype=float):
    """Every basis direction of a tree of parameters: (leaf index, the tree of zeros with a
    one at one entry of that leaf), entry by entry, leaf by leaf."""
    flat = leaves(tree)
    for j, leaf in enumerate(flat):
        size = int(np.prod(np.shape(leaf), dtype=int))
        for i in range(size):
            e = np.zeros(size, dtype=dtype)
            e[i] = 1.0
            yield j, unflatten(tree, [e.reshape(np.shape(leaf)) if k == j else
                                      np.zeros(np.shape(other), dtype=dtype)
                                      for k, other in enumerate(flat)])


def blocks(out_tree, in_tree, stacked):
    """The Jacobian as trees: out_tree's structure, each leaf replaced by in_tree's structure
    whose leaves are the blocks stacked[(j, l)] shaped out_leaf_j.shape + in_leaf_l.shape (for
    a plain array in and out: the one block)."""
    in_leaves = leaves(in_tree)
    return unflatten(out_tree, [unflatten(in_tree, [stacked[j, l] for l in range(len(in_leaves))])
                                for j in range(len(leaves(out_tree)))])


def inner(a, b):
    """The sum of the products of matching leaves: <a, b> for trees of the same structure (b's
    values where a has leaves: a gradient has a zero where a has an int)."""
    return sum(float(np.sum(np.asarray(x, dtype=float) * np.asarray(y, dtype=float)))
               for x, y in zip(leaves(a), leaves_like(a, b)))


def shapes(tree):
    return [np.shape(leaf) for leaf in leaves(tree)]


def complex_array(value):
    """Whether value is a complex array: a NumPy array, or another library's (a dask or CuPy
    array) by its dtype, which is known without computing its values."""
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "c"
    dtype = getattr(value, "dtype", None) if hasattr(type(value), "__array_function__") else None
    return isinstance(dtype, np.dtype) and dtype.kind == "c"


def other_array(value, depth=0):
    """Whether value is (or holds, in a dict, list or tuple) another library's array: one that
    numpy's functions dispatch to (NEP 18: dask, CuPy), not a NumPy array."""
    if depth < 4 and isinstance(value, (list, tuple, dict)):
        items = value.values() if isinstance(value, dict) else value
        return any(other_array(v, depth + 1) for v in items)
    return hasattr(type(value), "__array_function__") and not isinstance(
        value, (np.ndarray, np.generic))


def refuse_other_arrays(what, args, kwargs=None):
    """Refuse dask and CuPy arrays where srcad builds NumPy values from the arguments' leaves
    (jacobian, hessian, check_grads): such an array is no leaf (trees hold NumPy arrays and
    floats), so it would pass through untouched, a Jacobian that is f's value."""
    values = list(args) + list((kwargs or {}).values())
    found = next((v for v in values if other_array(v)), None)
    if found is not None:
        raise SrcadError(f"srcad.{what} takes NumPy arrays and floats, not "
                         f"{type(found).__module__}.{type(found).__qualname__}: it builds a "
                         f"dense NumPy result entry by entry",
                         hint="pass NumPy arrays (x.compute() for dask, cupy.asnumpy(x) for "
                              "CuPy); grad, value_and_grad, vjp, jvp, hvp and hessp run on "
                              "dask and CuPy arrays as they are")


def check_real(func, args, kwargs):
    """Refuse complex arguments for the code built for any arguments: only a build specialized
    to them knows which values are complex and checks what they meet (analysis/complexes.py)."""
    def complex_in(value, depth=0):
        if isinstance(value, (complex, np.complexfloating)) or complex_array(value):
            return True
        if depth < 4 and isinstance(value, (list, tuple, dict)):
            items = value.values() if isinstance(value, dict) else value
            return any(complex_in(v, depth + 1) for v in items)
        return False
    if any(complex_in(v) for v in list(args) + list(kwargs.values())):
        raise SrcadError(f"srcad differentiates {getattr(func, '__qualname__', func)} with "
                         f"complex arguments only in a derivative built for the arguments, and "
                         f"this call runs the code for any arguments (specialization disabled, "
                         f"or past its caps, or a float that decides a shape, or an array of "
                         f"another library than NumPy: dask, CuPy)",
                         hint="let srcad specialize (no disable='specialize'), or pass the real "
                              "and imaginary parts as two float arrays")
