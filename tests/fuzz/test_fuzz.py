"""The differential fuzzer as a test.

test_random_programs checks a fixed-seed batch of random NumPy programs (generator.py) in every
mode srcad has (the "quick" plan: vjp, jvp and the dot test on each program, and one more mode
per program in rotation) with verify mode on, and fails with shrunk, standalone reproductions of
what it found. About 60 s on 2 cores. `make fuzz` runs more programs from a random seed.

The other tests check the fuzzer itself: generation is deterministic and valid, the oracle
accepts right derivatives and catches wrong ones (srcad's answers perturbed on purpose), and the
shrinker reduces a failing program to a few lines.
"""
import os

import numpy as np
import pytest

import srcad

from .checker import Checker, verify_environment
from .generator import generate, validate
from .program import Param, Program
from .runner import run_batch
from .shrink import shrink

SEED = 20240601
COUNT = 320  # ~80 s on this 2-core machine with method helpers and int arrays in the
# generator (and up to 4 shrinks of 5 s): the full suite stays near 5 minutes
JOBS = min(2, os.cpu_count() or 1)


def test_random_programs():
    with verify_environment():
        summary = run_batch(SEED, COUNT, jobs=JOBS, quick=True, shrink_per_key=1,
                            shrink_budget=5.0, max_shrinks=4)
    programs = summary.programs
    refused = [r for r in programs if r.refusals and {m for m, _ in r.refusals} >= {
        m for m in r.modes if m != "unoptimized"}]
    assert len(refused) <= 0.4 * len(programs), (
        f"srcad refused every mode on {len(refused)} of {len(programs)} random programs: a "
        f"fuzzer of what srcad refuses tests nothing.\n\n{summary.text()}")
    failing = summary.failing()
    if failing:
        shown = "\n\n".join(f"--- {s.key[0]} in {s.key[1]} (seed {s.seed}):\n{_body(s.script)}"
                            for s in summary.shrunk)
        pytest.fail(f"srcad gave wrong results on {len(failing)} of {len(summary.programs)} "
                    f"random programs.\n\n{summary.text()}\n\nShrunk reproductions (run "
                    f"`make fuzz` for more, written to fuzz-failures/):\n\n{shown}",
                    pytrace=False)


def _body(script):
    """A reproduction without its docstring and numeric helpers (shorter in a test report)."""
    lines = script.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("import numpy"))
    text = "\n".join(lines[start:])
    if "def flat(value):" in text:
        head, rest = text.split("def flat(value):", 1)
        tail = rest[rest.index("\n\n\n") + 3:] if "\n\n\n" in rest else rest
        for marker in ("def numeric_jvp", "def numeric_vjp"):
            if marker in tail:
                tail = tail[tail.index("\n\n\n", tail.index(marker)) + 3:]
        text = head.rstrip() + "\n# (numeric_vjp, numeric_jvp, flat: central differences)\n" \
            + tail
    return text


def test_generation_is_deterministic_and_valid():
    for seed in range(5):
        a, b = generate(seed), generate(seed)
        assert a.source == b.source and a.params == b.params and a.sizes == b.sizes
        assert validate(a) is None
        args = a.arguments(1)
        assert all(np.array_equal(x, y) for x, y in zip(args, b.arguments(1))
                   if isinstance(x, np.ndarray))


def test_generation_does_not_depend_on_string_hashing():
    """The same programs in processes with other PYTHONHASHSEEDs (sets of shapes hold
    strings): a seed printed by one run must give the same program in the next."""
    import subprocess
    import sys
    code = ("import hashlib; from tests.fuzz.generator import generate, Discard\n"
            "out = []\nfor s in range(30):\n    try: out.append(generate(s).source)\n"
            "    except Discard: out.append('-')\nprint(hashlib.sha1(''.join(out).encode())"
            ".hexdigest())")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    digests = {subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True,
                              text=True, env=dict(os.environ, PYTHONHASHSEED=str(h)),
                              check=True).stdout for h in (1, 2)}
    assert len(digests) == 1


SMOOTH = """import numpy as np


def f(x, A, s):
    h = np.tanh(A @ x + s)
    return np.sum(h * h) + np.sin(s) * np.mean(x ** 2)
"""


def _smooth_program():
    return Program(SMOOTH, (Param("x", "array", ("n",)), Param("A", "array", ("m", "n")),
                            Param("s", "float")),
                   ({"n": 3, "m": 2, "k": 2}, {"n": 4, "m": 3, "k": 2}), value_seed=3, seed=3)


def test_oracle_accepts_right_derivatives():
    modes = ["grad", "grad_tuple", "value_and_grad", "vjp", "jvp", "hvp", "hvp_reverse",
             "unoptimized"]
    outcome = Checker(_smooth_program(), modes=modes).run()
    assert outcome.failures == [] and outcome.refusals == []
    assert outcome.checked >= 10 and outcome.unsure == 0


@pytest.mark.parametrize("entry", ["grad", "vjp", "jvp", "hvp"])
def test_oracle_catches_wrong_derivatives(monkeypatch, entry):
    """Scale srcad's answers by 1.001 in one entry point: the checker must see it."""
    real = getattr(srcad, entry)

    def perturbed(*args, **kwargs):
        inner = real(*args, **kwargs)

        def call(*a):
            out = inner(*a)
            if isinstance(out, tuple):
                return tuple(o * 1.001 for o in out)
            return out * 1.001
        return call
    monkeypatch.setattr(srcad, entry, perturbed)
    outcome = Checker(_smooth_program(), modes=[entry if entry != "grad" else "grad_tuple"]
                      + (["jvp"] if entry == "vjp" else ["vjp"] if entry == "jvp" else [])).run()
    kinds = {f.kind for f in outcome.failures}
    assert "wrong" in kinds, outcome
    if entry in ("vjp", "jvp"):
        assert "dot" in kinds


def test_shrinker_keeps_the_failure_and_removes_the_rest(monkeypatch):
    """With jvp made wrong on purpose for programs that call np.cos, a program shrinks to a few
    lines that still call it."""
    real = srcad.jvp

    def wrong_for_cos(func, *args, **kwargs):
        inner = real(func, *args, **kwargs)
        return lambda *a: inner(*a) * (2.0 if "np.cos" in func.__code__.co_names or
                                       "cos" in func.__code__.co_names else 1.0)
    monkeypatch.setattr(srcad, "jvp", wrong_for_cos)
    source = """import numpy as np


def f(x, A):
    t1 = np.tanh(A @ x)
    t2 = x * 2.0 + np.sum(t1)
    t3 = np.cos(x[0])
    t4 = np.exp(-t2 * t2)
    return np.sum(t4) + t3 * np.sum(t1)
"""
    program = Program(source, (Param("x", "array", ("n",)), Param("A", "array", ("m", "n"))),
                      ({"n": 3, "m": 2, "k": 2}, {"n": 4, "m": 3, "k": 2}), value_seed=5,
                      seed=5)
    key = ("wrong", "jvp")
    assert key in {f.key for f in Checker(program, modes=["jvp"]).run().failures}
    small, calls = shrink(program, key, budget=60.0)
    body = small.source.split("def f", 1)[1]
    assert "cos" in body and "exp" not in body and "tanh" not in body, small.source
    assert len(calls) == 1 and len(small.source.splitlines()) <= 6, small.source
