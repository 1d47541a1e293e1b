"""A generated module's runtime helpers are not compiled again for every build (backend/files.py
runnable_text): their definitions are left out of the text compiled, line for line, and the
runtime's own functions are bound in their place. The lines after them keep their numbers
(tracebacks point at the generated line), a definition that is not the helper's text is compiled
as written, and the derivative calls the runtime's helper objects."""
import linecache
import traceback

import numpy as np
import pytest

import srcad
from srcad import runtime
from srcad.backend.emit import helper_source
from srcad.backend.files import compile_module, runnable_text


def pieces(x):
    return np.sum(np.log(np.diag(np.outer(x, x) + np.eye(3))))


def test_helper_definitions_are_blank_lines_in_the_text_compiled():
    source = srcad.source(pieces)
    text, helpers = runnable_text(source)
    assert helpers and set(helpers) <= set(runtime.HELPERS)
    assert len(text.splitlines()) == len(source.splitlines())
    for name in helpers:
        assert f"\ndef {name}(" in source and f"\ndef {name}(" not in text
    kept = [a for a, b in zip(source.splitlines(), text.splitlines()) if a == b]
    assert [line for line in text.splitlines() if line not in kept] == []
    assert "def pieces_grad(x):" in text


def test_a_definition_that_is_not_the_helpers_text_is_compiled_as_written():
    name = "unbroadcast"
    changed = helper_source(name).replace('"""', '"""(another version) ', 1)
    source = f"import numpy as np\n\n\n{changed}\n\n\ndef f(g, x):\n    return {name}(g, x)\n"
    text, helpers = runnable_text(source)
    assert text == source and helpers == ()
    source = f"import numpy as np\n\n\n{helper_source(name)}\n\n\ndef f(g, x):\n    return 1\n"
    text, helpers = runnable_text(source)
    assert helpers == (name,) and f"def {name}(" not in text


def test_the_derivative_calls_the_runtimes_helpers_and_computes_the_same():
    x = np.array([0.3, -1.2, 2.0])
    grad = srcad.grad(pieces)
    got = grad(x)
    path, code, helpers = compile_module(srcad.source(pieces), "srcad_test.pieces")
    namespace = {"__name__": "srcad_test"}
    exec(code, namespace)  # noqa: S102 - srcad's own generated text
    assert not set(helpers) & set(namespace)  # (not defined by the module: bound by the caller)
    namespace.update({h: runtime.HELPERS[h] for h in helpers})
    np.testing.assert_array_equal(namespace["pieces_grad"](x), got)
    expected = 2 * x / (1 + x * x)
    np.testing.assert_allclose(got, expected, rtol=1e-13)


def broken(x):
    y = np.diag(np.outer(x, x))
    return np.sum(y * undefined_name)  # noqa: F821 - the error the traceback points at


def test_a_traceback_points_at_the_generated_line_after_the_helpers():
    assert runnable_text(srcad.source(broken))[1]  # (helpers before the function)
    grad = srcad.grad(broken)
    with pytest.raises(NameError) as info:
        grad(np.array([1.0, 2.0]))
    frame = [f for f in traceback.extract_tb(info.tb) if f.name.startswith("broken_grad")]
    assert frame, traceback.format_tb(info.tb)
    line = linecache.getline(frame[-1].filename, frame[-1].lineno)
    assert "undefined_name" in line, line

