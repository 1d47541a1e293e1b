"""Emitted modules import and run wherever the function was written: a notebook cell (IPython
or a Jupyter kernel: module __main__, the source in a pseudo-file), a script run as __main__
(also one whose name is not a module name, `my-train.py`), a module with nested defs, lambdas,
helpers, constants and defaults. Each emitted module is run in an isolated Python that has
numpy and the module's folder only (isolated.run_isolated) and must give srcad.grad's numbers.

What an emitted module needs of a module it cannot import is written into it (numbers, strings,
arrays and containers of them as literals; the user's plain functions as their source) or
refused with a SrcadError saying what to do (api/modules.py).
"""
import ast
import builtins
import importlib
import json
import linecache
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import srcad
from srcad.backend.literals import literal, NotLiteral
from srcad.runtime import HELPERS
from isolated import assert_same, run_isolated

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tests/
REPO = os.path.dirname(HERE)

_CELLS = [0]


def notebook_cell(source):
    """Run source as a Jupyter kernel runs a cell: compiled under a file name that does not
    exist (/tmp/ipykernel_PID/NUMBER.py), its lines served by linecache, in a namespace whose
    __name__ is __main__ that is not sys.modules['__main__']."""
    _CELLS[0] += 1
    filename = f"/tmp/ipykernel_{os.getpid()}/31704363{_CELLS[0]}.py"
    source = textwrap.dedent(source)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 (the test's own cell)
    return namespace


def imported_modules(text):
    """Top-level names of the modules the module imports at its top (a runtime helper may
    import a standard module inside itself)."""
    names = set()
    for node in ast.parse(text).body:
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add((node.module or "").split(".")[0])
    return names


def top_level_assignments(text):
    return {node.targets[0].id: node for node in ast.parse(text).body
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)}


def function_names(text):
    return [node.name for node in ast.parse(text).body if isinstance(node, ast.FunctionDef)]


def emit_and_run(func, tmp_path, stem, args, **options):
    path = tmp_path / f"{stem}.py"
    srcad.emit(func, str(path), **options)
    text = path.read_text()
    name = next(n for n in function_names(text) if n not in HELPERS)  # (the derivative)
    got = run_isolated(path, name, args)
    return text, got


# ---------------------------------------------------------------------------------------------
# notebooks: module __main__, the source in a pseudo-file

NOTEBOOK = '''
import numpy as np

SCALE = 2.5
N = 3
W = np.array([1.0, -2.0, 3.0])
W32 = np.array([0.1, 0.2, 0.3], dtype=np.float32)
CFG = {"weight": 1.5, "sizes": (1, 2.0)}


def make_mask(n, *unused):  # (*: a call srcad keeps, not written in: frontend/inline.py)
    return np.arange(n) % 2 == 0


def helper(z):
    return np.tanh(z) * SCALE


sq = lambda t: t * t


def loss(x, w=W, s=SCALE):
    def inner(u, k=N):
        return u * w * k
    m = make_mask(N)
    return np.sum(helper(inner(x)) ** 2 * m) * s + CFG["weight"] * np.sum(sq(x) * W32)
'''


def test_notebook_cell_globals_are_written_into_the_module_not_imported(tmp_path):
    """The mechanism: a function of a notebook cell has module __main__ and a pseudo-file
    (`/tmp/ipykernel_4242/3170436394.py`, `<ipython-input-1-ab>`); emit imported its globals
    from a module named after that file (import_module('3170436394')), which does not exist:
    the emitted module failed at import. Its values are written in now."""
    cell = notebook_cell(NOTEBOOK)
    x = np.array([0.3, -0.7, 1.1])
    text, (got,) = emit_and_run(cell["loss"], tmp_path, "notebook_loss_grad", (x,))
    assert imported_modules(text) == {"numpy"}
    assert "import_module" not in text and "ipykernel" not in text.split('"""', 2)[2].split(
        "# the values")[0]
    values = top_level_assignments(text)
    assert {"SCALE", "N", "W32", "CFG"} <= set(values)
    assert "make_mask" in function_names(text)  # an inactive helper call: its source
    assert "helper" not in function_names(text) and "helper" not in values  # (only its
    # derivative is called)
    assert_same(got, srcad.grad(cell["loss"])(x))


