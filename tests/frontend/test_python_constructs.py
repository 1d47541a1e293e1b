"""Python that real programs write around the calculus, beyond statements.py: sets, try
statements (frontend/tries.py), helper generators (frontend/generators.py) and **kwargs
(starred.py, calls.with_call_shape). Each is checked in both modes against central differences,
to second order where it can be, in builds for any shapes too; what stays refused is refused at
the user's line with what to write instead."""
import os
import sys

import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from isolated import assert_same, run_isolated  # noqa: E402

try:
    from scipy import stats
except ImportError:  # (an optional dependency: the tests that use it skip)
    stats = None

R = np.random.RandomState(11)
A = R.randn(3, 3)
X = R.randn(3)


def check_everywhere(func, args, wrt=(0, 1), order=2):
    srcad.check_grads(func, args, wrt=wrt, order=order)
    generic = srcad.grad(func, wrt=wrt, disable="specialize")(*args)
    for got, want in zip(generic, srcad.grad(func, wrt=wrt)(*args)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


# sets: a set of indices or names is a constant, as in f --------------------------------------

def set_comprehension_and_display(A, x):
    rows = sorted({i % 2 for i in range(4)})
    cols = sorted({2, 0, 2})
    return np.sum(A[rows][:, cols] ** 2) + np.sum(x[cols] * x[rows])


def set_of_differentiated_values(A, x):
    s = {x[0], x[1]}
    return sum(s)


def test_sets_of_constants():
    check_everywhere(set_comprehension_and_display, (A, X))


def test_a_set_of_differentiated_values_is_refused_at_its_line():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(set_of_differentiated_values, wrt=1)(A, X)
    message = str(info.value)
    assert "s = {x[0], x[1]}" in message and "keep the values in a list or a tuple" in message


# try statements: what they bind is a constant -------------------------------------------------

def try_for_a_flag(A, x):
    K = A @ A.T + np.outer(x, x)
    ok = True
    try:
        np.linalg.cholesky(K - 4.0 * np.eye(3))
    except np.linalg.LinAlgError:
        ok = False
    if ok:
        return np.sum(np.linalg.cholesky(K) ** 2)
    return np.sum(np.tanh(K) * x)


def try_in_a_loop_with_else_and_finally(A, x):
    total = 0.0
    tries = 0
    for i in range(4):
        try:
            w = [1.0, 2.0, 0.5][i]
        except IndexError:
            w = -1.0
        else:
            tries = tries + 1
        finally:
            i = i + 0
        total = total + w * np.sum(A[i % 3] * x ** 2)
    return total * tries


def try_that_parses(A, x, text):
    try:
        power = int(text)
    except ValueError:
        power = 2
    return np.sum((A @ x) ** power)


def try_computing_a_differentiated_value(A, x):
    try:
        y = np.log(A @ x)
    except FloatingPointError:
        y = x
    return np.sum(y)


def try_that_returns(A, x):
    try:
        return np.sum(A @ x)
    except ValueError:
        return 0.0


def try_that_appends(A, x):
    out = []
    try:
        out.append(A @ x)
    except ValueError:
        pass
    return np.sum(out[0])


def test_try_statements_whose_results_are_constants():
    check_everywhere(try_for_a_flag, (A, X))
    check_everywhere(try_in_a_loop_with_else_and_finally, (A, X))
    for text in ("3", "three"):
        srcad.check_grads(try_that_parses, (A, X, text), wrt=(0, 1), order=2)


def test_a_try_is_a_function_whose_results_are_constants():
    text = srcad.source(try_that_parses, wrt=1)
    assert "power = try_at_" in text and "try:" not in text  # (its function runs it)


@pytest.mark.parametrize("func, snippet, hint", [
    (try_computing_a_differentiated_value, "try:", "compute only a flag in the try"),
    (try_that_returns, "return np.sum(A @ x)", "set a flag in the try"),
    (try_that_appends, "out.append(A @ x)", "change it after the try"),
])
def test_tries_srcad_cannot_follow_are_refused_at_the_users_line(func, snippet, hint):
    for make in (srcad.grad, lambda f: srcad.jacobian(f, wrt=1, mode="forward")):
        with pytest.raises(srcad.SrcadError) as info:
            make(func)(A, X)
        message = str(info.value)
        assert "test_python_constructs.py" in message and snippet in message and hint in message


def test_emitted_module_with_a_try_runs_alone(tmp_path):
    path = tmp_path / "try_flag_grad.py"
    srcad.emit(try_for_a_flag, str(path), wrt=1)
    got = run_isolated(str(path), "try_for_a_flag_grad", [A, X])
    assert_same(got[0], srcad.grad(try_for_a_flag, wrt=1)(A, X))


# helper generators: the caller reads the list of what they yield ------------------------------

def layers(h, Ws):
    for W in Ws:
        h = np.tanh(W @ h)
        yield h


def pairs(x):
    for i in range(len(x) - 1):
        yield x[i], x[i + 1]
    yield from [x[0] * x[-1]]


def sum_over_a_generator(A, x):
    return sum(np.sum(h ** 2) for h in layers(x, [A, 0.5 * A.T]))


def loop_over_a_generator(A, x):
    total = 0.0
    for h in layers(x, [A]):
        total = total + np.sum(h * x)
    for p in pairs(x):
        total = total + np.prod(p)
    return total


def list_of_a_generator(A, x):
    hs = list(layers(x, [A, A]))
    return np.sum(hs[-1] * hs[0])


def endless():
    k = 0.0
    while True:
        yield k
        k = k + 1.0


def zip_with_an_endless_generator(A, x):
    return sum(c * xi for c, xi in zip(endless(), x))


def generator_itself(A, x):
    yield np.sum(A @ x)


@pytest.mark.parametrize("func", [sum_over_a_generator, loop_over_a_generator,
                                  list_of_a_generator])
def test_helper_generators(func):
    check_everywhere(func, (A, X))


def test_generators_refused_at_the_users_line():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(zip_with_an_endless_generator, wrt=1)(A, X)
    message = str(info.value)
    assert "zip(endless(), x)" in message and "never ends (while True" in message
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(generator_itself, wrt=1)(A, X)
    assert "yield np.sum(A @ x)" in str(info.value) and "return a value" in str(info.value)


# **kwargs: in a helper's def, and at calls where the dict's keys are known ---------------------

def scaled(x, power=2, **options):
    shift = options.get("shift", 0.0)
    total = 0.0
    for name, value in options.items():
        total = total + value
    return np.sum((x * total + shift) ** power)


def passes_keywords_on(x, **kwargs):
    return scaled(x, **kwargs)


def helpers_with_kwargs(A, x):
    a = scaled(x, scale=A[0, 0], offset=2.0)
    b = scaled(A @ x, power=3, shift=x[1], scale=0.5)
    c = passes_keywords_on(x, scale=A[1, 1])
    return a + b + c


def unpacked_dicts(A, x):
    options = {"scale": A[0, 1], "shift": x[2]}
    return scaled(x, **options) + scaled(x, **{"scale": 2.0}) + scaled(A[0], 3, **options)


GLOBAL_OPTIONS = {"scale": 2.0}


def unpacked_global_dict(A, x):
    return scaled(x, **GLOBAL_OPTIONS)


def unpacked_changed_dict(A, x):
    options = {"scale": A[0, 1]}
    options["shift"] = x[0]
    return scaled(x, **options)


def test_kwargs_in_helpers_and_calls():
    check_everywhere(helpers_with_kwargs, (A, X))
    check_everywhere(unpacked_dicts, (A, X))


def test_a_helper_with_kwargs_is_built_once_per_set_of_keywords():
    text = srcad.source(helpers_with_kwargs, wrt=1)
    assert text.count("def scaled_") >= 2  # (scale, offset) and (scale, shift): two copies
    assert srcad.source(helpers_with_kwargs, wrt=1) == text


@pytest.mark.parametrize("func", [unpacked_global_dict, unpacked_changed_dict])
def test_dicts_whose_keys_are_unknown_are_refused_at_the_call(func):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(func, wrt=1)(A, X)
    message = str(info.value)
    assert "return scaled(x, **options)" in message or "**GLOBAL_OPTIONS" in message
    assert "pass keyword arguments by name" in message


def inner(x, scale=1.0, power=2):
    return np.sum((x * scale) ** power)


def passes_everything_on(x, *args, **kwargs):
    return inner(x, *args, **kwargs)


def elementwise_max(*values):
    return np.maximum(*values)


def args_passed_on(A, x):
    a = passes_everything_on(x, A[0, 0], power=3) + passes_everything_on(A @ x)
    return a + passes_everything_on(x, 2.0) + np.sum(elementwise_max(x, A[1] * 0.5))


def test_args_and_kwargs_passed_on():
    check_everywhere(args_passed_on, (A, X))


def zip_of_starred(A, x):
    rows, weights = zip(*[(A[0], x[0]), (A[1], x[1])])
    return np.sum(rows[0] * weights[1])


def test_zip_of_starred_pairs_is_refused_with_what_to_write():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(zip_of_starred, wrt=1)(A, X)
    assert "[p[0] for p in pairs]" in str(info.value)


# frozen scipy.stats distributions: rv = norm(m, s); rv.logpdf(x) ------------------------------

def frozen_distributions(A, x):
    rv = stats.norm(x[0], np.exp(A[0, 0]))
    total = np.sum(rv.logpdf(x)) + rv.cdf(A[1, 1])
    for i in range(2):
        prior = stats.norm(loc=A[i, 0], scale=2.0 + i)
        total = total + prior.logpdf(x[i])
    mvn = stats.multivariate_normal(x[:2], A[:2, :2] @ A[:2, :2].T + np.eye(2))
    return total + mvn.logpdf(A[2, :2]) + stats.t(4.0, x[1]).logpdf(x[2])


def frozen_and_passed_on(A, x):
    rv = stats.norm(x[0], 1.0)
    return np.sum(log_density(rv, x))


def log_density(dist, x):
    return dist.logpdf(x)


def test_frozen_distributions():
    pytest.importorskip("scipy.stats")
    check_everywhere(frozen_distributions, (A, X))


def test_a_frozen_distribution_passed_to_a_helper_is_refused_at_the_call():
    pytest.importorskip("scipy.stats")
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(frozen_and_passed_on, wrt=1)(A, X)
    message = str(info.value)
    assert "rv = stats.norm(x[0], 1.0)" in message and "call its methods there" in message


# loops over lists of functions and of objects --------------------------------------------------

class Dense:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, h):
        return np.tanh(self.W @ h + self.b)


