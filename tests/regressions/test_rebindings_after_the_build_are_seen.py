"""What a derivative's code calls, rebound after the build, is what the next call differentiates:
never the old function's derivative with the new values (a wrong number, silently).

Two ways this failed:
- A method called through a global object (model.predict(x)) is differentiated as the function
  of its class found at the build. The watches (api/cache.py) followed a global to itself, its
  bound method's function or its class's __call__, not to a method called on it: the object
  rebound to one of another class with a method of that name (a notebook cell making another
  model), or the class's method rebound, kept the old method's derivative. The build now keeps
  the attribute paths the code calls from its free names (Built.called: model.predict,
  mylib.model.predict, before methods become functions) and watches the function at the end
  of each and the method's object.
- A build read back from the disk cache (SRCAD_CACHE_DIR) lost the helpers written into it
  (Built.inlined was checked, not kept): a helper redefined after that was not seen.
- A helper written in from a closure variable (a function defined in a factory, read by the
  closure differentiated) was watched as a global: the variable rebound (nonlocal) was not seen.
  Watches now read a closure variable first, as Python does.
- f's defaults replaced (f.__defaults__ = ...): the generated function kept the old ones, and
  its code the shapes the probe saw with them. The sync compares them with those it was built
  with (where there is one: code that reads nothing of the user's has none).
- A function's code replaced in the same object (IPython's autoreload sets __code__), f's or a
  helper's: the watches compared the objects only. They compare the code too.
- A library function read under a name of the user's (act = np.tanh), rebound: resolve wrote
  np.tanh and watched nothing. Such names are watched as the helpers written in are.
"""
import importlib
import sys
import textwrap

import numpy as np
import pytest

import srcad
import srcad.api.cache
import srcad.api.callees
from tests.regressions.numeric import central_gradient

X = np.array([0.3, -0.7, 1.1])


class Model:
    def __init__(self, s):
        self.s = s

    def predict(self, y):
        return self.s * np.cos(y)


class Other:
    def __init__(self, s):
        self.s = s

    def predict(self, y):
        return self.s * np.sin(y) ** 3


model = Model(1.5)


def through_a_global_object(x):
    return np.sum((model.predict(x) + x) ** 2)


def test_a_global_object_rebound_to_one_of_another_class_is_seen():
    global model
    g = srcad.grad(through_a_global_object)
    saved = model
    try:
        np.testing.assert_allclose(g(X), central_gradient(through_a_global_object, (X,), 0),
                                   rtol=1e-7)
        model = Other(2.0)  # (the same method name, another class: another derivative)
        np.testing.assert_allclose(g(X), central_gradient(through_a_global_object, (X,), 0),
                                   rtol=1e-7)
    finally:
        model = saved


def test_a_method_of_the_class_rebound_is_seen(monkeypatch):
    g = srcad.grad(through_a_global_object)
    np.testing.assert_allclose(g(X), central_gradient(through_a_global_object, (X,), 0),
                               rtol=1e-7)
    monkeypatch.setattr(Model, "predict", lambda self, y: self.s * np.tanh(y) ** 2)
    np.testing.assert_allclose(g(X), central_gradient(through_a_global_object, (X,), 0),
                               rtol=1e-7)


LIBRARY = """
import numpy as np


class Model:
    def __init__(self, s):
        self.s = s

    def predict(self, y):
        return self.s * np.cos(y)


model = Model(1.5)


def step(y):
    return model.predict(y) + y
"""

CALLER = """
import numpy as np
import {lib}
from {lib} import step


def helper(y):
    return np.sin(y) * 2.0


def through_a_helper_of_another_module(x):
    return np.sum(step(x) ** 2)


def with_a_helper(x):
    return np.sum(helper(x) ** 2)
"""


@pytest.fixture
def modules(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    lib, caller = f"srcad_rebound_lib_{id(tmp_path)}", f"srcad_rebound_caller_{id(tmp_path)}"
    (tmp_path / f"{lib}.py").write_text(LIBRARY)
    (tmp_path / f"{caller}.py").write_text(textwrap.dedent(CALLER.format(lib=lib)))
    importlib.invalidate_caches()
    yield importlib.import_module(lib), importlib.import_module(caller)
    for name in (lib, caller):
        sys.modules.pop(name, None)


def test_a_method_reached_through_a_helper_of_another_module_is_watched(modules, monkeypatch):
    """step, written in, calls mylib.model.predict: the class's method rebound is seen."""
    library, caller = modules
    f = caller.through_a_helper_of_another_module
    g = srcad.grad(f)
    np.testing.assert_allclose(g(X), central_gradient(f, (X,), 0), rtol=1e-7)
    monkeypatch.setattr(library.Model, "predict", lambda self, y: self.s * np.tanh(y) ** 2)
    np.testing.assert_allclose(g(X), central_gradient(f, (X,), 0), rtol=1e-7)


def test_a_build_read_from_the_disk_cache_watches_the_helpers_written_in(modules, tmp_path,
                                                                         monkeypatch):
    _, caller = modules
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path / "cache"))
    srcad.grad(caller.with_a_helper)(X)  # (built, and kept on disk)
    srcad.api.cache.forget_all()  # (what a new process has: the disk only, and the module's
    srcad.api.callees.forget_all()  # functions made anew from the same file)
    f = importlib.reload(caller).with_a_helper
    builds = []
    real = srcad.api.cache.build
    monkeypatch.setattr(srcad.api.cache, "build", lambda *a, **k: builds.append(1) or real(
        *a, **k))
    g = srcad.grad(f)
    np.testing.assert_allclose(g(X), central_gradient(f, (X,), 0), rtol=1e-7)
    assert builds == []  # (read from the disk)
    monkeypatch.setattr(caller, "helper", lambda y: np.tanh(y) ** 3)
    np.testing.assert_allclose(g(X), central_gradient(f, (X,), 0), rtol=1e-7)


