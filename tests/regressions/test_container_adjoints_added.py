"""Adjoints of values that are containers, in builds for any shapes (container arguments are
never specialized). `+` on two adjoint lists concatenates them, so every place where an adjoint
may be a list must add with add_adjoint:
- an item of a container may be a container (for W, b in params: params[i] is a tuple whose
  two items get adjoints; `bt1 + [bW, None]` joined them, then `[None, ..][0] += bW` crashed);
- a parameter passed to two helpers gets one gradient structure from each backward half
  (they came back concatenated: a silent wrong gradient, four items for two);
- a + b of tuples joins them: its adjoint splits (concat_adjoint), where the arithmetic
  template summed the adjoint down to each operand's "shape".
Each is checked in both modes against central differences (check_grads walks the tree)."""
import numpy as np
import pytest

import srcad

R = np.random.RandomState(0)
PARAMS = [(R.randn(3, 4), R.randn(4)), (R.randn(4, 2), R.randn(2))]
X = R.randn(5, 3)


def pairs_unpacked_in_a_loop(params, x):
    h = x
    for W, b in params:
        h = np.tanh(h @ W + b)
    return np.sum(h)


def use_weights(p, x):
    return np.sum(x @ p[0][0])


def use_squares(p, x):
    return np.sum(p[0][0] ** 2) + np.sum(p[1][1])


def one_parameter_two_helpers(params, x):
    return use_weights(params, x) + use_squares(params, x)


def tuples_joined(params, x):
    t = params[0] + params[1]
    return np.sum(t[0]) * np.sum(t[3] ** 2)


def step(a, b):
    return a * 2.0, b + np.sin(a[:2])


def helper_pair_in_a_loop(params, x):
    vx, vy = params[0][1], params[1][1]
    for i in range(3):
        vx, vy = step(vx, vy)
    return np.sum(vx) + np.sum(vy ** 2)


@pytest.mark.parametrize("func", [pairs_unpacked_in_a_loop, one_parameter_two_helpers,
                                  tuples_joined, helper_pair_in_a_loop])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_container_adjoints_added(func, mode):
    srcad.check_grads(func, (PARAMS, X), modes=(mode,))


def test_two_helpers_gradient_has_the_parameters_structure():
    g = srcad.grad(one_parameter_two_helpers)(PARAMS, X)
    assert isinstance(g, list) and len(g) == 2 and all(len(item) == 2 for item in g)
    np.testing.assert_allclose(g[0][0], X.sum(0)[:, None] + 2 * PARAMS[0][0])
    np.testing.assert_allclose(g[1][1], np.ones(2))
    np.testing.assert_allclose(g[0][1], 0.0)
