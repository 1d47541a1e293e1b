"""Calls of derivative objects: the fast path each derivative gets for the argument types it has
seen (srcad.api.dispatch.FastPath) must behave exactly as the general path
(Derivative.__call__):
same results, same specializations (by shape and dtype for arrays, by value for ints, bools,
strings and None, by type for floats), syncs of the user's globals, error notes, packing.

GENERAL(df, *args) runs the general path whatever fast path df has, so each case compares the
two on the same object.
"""
import sys

import numpy as np
import pytest

import srcad
from programs import logistic, logistic_grad
from srcad.api.derivatives import Derivative

GENERAL = Derivative.__call__
SCALE = 2.0  # read by scaled(): a global the generated code must see change


def weighted(a, c):
    return np.sum(np.sin(a) * c)


def five(a, b, d, e, f):
    return np.sum(np.tanh(np.dot(a, b) + d) * e) + np.sum(f * f)


def scaled(x):
    return SCALE * np.sum(x * x)


def moded(x, mode, flag, extra):
    if mode == "square":
        y = x * x
    else:
        y = 3.0 * x
    if flag:
        y = y + x
    if extra is None:
        return np.sum(y)
    return np.sum(y) * extra


def ignores(x, thing):
    return np.sum(x * x)


def ratio(x, n):
    y = x * 2.0
    return y / n


def with_default(x, k=3):
    return x ** k


def outputs(x):
    return np.sin(x) * 2.0


class Model:
    def __init__(self, w):
        self.w = w

    def loss(self, x):
        return np.sum(self.w * x * x)


def same(got, want):
    """Equal values, types, shapes and dtypes, through tuples."""
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
    elif isinstance(want, np.ndarray):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want or (np.isnan(got) and np.isnan(want))


def check(df, *args):
    """df(*args), twice (the second call takes the fast path), against the general path."""
    first = df(*args)
    second = df(*args)
    same(second, first)
    same(GENERAL(df, *args), first)
    return first


def test_float_int_specializes_by_int_value_past_the_inline_keys():
    df = srcad.grad(logistic)
    for k in list(range(1, 9)) + [3, 7, 1]:  # more int values than _FastPath.INLINE
        got = check(df, 0.3, k)
        assert type(got) is float
        assert got == pytest.approx(logistic_grad(0.3, k), rel=1e-12)
    assert len(df.specialized) == 8
    assert type(df) is not Derivative and isinstance(df, Derivative)
    assert "def __call__" in df.fast_path.source
    assert df.__call__ is not None and df.fast_path.more  # some keys went to the dict


def test_arrays_specialize_by_shape_and_dtype():
    df = srcad.grad(weighted, wrt=(0, 1))
    rng = np.random.default_rng(0)
    shapes = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3,)), ((4,), (1,)), ((2, 3), (2, 3)),
              ((5,), ()), ((2, 3), (3,))]
    for sa, sc in shapes:
        a, c = rng.normal(size=sa), rng.normal(size=sc)
        ga, gc = check(df, a, c)
        np.testing.assert_allclose(ga, np.cos(a) * c)
        assert gc.shape == c.shape
    a32 = rng.normal(size=3).astype(np.float32)
    c32 = rng.normal(size=3).astype(np.float32)
    ga, gc = check(df, a32, c32)
    assert ga.dtype == np.float32 and gc.dtype == np.float32
    ga64, _ = check(df, a32.astype(np.float64), c32.astype(np.float64))
    assert ga64.dtype == np.float64
    signatures = set(df.specialized)
    assert len(signatures) == 6  # (3,)x2 twice, (2,3)&(3,) twice: one build each


def test_equal_dtype_of_another_object_and_byte_order():
    df = srcad.grad(weighted)
    a, c = np.linspace(0.1, 1.0, 4), np.ones(4)
    check(df, a, c)
    swapped = a.astype(a.dtype.newbyteorder())
    got = check(df, swapped, c)
    np.testing.assert_allclose(got, np.cos(a))


def test_five_arrays_and_new_type_tuples_after_the_first():
    rng = np.random.default_rng(1)
    args = (rng.normal(size=(4, 3)), rng.normal(size=(3, 5)), rng.normal(size=5),
            rng.normal(size=(4, 5)), rng.normal(size=2))
    df = srcad.grad(five, wrt=(0, 1, 2, 3, 4))
    grads = check(df, *args)
    assert [g.shape for g in grads] == [a.shape for a in args]
    np.testing.assert_allclose(grads[4], 2 * args[4])
    # a float where an array was, then a 0-d array, then the first types again
    check(df, *args[:4], 1.5)
    check(df, *args[:4], np.array(1.5))
    check(df, *args[:4], np.float64(1.5))
    again = check(df, *args)
    same(again, grads)
    assert len(df.fast_path.inline) == 3  # a 0-d array is an ndarray: the first types


