"""A tuple display read at an index computed at run time, `(x, y)[i]`, crashed every reverse
mode: its adjoint (unindex) holds None for the items the index did not read, and each item's
adjoint was added as it was (`bx + None`). Found by the fuzzer (seeds 20240661, 20240808,
20240937) once it wrote sets of indices. The items' adjoints are now taken with item_adjoints
(zeros where None)."""
import numpy as np

import srcad

X = np.array([1.8, -0.4, 0.7])
Y = np.array([0.3, 1.1, -2.0])


def pick(x, y, k):
    order = sorted({j % 2 for j in range(3)})
    t = (x, y)[order[k]] + x
    return np.sum(t * (y, x)[k] ** 2)


def test_a_display_read_at_a_computed_index():
    for k in (0, 1):
        srcad.check_grads(pick, (X, Y, k), wrt=(0, 1), order=2)