def test_notebook_default_arguments_computed_at_the_def(tmp_path):
    """The mechanism: `def loss(x, w=W)` is generated as `def loss_grad(x, w=None)` (the
    decorator path sets the real defaults on the compiled function); the emitted module left
    None there, so loss_grad(x) computed with None. The defaults are set after the def now."""
    cell = notebook_cell('''
        import numpy as np
        W = np.array([1.0, -2.0, 3.0])

        def loss(x, w=W, s=2.0):
            return np.sum(w * x ** 2) * s
    ''')
    x = np.array([0.5, 1.5, -2.0])
    text, (got,) = emit_and_run(cell["loss"], tmp_path, "notebook_defaults_grad", (x,))
    assert "loss_grad.__defaults__ = (" in text
    assert_same(got, srcad.grad(cell["loss"])(x))
    assert_same(got, 4.0 * cell["W"] * x)


def test_notebook_lambda_is_differentiated_and_emitted(tmp_path):
    cell = notebook_cell('''
        import numpy as np
        C = 0.5
        loss = lambda x: np.sum(np.sin(x) * C)
    ''')
    x = np.array([0.1, 0.2])
    text, (got,) = emit_and_run(cell["loss"], tmp_path, "notebook_lambda_grad", (x,))
    assert top_level_assignments(text)["C"].value.value == 0.5
    assert_same(got, 0.5 * np.cos(x))


def test_notebook_carried_values_are_exact(tmp_path):
    """Every carried value reads back as the same bits (floats by repr of their float64,
    float32 arrays in float32, nan and inf by name), strings whatever they hold."""
    cell = notebook_cell('''
        import numpy as np
        TINY = 5e-324
        BIG = np.float32(3.4028235e38)
        EDGES = np.array([[0.1, -0.0], [np.inf, -1e-300]], dtype=np.float32)
        IDS = np.arange(6, dtype=np.int16).reshape(2, 3)
        NAME = 'a "quoted" <script>alert(1)</script> & \\n name \\u2028 end'
        NOTHING = None

        def loss(x):
            scale = TINY * 0 + float(BIG) / float(BIG) + len(NAME) * 0
            return np.sum(x * EDGES[0, 0] * scale) + np.sum(IDS) * 0.0 + (NOTHING is None)
    ''')
    x = np.array([1.0, 2.0])
    text, (got,) = emit_and_run(cell["loss"], tmp_path, "notebook_exact_grad", (x,))
    namespace = {"np": np}
    values = top_level_assignments(text)
    for name in ("TINY", "BIG", "EDGES", "IDS", "NAME", "NOTHING"):
        value = eval(compile(ast.Expression(values[name].value), "<test>", "eval"), namespace)
        want = cell[name]
        if isinstance(want, np.ndarray):
            assert value.dtype == want.dtype and value.shape == want.shape
            assert np.array_equal(value.view(np.uint8), want.view(np.uint8))
        else:
            assert type(value) is type(want) and (value == want or value is want)
    assert "<script>alert(1)</script>" not in text.split("NAME = ")[0]
    assert_same(got, srcad.grad(cell["loss"])(x))


def test_source_of_a_notebook_function_names_what_emit_writes():
    """srcad.source writes a comment naming the globals emit would write (no values: the
    same text for the same function, however big an array is)."""
    cell = notebook_cell('''
        import numpy as np
        W = np.arange(3.0)

        def loss(x):
            return np.sum(W * x)
    ''')
    text = srcad.source(cell["loss"])
    assert "import_module" not in text
    assert "W = " not in text
    comments = [line for line in text.splitlines() if line.startswith("# reads W from")]
    assert comments and "__main__" in comments[0]
    cell["W"] = np.arange(4.0)  # a new value: the same text
    assert srcad.source(cell["loss"]) == text


def test_notebook_values_srcad_cannot_write_are_refused_with_what_to_do(tmp_path):
    cell = notebook_cell('''
        import numpy as np
        rng = np.random.default_rng(0)
        HUGE = np.zeros(200_001)

        class Model:
            def __init__(self):
                self.w = 2.0

        model = Model()

        def uses_rng(x):
            return np.sum(x * rng.normal(size=x.shape))

        def uses_huge(x):
            return np.sum(x * HUGE[: x.size])

        def uses_object(x):
            return np.sum(x * model.w)
    ''')
    for name, mentioned in [("uses_rng", "Generator"), ("uses_huge", "too many"),
                            ("uses_object", "Model")]:
        path = tmp_path / f"{name}_grad.py"
        with pytest.raises(srcad.SrcadError) as info:
            srcad.emit(cell[name], str(path))
        message = str(info.value)
        assert mentioned in message and "what to do:" in message, message
        assert not path.exists()


