"""Forward mode folds tangents proportional to another (proportional.py). When every term of a
folded tangent was negative, the minus went on the first term only: (-e^x) * (-x) had the
derivative -0.82 at 0.5 (truth 2.47), the jvp of -x * -y lost the sign of dy, and so did
-x - y, 1.0 - x - y, -2.0 * x - 3.0 * y. The rendering of a sum is checked against numpy here,
on random forms, as well as on those programs."""
import random

import gast
import numpy as np
import pytest

import srcad
from srcad.optimize.algebra import Term
from srcad.optimize.proportional import render


def negated_product(x):
    return (-np.exp(x)) * (-x)


def both_negated(x, y):
    return -x * -y


def minus_minus(x, y):
    return -x - y


def one_minus_minus(x, y):
    return 1.0 - x - y


def scaled_minus_minus(x, y):
    return -2.0 * x - 3.0 * y


def test_negated_product_forward_gradient():
    x = 0.5
    want = np.exp(x) * (1.0 + x)
    assert srcad.grad(negated_product)(x) == pytest.approx(want, rel=1e-14)
    assert srcad.grad(negated_product)(np.array(x)) == pytest.approx(want, rel=1e-14)


@pytest.mark.parametrize("func, slopes", [
    (both_negated, lambda x, y: (y, x)), (minus_minus, lambda x, y: (-1.0, -1.0)),
    (one_minus_minus, lambda x, y: (-1.0, -1.0)), (scaled_minus_minus, lambda x, y: (-2.0, -3.0))])
def test_all_negative_tangent_terms(func, slopes):
    for x, y in [(2.0, 3.0), (np.array([2.0, -1.0]), np.array([3.0, 0.5]))]:
        dx, dy = 0.7, -1.3
        sx, sy = slopes(x, y)
        got = srcad.jvp(func, wrt=(0, 1))(x, y, dx, dy)
        np.testing.assert_allclose(got, sx * dx + sy * dy, rtol=1e-14)


NAMES = ["a", "b", "c"]


def _random_term(rng):
    k = rng.choice([1, -1, 2, -2, 0.5, -0.5, 3.7, -3.7])
    nums = [gast.Name(id=rng.choice(NAMES), ctx=gast.Load(), annotation=None, type_comment=None)
            for _ in range(rng.randint(0, 2))]
    if rng.random() < 0.2:  # a factor that is itself a sum
        nums.append(tuple(_random_term(rng) for _ in range(rng.randint(1, 3))))
    dens = [gast.Name(id=rng.choice(NAMES), ctx=gast.Load(), annotation=None, type_comment=None)
            for _ in range(rng.randint(0, 1))]
    return Term.of(k, nums, dens)


def _value(factor, env):
    if isinstance(factor, tuple):
        return sum(_term_value(t, env) for t in factor)
    return env[factor.id]


def _term_value(term, env):
    out = term.coef
    for f in term.ups:
        out = out * _value(f, env)
    for f in term.downs:
        out = out / _value(f, env)
    return out


def test_render_computes_the_form_on_random_forms():
    rng = random.Random(1)
    for _ in range(2000):
        form = {base: tuple(_random_term(rng) for _ in range(rng.randint(1, 3)))
                for base in rng.sample(["dx", "dy"], rng.randint(1, 2))}
        env = {n: rng.uniform(0.5, 2.0) * rng.choice([1, -1]) for n in NAMES + ["dx", "dy"]}
        want = sum(env[base] * sum(_term_value(t, env) for t in coef)
                   for base, coef in form.items())
        node = render(form)
        text = gast.unparse(node) if hasattr(gast, "unparse") else None
        expr = gast.gast_to_ast(gast.Expression(body=node))
        got = eval(compile(__import__("ast").fix_missing_locations(expr), "<form>", "eval"),
                   dict(env))
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12), text
