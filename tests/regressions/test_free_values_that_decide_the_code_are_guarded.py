"""Code specialized to its arguments is specialized to the free values it reads too (globals,
closure variables, attributes of them): the probe runs with them, and their shapes, dtypes and
values are written into the code as the arguments' are (a maximum over an axis of 2 items as
np.maximum of two slices). The arguments are keyed by signature; the free values were not
checked: a global int or array rebound after the build, or a config dict changed in place, ran
the old code on the new values (a gradient 1.0 off, silently, where K went from 2 to 3). Each
specialized build now keeps what it assumed of each free value it read (Built.guards:
analysis/values.py value_guards), and every call checks it (api/cache.py): where one fails, the
code is built again. An int read only in arithmetic (a step counter in 0.99 ** step) is
guarded by type, so that a counter costs no build per value.
"""
import importlib
import sys

import numpy as np
import pytest

import srcad
import srcad.api.cache
import srcad.api.callees
from tests.regressions.numeric import central_gradient

RNG = np.random.default_rng(5)
X = RNG.normal(size=(40, 4))
V = RNG.normal(size=40)

K = 2
W = np.array([0.5, -1.2])
STEP = 0
CFG = {"k": 2}


def short_maximum_over_a_global_count(x):
    m = np.max(np.sin(x[:, :K]), axis=1)
    return np.sum(m ** 2)


def short_maximum_over_a_global_array(v):
    m = np.max(np.sin(v[:, None] * W), axis=1)
    return np.sum(m ** 2)


def a_counter_in_arithmetic(v):
    return np.sum(np.tanh(v)) * 0.99 ** STEP


def a_count_in_a_config(x):
    m = np.max(np.sin(x[:, :CFG["k"]]), axis=1)
    return np.sum(m ** 2)


@pytest.fixture
def builds(monkeypatch):
    """A list that gets an item for each build made from now on."""
    made = []
    real = srcad.api.cache.build
    monkeypatch.setattr(srcad.api.cache, "build", lambda *a, **k: made.append(1) or real(
        *a, **k))
    return made


def test_a_global_int_that_decides_a_shape_rebound(monkeypatch):
    g = srcad.grad(short_maximum_over_a_global_count)
    np.testing.assert_allclose(g(X), central_gradient(short_maximum_over_a_global_count, (X,),
                                                      0), rtol=1e-6, atol=1e-9)
    monkeypatch.setitem(globals(), "K", 3)
    np.testing.assert_allclose(g(X), central_gradient(short_maximum_over_a_global_count, (X,),
                                                      0), rtol=1e-6, atol=1e-9)


def test_a_global_array_of_another_shape(monkeypatch):
    g = srcad.grad(short_maximum_over_a_global_array)
    np.testing.assert_allclose(g(V), central_gradient(short_maximum_over_a_global_array, (V,),
                                                      0), rtol=1e-6, atol=1e-9)
    monkeypatch.setitem(globals(), "W", np.array([0.5, -1.2, 2.0]))
    np.testing.assert_allclose(g(V), central_gradient(short_maximum_over_a_global_array, (V,),
                                                      0), rtol=1e-6, atol=1e-9)


def test_a_config_changed_in_place(monkeypatch):
    g = srcad.grad(a_count_in_a_config)
    np.testing.assert_allclose(g(X), central_gradient(a_count_in_a_config, (X,), 0), rtol=1e-6,
                               atol=1e-9)
    monkeypatch.setitem(CFG, "k", 3)
    np.testing.assert_allclose(g(X), central_gradient(a_count_in_a_config, (X,), 0), rtol=1e-6,
                               atol=1e-9)


def test_a_counter_read_in_arithmetic_costs_no_build_per_value(monkeypatch, builds):
    g = srcad.grad(a_counter_in_arithmetic)
    g(V)
    builds.clear()
    for step in range(1, 6):
        monkeypatch.setitem(globals(), "STEP", step)
        np.testing.assert_allclose(g(V), central_gradient(a_counter_in_arithmetic, (V,), 0),
                                   rtol=1e-6, atol=1e-9)
    assert builds == []


