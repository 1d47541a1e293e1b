"""The guards pass against itself switched off, on random programs nobody picked: a division
(of exps, square roots of negatives, counts with zeros, sums, maxima, clips) under np.where,
in a loop, through a view and a store, at points with exact zeros, subnormals and large
exponents. Wherever f is finite, the gradient with the pass must be the gradient without it:
the pass only writes a guard as the plain operation where the operands cannot meet what it
guards against (optimize/guards.py), so a difference is a guard dropped that was needed. The
programs are made from a fixed seed (the same every run), each a module file in
pytest's tmp_path (srcad reads source)."""
import itertools
import random
import re
import warnings

import numpy as np
import pytest

import srcad

from generated import module_function

ATOMS = ["x", "c", "np.exp(x)", "1.0 + np.exp(-x)", "x * x", "np.sqrt(x)", "np.sqrt(x * x + c * c)",
         "c - 1.0", "np.tanh(x) + 1.0", "np.log(np.abs(x) + 1.0)", "np.maximum(x, c)",
         "np.clip(x, -1.0, 1.0)", "np.exp(x) - 1.0", "x ** 2 - c", "np.abs(c) + 1.0", "np.cos(x)",
         "np.sum(x * x)", "np.mean(np.exp(x))", "np.log(c)", "np.max(x)", "x * c", "np.arctan(x)"]
OUTPUTS = ["np.sum(q ** 2)", "np.sum(np.tanh(q))", "np.sum(q * w)", "np.sum(np.where(m, q, 0.0))",
           "np.sum(np.log(1.0 + q * q))", "np.var(q)", "np.sum(np.sqrt(q * q + 1.0))"]
FORMS = ["q = {a} / {b}", "q = np.where(m, {a} / {b}, 0.0)", "q = np.where(m, 1.0 / {b}, {a})",
         "e = np.exp({a} - np.max({a}))\n    q = e / np.sum(e) * {b}",
         "t = {b}\n    q = np.where(m, {a} / t, 0.0) + {a} / (1.0 + t * t)",
         "t = {a} / {b}\n    u = t.copy()\n    u[1:3] = 0.0\n    q = np.where(m, t, u) * 2.0",
         "t = {b}\n    q = x * 0.0\n    for i in range(3):\n        q = q + np.where(m, {a} / t, 0.0)\n"
         "        t = t * 0.5 + 1.0",
         "s = {b}\n    q = {a} / s\n    q = q / (1.0 + np.abs(q))",
         "d = np.where(m, {b}, 0.0)\n    q = np.where(m, {a} / d, 0.0)"]
XS = [np.array([0.0, 1.5, -2.0, 30.0, -30.0, 0.3]), np.array([0.0, 0.0, 1.0, -1.0, 2.0, 5e-320]),
      np.array([-1.0, 2.0, 3.0, -0.5, 0.25, 1.0])]
CS = [np.array([0.0, 2.0, -1.0, 0.0, 3.0, 1.0]), np.array([1.0, 1.0, 0.0, 1.0, -2.0, 0.5])]
MS = [np.array([True, False, True, False, True, False]),
      np.array([False, True, True, True, False, True])]
W = np.array([1.0, -2.0, 0.5, 3.0, -1.0, 2.0])
COUNT = 30


def programs():
    rng = random.Random(20261207)
    for k in range(COUNT):
        a, b = rng.choice(ATOMS), rng.choice(ATOMS)
        form = rng.choice(FORMS).format(a=f"({a})", b=f"({b})")
        yield k, (f"import numpy as np\n\n\ndef f(x, c, m, w):\n    {form}\n"
                  f"    return {rng.choice(OUTPUTS)}\n")


def load(tmp_path, k, source):
    return module_function(source, f"guards_program_{k}", tmp_path)


def guards(text):
    return len(re.findall(r"\b(safe_div|safe_mul|slope_mul)\(", text[text.index("def f_grad"):]))


def test_the_guards_pass_changes_no_gradient_where_the_function_is_finite(tmp_path):
    compared, dropped = 0, 0
    for k, source in programs():
        f = load(tmp_path, k, source)
        on = srcad.grad(f, wrt=(0, 1))
        off = srcad.grad(f, wrt=(0, 1), disable="guards")
        for x, c, m in itertools.product(XS, CS, MS):
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                if not np.isfinite(f(x, c, m, W)):
                    continue
                got, want = on(x, c, m, W), off(x, c, m, W)
            for g, h in zip(got, want):
                assert np.array_equal(np.isnan(g), np.isnan(h)) and np.allclose(
                    g, h, rtol=1e-7, atol=1e-12, equal_nan=True), (
                    f"program {k} at x={x}, c={c}, m={m}:\n{source}\nwith the pass {g}\n"
                    f"without it {h}")
            compared += 1
        args = (XS[2], CS[1], MS[0], W)
        dropped += guards(srcad.source(f, wrt=(0, 1), args=args)) < guards(
            srcad.source(f, wrt=(0, 1), args=args, disable="guards"))
    assert compared > 100 and dropped > 5  # (the comparison is not vacuous)
