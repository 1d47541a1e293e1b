"""Strong products (modes/strong_zeros.py) on random programs nobody picked: a value that is
inf or nan at some entries (a logarithm or square root of 0 or a negative, a division by 0,
an arcsine past 1) multiplied, squared, passed through sin, cos, tanh or a helper, in a loop,
under an np.where whose mask (an argument: f does not depend on an untaken entry) leaves
those entries out. Wherever f is finite the gradient must be central differences' (0 for an
untaken entry): optimized, unoptimized, and with the helper's own derivative (not written in).
The programs are made from a fixed seed (the same every run), each a module file in pytest's
tmp_path (srcad reads source)."""
import itertools
import random
import warnings

import numpy as np

import srcad

from generated import module_function

SINGULAR = ["np.log(x)", "np.log(c)", "1.0 / x", "x / c", "np.sqrt(x)", "np.log(x * c)",
            "np.arcsin(x)", "np.log1p(x)", "np.sqrt(c) * x", "x ** 0.5", "np.log(np.abs(x))",
            "c / (x - 1.0)", "np.arccos(c)"]
FINITE = ["x", "c", "x * c", "np.sin(x)", "np.exp(c)", "2.0", "x + c"]
FORMS = ["q = np.where(m, {a} * {s}, 0.0)", "q = np.where(m, {s} * {a}, 0.0)",
         "q = np.where(m, np.sin({s}), 0.0)", "q = np.where(m, {s} ** 2, 0.0)",
         "q = np.where(m, {s} * {s}, 0.0)", "q = np.where(m, np.cos({s}) * {a}, 0.0)",
         "t = {s}\n    q = np.where(m, t * {a} + t ** 3, 0.0)",
         "t = {s}\n    u = t * {a}\n    q = np.where(m, np.tanh(u), {a})",
         "q = np.where(m, helper({s}, {a}), 0.0)",
         "q = x * 0.0\n    for i in range(2):\n        q = q + np.where(m, {s} * {a}, 0.0)",
         "q = np.where(m, {s} * {a}, 0.0) + np.where(m, 0.0, {a} * 3.0)"]
OUTPUTS = ["np.sum(q)", "np.sum(q * w)", "np.sum(q ** 2)", "np.sum(np.sin(q))"]
HELPER = "def helper(u, v):\n    return u * v + u * u\n\n\n"
XS = [np.array([0.0, 1.5, -2.0, 0.3, 1.0, 0.7]), np.array([-1.0, 0.25, 0.0, 2.0, -0.5, 1.0])]
CS = [np.array([0.0, 2.0, -1.0, 0.5, 3.0, 1.0]), np.array([1.0, 0.5, 0.0, -2.0, 0.0, 0.25])]
W = np.array([1.0, -2.0, 0.5, 3.0, -1.0, 2.0])
COUNT = 24
OPTIONS = ({}, {"disable": "all"}, {"disable": ("inline",)})


def programs():
    rng = random.Random(20261207)
    for k in range(COUNT):
        singular, finite = rng.choice(SINGULAR), rng.choice(FINITE)
        form = rng.choice(FORMS).format(s=f"({singular})", a=f"({finite})")
        yield k, singular, (f"import numpy as np\n\n\n{HELPER}def f(x, c, m, w):\n    {form}\n"
                            f"    return {rng.choice(OUTPUTS)}\n")


def load(tmp_path, k, source):
    return module_function(source, f"strong_program_{k}", tmp_path)


def central(f, args, i, h=1e-6):
    out = np.zeros_like(args[i])
    for j in range(args[i].size):
        up, down = [list(args), list(args)]
        up[i], down[i] = args[i].copy(), args[i].copy()
        up[i][j] += h
        down[i][j] -= h
        out[j] = (f(*up) - f(*down)) / (2 * h)
    return out


def test_untaken_infinite_factors_give_the_derivative_not_nan(tmp_path):
    compared, masked = 0, 0
    for k, singular, source in programs():
        f = load(tmp_path, k, source)
        derivatives = [srcad.grad(f, wrt=(0, 1), **options) for options in OPTIONS]
        for x, c in itertools.product(XS, CS):
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                values = np.broadcast_to(eval(singular, {"np": np, "x": x, "c": c}), x.shape)
                m = np.isfinite(values) & (np.arange(6) % 3 != 0)  # (never every entry)
                masked += int(np.sum(~np.isfinite(values)))
                if not np.isfinite(f(x, c, m, W)):
                    continue
                want = [central(f, (x, c, m, W), i) for i in (0, 1)]
                for options, derivative in zip(OPTIONS, derivatives):
                    for got, fd in zip(derivative(x, c, m, W), want):
                        ok = np.abs(fd) < 1e6  # (central differences across a pole: no oracle)
                        assert not np.isnan(got[ok]).any() and np.allclose(
                            got[ok], fd[ok], rtol=1e-5, atol=1e-6), (
                            f"program {k} {options} at x={x}, c={c}, m={m}:\n{source}\n"
                            f"srcad {got}\ncentral differences {fd}")
            compared += 1
    assert compared > 60 and masked > 60  # (the comparison is not vacuous)
