"""A helper imported from another of the user's modules (from mylib import rhs) stayed a call,
where the same helper in the caller's own module is written into its caller: an RK2 gradient
took 2.3 ms against 0.9 ms. frontend/inline.py now writes in a helper of another module where
the call is by a name of the caller's (so a rebinding of that name is seen, Built.inlined) or
an attribute of a module the caller holds (mylib.rhs(y), watched by that path). The globals the
helper reads: a module the caller reads under the same name, or a builtin (np, math), are read
as they are; any other (a constant or another function of its module) is read as an attribute
of its module (SCALE -> mylib.SCALE), which is what the helper reads when it runs, where the
caller holds the module (import mylib); where it does not, the helper stays a call, which reads
its module's globals when it runs. The disk cache key holds the source of the imported functions
the function reads, by name or as a module's attribute, and of the functions these read of
their modules (a changed helper is a new key, in a new process too).
"""
import importlib.util
import itertools
import sys

import numpy as np
import pytest

import srcad
from srcad.api import diskcache
from tests.regressions.numeric import central_gradient

_COUNT = itertools.count()

LIBRARY = '''
import numpy as np

SCALE = 0.7


def rhs(y, k, a):
    return a @ y + k * np.tanh(y)


def scaled_rhs(y, a):
    return a @ y + SCALE * np.tanh(y)


def damping(y):
    return SCALE * np.sin(y)


def damped_rhs(y, a):
    return a @ y - damping(y)
'''

USER = '''
import numpy as np
import {lib}
from {lib} import rhs, scaled_rhs


def integrate(y0, k, a):
    y = y0
    for _ in range(10):
        k1 = rhs(y, k, a)
        y = y + 0.05 * rhs(y + 0.025 * k1, k, a)
    return np.sum(y ** 2)


def integrate_scaled(y0, a):
    y = y0
    for _ in range(10):
        y = y + 0.05 * scaled_rhs(y, a)
    return np.sum(y ** 2)


def integrate_by_attribute(y0, k, a):
    y = y0
    for _ in range(10):
        y = y + 0.05 * {lib}.rhs(y, k, a)
    return np.sum(y ** 2)


def integrate_damped(y0, a):
    y = y0
    for _ in range(10):
        y = y + 0.05 * {lib}.damped_rhs(y, a)
    return np.sum(y ** 2)
'''

HOLDING_NONE = '''
import numpy as np
from {lib} import scaled_rhs


def integrate_scaled(y0, a):
    y = y0
    for _ in range(10):
        y = y + 0.05 * scaled_rhs(y, a)
    return np.sum(y ** 2)
'''


