"""Parameters as trees: dicts, lists and tuples nesting arrays and floats (what JAX calls a
pytree), so check_grads and jacobian take the parameters users pass to grad.

    leaves({"W": W, "layers": [(A, b)], "n": 3})   ->   [W, A, b]    (3 is not a float: a constant)
    tree_map(lambda a, v: a + h * v, params, direction)   ->   params moved along direction

A leaf is an array or a float; ints, strings, None and other objects inside a tree are constants
(a layer count, an activation name) and pass through unchanged. Dicts keep their key order.
"""
import numpy as np


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


def inner(a, b):
    """The sum of the products of matching leaves: <a, b> for trees of the same structure."""
    return sum(float(np.sum(np.asarray(x, dtype=float) * np.asarray(y, dtype=float)))
               for x, y in zip(leaves(a), leaves(b)))


def shapes(tree):
    return [np.shape(leaf) for leaf in leaves(tree)]