class Scale:
    def __init__(self, s):
        self.s = s

    def forward(self, h):
        return self.s * h

    def __call__(self, h):
        return self.forward(h)


class Net:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, h):
        for layer in self.layers:
            h = layer(h)
        return h


LAYERS = [Dense(A, X), Scale(0.5), Dense(A.T, -X)]
NET = Net([Scale(2.0), Dense(A, 0.1 * X)])


def softplus(v):
    return np.log1p(np.exp(v))


def loop_over_objects(A, x):
    h = x
    for layer in LAYERS:
        h = layer(h)
    for act in [np.tanh, softplus]:
        h = act(h) * A[0]
    for layer in LAYERS:
        h = h + layer.__call__(x)
    return np.sum(NET(h) ** 2)


def test_loops_over_functions_and_objects():
    check_everywhere(loop_over_objects, (A, X))


def test_objects_are_read_when_the_code_runs_and_their_classes_are_checked():
    df = srcad.grad(loop_over_objects, wrt=1)
    before = df(A, X)
    LAYERS[1] = Scale(3.0)  # a new object of the same class: its values are used
    try:
        srcad.check_grads(loop_over_objects, (A, X), wrt=1)
        assert not np.allclose(df(A, X), before)
        LAYERS[1] = Dense(A, X)  # another class: the code written for Scale is not run (the
        # guard on LAYERS sees it: built anew)
        np.testing.assert_allclose(df(A, X), central_gradient(loop_over_objects, (A, X), 1),
                                   rtol=1e-6, atol=1e-9)
    finally:
        LAYERS[1] = Scale(0.5)
