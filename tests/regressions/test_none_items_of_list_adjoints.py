"""The adjoint of a list read by item (items[-1]) holds None for the items nothing reached.
Popping it item by item for a list built by append added None to an array (first order: a
crash in grad), and forward mode over such code (hvp) gave the list's zero tangent as
np.zeros_like of a list of arrays of two shapes (fuzz seeds 43117, 43132, 43262, 43423, with
the fuzzer's python_idioms family). Now an appended list's adjoint has zeros for None
(item_adjoints), and forward mode knows which runtime helpers return lists
(runtime.CONTAINER_RESULTS)."""
import numpy as np
import pytest

import srcad


def last_of_appended(s, x):
    items = [x for v in (s, s)]
    return np.sum(items[-1])


def last_of_mixed_shapes(A, x):
    items = [v for v in (x, A)]
    return items[-1].sum()


def stacked_and_last(s, x):
    items = [s * x for v in (x, x)]
    return np.sum(np.stack(items) + items[-1])


@pytest.mark.parametrize("func, args", [
    (last_of_appended, (np.array(1.3), np.array([-1.4]))),
    (last_of_mixed_shapes, (np.ones((5, 1)) * 0.3, np.array([1.2]))),
    (stacked_and_last, (-1.04, np.array([0.62, 0.63, 0.69])))])
@pytest.mark.parametrize("wrt", [0, 1])
def test_none_items_of_list_adjoints(func, args, wrt):
    srcad.check_grads(func, args, wrt=wrt, order=2)
    srcad.hvp(func, wrt=wrt, disable="all")(*args, np.ones_like(args[wrt]))
