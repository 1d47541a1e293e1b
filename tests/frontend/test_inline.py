"""frontend/inline.py: small helpers of the caller's module written into it. Written in, the
derivative is the one of the same code written by hand (numbers equal to the helper kept as a
call, which verify mode also compares on every first call), and what must stay a call does."""
import numpy as np
import pytest

import srcad

import other_module

A = np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4], [0.0, 0.2, 0.6]])
X = np.array([0.7, -1.2, 0.4])


def rhs(y, k):
    return A @ y + k * np.tanh(y)


def rk4(y, k):
    h = 0.1
    for i in range(3):
        k1 = rhs(y, k)
        k2 = rhs(y + 0.5 * h * k1, k)
        k3 = rhs(y + 0.5 * h * k2, k)
        k4 = rhs(y + h * k3, k)
        y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(y ** 2)


def scaled(v, s=2.0):
    """A docstring, dropped."""
    w = v * s
    return w, np.sum(w)


def nested(v):
    a, b = scaled(v)
    return rhs(a, b)


def apply(f, v):
    return f(v) * 2.0


def calls(y, k):
    u = nested(y)
    a = apply(np.sin, u)  # (a call that is a statement's whole value is written in)
    b = apply(rhs_of_one, y)
    return np.sum((a + b) * k)


def rhs_of_one(y):
    return rhs(y, 1.0)


def test_written_in_helpers_agree_with_their_calls():
    for func in (rk4, calls):
        srcad.check_grads(func, (X, 0.3), wrt=(0, 1), order=2)
        for got, want in zip(srcad.grad(func, wrt=(0, 1))(X, 0.3),
                             srcad.grad(func, wrt=(0, 1), disable="inline")(X, 0.3)):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_the_written_in_code_reads_like_the_callers():
    text = srcad.source(rk4, stage="inline")
    assert "rhs(" not in text and text.count("np.tanh(") == 4
    assert "k1 = A @ y + k * np.tanh(y)" in text  # (names passed are read as they are)
    assert "y_2 = y + 0.5 * h * k1" in text and "k2 = A @ y_2 + k * np.tanh(y_2)" in text
    generated = srcad.source(rk4, args=(X, 0.3), wrt=(0, 1))  # (specialized to the shapes)
    assert "rhs_forward" not in generated and "unbroadcast(" not in generated.split(
        "def rk4_grad")[1]
    text = srcad.source(calls, stage="inline")
    assert "apply(" not in text and "np.sin(" in text  # (the function passed, by its name)


def recursive(v, n):
    if n == 0:
        return v
    return recursive(np.sin(v), n - 1)


def two_returns(v):
    if np.sum(v) > 0:
        return v * 2.0
    return -v


def variadic(v, *more):
    return v * len(more)


def reads_a(v):
    return A @ v


def stays_calls(v, k):
    A = 2.0  # (a local named like the global reads_a reads: reads_a stays a call)
    t = recursive(v, 2) + two_returns(v) + variadic(v, 1, 2) + reads_a(v) * A
    return np.sum(other_module.softplus(t, beta=k))


def test_what_stays_a_call():
    text = srcad.source(stays_calls, stage="inline")
    for name in ("recursive(", "two_returns(", "variadic(", "reads_a("):
        assert name in text
    # (another module's helper that reads only np, as the caller does: written in;
    # tests/regressions/test_helpers_of_other_modules_are_written_in.py has the ones that stay)
    assert "softplus(" not in text and "np.log1p(np.exp(" in text
    srcad.check_grads(stays_calls, (X, 2.0), wrt=0, order=2)


def loop_else(v):
    for t in v:
        v = v * t
    else:
        v = v * 2.0
    return v


def calls_loop_else(v):
    return np.sum(loop_else(v * 1.0))


def test_an_error_in_a_helper_points_at_the_helper():
    with pytest.raises(srcad.SrcadError) as info:  # (the fence refuses loop_else: a call,
        srcad.grad(calls_loop_else)(X)  # reported where its source says)
    assert "for t in v:" in str(info.value)


MODULE = '''import numpy as np


def rhs(y):
    return np.sin(y) * {scale}


def rhs_b(y):
    return np.cos(y)


def f(y):
    z = rhs(y)
    return np.sum(z * y)
'''


def _module(tmp_path, name, scale):
    import importlib.util
    path = tmp_path / "inlined_helpers.py"
    path.write_text(MODULE.format(scale=scale))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_helper_rebound_after_the_build_is_seen(tmp_path):
    module = _module(tmp_path, "inlined_helpers_a", 2.0)
    df = srcad.grad(module.f)
    np.testing.assert_allclose(df(X), 2.0 * (np.sin(X) + X * np.cos(X)))
    module.rhs = module.rhs_b  # (a notebook cell run again: the caller is built anew)
    np.testing.assert_allclose(df(X), np.cos(X) - X * np.sin(X))


def test_the_disk_key_holds_the_helpers_source(tmp_path):
    from srcad.api import diskcache
    first = _module(tmp_path, "inlined_helpers_b", 2.0)
    key = diskcache.key(first.f, "reverse", "grad", 0, None)
    second = _module(tmp_path, "inlined_helpers_c", 3.0)  # (f's text and file are the same)
    assert diskcache.key(second.f, "reverse", "grad", 0, None) != key


def grow(arr, v):
    arr += v  # (changes the caller's array)
    return 0


def calls_grow(v):
    y = v * 1.0
    grow(y, v)
    return np.sum(y ** 2)


def test_a_helper_that_changes_its_argument_stays_a_call_and_is_refused_as_one():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(calls_grow)(X)
    assert "grow changes an argument in place" in str(info.value)
    assert "grow(" in srcad.source(calls_grow, stage="inline")
