"""srcad reads a function's source from its file. A module edited after it was imported (a
notebook without autoreload) was differentiated as the new text, or as another function where
lines moved: the derivative of other code. The text is compiled again and compared with the
code Python runs; if they differ, srcad refuses."""
import importlib.util
import sys
import types

import numpy as np
import pytest

import srcad


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


ORIGINAL = "import numpy as np\n\n\ndef f(x):\n    return np.sum(x * x) * 2.0\n"


@pytest.mark.parametrize("edited", [
    ORIGINAL.replace("2.0", "3.0"),  # a constant changed
    ORIGINAL.replace("x * x", "x + x"),  # an operator changed
    "import numpy as np\n\n\ndef g(x):\n    return np.sum(np.sin(x))\n\n\n" + ORIGINAL[20:],
])
def test_an_edited_module_is_refused(tmp_path, edited):
    path = tmp_path / "stale_module.py"
    path.write_text(ORIGINAL)
    module = load(str(path), f"srcad_stale_{abs(hash(edited))}")
    x = np.array([0.5, -1.0])
    np.testing.assert_allclose(srcad.grad(module.f, verify=False)(x), 4 * x)
    path.write_text(edited)
    # the same function object, new shapes: a new build, from the frontend's work kept from
    # the first (parsed when the text was the code that runs), so still f's derivative
    np.testing.assert_allclose(srcad.grad(module.f, verify=False)(np.ones(3)), 4 * np.ones(3))
    again = types.FunctionType(module.f.__code__, module.f.__globals__, "f")  # (nothing kept)
    with pytest.raises(srcad.SrcadError, match="is not the code Python is running"):
        srcad.grad(again, verify=False)(np.ones(4))  # the file read again: refused


def closure_maker(c):
    def inner(x):
        return np.sum(x * c)
    return inner


class Holder:
    def method(self, x):
        return np.sum(x * x) + super().__hash__() * 0.0


def test_current_sources_are_accepted():
    x = np.array([0.5, -1.0])
    np.testing.assert_allclose(srcad.grad(closure_maker(np.array([2.0, 3.0])))(x), [2.0, 3.0])
    np.testing.assert_allclose(srcad.grad(lambda v: np.sum(v * v))(x), 2 * x)


def test_methods_of_imported_modules_compile_to_the_same_bytes(tmp_path, monkeypatch):
    # the compiler calls np.sum with LOAD_ATTR where np is imported in the module and with
    # LOAD_METHOD where it is not (the function's text alone): declared imported, the text
    # compiles to the same bytes, compared at once (not operation by operation through dis)
    from srcad.syntax import source as parse  # (where the texts are compared)
    path = tmp_path / "imported_module.py"
    path.write_text(ORIGINAL + "\n\nalias = np\n\n\ndef g(x):\n    return alias.sum(x * x)\n")
    module = load(str(path), "srcad_imported_module")
    compared = []
    operations = parse._operations
    monkeypatch.setattr(parse, "_operations", lambda code: compared.append(code.co_name) or (
        operations(code)))
    np.testing.assert_allclose(srcad.grad(module.f, verify=False)(np.ones(2)), 4 * np.ones(2))
    assert compared == []
    # a module bound by an assignment (LOAD_METHOD in the module) is compared by operations
    np.testing.assert_allclose(srcad.grad(module.g, verify=False)(np.ones(2)), 2 * np.ones(2))
    assert "g" in compared
