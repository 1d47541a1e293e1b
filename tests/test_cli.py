"""The `srcad` command line (srcad/cli.py): show, emit, coverage, and its exit codes.

A few tests run the real console script and `python -m srcad` in a subprocess; the rest call
srcad.cli.main in-process (faster) and read what it printed.
"""
import importlib.util
import os
import subprocess
import sys

import pytest

import srcad
from srcad import cli

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
QUICKSTART = os.path.join(REPO, "examples", "quickstart.py")
CONSOLE_SCRIPT = os.path.join(os.path.dirname(sys.executable), "srcad")

UNSUPPORTED = '''import numpy as np


def f(x):
    y = np.sin(x)
    with open("log.txt") as handle:
        y = y * 2.0
    return np.sum(y)
'''


def run(*argv, cwd=REPO, module=False):
    if module or not os.path.exists(CONSOLE_SCRIPT):
        command = [sys.executable, "-m", "srcad", *argv]
    else:
        command = [CONSOLE_SCRIPT, *argv]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)


def quickstart_module():
    spec = importlib.util.spec_from_file_location("quickstart_for_test_cli", QUICKSTART)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def keep_sys_path(monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))


# ---------------------------------------------------------------------------------------------
# subprocess: the installed console script and python -m srcad

def test_console_script_is_installed():
    assert os.path.exists(CONSOLE_SCRIPT), "pip install -e . should install the srcad script"


def test_show_prints_the_generated_source():
    done = run("show", "examples/quickstart.py:f", "--wrt", "0,1")
    assert done.returncode == 0, done.stderr
    assert done.stdout == srcad.source(quickstart_module().f, wrt=(0, 1))
    assert "def f_grad(x1, x2):" in done.stdout
    assert done.stderr == ""