MODULE = """
import numpy as np

W = np.array({w})


def f(v):
    m = np.max(np.sin(v[:, None] * W), axis=1)
    return np.sum(m ** 2)
"""


def test_a_build_read_from_the_disk_cache_is_guarded_too(tmp_path, monkeypatch):
    """Kept on disk with W of 2 items; read back by a process whose W has 3 (the same text, so
    the same disk key): its guard fails, and the code is built again."""
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    name = f"srcad_guarded_{id(tmp_path)}"
    path = tmp_path / f"{name}.py"
    path.write_text(MODULE.format(w="[0.5, -1.2]"))
    importlib.invalidate_caches()
    module = importlib.import_module(name)
    try:
        srcad.grad(module.f)(V)  # (built and kept)
        srcad.api.cache.forget_all()
        srcad.api.callees.forget_all()
        module = importlib.reload(module)
        module.W = np.array([0.5, -1.2, 2.0])  # (the same text: only the value differs)
        np.testing.assert_allclose(srcad.grad(module.f)(V), central_gradient(module.f, (V,), 0),
                                   rtol=1e-6, atol=1e-9)
    finally:
        sys.modules.pop(name, None)


@pytest.mark.parametrize("a, b, how, same", [
    (np.ones(3), np.zeros(3), "value", True),  # (an array's values: not assumed)
    (np.ones(3), np.ones(4), "value", False),
    (np.ones(3), np.ones(3, np.float32), "value", False),
    (np.ones((2, 3)), np.ones((3, 2)), "value", False),
    (2.5, 3.5, "value", True),  # (a float's value deciding a shape: the code for any shapes)
    (3, 4, "number", True),  # (an int read in arithmetic only)
    (3, 4, "value", False),
    (3, 3.0, "number", False),
    ([1, 2.0, "a", np.ones(2)], [1, 2.0, "a", np.ones(2)], "value", True),
    ([1, 2.0], [1, 2.0, 3.0], "value", False),
    ([1, 2.0], [2, 2.0], "value", False),  # (an item read by index may be a count)
    ([1, 2.0], [1, 2.0, 3.0], "type", True),  # (a list the code only appends to)
    ({"n": 3, "w": 1.5}, {"n": 3, "w": 2.5}, "value", True),
    ({"n": 3, "w": 1.5}, {"n": 4, "w": 1.5}, "value", False),
    ((np.ones(2), 3), (np.ones(3), 3), "value", False),
    ("train", "test", "value", False),
    (None, 0, "value", False),
])
def test_what_a_guard_tells_apart(a, b, how, same):
    from srcad.analysis.values import guard_text
    assert (guard_text(a, how) == guard_text(b, how)) is same


LOG = []


def appends_to_a_global_log(v):
    y = np.sum(np.tanh(v) ** 2)
    LOG.append(1.0)
    return y


def test_a_global_list_the_code_only_appends_to_costs_no_build_per_call(builds):
    g = srcad.grad(appends_to_a_global_log)
    g(V)
    builds.clear()
    for _ in range(3):
        g(V)
    assert builds == [] and len(LOG) == 4


ROWS = np.array([[0.5, -1.2], [2.0, 0.3]])


def short_maximum_over_a_row_of_a_global(v):
    m = np.max(np.sin(v[:, None] * ROWS[0]), axis=1)
    return np.sum(m ** 2)


def test_a_global_array_reshaped_in_place():
    """The same object, another shape (the sync compares the objects it saw at the last call
    first: an array's shape is compared too)."""
    g = srcad.grad(short_maximum_over_a_row_of_a_global)
    np.testing.assert_allclose(g(V), central_gradient(short_maximum_over_a_row_of_a_global,
                                                      (V,), 0), rtol=1e-6, atol=1e-9)
    try:
        ROWS.shape = (1, 4)
        np.testing.assert_allclose(g(V), central_gradient(short_maximum_over_a_row_of_a_global,
                                                          (V,), 0), rtol=1e-6, atol=1e-9)
    finally:
        ROWS.shape = (2, 2)