def test_many_type_tuples_past_the_limit():
    df = srcad.value_and_grad(logistic)
    values = [0.3, np.float64(0.3), np.float32(0.3), np.array(0.3)]
    ks = [2, True, np.int64(2)]
    for _ in range(2):
        for x in values:
            for k in ks:
                value, grad = check(df, x, k)
                assert float(grad) == pytest.approx(logistic_grad(0.3, int(k)), rel=1e-6)
    assert len(df.fast_path.inline) == df.fast_path.LIMIT < len(values) * len(ks)


def test_by_value_arguments_strings_bools_none():
    df = srcad.grad(moded)
    x = np.array([0.5, -1.0, 2.0])
    for mode, flag, extra in [("square", True, None), ("linear", True, None),
                              ("square", False, None), ("square", True, 2.0),
                              ("linear", False, 3.0), ("square", True, None)]:
        got = check(df, x, mode, flag, extra)
        want = (2 * x if mode == "square" else 3.0 + 0 * x) + (1.0 if flag else 0.0)
        np.testing.assert_allclose(got, want * (1.0 if extra is None else extra))
    # 1 and True are different keys (types differ), as are 0 and False
    check(df, x, "square", 1, None)
    check(df, x, "square", 0, None)


def test_keyword_arguments_take_the_general_path():
    df = srcad.grad(logistic)
    want = check(df, 0.3, 4)
    assert df(0.3, k=4) == pytest.approx(want, rel=1e-14)
    same(df(0.3, k=4), GENERAL(df, 0.3, k=4))
    assert df(x=0.3, k=4) == pytest.approx(want, rel=1e-14)
    same(df(0.3, 4), want)
    vg = srcad.value_and_grad(with_default)
    assert check(vg, 2.0) == (8.0, 12.0)  # the default, k=3
    assert vg(2.0, k=2) == (4.0, 4.0)
    same(vg(2.0, k=2), GENERAL(vg, 2.0, k=2))
    assert check(vg, 2.0, 2) == (4.0, 4.0)


def test_vjp_jvp_value_and_grad_and_single_tuples():
    rng = np.random.default_rng(2)
    a, c = rng.normal(size=(2, 3)), rng.normal(size=3)
    dy = rng.normal(size=3)
    vjp = srcad.vjp(outputs)
    got = check(vjp, c, dy)
    np.testing.assert_allclose(got, 2 * np.cos(c) * dy)
    vjp1 = srcad.vjp(outputs, wrt=(0,))
    got1 = check(vjp1, c, dy)
    assert type(got1) is tuple and len(got1) == 1
    np.testing.assert_allclose(got1[0], got)
    vjp2 = srcad.vjp(weighted, wrt=(0, 1))
    ba, bc = check(vjp2, a, c, 2.0)
    np.testing.assert_allclose(ba, 2.0 * np.cos(a) * c)
    jvp = srcad.jvp(weighted, wrt=(0, 1))
    ta, tc = rng.normal(size=(2, 3)), rng.normal(size=3)
    dout = check(jvp, a, c, ta, tc)
    np.testing.assert_allclose(dout, np.sum(np.cos(a) * c * ta + np.sin(a) * tc))
    jvp1 = srcad.jvp(weighted, wrt=(0,))
    np.testing.assert_allclose(check(jvp1, a, c, ta), np.sum(np.cos(a) * c * ta))
    vg = srcad.value_and_grad(weighted, wrt=(1,))
    value, grads = check(vg, a, c)
    assert value == pytest.approx(weighted(a, c))
    assert type(grads) is tuple and len(grads) == 1
    g1 = srcad.grad(weighted, wrt=(1,))
    assert type(check(g1, a, c)) is tuple


def test_bound_methods():
    model = Model(np.array([1.0, 2.0, 3.0]))
    dl = srcad.grad(model.loss)
    x = np.array([0.5, 0.25, -1.0])
    for _ in range(3):
        np.testing.assert_allclose(dl(x), 2 * model.w * x)
    assert "Model" in dl.inner.fast_path.source  # the bound object's type is tested
    other = Model(np.array([4.0, 5.0, 6.0]))
    np.testing.assert_allclose(srcad.grad(other.loss)(x), 2 * other.w * x)
    np.testing.assert_allclose(dl(x), 2 * model.w * x)


def test_globals_are_synced_on_the_fast_path(monkeypatch):
    df = srcad.grad(scaled)
    x = np.array([1.0, -2.0])
    np.testing.assert_allclose(check(df, x), 4.0 * x)
    monkeypatch.setattr(sys.modules[__name__], "SCALE", 5.0)
    np.testing.assert_allclose(df(x), 10.0 * x)
    np.testing.assert_allclose(df(np.array([3.0])), [30.0])
    np.testing.assert_allclose(df(x), 10.0 * x)
    assert any(entry[1] is not None for entry in df.by_key.values())
    arrays = [np.arange(1.0, n + 1) for n in range(1, 8)]  # past the inline keys
    for scale in (1.0, 3.0, -1.0):
        monkeypatch.setattr(sys.modules[__name__], "SCALE", scale)
        for a in arrays + arrays:
            np.testing.assert_allclose(df(a), 2 * scale * a)
    assert df.fast_path.more[(np.ndarray,)]


