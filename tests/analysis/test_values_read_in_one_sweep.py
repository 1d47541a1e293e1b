"""float_values_read follows the values of float (and float array) arguments through every
statement until nothing changes. Sweeping the statements in the order naming.walk gives (not
source order) moved the values one statement per sweep: quadratic in the function's length,
which went unseen while only Python floats were followed and became 30 s for a 1,000-statement
chain when arrays were. Each statement's reads are now found once, and a sweep in source order
reaches the end (benchmarks/build_time.py measures the time; this counts the work)."""
import ast

import gast
import numpy as np

from srcad.analysis import values
from srcad.syntax.convert import ast_to_gast


def chain(n):
    lines = ["def f(x):", "    t0 = x"]
    lines += [f"    t{i} = np.sin(t{i - 1}) + t{i - 1} * 0.5" for i in range(1, n + 1)]
    lines.append(f"    return np.sum(t{n}[t{n} > 0])")
    return ast_to_gast(ast.parse("\n".join(lines))).body[0]


def test_each_statement_is_read_once(monkeypatch):
    calls = []
    real = values._value_names
    monkeypatch.setattr(values, "_value_names", lambda node: calls.append(node) or real(node))
    fdef = chain(300)
    found = values.float_values_read(fdef, (np.ones(3),), {})
    assert found == frozenset({0})  # (x's values decide the mask's size)
    assert len(calls) < 2 * 300
    assert isinstance(fdef, gast.FunctionDef)
