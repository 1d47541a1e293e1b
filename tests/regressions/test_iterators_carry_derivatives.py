"""enumerate, zip and reversed were declared non-differentiable (templates/nondifferentiable.py:
"their results carry no derivative, never an error"): list(enumerate(x)) and list(zip(x, y))
gave a zero gradient with no error, and a for statement over them that the loop lowering did
not rewrite (a target that is not unpacked, enumerate(zip(...)), reversed(xs)) crashed in the
generated code (len of a zip object). A for statement over them is now lowered to indexing in
every form (frontend/control.py: enumerate of a sequence or of a zip, zip of any number of
sequences, reversed(xs) as xs[::-1], any target), and anywhere else srcad refuses them when
their values vary (no template), never a silent zero (found by a focused fuzzer)."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient


def enumerate_of_a_zip(x, W):
    s = 0.0
    for i, (row, xi) in enumerate(zip(W, x)):
        s = s + np.sum(row * xi) * (i + 1)
    return s


def pairs_not_unpacked(x, W):
    s = 0.0
    for pair in enumerate(x):
        s = s + pair[1] ** 2 * (pair[0] + 1)
    for pair in zip(x, W):
        s = s + np.sum(pair[0] * pair[1])
    return s


def reversed_rows(x, W):
    h = x * 1.0
    for row in reversed(W):
        h = np.tanh(row * h + 0.1)
    for k in reversed(range(2)):
        h = h * (k + 1.5)
    return np.sum(h)


def three_sequences(x, W):
    s = 0.0
    for a, b, c in zip(x, W, x[::-1]):
        s = s + np.sum(a * b * c)
    return s


X = np.array([0.3, -0.5, 0.7])
W = np.arange(9.0).reshape(3, 3) / 10


@pytest.mark.parametrize("f", [enumerate_of_a_zip, pairs_not_unpacked, reversed_rows,
                               three_sequences])
@pytest.mark.parametrize("disable", [None, "all"])
def test_gradient(f, disable):
    got = srcad.grad(f, disable=disable)(X, W)
    np.testing.assert_allclose(got, central_gradient(f, (X, W)), rtol=1e-6, atol=1e-9)
    v = np.array([0.2, -0.4, 0.9])
    np.testing.assert_allclose(srcad.jvp(f, disable=disable)(X, W, v), got @ v, rtol=1e-10)


def listed(x):
    s = 0.0
    for pair in list(enumerate(x)):
        s = s + pair[1] ** 2
    return s


def zipped(x):
    ps = list(zip(x, x * 2.0))
    return sum(p[1] ** 2 for p in ps)


@pytest.mark.parametrize("f", [listed, zipped])
def test_outside_a_for_statement_is_refused_not_zero(f):
    with pytest.raises(srcad.SrcadError, match="enumerate|zip"):
        srcad.grad(f)(X)
