"""Parameters as trees (dicts, lists, tuples nesting arrays and floats) through every entry
point: grad, check_grads, hvp, jacobian (both modes, trees of inputs and of outputs) and
hessian (a tree of trees), each against central differences or srcad's other mode."""
import numpy as np
import pytest

import srcad

R = np.random.RandomState(3)
PARAMS = {"layers": [{"W": R.randn(3, 2), "b": R.randn(2)}, {"W": R.randn(2, 2), "b": R.randn(2)}],
          "scale": 1.5, "name": "mlp", "depth": 2}
X = R.randn(4, 3)


def forward(params, x):
    h = x
    for layer in params["layers"]:
        h = np.tanh(h @ layer["W"] + layer["b"])
    return h * params["scale"]


def loss(params, x):
    return np.sum(forward(params, x) ** 2)


def two_outputs(params, x):
    h = forward(params, x)
    return {"mean": np.mean(h, axis=0), "total": np.sum(h)}


def central(func, params, leaf_path, index, h=1e-6):
    """d func / d params[leaf_path][index] by central differences."""
    def moved(step):
        import copy
        p = copy.deepcopy(params)
        node = p
        for key in leaf_path[:-1]:
            node = node[key]
        if isinstance(node[leaf_path[-1]], float):
            node[leaf_path[-1]] += step
        else:
            node[leaf_path[-1]] = node[leaf_path[-1]].copy()
            node[leaf_path[-1]][index] += step
        return func(p, X)
    return (np.asarray(moved(h)) - np.asarray(moved(-h))) / (2 * h)


def test_check_grads_and_hvp_walk_the_tree():
    srcad.check_grads(loss, (PARAMS, X), order=2)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_jacobian_of_a_tree_is_a_tree_of_blocks(mode):
    J = srcad.jacobian(forward, mode=mode)(PARAMS, X)
    assert J["layers"][0]["W"].shape == (4, 2, 3, 2) and J["scale"].shape == (4, 2)
    assert J["name"] == "mlp" and J["depth"] == 2  # (not parameters: passed through)
    g = srcad.grad(loss)(PARAMS, X)
    assert g["name"] is None and g["depth"] == 0.0  # (no derivative; an int's is a zero)
    np.testing.assert_allclose(J["layers"][1]["b"][..., 1],
                               central(forward, PARAMS, ("layers", 1, "b"), 1), atol=1e-7)
    np.testing.assert_allclose(J["scale"], central(forward, PARAMS, ("scale",), None),
                               atol=1e-7)


def test_jacobian_of_a_tree_of_outputs():
    Jr = srcad.jacobian(two_outputs)(PARAMS, X)
    Jf = srcad.jacobian(two_outputs, mode="forward")(PARAMS, X)
    assert Jr["mean"]["layers"][0]["W"].shape == (2, 3, 2)
    for out in ("mean", "total"):
        for i in range(2):
            for key in ("W", "b"):
                np.testing.assert_allclose(Jr[out]["layers"][i][key], Jf[out]["layers"][i][key],
                                           rtol=1e-12, atol=1e-12)


def test_hessian_of_a_tree_is_a_tree_of_trees():
    H = srcad.hessian(loss)(PARAMS, X)
    block = H["layers"][0]["b"]["layers"][1]["W"]
    assert block.shape == (2, 2, 2)
    gradient = srcad.grad(loss)

    def b0_gradient(params, x):
        return gradient(params, x)["layers"][0]["b"]
    np.testing.assert_allclose(block[..., 0, 1], central(b0_gradient, PARAMS,
                                                         ("layers", 1, "W"), (0, 1)), atol=1e-6)
    np.testing.assert_allclose(block, np.moveaxis(H["layers"][1]["W"]["layers"][0]["b"], -1, 0),
                               rtol=1e-10, atol=1e-12)