def _factory():
    def helper(y):
        return np.sin(y) * 2.0

    def f(x):
        return np.sum(helper(x) ** 2)

    def swap():
        nonlocal helper

        def helper(y):
            return np.tanh(y) ** 3
    return f, swap


def test_a_helper_written_in_from_a_closure_variable_rebound_is_seen():
    f, swap = _factory()
    g = srcad.grad(f)
    assert "helper_forward" not in srcad.source(f, args=(X,))  # (written in)
    np.testing.assert_allclose(g(X), central_gradient(f, (X,), 0), rtol=1e-7)
    swap()
    np.testing.assert_allclose(g(X), central_gradient(f, (X,), 0), rtol=1e-7)


SCALE = 1.0


def with_defaults(v, w=np.array([0.5, -1.2]), *, k=2):
    m = np.max(np.sin(v[:, None] * w[:k]), axis=1)
    return np.sum(m ** 2) * SCALE


def test_defaults_replaced_after_the_build_are_seen(monkeypatch):
    """The generated function takes f's defaults when it is bound, and the probe ran with them
    where the call leaves them out (a maximum over 2 items, written out): f.__defaults__ or
    f.__kwdefaults__ bound anew builds anew (2.1 off before). (Seen by the sync, which runs
    where the code reads something of the user's, SCALE here: code that reads nothing runs
    without one, and does not see them replaced.)"""
    v = np.random.default_rng(3).normal(size=40)
    g = srcad.grad(with_defaults)
    np.testing.assert_allclose(g(v), central_gradient(with_defaults, (v,), 0), rtol=1e-6,
                               atol=1e-9)
    monkeypatch.setattr(with_defaults, "__defaults__", (np.array([0.5, -1.2, 2.0]),))
    monkeypatch.setattr(with_defaults, "__kwdefaults__", {"k": 3})
    np.testing.assert_allclose(g(v), central_gradient(with_defaults, (v,), 0), rtol=1e-6,
                               atol=1e-9)


def _code_helper(y):
    return np.sin(y) * 2.0


def _code_caller(x):
    return np.sum(_code_helper(x) ** 2)


def test_code_replaced_in_the_same_function_object_is_seen(monkeypatch):
    """IPython's autoreload patches a reloaded module's functions in place: the same function
    object, another __code__. The watches compared the objects only: the helper written in, and
    f itself, kept their old derivatives (3.6 and 5.1 off). The sync compares their code too."""
    g = srcad.grad(_code_caller)
    np.testing.assert_allclose(g(X), central_gradient(_code_caller, (X,), 0), rtol=1e-7)
    monkeypatch.setattr(_code_helper, "__code__", (lambda y: np.tanh(y) ** 3).__code__)
    np.testing.assert_allclose(g(X), central_gradient(_code_caller, (X,), 0), rtol=1e-7)
    monkeypatch.setattr(_code_caller, "__code__", (lambda x: np.sum(np.cos(x) ** 3)).__code__)
    np.testing.assert_allclose(g(X), central_gradient(_code_caller, (X,), 0), rtol=1e-7)


act = np.tanh


def _through_an_alias(x):
    return np.sum(act(x) ** 2)


def test_a_library_function_read_under_a_name_of_the_users_rebound_is_seen(monkeypatch):
    """act = np.tanh; f reads act(x): written as np.tanh's derivative, and act was not watched
    (resolve spells it as the library's): another function bound to act kept tanh's
    derivative (0.23 off). The names (and attribute paths: mylib.act) so read are watched as
    the helpers written in are."""
    g = srcad.grad(_through_an_alias)
    np.testing.assert_allclose(g(X), central_gradient(_through_an_alias, (X,), 0), rtol=1e-7)
    monkeypatch.setitem(globals(), "act", np.sin)
    np.testing.assert_allclose(g(X), central_gradient(_through_an_alias, (X,), 0), rtol=1e-7)
