"""The source of a function is read from linecache without inspect.getmodule, which looks
through every module loaded (1-3 ms per function in a process that imported torch and jax, a
sixth of a cold build): syntax.source.source_lines gives what inspect.getsourcelines gives."""
import functools
import inspect
import linecache
import textwrap

import numpy as np

import srcad
from srcad.syntax.source import source_lines


def plain(x):
    return np.sin(x) * 2.0


def decorator(func):
    @functools.wraps(func)
    def wrapper(*args):
        return func(*args)
    return wrapper


@decorator
def decorated(x):
    return np.cos(x)


square = lambda x: x * x  # noqa: E731 - a lambda's line


class Holder:
    def method(self, x):
        def inner(y):
            return y * x
        return inner(x)


def test_the_lines_are_inspects():
    functions = [plain, decorated.__wrapped__, decorated, square, Holder.method,
                 textwrap.dedent, srcad.grad]
    for func in functions:
        code = func.__code__
        assert source_lines(code, func.__globals__) == inspect.getsourcelines(code), func


def test_a_source_only_linecache_holds_is_read():
    name = "<srcad test source>"
    text = "def made(x):\n    return x * 3.0\n"
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    namespace = {}
    exec(compile(text, name, "exec"), namespace)  # noqa: S102 - the test's own text
    assert source_lines(namespace["made"].__code__) == (text.splitlines(True), 1)
    np.testing.assert_allclose(srcad.grad(namespace["made"])(2.0), 3.0)


def test_no_module_is_looked_up(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("inspect.getmodule was called")
    monkeypatch.setattr(inspect, "getmodule", refuse)
    assert source_lines(plain.__code__, plain.__globals__)[1] == plain.__code__.co_firstlineno
