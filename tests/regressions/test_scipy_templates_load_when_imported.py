"""SciPy's templates are registered once the program imports scipy.special, scipy.stats or
scipy.signal, not when srcad is imported (importing scipy.stats took 0.6 of import srcad's 0.9 s).
Each case runs in a new Python, where scipy is not imported yet."""
import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("scipy", reason="scipy is not installed")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(code, tmp_path):
    script = tmp_path / "program.py"  # (a file: srcad reads f's source)
    script.write_text(textwrap.dedent(code))
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_import_srcad_and_a_numpy_gradient_import_no_scipy(tmp_path):
    out = run("""
        import sys
        import numpy as np
        import srcad

        def f(x):
            return np.sum(np.sin(x) * x)

        srcad.grad(f)(np.ones(3))
        srcad.jvp(f)(np.ones(3), np.ones(3))
        print(sorted(m for m in sys.modules if m == "scipy" or m.startswith("scipy.")))
    """, tmp_path)
    assert out.strip() == "[]"


def test_scipy_imported_after_srcad_is_differentiated(tmp_path):
    out = run("""
        import numpy as np
        import srcad
        from scipy import special, stats

        def f(x):
            return np.sum(special.expit(x) * stats.norm.logpdf(x, 0.5, 2.0))

        x = np.array([-1.0, 0.3, 2.0])
        eps = 1e-6
        want = [(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(3)]
        print(np.allclose(srcad.grad(f)(x), want, rtol=1e-7, atol=1e-9))
        print(np.allclose(srcad.jvp(f)(x, np.ones(3)), np.sum(want), rtol=1e-7))
    """, tmp_path)
    assert out.split() == ["True", "True"]


def test_coverage_lists_scipy_without_importing_it_first(tmp_path):
    out = run("""
        import srcad
        names = {row["name"] for row in srcad.coverage()}
        print("scipy.special.expit" in names, "scipy.stats.norm.logpdf" in names)
    """, tmp_path)
    assert out.split() == ["True", "True"]