def test_notebook_helper_that_is_a_closure_or_decorated_is_refused(tmp_path):
    cell = notebook_cell('''
        import functools
        import numpy as np

        def make_offset(c):
            def offset(n):
                return np.arange(n) + c
            return offset

        offset = make_offset(1.0)

        def logged(f):
            @functools.wraps(f)
            def wrapper(*args):
                return f(*args)
            return wrapper

        @logged
        def ramp(n):
            return np.arange(n)

        def loss_offset(x):
            return np.sum(x * offset(x.size))

        def loss_ramp(x):
            return np.sum(x * ramp(x.size))
    ''')
    x = np.ones(3)
    assert_same(srcad.grad(cell["loss_offset"])(x), np.arange(3) + 1.0)
    for name, mentioned in [("loss_offset", "closure"), ("loss_ramp", "ramp")]:
        with pytest.raises(srcad.SrcadError) as info:
            srcad.emit(cell[name], str(tmp_path / f"{name}.py"))
        assert mentioned in str(info.value) and "what to do:" in str(info.value)


IPYTHON_SESSION = '''
import json, sys
sys.path.insert(0, {repo!r})
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
cells = [
    "import numpy as np\\nimport srcad\\nSCALE = 2.5\\nW = np.array([1.0, -2.0, 3.0])",
    "def helper(z):\\n    return np.tanh(z) * SCALE",
    "def loss(x):\\n    def inner(u):\\n        return u * W\\n    return np.sum(helper(inner(x)) ** 2)",
    "srcad.emit(loss, {out!r})\\nresult = srcad.grad(loss)(np.array([0.3, -0.7, 1.1])).tolist()",
]
for cell in cells:
    done = shell.run_cell(cell)
    if not done.success:
        raise SystemExit(f"cell failed: {{done.error_in_exec or done.error_before_exec!r}}")
json.dump(shell.user_ns["result"], sys.stdout)
'''


def test_ipython_cells_emit_a_module_that_runs(tmp_path):
    """The same through IPython itself (cells compiled as <ipython-input-N-hash>), in a Python
    of its own."""
    pytest.importorskip("IPython", reason="IPython is an optional extra (a real notebook cell)")
    out = tmp_path / "ipython_loss_grad.py"
    script = tmp_path / "session.py"
    script.write_text(IPYTHON_SESSION.format(repo=REPO, out=str(out)))
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr + done.stdout
    want = json.loads(done.stdout.strip().splitlines()[-1])
    text = out.read_text()
    assert imported_modules(text) == {"numpy"}
    assert "<ipython-input-" in text  # (named in the header, as a comment and a docstring)
    (got,) = run_isolated(out, "loss_grad", (np.array([0.3, -0.7, 1.1]),))
    assert_same(got, want)


# ---------------------------------------------------------------------------------------------
# scripts run as __main__

SCRIPT = '''
import sys

import numpy as np

import srcad

W = np.array([1.0, -2.0, 3.0])
OFFSET = 0.25


def inner(z):
    return z * W + OFFSET


def loss(x):
    return np.sum(np.sin(inner(x)))


print("training ran", file=sys.stderr)
srcad.emit(loss, sys.argv[1])
print(srcad.grad(loss)(np.array([0.5, 1.0, -1.0])).tolist())
'''