@pytest.fixture
def modules(tmp_path, monkeypatch):
    """(library, user): two modules written to files, the second importing the first."""
    number = next(_COUNT)
    lib, user = f"srcad_other_lib_{number}", f"srcad_other_user_{number}"
    bare = f"srcad_other_bare_{number}"
    (tmp_path / f"{lib}.py").write_text(LIBRARY)
    (tmp_path / f"{user}.py").write_text(USER.format(lib=lib))
    (tmp_path / f"{bare}.py").write_text(HOLDING_NONE.format(lib=lib))
    monkeypatch.syspath_prepend(str(tmp_path))
    loaded = []
    for name in (lib, user, bare):
        spec = importlib.util.spec_from_file_location(name, tmp_path / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        loaded.append(module)
    yield loaded
    for name in (lib, user, bare):
        sys.modules.pop(name, None)


RNG = np.random.default_rng(11)
Y0, A = RNG.normal(size=5), RNG.normal(size=(5, 5)) * 0.3


def test_a_helper_imported_by_name_is_written_in(modules):
    _, user, _ = modules
    args = (Y0, 0.8, A)
    got = srcad.grad(user.integrate, wrt=(0, 1, 2))(*args)
    for i in (0, 1, 2):
        np.testing.assert_allclose(got[i], central_gradient(user.integrate, args, i), rtol=1e-6,
                                   atol=1e-9)
    assert "rhs_forward" not in srcad.source(user.integrate, wrt=(0, 1, 2), args=args)


def test_a_helper_reading_a_value_of_its_module_reads_it_as_the_modules_attribute(modules):
    """scaled_rhs reads its module's SCALE: written in, it reads mylib.SCALE when it runs (the
    caller holds mylib), so a value bound there later is the one differentiated."""
    library, user, _ = modules
    text = srcad.source(user.integrate_scaled, args=(Y0, A))
    assert "scaled_rhs_forward" not in text and f"{library.__name__}.SCALE" in text
    g = srcad.grad(user.integrate_scaled)
    before = g(Y0, A)
    np.testing.assert_allclose(before, central_gradient(user.integrate_scaled, (Y0, A), 0),
                               rtol=1e-6, atol=1e-9)
    library.SCALE = 1.3  # (the helper reads its module's SCALE when it is called)
    after = g(Y0, A)
    np.testing.assert_allclose(after, central_gradient(user.integrate_scaled, (Y0, A), 0),
                               rtol=1e-6, atol=1e-9)
    assert not np.allclose(before, after)


def test_a_helper_whose_module_the_caller_does_not_hold_stays_a_call(modules):
    """from mylib import scaled_rhs alone: no name of the caller's reaches mylib.SCALE. The
    helper stays a call and reads SCALE when it runs."""
    library, _, bare = modules
    assert "scaled_rhs_forward" in srcad.source(bare.integrate_scaled, args=(Y0, A))
    g = srcad.grad(bare.integrate_scaled)
    before = g(Y0, A)
    library.SCALE = 1.3
    after = g(Y0, A)
    np.testing.assert_allclose(after, central_gradient(bare.integrate_scaled, (Y0, A), 0),
                               rtol=1e-6, atol=1e-9)
    assert not np.allclose(before, after)


def test_a_helper_calling_a_function_of_its_module_writes_both_in_and_watches_both(modules):
    """damped_rhs calls damping, of its module: read as mylib.damping, written in too, and
    watched by that path (a function bound there later is the one differentiated); its edited
    source is a new disk key."""
    library, user, _ = modules
    text = srcad.source(user.integrate_damped, args=(Y0, A))
    assert "damped_rhs_forward" not in text and "damping_forward" not in text
    g = srcad.grad(user.integrate_damped)
    np.testing.assert_allclose(g(Y0, A), central_gradient(user.integrate_damped, (Y0, A), 0),
                               rtol=1e-6, atol=1e-9)
    key = diskcache.key(user.integrate_damped, "reverse", "grad", 0, None)
    path = library.__file__.replace(".py", "_damping.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("import numpy as np\n\n\ndef damping(y):\n    return np.tanh(y) ** 3\n")
    spec = importlib.util.spec_from_file_location(f"{library.__name__}_damping", path)
    replacement = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(replacement)
    library.damping = replacement.damping
    np.testing.assert_allclose(g(Y0, A), central_gradient(user.integrate_damped, (Y0, A), 0),
                               rtol=1e-6, atol=1e-9)
    assert diskcache.key(user.integrate_damped, "reverse", "grad", 0, None) != key


def test_a_helper_called_as_a_modules_attribute_is_written_in_and_watched(modules):
    """mylib.rhs(y): written in, and watched as the path mylib.rhs: another function bound
    there later is what the next call differentiates."""
    library, user, _ = modules
    args = (Y0, 0.8, A)
    assert "rhs_forward" not in srcad.source(user.integrate_by_attribute, wrt=(0, 1, 2),
                                             args=args)
    g = srcad.grad(user.integrate_by_attribute)
    np.testing.assert_allclose(g(*args), central_gradient(user.integrate_by_attribute, args, 0),
                               rtol=1e-6, atol=1e-9)
    other = library.__file__.replace(".py", "_other.py")
    with open(other, "w", encoding="utf-8") as handle:
        handle.write("import numpy as np\n\n\ndef rhs(y, k, a):\n"
                     "    return a @ y - k * np.sin(y)\n")
    spec = importlib.util.spec_from_file_location(f"{library.__name__}_other", other)
    replacement = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(replacement)
    library.rhs = replacement.rhs
    np.testing.assert_allclose(g(*args), central_gradient(user.integrate_by_attribute, args, 0),
                               rtol=1e-6, atol=1e-9)


def test_the_disk_key_holds_the_imported_helpers_source(modules):
    """rhs edited in its file, and imported anew (what a new process sees): the same module
    and name, another text, another key."""
    library, user, _ = modules
    before = diskcache.key(user.integrate, "reverse", "grad", 0, None)
    by_attribute = diskcache.key(user.integrate_by_attribute, "reverse", "grad", 0, None)
    path = library.__file__
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text.replace("k * np.tanh(y)\n\n\ndef scaled",
                                  "k * np.sin(y)\n\n\ndef scaled"))
    spec = importlib.util.spec_from_file_location(library.__name__, path)
    edited = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(edited)
    user.rhs = edited.rhs
    assert (user.rhs.__module__, user.rhs.__qualname__) == (library.__name__, "rhs")
    assert diskcache.key(user.integrate, "reverse", "grad", 0, None) != before
    library.rhs = edited.rhs  # (read as mylib.rhs: the module's function, edited)
    assert diskcache.key(user.integrate_by_attribute, "reverse", "grad", 0, None) != (
        by_attribute)
