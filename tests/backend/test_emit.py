"""srcad.emit: ahead-of-time gradient modules that need only numpy.

The emitted modules are run in a separate, isolated Python (`-I -S`: no site packages, no
user paths, no current directory) that is given numpy's directory and the module's directory
only, with an import hook that refuses srcad: if the emitted code imported srcad, or relied on
anything srcad sets up at run time, it would fail there.
"""
import ast
import os
import subprocess
import sys

import numpy as np
import pytest

import srcad
import golden_functions as gf
from isolated import assert_same, run_isolated

def imported_modules(text):
    """Top-level names of every module the source imports, anywhere in it."""
    names = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add((node.module or "").split(".")[0])
    return names


# ---------------------------------------------------------------------------------------------

def test_emit_writes_the_generated_source_and_returns_the_path(tmp_path):
    path = tmp_path / "deeper" / "we_grad.py"
    returned = srcad.emit(gf.worked_example, str(path), wrt=(0, 1))
    assert returned == str(path)
    text = path.read_text()
    assert text == srcad.source(gf.worked_example, wrt=(0, 1))
    assert imported_modules(text) == {"numpy"}
    assert "srcad" not in imported_modules(text)
    assert str(os.path.dirname(gf.__file__)) not in text
    compile(text, str(path), "exec")


@pytest.mark.parametrize("func, options, args, kwargs", [
    (gf.worked_example, dict(wrt=(0, 1)), (2.0, 5.0), {}),
    (gf.mlp_layer_loss, dict(wrt=(0, 1, 2)), "mlp", {}),
    (gf.softmax_like, dict(), "softmax", {}),
    (gf.batchnorm, dict(), "batchnorm", {"eps": 1e-3}),
], ids=["worked_example", "mlp", "softmax", "batchnorm"])
def test_emitted_gradient_runs_without_srcad(func, options, args, kwargs, tmp_path, rng):
    if args == "mlp":
        args = (rng.normal(size=(5, 4)), rng.normal(size=(4, 3)), rng.normal(size=3))
    elif args == "softmax":
        args = (rng.normal(size=(4, 6)),)
    elif args == "batchnorm":
        args = (rng.normal(size=(16, 3)), rng.normal(size=(16, 3)))
    path = tmp_path / f"{func.__name__}_grad_emitted.py"
    srcad.emit(func, str(path), **options)
    text = path.read_text()
    assert imported_modules(text) == {"numpy"}
    name = f"{func.__name__}_grad"
    assert f"def {name}(" in text
    got = run_isolated(path, name, args, kwargs)
    want = srcad.grad(func, **options)(*args, **kwargs)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w, a in zip(got, want, [args[p] for p in np.atleast_1d(options.get("wrt", 0))]):
        assert g.shape == np.shape(a)
        assert_same(g, w)


def test_emitted_forward_mode_runs_without_srcad(tmp_path, rng):
    path = tmp_path / "softmax_jvp_emitted.py"
    srcad.emit(gf.softmax_like, str(path), mode="forward")
    text = path.read_text()
    assert imported_modules(text) == {"numpy"}
    x, dx = rng.normal(size=(3, 5)), rng.normal(size=(3, 5))
    (got,) = run_isolated(path, "softmax_like_jvp", (x,), {"dx": dx})
    assert_same(got, srcad.jvp(gf.softmax_like)(x, dx))


def test_emitted_value_and_grad(tmp_path):
    path = tmp_path / "we_value_and_grad.py"
    srcad.emit(gf.worked_example, str(path), wrt=(0, 1), kind="value_and_grad")
    value, g0, g1 = run_isolated(path, "worked_example_value_and_grad", (2.0, 5.0))
    assert_same(value, gf.worked_example(2.0, 5.0))
    assert abs(g0 - 5.5) <= 1e-12 and abs(g1 - (2.0 - np.cos(5.0))) <= 1e-12


def test_emitted_vjp(tmp_path, rng):
    path = tmp_path / "mlp_vjp.py"
    srcad.emit(gf.mlp_layer_loss, str(path), wrt=(1, 2), kind="vjp")
    text = path.read_text()
    fdef = [node for node in ast.parse(text).body if isinstance(node, ast.FunctionDef)][-1]
    assert fdef.name == "mlp_layer_loss_vjp"
    assert [a.arg for a in fdef.args.args] == ["x", "W", "b"]
    assert len(fdef.args.kwonlyargs) == 1  # the cotangent of the output
    cotangent = fdef.args.kwonlyargs[0].arg
    args = (rng.normal(size=(5, 4)), rng.normal(size=(4, 3)), rng.normal(size=3))
    gW, gb = run_isolated(path, fdef.name, args, {cotangent: 2.5})
    wW, wb = srcad.vjp(gf.mlp_layer_loss, wrt=(1, 2))(*args, 2.5)
    assert_same(gW, wW)
    assert_same(gb, wb)
    hW, hb = srcad.grad(gf.mlp_layer_loss, wrt=(1, 2))(*args)
    assert_same(gW, 2.5 * hW)
    assert_same(gb, 2.5 * hb)


GLOBALS_MODULE = '''
import numpy as np

W = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]])


def model_loss(x):
    return np.sum(np.tanh(x @ W) ** 2)
'''


