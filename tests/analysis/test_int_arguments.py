"""Int arguments and the specializations they cost (srcad/analysis/values.py, Derivative's caps).

A derivative is specialized to its arguments' signature. An int's value is part of it only
where the build reads it (a loop bound, a shape, an index, a test, a call); an int that only
feeds arithmetic (a step counter in a learning-rate schedule) is keyed by type, so a counter
that changes every call costs one build. Where values are read, a derivative builds at most
VALUES specializations for calls that differ only in them, and runs the generic build (correct
for any value) past that. Every case compares with central differences.
"""
import re
import types

import numpy as np
import pytest

import srcad
import srcad.api.cache
import srcad.pipeline
from srcad.api import derivatives
from srcad.api.derivatives import VALUES
from regressions.numeric import central_gradient

W = np.array([0.3, -0.2, 0.5])
X = np.linspace(-1.0, 1.0, 12).reshape(4, 3)


def schedule(w, x, step):
    lr = 0.1 * 0.99 ** step
    y = np.tanh(x @ w) * (step + 1.0)
    return lr * np.sum(y ** 2) + np.sum(w * np.exp(-step / 10.0))


def schedule_by_keyword(w, x, *, step=0):
    decay = 0.5 ** step
    return decay * np.sum(np.sin(x @ w) ** 2)


