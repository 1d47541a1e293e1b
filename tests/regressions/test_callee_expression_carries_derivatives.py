"""A call whose callee is itself an expression (make(w)(x), table[k](x)) took its derivative
from its arguments alone: the activity analysis read the operands of a callee that is a name or
an attribute chain (model(x), obj.method(x)) and dropped those of any other. With
functools.partial(g, w)(x), w reached the output through the callee only, the call was taken
for a constant, and the gradient was zero with no error (found differentiating a hidden Markov
model's log partition function summed over sequences by map(partial(f, params), seqs)).

Now the operands of every callee expression count, so such a call is active (and refused where
srcad cannot tell which function it calls), and a partial called where it is made,
partial(g, a, k=v)(b), directly or through map, is lowered to the call of its function,
g(a, b, k=v) (frontend/statements.py)."""
import functools
from functools import partial

import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient


def weighted(w, x, scale=1.0):
    return scale * np.sum(np.tanh(w * x))


def partial_called_at_once(w, x):
    return partial(weighted, w)(x) + functools.partial(weighted, scale=2.0)(w, x)


def partial_mapped(w, xs):
    return sum(map(partial(weighted, w, scale=0.5), xs))


def keyword_replaced(w, x):
    return partial(weighted, w, scale=3.0)(x, scale=-1.0)


def recursive_over_a_list(w, data):
    if isinstance(data, list):
        return sum(map(partial(recursive_over_a_list, w), data))
    return np.sum(np.sin(w * data))


def make_scaled(c):
    return lambda v: c * v


def callee_returned_by_a_call(w, x):
    return np.sum(make_scaled(w)(x))


def partial_bound_to_a_name(w, x):
    h = partial(weighted, w)
    return h(x)


W = np.array([0.4, -0.3, 0.8])
X = np.array([1.5, 0.2, -0.7])
XS = [X, 2.0 * X, X[::-1].copy()]


@pytest.mark.parametrize("f, args", [(partial_called_at_once, (W, X)),
                                     (partial_mapped, (W, XS)),
                                     (keyword_replaced, (W, X)),
                                     (recursive_over_a_list, (W, XS))])
@pytest.mark.parametrize("disable", [None, "all"])
def test_partial_called_where_it_is_made(f, args, disable):
    got = srcad.grad(f, disable=disable)(*args)
    expected = central_gradient(f, args)
    assert np.max(np.abs(expected)) > 0.1
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-9)
    v = np.array([0.2, -0.4, 0.9])
    np.testing.assert_allclose(srcad.jvp(f, disable=disable)(*args, v), got @ v, rtol=1e-10)


@pytest.mark.parametrize("f", [callee_returned_by_a_call, partial_bound_to_a_name])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_unknown_callee_that_depends_on_the_input_is_refused(f, mode):
    with pytest.raises(srcad.SrcadError):
        if mode == "grad":
            srcad.grad(f)(W, X)
        else:
            srcad.jvp(f)(W, X, np.ones(3))
