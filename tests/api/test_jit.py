"""jit="numba": the specialized derivative compiled by numba, with the same numbers; a clear
SrcadError where numba is missing or the derivative is outside numba's subset."""
import subprocess
import sys

import numpy as np
import pytest

import srcad


def logistic(r, x0, n):
    x = x0
    for i in range(n):
        x = r * x * (1.0 - x)
    return x


def rate(y, a):
    return -a * y + np.sin(y)


def rk4(a, y0, h, n):
    y = y0
    for i in range(n):
        k1 = rate(y, a)
        k2 = rate(y + 0.5 * h * k1, a)
        k3 = rate(y + 0.5 * h * k2, a)
        k4 = rate(y + h * k3, a)
        y = y + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def with_a_dict(x):
    d = {"a": x}
    return np.sum(d["a"] ** 2)


@pytest.mark.parametrize("func, args", [(logistic, (3.2, 0.3, 200)),
                                        (rk4, (0.7, 1.0, 0.01, 200))])
def test_numba_compiled_derivatives_give_the_numpy_numbers(func, args):
    pytest.importorskip("numba", reason="numba is an optional extra")
    plain, compiled = srcad.grad(func), srcad.grad(func, jit="numba")
    for _ in range(2):  # the compiling call, then the compiled one
        assert compiled(*args) == pytest.approx(plain(*args), rel=1e-12)
    plain = srcad.jvp(func, wrt=(0, 1))(*args, 1.0, 0.5)
    assert srcad.jvp(func, wrt=(0, 1), jit="numba")(*args, 1.0, 0.5) == pytest.approx(
        plain, rel=1e-12)


def test_outside_numba_s_subset_is_a_srcad_error():
    pytest.importorskip("numba", reason="numba is an optional extra")
    with pytest.raises(srcad.SrcadError, match="numba cannot compile"):
        srcad.grad(with_a_dict, jit="numba")(np.ones(3))


def test_without_numba_the_option_says_how_to_get_it():
    code = ("import sys; sys.modules['numba'] = None\n"
            "import srcad\n"
            "def f(x):\n    return x * x\n"
            "try:\n    srcad.grad(f, jit='numba')\n"
            "except srcad.SrcadError as e:\n    print('refused:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert "refused: jit='numba' needs numba" in out.stdout, out.stderr


def test_an_unknown_jit_is_refused():
    with pytest.raises(srcad.SrcadError, match="jit must be None or 'numba'"):
        srcad.grad(logistic, jit="cuda")


def test_only_global_reads_are_followed():
    """co_names also holds attribute names: a helper reading `x.real` or `np.real` was taken
    to call the module's function named real (a template's), which calls np.real: 'calls real
    recursively', for 11 of 20 workloads of make bench."""
    from srcad.api.jit import _globals_read

    def reads(x):
        return x.real + np.sin(x) + np.real(x)
    assert _globals_read(reads.__code__) == ["np"]



def test_numba_builds_switch_the_turns_pass_off():
    """The turns pass stacks a loop's taped arrays with np.array(list of arrays), which numba
    does not compile (nor, so far, the rest of an array recurrence's gradient)."""
    pytest.importorskip("numba", reason="numba is an optional extra")
    assert "turns" in srcad.grad(rk4, jit="numba").disabled
    assert "turns" not in srcad.grad(rk4).disabled
