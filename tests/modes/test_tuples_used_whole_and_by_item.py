"""A tuple a call returned, used both whole (passed on, stacked, turned into an array) and item by
item: the adjoint of the whole and those of its items add item by item (add_adjoint). It was
refused ("a tuple used both whole and item by item") until they did; a pair that srcad's own
generated code returns (a callee's value-and-tape record, in a derivative differentiated again)
is still refused (tests/api/test_compose.py's 4th orders). Every program in every mode, optimized
and not, against central differences."""
import numpy as np
import pytest

import srcad
from srcad.runtime import add_adjoint
from tests.regressions.numeric import central_gradient

RNG = np.random.default_rng(0)
A = RNG.uniform(-1, 1, (3, 3))
X = RNG.uniform(-1, 1, 4)


def two(x):
    return np.sin(x), x * x


def stacked_and_items(x):
    t = two(x)
    u = np.concatenate(t)
    return np.sum(u ** 2) + np.sum(t[1] * t[0]) + np.sum(np.cos(t[0]))


def in_a_loop(x):
    s = 0.0
    for i in range(3):
        t = two(x * (i + 1))
        s = s + np.sum(np.stack(t) ** 2) + np.sum(t[0] * x)
    return s


def slogdet_pair(a):
    p = np.linalg.slogdet(a @ a.T + 3 * np.eye(3))
    return p[1] * p[0] + np.sum(np.array(p) ** 2)


CASES = [(stacked_and_items, X), (in_a_loop, X), (slogdet_pair, A)]


@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
@pytest.mark.parametrize("disable", [None, "all"])
def test_every_mode(f, x, disable):
    gradient = srcad.grad(f, disable=disable)(x)
    np.testing.assert_allclose(gradient, central_gradient(f, (x,)), rtol=1e-6, atol=1e-8)
    v = np.random.default_rng(1).normal(size=x.shape)
    np.testing.assert_allclose(srcad.jvp(f, disable=disable)(x, v), np.sum(gradient * v),
                               rtol=1e-10, atol=1e-12)
    hessian_vector = srcad.jvp(srcad.grad(f, disable=disable), disable=disable)(x, v)
    numeric = (srcad.grad(f)(x + 1e-5 * v) - srcad.grad(f)(x - 1e-5 * v)) / 2e-5
    np.testing.assert_allclose(hessian_vector, numeric, rtol=1e-5, atol=1e-7)


def test_cho_factor_pair_passed_whole_and_its_factor_read():
    scipy_linalg = pytest.importorskip("scipy.linalg", reason="scipy is not installed")
    from tests.rules import test_scipy_linalg as programs
    y = RNG.uniform(-1, 1, (3, 2))
    assert scipy_linalg is not None
    f = programs.gp_factor_passed_whole
    grads = srcad.grad(f, wrt=(0, 1))(A, y)
    for i in (0, 1):
        np.testing.assert_allclose(grads[i], central_gradient(f, (A, y), i), rtol=1e-6,
                                   atol=1e-8)


def test_adjoints_of_one_sequence_in_two_structures_are_an_internal_error():
    """add_adjoint adds sequences item by item; two of different lengths are a bug of srcad's
    (zip would drop the items of the longer silently), but where the second is longer by
    zeros only (a read's adjoint, made from the whole list, added to the list's adjoint,
    popped as the appends are undone)."""
    assert add_adjoint([1.0, None], (2.0, 3.0)) == [3.0, 3.0]
    assert add_adjoint([1.0], [2.0, None, np.zeros(3)]) == [3.0]
    for a, b in (([1.0, 2.0], [1.0]), ([1.0], [2.0, 5.0]), ([1.0], 2.0)):
        with pytest.raises(ValueError, match="internal error"):
            add_adjoint(a, b)
