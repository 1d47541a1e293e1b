"""SrcadError: what srcad cannot differentiate is refused at build time, at the user's own line.

Each check reads the rendered message (str(err)) as a user sees it: `file.py:LINE:COL: message`,
then the offending line, then a caret under the offending code, then `what to do: ...`.
Line and column are found by looking the offending snippet up in this file, so editing the file
does not break the tests.
"""
import functools
import inspect
import os

import numpy as np
import pytest

import srcad

THIS_FILE = os.path.abspath(__file__)
BASENAME = os.path.basename(__file__)


# ---------------------------------------------------------------------------------------------
# helpers

def locate(func, snippet):
    """(line, 1-based column, line text) of the first occurrence of snippet in func's source."""
    lines, first = inspect.getsourcelines(func)
    for offset, text in enumerate(lines):
        col = text.find(snippet)
        if col >= 0:
            return first + offset, col + 1, text.rstrip("\n")
    raise AssertionError(f"{snippet!r} not in the source of {func.__name__}")


def assert_points_at(message, func, snippet, *phrases):
    """The rendered error names this file, the snippet's line and column, shows the line with a
    caret under the snippet, says what to do, and contains every phrase."""
    lineno, col, text = locate(func, snippet)
    lines = message.splitlines()
    header = lines[0]
    assert f"{BASENAME}:{lineno}:{col}:" in header, message
    assert os.path.basename(header.split(":")[0]) == BASENAME, message
    shown = [k for k, line in enumerate(lines) if line.strip() == text.strip()]
    assert shown, f"the offending line {text.strip()!r} is not shown:\n{message}"
    k = shown[0]
    assert k + 1 < len(lines) and lines[k + 1].strip() == "^", message
    assert lines[k + 1].index("^") == lines[k].index(snippet), (
        f"the caret is not under {snippet!r}:\n{message}")
    assert "what to do:" in message and message.split("what to do:")[1].strip(), message
    for phrase in phrases:
        assert phrase in message, f"{phrase!r} not in:\n{message}"


def build_error(func, **options):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.source(func, **options)
    return info.value


# ---------------------------------------------------------------------------------------------
# constructs srcad does not differentiate

def uses_try(x):
    y = x * 2.0
    try:
        y = np.sin(y)
    except ValueError:
        pass
    return y


def uses_with(x, lock):
    with lock:
        y = np.cos(x)
    return y


COUNT = 0


def uses_global(x):
    global COUNT
    COUNT = COUNT + 1  # (a global only read is fine: global declarations of it are dropped)
    return np.sum(x) * COUNT


def uses_yield(x):
    yield np.sin(x)
    return x


@pytest.mark.parametrize("func, snippet, phrase", [
    (uses_try, "try:", "try"),
    (uses_with, "with lock:", "with"),
    (uses_global, "global COUNT", "global"),
    (uses_yield, "yield np.sin(x)", "yield"),
], ids=["try", "with", "global", "yield"])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_unsupported_constructs(func, snippet, phrase, mode):
    err = build_error(func, mode=mode)
    assert_points_at(str(err), func, snippet, phrase, "srcad does not differentiate")
    assert err.filename == THIS_FILE
    assert err.lineno == locate(func, snippet)[0]


def test_unsupported_construct_refused_by_every_entry_point():
    for make in (srcad.grad, srcad.value_and_grad, srcad.vjp, srcad.jvp):
        with pytest.raises(srcad.SrcadError) as info:
            make(uses_try)
        assert_points_at(str(info.value), uses_try, "try:")
    with pytest.raises(srcad.SrcadError):
        srcad.hessian(uses_try)
    with pytest.raises(srcad.SrcadError):
        srcad.emit(uses_try, os.devnull)


def test_the_error_is_a_plain_exception_subclass():
    assert issubclass(srcad.SrcadError, Exception)
    err = build_error(uses_with)
    assert str(err) == err.render()


# ---------------------------------------------------------------------------------------------
# calls srcad has no templates for

python_ufunc = np.frompyfunc(lambda a: a * 2.0, 1, 1)   # a ufunc wrapping Python code


def calls_python_ufunc(x):
    y = np.sin(x)
    z = python_ufunc(y)
    return np.sum(z)


def calls_vectorized(x):
    y = np.cos(x)
    z = np.vectorize(np.tanh)(y)
    return np.sum(z)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_call_without_a_template(mode):
    err = build_error(calls_python_ufunc, mode=mode)
    assert_points_at(str(err), calls_python_ufunc, "python_ufunc(y)", "template")
    kind = "adjoint" if mode == "reverse" else "tangent"
    assert kind in str(err)


def ufunc_method(x):
    return np.add.reduce(x ** 2)


def test_a_ufunc_method_is_refused_by_its_name_with_what_it_computes():
    """np.add.reduce was named "?.ufunc.reduce" (a method of a ufunc has no module)."""
    err = build_error(ufunc_method)
    assert "numpy.add.reduce" in str(err) and "np.sum(x, axis=0)" in str(err)
    assert_points_at(str(err), ufunc_method, "np.add.reduce(x ** 2)", "template")