@pytest.mark.parametrize("script_name", ["my-train.py", "train_model.py"])
def test_script_run_as_main_emits_a_module_that_does_not_import_the_script(tmp_path,
                                                                           script_name):
    """The mechanism: a script's functions have module __main__; emit imported their globals
    from a module named after the file (import_module('my-train')): not found where the emitted
    module is used, and where it is found, importing it runs the script again (training, and
    here the emit itself). The values are written in now; the script is not imported."""
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / script_name).write_text(SCRIPT)
    out = tmp_path / "emitted" / "script_loss_grad.py"
    done = subprocess.run([sys.executable, str(scripts / script_name), str(out)], cwd=scripts,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("training ran") == 1
    want = json.loads(done.stdout.strip().splitlines()[-1])
    text = out.read_text()
    assert imported_modules(text) == {"numpy"}
    stem = script_name[:-3]
    assert f"import {stem}" not in text and f"'{stem}'" not in text
    (got,) = run_isolated(out, "loss_grad", (np.array([0.5, 1.0, -1.0]),))
    assert_same(got, want)


# ---------------------------------------------------------------------------------------------
# modules: nested defs, lambdas, helpers, defaults

MODULE = '''
import numpy as np

W = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]])
SCALE = 1.5
N = 2


def helper(z):
    return np.tanh(z) * SCALE


def count_ones(n):
    return np.ones(n)


def nested(x):
    def inner(u):
        return u @ W
    return np.sum(helper(inner(x)) ** 2)


def lambdas(x):
    sq = lambda t: t * t
    return np.sum(sq(x @ W))


def with_defaults(x, w=W, s=SCALE, *, k=N, b=np.array([0.5, -0.5])):
    return np.sum((x @ w + b) ** 2) * s * k


def calls_inactive_helper(x):
    return np.sum((x @ W) * count_ones(N))


def passes_a_nested_function(x):
    def sq(t):
        return t * t
    return np.sum(apply(sq, x @ W))


def apply(f, z):
    return f(z)
'''


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    name = f"emit_modules_case_{os.getpid()}"
    (tmp_path / f"{name}.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    module = importlib.import_module(name)
    yield module
    sys.modules.pop(name, None)


def froms_of(text):
    return {(node.module, alias.name) for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.ImportFrom) for alias in node.names}


def test_nested_def_reading_a_module_global_imports_it_from_the_module(user_module, tmp_path,
                                                                       rng):
    """The mechanism: a nested def is lifted into a function compiled from srcad's cache
    directory, with the module's globals; emit named the module to import its globals from
    after the lifted function's file (`from lifted_nested_inner_1a2b import W`). Globals are
    imported from the module whose namespace the function has."""
    x = rng.normal(size=(4, 3))
    text, (got,) = emit_and_run(user_module.nested, tmp_path, "nested_grad", (x,))
    assert froms_of(text) == {(user_module.__name__, "SCALE"), (user_module.__name__, "W")}
    assert "lifted" not in " ".join(m for m, _ in froms_of(text))
    assert_same(got, srcad.grad(user_module.nested)(x))


def test_helpers_whose_derivative_is_called_are_not_imported(user_module, tmp_path):
    """The mechanism: every global the function mentions was imported, also a helper whose
    derivative the module has (importing a script to get a function nobody calls). Only the
    names the generated code reads are bound now."""
    text = srcad.source(user_module.nested)
    assert (user_module.__name__, "helper") not in froms_of(text)


def test_nested_lambda_and_a_nested_function_passed_as_a_value(user_module, tmp_path, rng):
    """A nested function passed to a helper (apply(sq, z)) is read by name in the generated
    code where the helpers stay calls; the emitted module had no such name (NameError at the
    call). Its source is written in. (Written into the caller, the helper and the nested
    function are gone: the numbers are the same.)"""
    x = rng.normal(size=(4, 3))
    _, (got,) = emit_and_run(user_module.lambdas, tmp_path, "lambdas_grad", (x,))
    assert_same(got, srcad.grad(user_module.lambdas)(x))
    text, (got,) = emit_and_run(user_module.passes_a_nested_function, tmp_path,
                                "passes_nested_grad", (x,), disable=("inline",))
    assert "sq" in function_names(text)
    assert_same(got, srcad.grad(user_module.passes_a_nested_function)(x))
    text, (got,) = emit_and_run(user_module.passes_a_nested_function, tmp_path,
                                "passes_nested_inlined_grad", (x,))
    assert "sq" not in function_names(text) and "apply" not in function_names(text)
    assert_same(got, srcad.grad(user_module.passes_a_nested_function)(x))


def test_module_defaults_computed_at_the_def(user_module, tmp_path, rng):
    x = rng.normal(size=(4, 3))
    text, (got,) = emit_and_run(user_module.with_defaults, tmp_path, "defaults_grad", (x,))
    assert "with_defaults_grad.__defaults__ = (W, 1.5)" in text
    assert "with_defaults_grad.__kwdefaults__ = {**with_defaults_grad.__kwdefaults__, 'b': " \
        "np.array([0.5, -0.5], dtype='float64')}" in text
    assert_same(got, srcad.grad(user_module.with_defaults)(x))


def test_inactive_helper_of_a_module_is_imported(user_module, tmp_path, rng):
    x = rng.normal(size=(4, 3))
    text, (got,) = emit_and_run(user_module.calls_inactive_helper, tmp_path, "inactive_grad",
                                (x,), disable="inline")  # (kept as a call, not written in)
    assert (user_module.__name__, "count_ones") in froms_of(text)
    assert_same(got, srcad.grad(user_module.calls_inactive_helper)(x))


def make_scaled(scale):
    def scaled(x):
        return scale * x ** 2
    return scaled


closure_helper = make_scaled(3.0)


def calls_a_closure(x):
    return np.sum(closure_helper(x))


def test_a_callee_that_is_a_closure_is_refused(tmp_path):
    """The mechanism: emit refused a closure only as the function itself; a closure called by
    it had its derivative written reading the closure variable (`scale`), which the module does
    not have: a NameError at the first call."""
    path = tmp_path / "closure_callee.py"
    with pytest.raises(srcad.SrcadError) as info:
        srcad.emit(calls_a_closure, str(path))
    message = str(info.value)
    assert "scale" in message and "closure" in message and "what to do:" in message
    assert not path.exists()


def test_two_globals_of_one_name_from_two_modules_are_refused(tmp_path):
    """Two functions of two notebooks reading their own W: one module binds one W."""
    first = notebook_cell('''
        import numpy as np
        W = np.ones(2)

        def part(x):
            return np.sum(W * x)
    ''')
    second = notebook_cell('''
        import numpy as np
        W = np.zeros(2)

        def total(x):
            return np.sum(W * x) + part(x)
    ''')
    second["part"] = first["part"]
    with pytest.raises(srcad.SrcadError) as info:
        srcad.emit(second["total"], str(tmp_path / "two.py"))
    assert "two values named W" in str(info.value)
    assert not (tmp_path / "two.py").exists()
    text = srcad.source(second["total"])  # (reading it still works, and says so)
    assert "# two values named W" in text and "srcad.emit refuses" in text
    assert np.allclose(srcad.grad(second["total"])(np.array([1.0, 2.0])), [1.0, 1.0])


# ---------------------------------------------------------------------------------------------
# literals

@pytest.mark.parametrize("value", [
    0.1, -0.0, float("inf"), 5e-324, 2 ** 70, True, None, "x'\"\\\n\u2028<&>", b"\x00'",
    1 + 2j, (1.0,), [1, (2, 3)], {"a": [1.0], 2: None},
    np.float32(0.1), np.int8(-3), np.bool_(True),
    np.array(2.5), np.zeros((0, 3)), np.arange(7, dtype=np.uint16),
    np.array([[np.nan, -np.inf], [1e-310, 3.0]]), np.ones(3, dtype=">f4"),
])
def test_literals_read_back_as_the_same_value(value):
    text = literal(value)
    back = eval(text, {"np": np})  # noqa: S307 (srcad's own literal)
    assert type(back) is type(value)
    if isinstance(value, np.ndarray):
        assert back.dtype == value.dtype and back.shape == value.shape
        assert np.array_equal(back, value, equal_nan=True)
    elif isinstance(value, float) and value != value:
        assert back != back
    else:
        assert back == value


@pytest.mark.parametrize("value, said", [
    (object(), "an object"), (np.array(["a"]), "dtype"), (np.ones(3, dtype=object), "dtype"),
    (np.zeros(100_001), "too many"), ({"a": {1, 2}}, "a set"),
])
def test_literals_refuse_what_is_not_plain_data(value, said):
    with pytest.raises(NotLiteral) as info:
        literal(value)
    assert said in str(info.value)


def test_cli_emit_of_a_script_whose_name_is_not_a_module_name(tmp_path, monkeypatch):
    """`srcad emit my-train.py:loss` loads the file as a module named `my-train`; emit wrote
    `import_module('my-train')`, found only from the script's folder and running the script
    again there. Its values are written in."""
    from srcad import cli
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    script = tmp_path / "my-train.py"
    script.write_text(textwrap.dedent('''
        import numpy as np

        W = np.array([1.0, -2.0, 3.0])


        def loss(x):
            return np.sum(np.cos(x * W))


        if __name__ == "__main__":
            raise SystemExit("training")
    '''))
    out = tmp_path / "emitted" / "cli_loss_grad.py"
    try:
        assert cli.main(["emit", f"{script}:loss", "-o", str(out)]) == 0
        want = srcad.grad(sys.modules["my-train"].loss)(np.array([0.1, 0.2, 0.3]))
    finally:
        sys.modules.pop("my-train", None)
    text = out.read_text()
    assert imported_modules(text) == {"numpy"} and "import_module" not in text
    assert not [line for line in text.splitlines() if "my-train" in line and "import" in line]
    (got,) = run_isolated(out, "loss_grad", (np.array([0.1, 0.2, 0.3]),))
    assert_same(got, want)


def test_a_global_named_like_a_runtime_helper_is_refused(tmp_path):
    """The generated module defines srcad's runtime helpers by their names (unbroadcast, ...);
    a user global of that name read by the code would be one name for two functions."""
    cell = notebook_cell('''
        import numpy as np

        def unbroadcast(n, m):
            return np.ones(n) * m

        def loss(x):
            return np.sum(x * unbroadcast(3, 2.0))
    ''')
    with pytest.raises(srcad.SrcadError) as info:
        srcad.emit(cell["loss"], str(tmp_path / "shadowed.py"))
    assert "rename unbroadcast" in str(info.value)
    assert not (tmp_path / "shadowed.py").exists()
