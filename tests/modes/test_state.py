"""State and calls in both modes: tuples, containers and objects of parameters, helpers (module
level, another module, keyword defaults, several call sites, recursion, tuple results, lambdas)."""
import types

import numpy as np
import pytest

import srcad
import other_module

rng = np.random.default_rng(3)
X = rng.uniform(-1, 1, 4)
W = rng.uniform(-1, 1, (4, 4)) * 0.5


def layer(x, w, scale=1.0):
    return np.tanh(w @ x) * scale


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def polar(x):
    return np.sin(x), np.cos(x)


square = lambda v: v * v  # noqa: E731  (a module-level lambda is a helper too)


def uses_helpers(x, w):
    h = layer(x, w)
    h = layer(h, w, scale=2.0)
    s, c = polar(h)
    total = np.sum(s * c) + power(np.sum(h), 3) + np.sum(square(x))
    return total + np.sum(other_module.softplus(h, beta=2.0))


def tuple_values(x, y):
    pair = (np.sin(x), x * y)
    a, b = pair
    return np.sum(a * b + pair[0])


def test_helpers_in_both_modes_and_second_order():
    srcad.check_grads(uses_helpers, (X, W), wrt=(0, 1), order=2)


def test_helpers_are_written_in_and_agree_with_their_derivatives_as_calls():
    inlined = srcad.source(uses_helpers, wrt=(0, 1))
    assert "layer_forward" not in inlined and "polar_forward" not in inlined
    assert "softplus_forward" not in inlined  # (another module's helper that reads only np,
    # which the caller reads as np too: written in as well)
    for got, want in zip(srcad.grad(uses_helpers, wrt=(0, 1))(X, W),
                         srcad.grad(uses_helpers, wrt=(0, 1), disable="inline")(X, W)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_each_helper_derivative_is_generated_once():
    source = srcad.source(uses_helpers, wrt=(0, 1), disable="inline")
    assert source.count("= layer_forward_x_w(") == 2  # one function, two call sites
    assert source.count("= layer_backward_x_w(") == 2
    assert source.count("def layer_forward_x_w(") == 1
    assert source.count("def layer_backward_x_w(") == 1


def test_tuple_values():
    srcad.check_grads(tuple_values, (X, X[::-1].copy()), wrt=(0, 1), order=2)


def mlp(params, x):
    h = np.tanh(x @ params["W1"] + params["b1"])
    return np.sum((h @ params["W2"]) ** 2)


def stack_of_layers(weights, x):
    for w in weights:
        x = np.tanh(w @ x)
    return np.sum(x)


class Model:
    def __init__(self, w, scale):
        self.w = w
        self.scale = scale

    def loss(self, x):
        return np.sum(np.tanh(self.w @ x)) * self.scale


def object_loss(model, x):
    return np.sum(np.tanh(model.w @ x)) * model.scale


def central(f, args, position, index, h=1e-6):
    """d f / d args[position][index] by central differences (index into a container)."""
    def shifted(step):
        import copy
        moved = copy.deepcopy(list(args))
        holder, key = moved[position], index[0]
        item = getattr(holder, key) if isinstance(key, str) and not isinstance(holder, dict) \
            else holder[key]
        item = np.array(item, dtype=float)
        item[index[1:]] += step
        if isinstance(key, str) and not isinstance(holder, dict):
            setattr(holder, key, item if item.ndim else float(item))
        else:
            holder[key] = item
        return f(*moved)
    return (shifted(h) - shifted(-h)) / (2 * h)


def test_dict_of_parameters():
    params = {"W1": rng.standard_normal((3, 4)), "b1": rng.standard_normal(4),
              "W2": rng.standard_normal((4, 2)), "unused": np.ones(2)}
    x = rng.standard_normal((5, 3))
    g = srcad.grad(mlp)(params, x)
    assert set(g) == set(params) and all(g[k].shape == params[k].shape for k in params)
    assert np.all(g["unused"] == 0.0)
    for key, index in [("W1", (0, 1)), ("b1", (2,)), ("W2", (3, 1))]:
        assert g[key][index] == pytest.approx(central(mlp, (params, x), 0, (key,) + index),
                                              rel=1e-6)


def test_list_of_parameters():
    weights = [rng.standard_normal((3, 3)), rng.standard_normal((3, 3))]
    g = srcad.grad(stack_of_layers)(weights, np.ones(3))
    assert isinstance(g, list) and len(g) == 2
    for k in range(2):
        assert g[k][1, 2] == pytest.approx(
            central(stack_of_layers, (weights, np.ones(3)), 0, (k, 1, 2)), rel=1e-6)
    g = srcad.grad(stack_of_layers)(tuple(weights), np.ones(3))
    assert isinstance(g, tuple)


def test_object_attributes():
    model = types.SimpleNamespace(w=W.copy(), scale=1.5)
    g = srcad.grad(object_loss)(model, X)
    assert g.w.shape == W.shape
    assert g.w[1, 2] == pytest.approx(central(object_loss, (model, X), 0, ("w", 1, 2)), rel=1e-6)
    assert g.scale == pytest.approx(central(object_loss, (model, X), 0, ("scale",)), rel=1e-6)
    gx = srcad.grad(object_loss, wrt=1)(model, X)
    srcad.check_grads(lambda_free_object_loss, (X,), wrt=0)
    assert gx.shape == X.shape


MODEL = Model(W.copy(), 2.0)


def lambda_free_object_loss(x):
    return object_loss(MODEL, x)


def test_bound_method():
    model = Model(W.copy(), 2.0)
    g = srcad.grad(model.loss)(X)
    assert g.shape == X.shape
    assert g[1] == pytest.approx(central(lambda x: model.loss(x), (X,), 0, (1,)), rel=1e-6)


def make_model(scale):
    def loss(x, w):
        def g(v, p=2.0):
            return (v * w) ** p * scale  # reads w from loss and scale from make_model
        sq = lambda t: np.sin(t) * t  # noqa: E731
        y = g(x) + sq(x)
        for _ in range(2):
            y = y + g(y, p=1.0)
        return np.sum(y)
    return loss


def test_nested_functions_and_lambdas_are_lifted():
    loss = make_model(0.5)
    srcad.check_grads(loss, (X[:2].copy(), X[2:].copy() + 1.0), wrt=(0, 1), order=2)
    text = srcad.source(loss, wrt=(0, 1), disable=("inline",))  # (lifted, and called)
    assert "g_forward_v_w(x, scale=scale, w=w)" in text and "def g_backward_v_w" in text
    text = srcad.source(loss, wrt=(0, 1))  # (lifted, then written into the caller)
    assert "g_forward" not in text and "def g_backward" not in text


def test_a_nested_function_passed_as_a_value_is_refused_where_it_cannot_be_followed():
    def f(x):  # g reads nothing of f's: a plain function, but apply_along_axis has no template
        def g(v):
            return v * 2.0
        return np.sum(np.apply_along_axis(g, 0, x))
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(f)
    assert "no adjoint template for numpy.apply_along_axis" in str(info.value)

    def h(x):  # g reads x: passed as a value it would lose it
        def g(v):
            return v * x
        return np.sum(np.apply_along_axis(g, 0, x))
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(h)
    assert "only if it reads none of the function's names" in str(info.value)


def indexed_and_whole(x, p):
    return np.sum(p * p) + x * p[0]


def test_hessian_through_an_indexed_parameter():
    """p is read whole and by item: its adjoint is summed by add_adjoint, whose zero tangents
    must fold like a sum's (add_adjoint(0, b) is b, not 0)."""
    np.testing.assert_allclose(srcad.hessian(indexed_and_whole, wrt=1)(0.5, np.array([1.0, 2.0])),
                               2.0 * np.eye(2), rtol=1e-12)


def logistic(x, k):
    for _ in range(k):
        x = 3.7 * x * (1.0 - x)
    return x


def test_gradient_of_a_function_of_one_float_runs_forward_mode():
    """grad with respect to one float runs the forward sweep (dx = 1): same number, and a
    non-scalar output is still refused."""
    g = srcad.grad(logistic)
    assert g(0.3, 20) == pytest.approx(srcad.jvp(logistic)(0.3, 20, 1.0), rel=1e-15)
    assert srcad.vjp(logistic)(0.3, 20, 1.0) == pytest.approx(g(0.3, 20), rel=1e-12)
    with pytest.raises(ValueError, match="scalar output"):
        srcad.grad(lambda_free_vector)(1.0)


def lambda_free_vector(x):
    return np.array([x, 2.0 * x])