def test_call_of_an_unidentifiable_callable():
    err = build_error(calls_vectorized)
    assert_points_at(str(err), calls_vectorized, "np.vectorize(np.tanh)(y)")


# ---------------------------------------------------------------------------------------------
# wrong kind of function for the entry point

def returns_a_tuple(x):
    y = np.sin(x)
    return y, np.sum(y)


def returns_a_vector(x):
    return np.sin(x)


def test_grad_of_a_tuple_returning_function():
    for make in (srcad.grad, srcad.value_and_grad):
        with pytest.raises(srcad.SrcadError) as info:
            make(returns_a_tuple)
        assert_points_at(str(info.value), returns_a_tuple, "return y, np.sum(y)", "tuple",
                         "vjp")
    srcad.vjp(returns_a_tuple)  # the way out the message names works


def test_grad_of_a_vector_valued_function_refuses_at_call_time():
    df = srcad.grad(returns_a_vector)
    with pytest.raises((ValueError, srcad.SrcadError)) as info:
        df(np.ones(3))
    assert "scalar" in str(info.value) and "vjp" in str(info.value)
    assert abs(df(np.ones(1)) - np.cos(1.0)) <= 1e-15  # a size-1 output is a scalar


def test_function_without_source():
    namespace = {"np": np}
    exec("def made_by_exec(x):\n    return np.sin(x)\n", namespace)
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(namespace["made_by_exec"])
    message = str(info.value)
    assert "made_by_exec" in message and "source" in message
    assert "exec" in message and "what to do:" in message




# ---------------------------------------------------------------------------------------------
# bad options

def two_params(a, b):
    return np.sum(a * b)


def test_a_non_callable_is_refused():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad("loss")
    assert "'loss'" in str(info.value)
    with pytest.raises(srcad.SrcadError):
        srcad.source(np.ones(3))


@pytest.mark.parametrize("func", [np.sin, sum, functools.partial(two_params, b=2.0)],
                         ids=["ufunc", "builtin", "partial"])
def test_a_callable_without_python_source_is_refused(func):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(func)
    assert "what to do:" in str(info.value)


@pytest.mark.parametrize("wrt", [2, -3, (0, 2), (5,)])
def test_wrt_out_of_range(wrt):
    bad = wrt if isinstance(wrt, int) else [w for w in wrt if not -2 <= w < 2][0]
    err = build_error(two_params, wrt=wrt)
    assert_points_at(str(err), two_params, "def two_params", f"wrt={bad}", "out of range",
                     "2 positional parameters")


@pytest.mark.parametrize("wrt", ["0", 1.0, (), (0, "1"), True, [0, 1]])
def test_wrt_of_the_wrong_type(wrt):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(two_params, wrt=wrt)
    assert "wrt" in str(info.value) and "int" in str(info.value)


def test_bad_mode():
    for call in (lambda: srcad.source(two_params, mode="sideways"),
                 lambda: srcad.emit(two_params, os.devnull, mode="sideways"),
                 lambda: srcad.jacobian(two_params, mode="sideways")):
        with pytest.raises(srcad.SrcadError) as info:
            call()
        message = str(info.value)
        assert "sideways" in message and "'reverse'" in message and "'forward'" in message


def test_bad_stage():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.source(two_params, stage="lexing")
    assert "lexing" in str(info.value) and "anf" in str(info.value)


@pytest.mark.parametrize("mode, kind", [("reverse", "jvp"), ("forward", "grad"),
                                        ("forward", "vjp"), ("reverse", "hessian")])
def test_kind_that_does_not_exist_in_the_mode(mode, kind):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.source(two_params, mode=mode, kind=kind)
    assert kind in str(info.value)


def test_hessian_needs_a_single_wrt():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.hessian(two_params, wrt=(0, 1))
    assert "what to do:" in str(info.value) and "jacobian" in str(info.value)


def appended_then_indexed(x):
    out = []
    for i in range(3):
        out.append(x * i)
    return np.sum(out[0] + out[2])


def appended_then_stacked(x):
    out = []
    for i in range(3):
        out.append(x * i)
    rows = np.stack(out)
    return np.sum(rows[0] + rows[2])


def test_items_of_an_appended_list_read_by_index():
    """Reverse mode keeps an appended list's adjoint as a list it pops; items read by a constant
    index are refused at the list's line (they crashed with an IndexError), the stacked form
    works."""
    x = np.array([0.3, -1.2, 0.7])
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(appended_then_indexed)(x)
    assert_points_at(str(info.value), appended_then_indexed, "out = []", "grows by append",
                     "np.stack")
    np.testing.assert_allclose(srcad.grad(appended_then_stacked)(x), np.full(3, 2.0))
    srcad.check_grads(appended_then_stacked, (x,), wrt=0)
