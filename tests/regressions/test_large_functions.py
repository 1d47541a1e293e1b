"""Large and deep functions build, and give the right numbers.

A sum of 400 terms (a BinOp 400 levels deep) and np.sin nested 200 deep raised RecursionError
(in gast's conversion of the parsed function, and further on in astor and srcad's recursive
passes): frontend/deep.py now cuts such expressions into temporaries before anything walks
them, and what cannot be cut is refused with a SrcadError at its line. A chain of hundreds of
statements took seconds to minutes to build (passes that walked the rest of the function for
every statement); it is checked here for its numbers only: no timing is asserted in tests
(benchmarks/build_time.py measures it). The numbers are compared with the derivatives worked
out by hand, so verify mode (which builds the unoptimized derivative again) is left off.
"""
import importlib.util
import itertools
import sys

import numpy as np
import pytest

import srcad

_COUNT = itertools.count()


@pytest.fixture
def module_of(tmp_path):
    """module_of(source) -> the module of that source, written to a file (srcad reads it)."""
    def load(source):
        name = f"srcad_large_{next(_COUNT)}"
        path = tmp_path / f"{name}.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    yield load


X = np.array([0.3, -0.7, 1.1, 0.05])


def test_a_sum_of_400_terms(module_of):
    terms = " + ".join(["x"] + [f"x * {k}" for k in range(2, 401)])
    f = module_of(f"import numpy as np\n\n\ndef f(x):\n    return np.sum({terms})\n").f
    total = 400 * 401 // 2  # d/dx of sum(x * (1 + 2 + ... + 400))
    assert np.allclose(srcad.grad(f, verify=False)(X), total, rtol=1e-12)
    tangent = srcad.jvp(f, verify=False)(X, np.ones_like(X))
    assert np.isclose(tangent, total * len(X), rtol=1e-12)


def test_np_sin_nested_200_deep(module_of):
    depth = 200  # (Python itself allows 200 nested parentheses)
    inner = "x"
    for _ in range(depth):
        inner = f"np.sin({inner})"
    f = module_of(f"import numpy as np\n\n\ndef f(x):\n    return {inner}\n").f
    value, slope = 0.8, 1.0
    for _ in range(depth):  # the chain rule, by hand
        value, slope = np.sin(value), slope * np.cos(value)
    assert np.isclose(f(0.8), value, rtol=1e-14)
    assert np.isclose(srcad.grad(f, verify=False)(0.8), slope, rtol=1e-12)  # (forward mode)
    assert np.isclose(srcad.jvp(f, verify=False)(0.8, 1.0), slope, rtol=1e-12)
    summed = "np.sum(" + inner.replace("np.sin(", "", 1)[:-1] + ")"  # 199 deep, in a sum
    g = module_of(f"import numpy as np\n\n\ndef g(x):\n    return {summed}\n").g
    values, slopes = X.copy(), np.ones_like(X)
    for _ in range(depth - 1):
        values, slopes = np.sin(values), slopes * np.cos(values)
    assert np.allclose(srcad.grad(g, verify=False)(X), slopes, rtol=1e-12)


def test_a_chain_of_300_statements(module_of):
    n = 300
    lines = [f"    t{k} = np.sin(t{k - 1}) + t{k - 1} * 0.5" for k in range(1, n + 1)]
    f = module_of("import numpy as np\n\n\ndef f(x):\n    t0 = x\n" + "\n".join(lines)
                  + f"\n    return np.sum(t{n})\n").f
    values, slopes = X.copy(), np.ones_like(X)
    for _ in range(n):
        values, slopes = np.sin(values) + values * 0.5, slopes * (np.cos(values) + 0.5)
    assert np.allclose(srcad.grad(f, verify=False)(X), slopes, rtol=1e-10)
    tangent = srcad.jvp(f, verify=False)(X, np.ones_like(X))
    assert np.isclose(tangent, np.sum(slopes), rtol=1e-10)


def test_what_cannot_be_cut_is_refused_at_its_line(module_of):
    terms = " + ".join(["x"] * 300)
    f = module_of(f"import numpy as np\n\n\ndef f(x):\n    y = x if x > 0 else {terms}\n"
                  f"    return y\n").f  # (an arm of a conditional expression runs or not)
    with pytest.raises(srcad.SrcadError, match="more than 100 levels deep") as caught:
        srcad.grad(f, verify=False)(0.5)
    assert caught.value.lineno == 5
    cases = "".join(f"    elif k == {k}:\n        y = x * {k}.0\n" for k in range(1, 200))
    g = module_of(f"import numpy as np\n\n\ndef g(x, k):\n    if k == 0:\n        y = x\n"
                  f"{cases}    else:\n        y = -x\n    return y\n").g
    with pytest.raises(srcad.SrcadError, match="nested in more than 90 blocks"):
        srcad.grad(g)(0.5, 3)
