"""A function with many values live at once (a_i = np.sin(x * c_i) for i < n, then summed) built
in time quadratic in n, where a chain of the same length built linearly: two passes looked at
everything live or pending at every statement.

- frontend/mutation.py's liveness copied the set of names read afterwards for every statement
  (n names live over n statements); it now keeps one set, updated in place, and copies it only
  for the statements whose checks ask (stores, in-place updates, calls of the user's functions).
- optimize/proportional.py looked at every pending tangent (bound, waiting for the one
  statement that reads it) at every statement, to drop those whose reads the statement binds;
  it now finds them through an index of the names they read.

No time is asserted (benchmarks/build_time.py measures it): the work is counted. The numbers
are checked too, against the derivative by hand.
"""
import itertools
import sys

import numpy as np
import pytest

import srcad
from srcad.frontend import mutation
from tests.generated import module_function

_COUNT = itertools.count()


def wide_source(n):
    lines = ["import numpy as np", "", "", "def f(x):"]
    lines += [f"    a{i} = np.sin(x * {0.01 * (i + 1)})" for i in range(n)]
    lines += ["    s = a0"] + [f"    s = s + a{i}" for i in range(1, n)] + ["    return np.sum(s)"]
    return "\n".join(lines) + "\n"


@pytest.fixture
def wide(tmp_path):
    """wide(n) -> f of wide_source(n), from a file of its own (srcad reads the source)."""
    return lambda n: module_function(wide_source(n), f"srcad_wide_{next(_COUNT)}", tmp_path)


X = np.array([0.3, -0.7, 1.1])


def by_hand(n, x):
    """d/dx of sum_i sum(sin(c_i x)): c_i cos(c_i x) summed over i."""
    c = 0.01 * np.arange(1, n + 1)
    return np.sum(c[:, None] * np.cos(c[:, None] * x[None, :]), axis=0)


def test_liveness_is_kept_only_where_a_check_reads_it(wide, monkeypatch):
    recorded = []
    real = mutation.MutationFence.liveness

    def liveness(self, stmts, live):
        out = real(self, stmts, live)
        recorded.append(sum(len(names) for names in self.live.values()))
        return out
    monkeypatch.setattr(mutation.MutationFence, "liveness", liveness)
    n = 200
    f = wide(n)
    assert np.allclose(srcad.grad(f, verify=False)(X), by_hand(n, X), rtol=1e-12)
    assert recorded
    # (before: one copy of up to n live names per statement, ~n * n / 2 names in all; now the
    # function has no statement whose check asks)
    assert max(recorded) < n


def _lines_run(func, filename, functions):
    """How many lines of these functions (names of code objects: comprehensions are their own)
    of the module `filename` run while func() runs: the work, counted."""
    count = [0]

    def tracer(frame, event, arg):
        code = frame.f_code
        if code.co_filename.endswith(filename) and code.co_name in functions:
            def local(frame, event, arg):
                if event == "line":
                    count[0] += 1
                return local
            return local
        return None
    sys.settrace(tracer)
    try:
        func()
    finally:
        sys.settrace(None)
    return count[0]


def test_pending_tangents_are_found_by_the_names_they_read(wide):
    work = {}
    for n in (100, 200):
        f = wide(n)
        work[n] = _lines_run(lambda: srcad.source(f, mode="forward"), "proportional.py",
                             ("_fold_block", "_unpend", "<listcomp>", "<setcomp>"))
        tangent = srcad.jvp(f, verify=False)(X, np.ones_like(X))
        assert np.isclose(tangent, np.sum(by_hand(n, X)), rtol=1e-12)
    # linear: twice the statements, about twice the work (quadratic: four times)
    assert work[200] < 2.5 * work[100], work