def notes_of(call, *args):
    with pytest.raises(ZeroDivisionError) as info:
        call(*args)
    return getattr(info.value, "__notes__", [])


def test_errors_in_generated_code_are_noted_as_on_the_general_path():
    for df, args in [(srcad.grad(ratio), (0.5, 0)), (srcad.jvp(ratio), (0.5, 0, 1.0)),
                     (srcad.value_and_grad(ratio), (0.5, 0)), (srcad.vjp(ratio), (0.5, 0, 1.0))]:
        first = notes_of(df, *args)  # the general path builds and runs
        assert type(df) is not Derivative
        for _ in range(2):  # then the fast path runs
            assert notes_of(df, *args) == first
        assert notes_of(GENERAL, df, *args) == first
        assert len(first) == 1 and first[0].startswith("srcad: raised in generated code")
        if df.kind in ("grad", "jvp"):  # forward mode: the tangent's comment names the line
            assert "y / n" in first[0] and "test_dispatch.py" in first[0], first


def error_of(call, *args):
    with pytest.raises(TypeError) as info:
        call(*args)
    return str(info.value), getattr(info.value, "__notes__", None)


def test_wrong_arity_is_a_type_error_like_the_general_path():
    df = srcad.grad(logistic)
    df(0.3, 2)
    for args in [(), (0.3,), (0.3, 2, 3), (0.3, 2, 3, 4)]:
        for _ in range(2):
            assert error_of(df, *args) == error_of(GENERAL, df, *args)
    assert "positional argument" in error_of(df, 0.3)[0]
    assert df(0.3, 2) == pytest.approx(logistic_grad(0.3, 2), rel=1e-14)
    vjp = srcad.vjp(outputs)
    x = np.ones(3)
    vjp(x, x)
    assert "cotangent dy comes last" in error_of(vjp)[0]
    for _ in range(2):  # the cotangent missing: x is taken for it, f gets no argument
        assert error_of(vjp, x) == error_of(GENERAL, vjp, x)
    jvp = srcad.jvp(weighted, wrt=(0, 1))
    a, c = np.ones((2, 3)), np.ones(3)
    jvp(a, c, a, c)
    for args in [(a, c, a), (a,), ()]:
        assert error_of(jvp, *args) == error_of(GENERAL, jvp, *args)


def test_attributes_other_code_uses():
    df = srcad.grad(weighted)
    a, c = np.ones(3), np.ones(3)
    df(a, c)
    df(a, c)
    assert df.__name__ == "weighted_grad" and df.__qualname__ == "weighted_grad"
    assert df.__wrapped__ is df.generated
    assert "def weighted_grad" in df.source
    assert repr(df) == "<srcad grad of weighted wrt 0>"
    function, sync, comp = df.specialize((a, c), {})
    assert (function, sync, comp) in df.by_key.values()
    assert len(df.specialized) >= 1 and (np.ndarray, np.ndarray) in df.keys
    assert df.__doc__ == weighted.__doc__
    assert srcad.grad(weighted) is df


def test_threads_calling_with_new_shapes_at_once():
    import threading
    df = srcad.grad(weighted)
    arrays = [np.linspace(0.1, 1.0, n) for n in range(1, 11)]
    for a in arrays[:2]:
        df(a, a)  # built before the race; the others are built while the threads run
    errors = []

    def work(offset):
        try:
            for i in range(30):
                a = arrays[(i + offset) % len(arrays)]
                np.testing.assert_allclose(df(a, a), np.cos(a) * a)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    types = (np.ndarray, np.ndarray)
    inline, more = df.fast_path.inline[types], df.fast_path.more[types]
    assert len(inline) == df.fast_path.INLINE
    held = [key for key, _ in inline] + list(more)
    assert len(held) == len(set(held)) and set(held) == {key for t, key in df.by_key if t == types}
    assert all((a.shape, a.dtype, a.shape, a.dtype) in held for a in arrays)


def test_other_types_and_odd_names_count_by_type():
    odd = type("odd\nname", (), {})  # a class name that must not break the generated code
    df = srcad.grad(ignores)
    x = np.array([1.0, 2.0])
    for thing in [odd(), odd(), [1, 2], {"a": 1}, 1j, np.float32(2.0), odd()]:
        np.testing.assert_allclose(check(df, x, thing), 2 * x)
    assert "odd\\nname" in df.fast_path.source
