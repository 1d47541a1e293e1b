"""The Python around the calculus (frontend/statements.py and the loops of control.py): each
construct as real programs write it, checked in both modes against central differences (and to
second order), and the refusals that remain, at the user's line."""
import warnings

import numpy as np
import pytest

import srcad

R = np.random.RandomState(7)
A = R.randn(3, 3)
X = R.randn(3)
SCALE = 1.5


def comprehension_with_condition(A, x):
    ys = [np.tanh(r * x) for r in A if np.sum(r) > -100]
    return sum(np.sum(y ** 2) for y in ys)


def nested_comprehensions(A, x):
    m = [[A[i, j] * x[j] for j in range(A.shape[1])] for i in range(A.shape[0])]
    return np.sum(np.array(m) ** 2)


def two_generators(A, x):
    return sum(a * b for a in x for b in A[0])


def comprehension_names_do_not_leak(A, x):
    r = 2.0
    s = np.sum([r * x for r in A])  # (the comprehension's r is its own)
    return s * r


def comprehension_over_its_target(A, x):
    ys = [r for r in A]
    ys = [y * x for y in ys]
    return np.sum(np.stack(ys) ** 2)


def checks_as_in_the_primal(A, x):
    assert A.ndim == 2, "A must be a matrix"
    if x.shape[0] != A.shape[1]:
        raise ValueError(f"x has {x.shape[0]} entries, A has {A.shape[1]} columns")
    y = A @ x
    assert np.all(np.isfinite(y)), "finite"
    return np.sum(np.sin(y))


def errstate_and_del(A, x):
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.log(A ** 2 + 1.0)
    with warnings.catch_warnings():
        u = t @ x
    del t
    return np.sum(u ** 2)


def global_read(A, x):
    global SCALE
    return np.sum(A @ x) * SCALE


def nested_unpacking(A, x):
    (a, b), c = (A[0], A[1]), x
    s = 0.0
    for (u, v), w in zip([(A[0], A[1]), (A[1], A[2])], [1.0, 2.0]):
        s = s + w * np.sum(u * v * x)
    for i, (u, v) in enumerate([(A[0], x), (A[2], x)]):
        s = s + i * np.sum(u * v)
    return np.sum(a * b * c) + s


def dicts_built_inside(A, x):
    p = {"W": A, "b": x}
    q = dict(W=A.T, b=x * 2.0)
    total = 0.0
    for k in p:
        total = total + np.sum(np.tanh(p[k]) ** 2)
    for name, v in q.items():
        total = total + np.sum(v * x[0])
    for v in p.values():
        total = total + np.sum(v) * 0.5
    return total + sum(np.sum(q[k] * 0.1) for k in q.keys())


def make_layer(W, b):
    return {"W": W, "b": b}


def apply_layer(layer, h):
    return np.tanh(h @ layer["W"] + layer["b"])


def dict_from_a_helper(A, x):
    layer = make_layer(A, x)
    h = apply_layer(layer, x)
    for k in layer:  # a dict from a helper, iterated by key (read by key in the body)
        h = h * np.sum(layer[k])
    return np.sum(h ** 2)


def dict_comprehension_and_views(A, x):
    p = {"W": A, "b": x, "skip": x * 0.0}
    scaled = {k: v * 2.0 for k, v in p.items() if k != "skip"}
    squares = {name: np.sum(w ** 2) for name, w in scaled.items()}
    return sum(squares.values()) + np.sum(scaled["W"] @ x) + len(list(p.keys()))


def map_of_functions_and_lambdas(A, x):
    hs = list(map(np.tanh, [A @ x, x]))
    return sum(map(lambda h, c: np.sum(h * c), hs, [1.0, 2.0]))


CASES = [dict_comprehension_and_views, map_of_functions_and_lambdas,
         comprehension_with_condition, nested_comprehensions, two_generators,
         comprehension_names_do_not_leak, comprehension_over_its_target, checks_as_in_the_primal,
         errstate_and_del, global_read, nested_unpacking, dicts_built_inside, dict_from_a_helper]


@pytest.mark.parametrize("func", CASES)
@pytest.mark.parametrize("wrt", [0, 1])
def test_statements_differentiated(func, wrt):
    srcad.check_grads(func, (A, X), wrt=wrt, order=2)


@pytest.mark.parametrize("func", CASES)
def test_statements_in_builds_for_any_shapes(func):
    srcad.check_grads(func, (A, X), wrt=0, order=1)  # (specialized above; here generic)
    g = srcad.grad(func, disable="specialize")(A, X)
    np.testing.assert_allclose(g, srcad.grad(func)(A, X), rtol=1e-12, atol=1e-12)


def test_checks_raise_in_the_derivative_as_in_the_primal():
    for make in (srcad.grad, lambda f: srcad.jvp(f, wrt=0)):
        with pytest.raises(ValueError, match="x has 2 entries"):
            df = make(checks_as_in_the_primal)
            df(A, X[:2]) if make is srcad.grad else df(A, X[:2], A)
        with pytest.raises(AssertionError, match="A must be a matrix"):
            df = make(checks_as_in_the_primal)
            df(X, X) if make is srcad.grad else df(X, X, X)


def test_comprehension_becomes_a_loop_in_the_generated_source():
    text = srcad.source(comprehension_with_condition, stage="check")
    assert "ys = []" in text and "ys.append(np.tanh(r_1 * x))" in text
    assert "for r_1 in A:" in text and "[" not in text.split("ys = []")[1].split("\n")[0]


def raising_errstate(x):
    with np.errstate(divide="raise"):
        y = np.log(x)
    return np.sum(y)


def dict_spread(x):
    d = {**{"a": x}}
    return np.sum(d["a"])


def comprehension_in_a_conditional(x, flag):
    ys = [v * 2 for v in x] if flag else []
    return np.sum(ys)


def assigned_global(x):
    global SCALE
    SCALE = 2.0
    return np.sum(x) * SCALE


@pytest.mark.parametrize("func, snippet", [
    (raising_errstate, 'with np.errstate(divide="raise"):'),
    (dict_spread, '{**{"a": x}}'),
    (comprehension_in_a_conditional, "[v * 2 for v in x]"),
    (assigned_global, "global SCALE"),
])
def test_what_stays_refused_is_refused_at_the_users_line(func, snippet):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(func)(X) if func is not comprehension_in_a_conditional else \
            srcad.grad(func)(X, True)
    message = str(info.value)
    assert "test_statements.py" in message and snippet in message and "what to do:" in message


def dict_get_with_defaults(A, x):
    p = {"W": A}
    b = p.get("b", x * 0.5)
    return np.sum(p.get("W") @ x + b)


def test_dict_get():
    srcad.check_grads(dict_get_with_defaults, (A, X), wrt=(0, 1), order=2)