@pytest.fixture
def globals_module(tmp_path, monkeypatch):
    name = f"emit_globals_case_{os.getpid()}"
    (tmp_path / f"{name}.py").write_text(GLOBALS_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    import importlib
    module = importlib.import_module(name)
    yield module
    sys.modules.pop(name, None)


def test_emitted_module_imports_the_user_globals_it_reads(globals_module, tmp_path, rng):
    path = tmp_path / "model_loss_grad_emitted.py"
    srcad.emit(globals_module.model_loss, str(path))
    text = path.read_text()
    tree = ast.parse(text)
    froms = [(node.module, [a.name for a in node.names]) for node in ast.walk(tree)
             if isinstance(node, ast.ImportFrom)]
    assert froms == [(globals_module.__name__, ["W"])], froms
    assert imported_modules(text) == {"numpy", globals_module.__name__}
    x = rng.normal(size=(6, 3))
    (got,) = run_isolated(path, "model_loss_grad", (x,))
    assert_same(got, srcad.grad(globals_module.model_loss)(x))
    h = np.tanh(x @ globals_module.W)
    assert_same(got, (2 * h * (1 - h ** 2)) @ globals_module.W.T, tol=1e-12)


def make_scaled(scale):
    def scaled(x):
        return np.sum(scale * x ** 2)
    return scaled


def test_emitting_a_closure_is_a_clear_error(tmp_path):
    path = tmp_path / "closure_grad.py"
    with pytest.raises(srcad.SrcadError) as info:
        srcad.emit(make_scaled(3.0), str(path))
    message = str(info.value)
    assert "scale" in message and "closure" in message
    assert f"{os.path.basename(__file__)}:" in message
    assert "what to do:" in message
    assert not path.exists()
    assert srcad.grad(make_scaled(3.0))(np.array([1.0]))[0] == 6.0  # fine in memory


def test_emitting_a_closure_points_at_the_function():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.emit(make_scaled(3.0), os.devnull)
    message = str(info.value)
    lines = message.splitlines()
    assert any(line.strip() == "def scaled(x):" for line in lines), message
    assert any(line.strip() == "^" for line in lines), message
    assert f":{make_scaled.__code__.co_firstlineno + 1}:5:" in lines[0]


SCRIPT = '''
import sys

import numpy as np

import srcad

W = np.array([1.0, -2.0, 3.0])


def loss(x):
    return np.sum(W * x ** 2)


if __name__ == "__main__":
    try:
        srcad.emit(loss, sys.argv[1])
    except srcad.SrcadError as err:
        print("SrcadError:", err)
'''


def test_emitting_from_a_script_run_as_main(tmp_path):
    script = tmp_path / "train_script.py"
    script.write_text(SCRIPT)
    out = tmp_path / "loss_grad_from_script.py"
    done = subprocess.run([sys.executable, str(script), str(out)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    if done.stdout.startswith("SrcadError:"):  # refusing clearly is acceptable too
        assert "__main__" in done.stdout or "script" in done.stdout
        return
    assert "from __main__ import" not in out.read_text()
    check = ("import numpy as np, loss_grad_from_script as m\n"
             "print(m.loss_grad(np.ones(3)).tolist())")
    used = subprocess.run([sys.executable, "-c", check], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert used.returncode == 0, used.stderr
    assert_same(eval(used.stdout), [2.0, -4.0, 6.0])


def test_only_helpers_the_code_calls_are_written_in():
    """A helper's name in a comment or a docstring (of the function or of another helper) does
    not bring that helper in; the helpers a called helper calls do."""
    from srcad.backend.emit import helpers_needed
    text = ('def f_grad(x, g):\n    """Uses no unbroadcast, no tie_mask."""\n'
            '    # selection_share of nothing\n    return safe_mul(g, x)\n')
    assert helpers_needed(text) == ["on_host", "safe_mul"]  # (safe_mul calls on_host)
    assert "tie_mask" not in helpers_needed("def f(g, x):\n    return unreduce_extremum(g, x, x)\n")
    calls = "def f(g, w, x):\n    return selection_share(g, w, tie_mask(x, 0.0))\n"
    assert set(helpers_needed(calls)) == {"tie_mask", "selection_share", "on_host"}


@pytest.mark.parametrize("a, b, same", [
    ("y = a - (b - c)", "y = a - b - c", False),  # precedence: what a wrong text would read as
    ("y = a - (b - c)", "y = a - (b - c)", True),
    ("y = f(a, b)", "y = f(a)", False),  # a list of another length
    ("y = float('nan') + 1.0", "y = float('nan') + 1.0", True),
    ("y = [a, b]", "(y) = [a, b]", True),  # contexts and parentheses aside
    ("y = 1", "y = 1.0", False),  # (1 == 1.0, but another type)
])
def test_same_tree_compares_the_programs_not_the_texts(a, b, same):
    from srcad.backend.emit import _same_tree
    assert _same_tree(ast.parse(a), ast.parse(b)) is same
    nan = ast.parse("y = x")
    nan.body[0].value = ast.Constant(value=float("nan"))
    assert _same_tree(nan, ast.parse("y = x")) is False