def test_python_dash_m_srcad_forward_mode():
    done = run("show", "examples/quickstart.py:f", "--mode", "forward", module=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == srcad.source(quickstart_module().f, mode="forward")
    assert "def f_jvp(x1, x2, *, dx1):" in done.stdout


def test_emit_writes_a_module(tmp_path):
    out = tmp_path / "f_grad.py"
    done = run("emit", "examples/quickstart.py:f", "--wrt", "0,1", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_text() == srcad.source(quickstart_module().f, wrt=(0, 1))
    assert str(out) in done.stdout
    namespace = {}
    exec(compile(out.read_text(), str(out), "exec"), namespace)
    g1, g2 = namespace["f_grad"](2.0, 5.0)
    assert abs(g1 - 5.5) <= 1e-12


def test_coverage_prints_the_table():
    done = run("coverage")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["callable", "forward", "reverse"]
    width = len(lines[1].split()[0])  # names may contain spaces: cut at the column
    rows = {line[:width].rstrip(): line[width:].split() for line in lines[2:-1]}
    expected = {row["name"]: row for row in srcad.coverage()}
    assert set(rows) == set(expected)
    assert rows["numpy.sin"] == ["yes", "yes"]
    for name, row in expected.items():
        assert rows[name] == ["yes" if row["forward"] else "-", "yes" if row["reverse"] else "-"]
    assert lines[-1].startswith(f"{len(expected)} callables")


def test_error_exit_code_and_message(tmp_path):
    (tmp_path / "model.py").write_text(UNSUPPORTED)
    done = run("show", "model.py:f", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "model.py:6:5: srcad does not differentiate with statements" in done.stderr
    assert 'with open("log.txt") as handle:' in done.stderr
    assert "    ^" in done.stderr and "what to do:" in done.stderr
    assert "Traceback" not in done.stderr


def test_usage_error_exits_2():
    done = run("show", "examples/quickstart.py:f", "--mode", "sideways")
    assert done.returncode == 2
    assert "usage: srcad" in done.stderr and "sideways" in done.stderr
    done = run(module=True)
    assert done.returncode == 2 and "usage: srcad" in done.stderr


# ---------------------------------------------------------------------------------------------
# in-process: srcad.cli.main

def main(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_module_form_of_the_target(capsys, monkeypatch, keep_sys_path):
    import golden_functions as gf
    monkeypatch.chdir(HERE)
    code, out, err = main(capsys, "show", "golden_functions:mlp_layer_loss", "--wrt", "1,2")
    assert code == 0, err
    assert out == srcad.source(gf.mlp_layer_loss, wrt=(1, 2))


@pytest.mark.parametrize("argv, options", [
    (["--wrt", "1"], dict(wrt=1)),
    (["--wrt", "1,"], dict(wrt=(1,))),
    (["--wrt", "0, 1"], dict(wrt=(0, 1))),
    (["--kind", "value_and_grad"], dict(kind="value_and_grad")),
    (["--kind", "vjp", "--wrt", "0,1"], dict(kind="vjp", wrt=(0, 1))),
    (["--kind", "jvp"], dict(mode="forward")),
    (["--mode", "forward", "--wrt", "0,1"], dict(mode="forward", wrt=(0, 1))),
    (["--mode", "reverse", "--stage", "anf"], dict(stage="anf")),
    (["--stage", "parse"], dict(stage="parse")),
    (["--mode", "forward", "--stage", "derivative"], dict(mode="forward", stage="derivative")),
])
def test_show_options(argv, options, capsys, keep_sys_path):
    code, out, err = main(capsys, "show", QUICKSTART + ":f", *argv)
    assert code == 0, err
    func = sys.modules["quickstart"].f
    expected = srcad.source(func, **options)
    assert out == (expected if expected.endswith("\n") else expected + "\n")


def test_show_emit_stage_is_the_module(capsys, keep_sys_path):
    code, out, err = main(capsys, "show", QUICKSTART + ":f", "--stage", "emit")
    assert code == 0, err
    assert out == srcad.source(sys.modules["quickstart"].f)


def test_emit_with_options(tmp_path, capsys, keep_sys_path):
    out_path = tmp_path / "sub" / "f_jvp.py"
    code, out, err = main(capsys, "emit", QUICKSTART + ":f", "--kind", "jvp", "--wrt", "1",
                          "--output", str(out_path))
    assert code == 0, err
    assert out_path.read_text() == srcad.source(sys.modules["quickstart"].f, mode="forward",
                                                wrt=1)


def test_emit_needs_an_output(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["emit", QUICKSTART + ":f"])
    assert info.value.code == 2
    assert "-o" in capsys.readouterr().err


@pytest.mark.parametrize("argv, phrase", [
    (["show", "no_such_module_xyz:f"], "no module named 'no_such_module_xyz'"),
    (["show", "examples/no_such_file.py:f"], "no such file"),
    (["show", "examples/quickstart.py"], "module:function"),
    (["show", "examples/quickstart.py:no_such_function"], "no attribute 'no_such_function'"),
    (["show", "examples/quickstart.py:np"], "not a function"),
    (["show", "examples/quickstart.py:f", "--wrt", "5"], "wrt=5 is out of range"),
    (["emit", "examples/quickstart.py:f", "--wrt", "5", "-o", os.devnull], "out of range"),
    # forward mode's grad exists (the gradient of a function of one float) but needs example
    # arguments, which the command line does not take
    (["show", "examples/quickstart.py:f", "--mode", "forward", "--kind", "grad"],
     "example arguments"),
])
def test_errors_exit_2_with_a_message(argv, phrase, capsys, monkeypatch, keep_sys_path):
    monkeypatch.chdir(REPO)
    code, out, err = main(capsys, *argv)
    assert code == 2
    assert out == ""
    assert phrase in err, err


def test_srcad_error_is_printed_as_is(capsys, keep_sys_path):
    code, out, err = main(capsys, "show", QUICKSTART + ":f", "--wrt", "2")
    assert code == 2
    assert err.startswith(f"{QUICKSTART}:15:1: wrt=2 is out of range"), err
    assert "    def f(x1, x2):\n    ^\n" in err


@pytest.mark.parametrize("argv", [
    ["show", "x:f", "--wrt", "a"],
    ["show", "x:f", "--wrt", ","],
    ["show", "x:f", "--mode", "reverse", "--kind", "jvp"],
    ["show", "x:f", "--stage", "lexing"],
    ["show", "x:f", "--kind", "hessian"],
    ["emit", "x:f", "-o", "out.py", "--stage", "anf"],
    ["frobnicate"],
    [],
])
def test_usage_errors(argv, capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    assert info.value.code == 2
    assert "usage: srcad" in capsys.readouterr().err


def test_help_and_version(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "show" in out and "emit" in out and "coverage" in out
    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"srcad {srcad.__version__}"


def test_coverage_missing_only(capsys):
    code, out, err = main(capsys, "coverage", "--missing")
    assert code == 0
    lines = out.splitlines()
    width = len(lines[1].split()[0])
    rows = [line[width:].split() for line in lines[2:-1]]
    assert all("-" in row and len(row) == 2 for row in rows)
    partial = [r for r in srcad.coverage() if not (r["forward"] and r["reverse"])]
    assert len(rows) == len(partial)


def test_a_target_importing_badly_reports_its_traceback(tmp_path, capsys, keep_sys_path):
    broken = tmp_path / "broken_model.py"
    broken.write_text("import numpy as np\n\nraise RuntimeError('boom at import')\n")
    code, out, err = main(capsys, "show", f"{broken}:f")
    assert code == 2
    assert "boom at import" in err and "broken_model.py" in err
    assert "broken_model" not in sys.modules
