"""A build leaves no reference cycles per statement.

Reference counting frees what a compiler pass drops the moment it drops it, unless the object
is in a reference cycle: then it waits for Python's cyclic collector, whose collections walk
everything a build holds. A closure that calls itself is such a cycle (its cell holds the
function), and with it everything it reads. read_product's and instantiate's were made per
expression, and a 1,000-statement build left ~600,000 objects for the collector (~0.6 s of
3.4 s). pipeline.py's _collector_paused explains the collector's settings during builds."""
import gc
import importlib.util
import itertools

import numpy as np
import pytest

import srcad
import srcad.pipeline

_COUNTER = itertools.count()


def _chain(tmp_path, n):
    """A new function of n statements t_i = np.sin(t_{i-1}) + t_{i-1} * 0.5 (its own file)."""
    lines = ["import numpy as np", "", "", "def f(x):", "    t0 = x"]
    lines += [f"    t{i} = np.sin(t{i - 1}) + t{i - 1} * 0.5 / (t{i - 1} ** 2 + 1.0)"
              for i in range(1, n + 1)]
    lines.append(f"    return np.sum(t{n})")
    path = tmp_path / f"garbage_chain_{next(_COUNTER)}.py"
    path.write_text("\n".join(lines) + "\n")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


def _cyclic_closures(build):
    """The functions and closure cells build() leaves in reference cycles."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        build()
        gc.collect()
        return sum(type(o).__name__ in ("function", "cell") for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_closures_in_cycles_do_not_grow_with_the_function(tmp_path, mode):
    x = np.linspace(0.1, 1.0, 4)

    def build(n):
        f = _chain(tmp_path, n)
        if mode == "grad":
            return lambda: srcad.grad(f)(x)
        return lambda: srcad.jvp(f)(x, np.ones_like(x))

    small, large = _cyclic_closures(build(20)), _cyclic_closures(build(80))
    assert large - small <= 4, (small, large)  # was ~50 more per statement


@pytest.mark.parametrize("running", [True, False])
def test_a_build_pauses_the_collector_and_leaves_it_as_it_was(tmp_path, monkeypatch, running):
    seen = []
    improve = srcad.pipeline.improve

    def spying(*args, **kwargs):  # (the collector, mid-build)
        seen.append(gc.isenabled())
        return improve(*args, **kwargs)
    monkeypatch.setattr(srcad.pipeline, "improve", spying)
    enabled = gc.isenabled()
    (gc.enable if running else gc.disable)()
    try:
        srcad.grad(_chain(tmp_path, 3))(np.ones(3))
        assert gc.isenabled() is running
    finally:
        (gc.enable if enabled else gc.disable)()
    assert seen and not any(seen)
