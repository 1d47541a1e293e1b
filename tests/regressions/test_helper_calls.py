"""Calls of the user's helpers.

- A helper returning a tuple, unpacked in a loop: the tuple's item adjoints were found only for
  statements at the top level, so in a loop they were added as lists (concatenated) and the
  callee's adjoint read None (TypeError), or a wrong number.
- A helper named `add`: its adjoint function was named like the runtime helper add_adjoint,
  and the call went to the runtime helper (TypeError; emitted modules had a NameError).
- A functools.wraps decorator: srcad read the wrapped function's source and lost what the
  wrapper computes (half the gradient of `fn(x) * 2.0`)."""
import functools
import importlib.util

import numpy as np
import pytest

import srcad

from .numeric import central

X = np.array([0.7, -1.3, 2.1])


def pair(a, b):
    return a * b, a + b


def tuple_helper_in_a_short_loop(x):
    s = 1.0
    for i in range(4):
        u, v = pair(x[i % 3], s)
        s = s + u * v * 0.1
    return s


def tuple_helper_in_a_long_loop(x):
    s = 1.0
    for i in range(30):
        u, v = pair(x[i % 3], s)
        s = s + u * v * 0.01
    return s


def add(a, b):
    return a * b + a


def calls_add(x):
    return np.sum(add(x, x))


def twice(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return fn(x) * 2.0
    return wrapper


@twice
def wrapped(x):
    return np.sum(x * x)


@pytest.mark.parametrize("func", [tuple_helper_in_a_short_loop, tuple_helper_in_a_long_loop,
                                  calls_add, wrapped])
@pytest.mark.parametrize("disable", [None, "all"])
def test_helpers(func, disable):
    np.testing.assert_allclose(srcad.grad(func, disable=disable)(X), central(func, X),
                               rtol=1e-7)
    v = np.array([0.3, -0.2, 0.5])
    np.testing.assert_allclose(srcad.jvp(func, disable=disable)(X, v), central(func, X) @ v,
                               rtol=1e-7)


def test_an_emitted_module_with_a_helper_named_add_runs(tmp_path):
    path = srcad.emit(calls_add, str(tmp_path / "calls_add_grad.py"))
    spec = importlib.util.spec_from_file_location("calls_add_grad", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    np.testing.assert_allclose(module.calls_add_grad(X), 2 * X + 1, rtol=1e-14)