def loop_bound(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.sin(x * i)
    return np.sum(s)


def shaped(x, n):
    z = np.zeros(n) + x
    return np.sum(z * z)


def reshaped(x, n):
    return np.sum(np.reshape(x, (n, -1)) ** 2 * np.arange(n)[:, None])


def index_and_weight(x, k):
    return x[k] * k + np.sum(x * k)


def shape_through_a_float(x, k):
    size = k * 1.0
    return np.sum((np.zeros(int(size)) + x) ** 2)


def scaled_by(w, c, k):
    return np.sum(w * (c * k))


# how the value is used -> whether the build reads it (analysis/values.py)
def power_of_an_int(x, k):
    return np.sum(x * 2 ** k)  # an int or a float by k's sign


def float_array_to_the_int(x, k):
    return np.sum(x ** k)


def floor_division(x, k):
    return np.sum(x * (k // 2))


def branch_on_a_float_made_from_it(x, k):
    c = k * 1.0
    if c > 2:
        return np.sum(x)
    return np.sum(x * x)


def unrolled_loop_body(x, k):
    s = 0.0
    for i in range(3):
        s = s + x * i * k
    return np.sum(s)


def slice_of_a_product(x, k):
    y = x * k
    return np.sum(y[1:])


def numpy_functions(x, k):
    return np.sum(np.sqrt(x * x + k * k) * np.exp(-k / 3.0)) + np.dot(x, x) * np.log1p(k * k)


def copies_and_int_arithmetic(x, k):
    a = k
    b = a + 3
    c = -b
    return np.sum(x ** c) + np.mean(x * b)


def flag(x, on):
    return np.sum(x * on)


READS = [(power_of_an_int, True), (float_array_to_the_int, False), (floor_division, True),
         (branch_on_a_float_made_from_it, True), (unrolled_loop_body, False),
         (slice_of_a_product, True), (numpy_functions, False),
         (copies_and_int_arithmetic, False), (flag, False)]


def fresh(function):
    """A new function object with function's code: a derivative of its own (srcad keeps one per
    function object), so that each test counts its own builds and specializations."""
    copy = types.FunctionType(function.__code__, function.__globals__, function.__name__,
                              function.__defaults__, function.__closure__)
    copy.__kwdefaults__ = function.__kwdefaults__
    return copy


class Builds(list):
    """The specialized builds (example arguments given) the compiler ran, by function name."""


@pytest.fixture
def builds(monkeypatch):
    srcad.api.cache.forget_all()  # (builds of the same code by other tests are not counted)
    found = Builds()
    original = srcad.pipeline.build

    def counting(*args, **kwargs):
        if kwargs.get("example") is not None:
            found.append(args[0].__name__)
        return original(*args, **kwargs)
    monkeypatch.setattr(srcad.pipeline, "build", counting)
    monkeypatch.setattr(srcad.api.cache, "build", counting)
    return found


def fd(f, args, i=0):
    return central_gradient(f, args, i)


def test_step_counter_in_arithmetic_is_keyed_by_type_and_built_once(builds):
    df = srcad.grad(fresh(schedule), verify=False)
    for step in range(12):
        got = df(W, X, step)
        np.testing.assert_allclose(got, fd(schedule, (W, X, step)), rtol=1e-6, atol=1e-9)
    assert builds == ["schedule"]
    assert len(df.specialized) == 1
    (key,) = df.specialized
    assert key[2] == (int,)  # the int's type, not its value


def test_step_counter_numbers_under_verify_mode():
    df = srcad.grad(fresh(schedule), verify=True)  # (the first call is compared with the
    # unoptimized code)
    for step in (0, 3, 250, -7):
        np.testing.assert_allclose(df(W, X, step), fd(schedule, (W, X, step)), rtol=1e-6,
                                   atol=1e-9)


def test_build_keyed_by_type_holds_no_literal_of_the_probed_value():
    df = srcad.grad(fresh(schedule), verify=False)
    df(W, X, 4711)
    (function, _, comp) = df.specialize((W, X, 4711), {})
    assert not re.search(r"\b4711\b", comp.built.source) and "step" in comp.built.source
    assert comp.built.free_values == [2]
    bound = srcad.grad(fresh(loop_bound), verify=False)
    bound(W, 3)  # (an unrolled loop's turns are the value: the build reads it)
    assert bound.specialize((W, 3), {})[2].built.free_values == []


def test_fast_path_after_the_first_build_serves_every_step(builds):
    df = srcad.grad(fresh(schedule), verify=False)
    df(W, X, 1)
    df(W, X, 2)
    assert "def __call__" in df.fast_path.source and "a2 ==" not in df.fast_path.source
    for step in (5, 6, 1000):
        np.testing.assert_allclose(df(W, X, step), fd(schedule, (W, X, step)), rtol=1e-6,
                                   atol=1e-9)
    assert builds == ["schedule"]


def same(got, want):
    """Equal values and types, through tuples."""
    assert type(got) is type(want)
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
    else:
        np.testing.assert_array_equal(got, want)


def test_fast_path_and_general_path_agree_for_free_values_and_past_the_cap():
    general = derivatives.Derivative.__call__  # (whatever __call__ the fast path installed)
    free = srcad.value_and_grad(fresh(schedule), verify=False)
    bound = srcad.grad(fresh(loop_bound), verify=False)
    x = np.array([0.3, -0.8])
    for step in range(VALUES + 4):
        for df, args in ((free, (W, X, step)), (bound, (x, step))):
            first, second = df(*args), df(*args)  # (the second call: the fast path, if any)
            for got in (second, general(df, *args)):
                same(got, first)
    assert len(free.specialized) == 1 and len(bound.specialized) == VALUES + 1


@pytest.mark.parametrize("function", [loop_bound, shaped, reshaped])
def test_loop_bound_or_shape_keeps_the_value_in_the_key(builds, function):
    df = srcad.grad(fresh(function), verify=False)
    x = np.array([0.4, -1.3, 0.7, 2.0, 0.1, -0.5]) if function is reshaped else np.array([0.4])
    values = [1, 2, 3, 6] if function is reshaped else [1, 3, 5]
    for n in values + values:
        np.testing.assert_allclose(df(x, n), fd(function, (x, n)), rtol=1e-6, atol=1e-9)
    assert len(builds) == len(values)  # one build per value, each once
    assert all(key[1] == (int, n) for key, n in zip(df.specialized, values))


def test_int_read_as_an_index_and_in_arithmetic_keeps_its_value(builds):
    df = srcad.grad(fresh(index_and_weight), verify=False)
    x = np.array([0.5, -1.0, 2.0, 0.25])
    for k in (0, 2, 3, 2):
        np.testing.assert_allclose(df(x, k), fd(index_and_weight, (x, k)), rtol=1e-6,
                                   atol=1e-9)
    assert len(builds) == 3


def test_value_reaching_a_shape_through_a_float_keeps_its_value(builds):
    df = srcad.grad(fresh(shape_through_a_float), verify=False)
    x = np.array([1.5])
    for k in (1, 3, 2):
        np.testing.assert_allclose(df(x, k), fd(shape_through_a_float, (x, k)), rtol=1e-6)
    assert len(builds) == 3


@pytest.mark.parametrize("function, read", READS, ids=[f.__name__ for f, _ in READS])
def test_value_is_left_out_of_the_key_only_where_no_read_needs_it(function, read):
    x = np.array([0.7, 1.3, 0.4])
    values = [True, False, True] if function is flag else [-2, 3, 1, 3]
    for kind in ("grad", "jvp"):
        df = getattr(srcad, kind)(fresh(function), verify=True)
        for k in values:
            want = fd(function, (x, k))
            got = df(x, k) if kind == "grad" else np.array([df(x, k, e) for e in np.eye(3)])
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
        assert len(df.specialized) == (len(set(values)) if read else 1)


def test_cap_on_values_runs_the_generic_build_past_it(builds):
    df = srcad.grad(fresh(loop_bound), verify=False)
    x = np.array([0.3, -0.8])
    for n in range(50):
        np.testing.assert_allclose(df(x, n), fd(loop_bound, (x, n)), rtol=1e-6, atol=1e-9)
    assert len(builds) == VALUES  # then the generic code (built without example arguments)
    assert len(df.specialized) == VALUES + 1 and None in df.specialized
    assert len(df.by_key) == VALUES  # calls past the cap are not remembered by key
    assert df.specialize((x, 40), {})[0] is df.generated
    for n in (0, 7, 30, 49):  # (the fast path for the first values, the general path past)
        np.testing.assert_allclose(df(x, n), fd(loop_bound, (x, n)), rtol=1e-6, atol=1e-9)
    assert len(builds) == VALUES and len(df.specialized) == VALUES + 1


def test_cap_on_all_specializations(monkeypatch):
    monkeypatch.setattr(derivatives, "TOTAL", 3)
    df = srcad.grad(fresh(loop_bound), verify=False)
    for size in range(1, 7):  # new shapes, not new values: the total cap
        x = np.linspace(0.1, 0.9, size)
        np.testing.assert_allclose(df(x, 2), fd(loop_bound, (x, 2)), rtol=1e-6, atol=1e-9)
    assert len(df.specialized) == 4 and None in df.specialized


@pytest.mark.parametrize("kind", ["value_and_grad", "vjp", "jvp"])
def test_step_counter_in_other_modes_is_built_once(builds, kind):
    transform = getattr(srcad, kind)
    df = transform(fresh(schedule), verify=False)
    for step in (0, 4, 9, 21):
        want = fd(schedule, (W, X, step))
        if kind == "value_and_grad":
            value, got = df(W, X, step)
            assert value == pytest.approx(schedule(W, X, step), rel=1e-12)
        elif kind == "vjp":
            got = df(W, X, step, 2.0) / 2.0
        else:
            v = np.array([0.5, 1.0, -2.0])
            assert df(W, X, step, v) == pytest.approx(np.dot(want, v), rel=1e-6, abs=1e-9)
            continue
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
    assert builds == ["schedule"]


def test_gradient_wrt_a_float_runs_forward_mode_and_is_built_once(builds):
    def decayed(x, step):
        return np.sin(x) * 0.9 ** step + x * step

    df = srcad.grad(fresh(decayed), verify=False)
    for step in range(6):
        assert df(0.7, step) == pytest.approx(fd(decayed, (0.7, step)), rel=1e-6)
    assert builds == ["decayed"]


def test_hessian_with_a_step_counter_is_right_and_bounded():
    f = fresh(schedule)
    hess, gradient = srcad.hessian(f), srcad.grad(f)
    for step in range(VALUES + 3):  # (the gradient it differentiates passes the int to
        # helpers: its value stays in the key, up to the cap)
        want = np.stack([fd(lambda w, x, s: gradient(w, x, s)[j], (W, X, step))
                         for j in range(3)])
        np.testing.assert_allclose(hess(W, X, step), want, rtol=1e-5, atol=1e-7)
    columns = srcad.jvp(gradient, wrt=(0,))  # (what the hessian runs, one column a call)
    assert len(columns.specialized) == VALUES + 1 and None in columns.specialized


def test_keyword_step_counter_is_built_once(builds):
    df = srcad.grad(fresh(schedule_by_keyword), verify=False)
    for step in range(6):
        want = fd(lambda w, x: schedule_by_keyword(w, x, step=step), (W, X))
        np.testing.assert_allclose(df(W, X, step=step), want, rtol=1e-6, atol=1e-9)
    assert builds == ["schedule_by_keyword"]
    by_position = srcad.grad(fresh(schedule), verify=False)
    for step in range(4):  # the same function, by position and by keyword
        np.testing.assert_allclose(by_position(W, X, step=step), by_position(W, X, step),
                                   rtol=1e-14)
    assert builds.count("schedule") == 2  # (one build for each way of passing it)


def test_a_later_build_that_reads_the_value_narrows_the_key(builds):
    df = srcad.grad(fresh(scaled_by), verify=False)
    c = np.array([1.0, 2.0, -1.0])
    for k in (1, 2, 3):  # c a float array: k's value is not read
        np.testing.assert_allclose(df(W, c, k), c * k)
    assert len(builds) == 1
    whole = np.array([1, 2, -1])
    for k in (1, 2, 3):  # c an int array (the same argument types): c * k may be an index
        np.testing.assert_allclose(df(W, whole, k), whole * k)  # array, so k is kept
    assert len(builds) == 4
    for k in (4, 5, 4):  # a float c again: keyed by value from now on, still right
        np.testing.assert_allclose(df(W, c, k), c * k)
        np.testing.assert_allclose(df(W, whole, k), whole * k)
    assert len(builds) == 8
