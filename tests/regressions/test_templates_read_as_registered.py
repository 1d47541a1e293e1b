"""A template is parsed when it is first instantiated (not at import, for import speed), from
the text of its file. A file changed after its module was imported (srcad upgraded in place
under a running process, a module of the user's templates edited and not reloaded) gave the
text at the function's old line: another function's. Here that is another template, whose
derivative of 5 was taken for the template's 3, with no error. The text is now the file's as it
was when the template was registered, used only if it compiles to the function's code; a text
that does not is a SrcadError."""
import importlib.util
import linecache
import os

import numpy as np
import pytest

import srcad
from srcad.backend import emit
from srcad.backend.emit import helper_source
from srcad.rules.registry import REGISTRY

HEADER = "import srcad\nfrom srcad import d\n"


def _templates(name, factor, of):
    """An adjoint and a tangent template of `of`, each scaling by factor."""
    return (f"\n\n@srcad.adjoint({of})\ndef {name}_adjoint(y, x):\n    d[x] = d[y] * {factor}\n"
            f"\n\n@srcad.tangent({of})\ndef {name}_tangent(y, x):\n    d[y] = d[x] * {factor}\n")


TEMPLATES = HEADER + "\n\ndef triple(x):\n    return 3.0 * x\n" + _templates("triple", 3.0,
                                                                              "triple")

# the same file, edited: four lines more at the top, so the templates' old first lines hold
# other templates (a quintuple's), which parse and instantiate without complaint
EDITED = HEADER + _templates("quintuple", 5.0, "print").replace(
    "@srcad.adjoint(print)\n", "").replace("@srcad.tangent(print)\n", "") + TEMPLATES[
    len(HEADER):]


@pytest.fixture
def imported(tmp_path):
    """imported(name) -> (module, path): TEMPLATES written to a new file and imported; its
    templates are forgotten after the test (other tests count the registered operations)."""
    modules = []

    def load(name):
        path = tmp_path / f"{name}.py"
        path.write_text(TEMPLATES)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        modules.append(module)
        return module, path
    yield load
    for module in modules:
        REGISTRY.forget(module.triple)


def _edit(path):
    path.write_text(EDITED)
    os.utime(path, (os.path.getmtime(path) + 5,) * 2)  # (a later mtime: linecache rereads it)
    linecache.checkcache(str(path))


def test_a_template_file_edited_after_import_keeps_the_templates_registered(imported):
    module, path = imported("templates_edited_later")
    _edit(path)
    assert "quintuple" in "".join(linecache.getlines(str(path)))

    def f(x):
        return np.sum(module.triple(x))

    x = np.array([0.5, -1.0])
    np.testing.assert_allclose(srcad.grad(f)(x), [3.0, 3.0])
    np.testing.assert_allclose(srcad.jvp(f)(x, np.ones(2)), 6.0)


def test_a_template_whose_text_is_not_its_code_is_refused(imported):
    module, path = imported("templates_edited_unread")
    _edit(path)
    template = REGISTRY.adjoint_of(module.triple)
    template.lines = None  # (as if its file had not been read when it was registered)

    def f(x):
        return np.sum(module.triple(x))

    with pytest.raises(srcad.SrcadError, match="changed after it was imported"):
        srcad.grad(f)(np.array([0.5, -1.0]))


HELPERS_TEXT = '''import numpy as np
import srcad


@srcad.runtime.helper(linear=True)
def halved_for_test(g):
    return g * 0.5
'''


def test_a_helper_file_edited_after_import_writes_the_helper_registered(tmp_path):
    """A runtime helper's source is written into every generated module that calls it
    (backend.emit.helper_source): taken from its file as it was when the helper was registered, and
    refused (RuntimeError) where neither that text nor the file's present one is its code."""
    path = tmp_path / "helpers_edited_later.py"
    path.write_text(HELPERS_TEXT)
    spec = importlib.util.spec_from_file_location("helpers_edited_later", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        path.write_text(HELPERS_TEXT.replace("import srcad\n", "import srcad\n\n\ndef other(g):"
                                             "\n    return g * 4.0\n").replace("0.5", "0.25"))
        os.utime(path, (os.path.getmtime(path) + 5,) * 2)
        linecache.checkcache(str(path))
        text = helper_source("halved_for_test")
        assert text.startswith("def halved_for_test(g):") and "g * 0.5" in text
        emit._SOURCES.pop("halved_for_test")
        srcad.runtime.LINES.pop("halved_for_test")
        with pytest.raises(RuntimeError, match="changed after it was imported"):
            helper_source("halved_for_test")
    finally:
        srcad.runtime.HELPERS.pop("halved_for_test", None)
        srcad.runtime.LINEAR_HELPERS.discard("halved_for_test")
        emit._SOURCES.pop("halved_for_test", None)
        srcad.runtime.LINES.pop("halved_for_test", None)
