"""optimize/turns.py: an elementwise expression of values the adjoint sweep pops from the tape
(an activation's slope, 1 - u * u) is made for every turn at once after the primal loop, and
each adjoint turn pops its row. Unit cases as text (the rewrite, and the cases it must leave
alone); end to end the gradients of recurrences against central differences and, to the bit,
against the gradient with the pass switched off (a ufunc maps each item alone)."""
import numpy as np
import pytest

import srcad
from srcad.optimize.turns import batch_turn_expressions

from before_after import check_rewrite, check_unchanged, parsed, rewritten, text_of, values
from regressions.numeric import central_gradient

RNG = np.random.default_rng(11)
XS, H0 = RNG.normal(size=(4, 3)), RNG.normal(size=3)
SHAPES = {"xs": (4, 3), "h0": (3,), "u": (3,), "g": (3,), "v": (3,), "s": ()}
FACTS = dict(shape_of=SHAPES.get, arrays={"xs", "h0", "u", "g", "v"},
             fresh_name=lambda hint: hint)


def loops(turn, back, forward_extra="", rows="rows"):
    """f with a primal loop over xs's rows that pushes (g, u) and an adjoint loop that pops
    them and runs `back` (lines)."""
    back = "\n            ".join(back)
    return f"""
        def f(xs, h0):
            stack = []
            h = h0
            rows = range(xs.shape[0])
            for t in rows:
                g = xs[t] + h
                u = np.tanh(g)
                h = u * 0.5{forward_extra}
                stack.append((g, u))
            b = h * 2.0
            for t in {rows}[::-1]:
                g, u = stack.pop()
            {back}
            return b
        """


def test_a_slope_of_taped_values_is_made_for_every_turn_at_once():
    check_rewrite(batch_turn_expressions, loops("", ["    b = b * (1.0 - u * u) + g"]), """
        def f(xs, h0):
            stack = []
            h = h0
            rows = range(xs.shape[0])
            u_turns = []
            for t in rows:
                g = xs[t] + h
                u = np.tanh(g)
                h = u * 0.5
                stack.append((g, u))
                u_turns.append(u)
            b = h * 2.0
            u_all = np.array(u_turns)
            u_expr_turns = list(1.0 - u_all * u_all)
            del u_turns, u_all
            for t in rows[::-1]:
                g, u = stack.pop()
                u_expr = u_expr_turns.pop()
                b = b * u_expr + g
            return b
        """, (XS, H0), **FACTS)


@pytest.mark.parametrize("back, forward_extra, rows", [
    (["    b = u * u"], "", "rows"),  # the whole value: its row would be bound to b
    (["    u = u * 2.0", "    b = b * (1.0 - u * u)"], "", "rows"),  # bound again first
    (["    b = b * np.sum(u)"], "", "rows"),  # a reduction, not item by item
    (["    b = b * (1.0 - u * u)", "    if t == 1:", "        break"], "", "rows"),
    (["    b = b * (1.0 - u * u)", "    if t == 2:", "        continue"], "", "rows"),
    (["    b = b * (1.0 - u * u)"], "", "range(4)"),  # another loop's turns
    (["    b = b * (1.0 - u * s)"], "\n                s = h * 1.0", "rows"),  # s: not popped
])
def test_expressions_that_are_not_surely_a_turns_row_are_left_alone(back, forward_extra, rows):
    check_unchanged(batch_turn_expressions, loops("", back, forward_extra, rows), (XS, H0),
                    **{**FACTS, "shape_of": {**SHAPES, "s": (3,)}.get})


def test_a_value_written_into_is_left_alone():
    check_unchanged(batch_turn_expressions, loops("", ["    b = b * (1.0 - u * u)"],
                                                  "\n                u[0] = 1.0"), (XS, H0),
                    **FACTS)


def test_values_of_two_shapes_are_left_alone():
    check_unchanged(batch_turn_expressions, loops("", ["    b = b * (1.0 - u * g)"]), (XS, H0),
                    **{**FACTS, "shape_of": {**SHAPES, "g": (1, 3)}.get})


def lstm(W, U, b, xs, h0, c0):
    H = h0.shape[0]
    h = h0
    c = c0
    for t in range(xs.shape[0]):
        g = np.dot(W, h) + np.dot(U, xs[t]) + b
        i = 1.0 / (1.0 + np.exp(-g[:H]))
        f = 1.0 / (1.0 + np.exp(-g[H:2 * H]))
        u = np.tanh(g[2 * H:])
        c = f * c + i * u
        h = np.tanh(c) * np.cos(c)
    return np.sum(h ** 2)


def rk(y, k, A, steps):
    for _ in range(steps):
        k1 = A @ y + k * np.tanh(y)
        y2 = y + 0.1 * k1
        y = y + 0.05 * (k1 + A @ y2 + k * np.tanh(y2))
    return np.sum(y ** 2)


@pytest.mark.parametrize("f, args, wrt, exact", [
    (lstm, (0.4 * RNG.normal(size=(9, 3)), RNG.normal(size=(9, 2)), RNG.normal(size=9),
            RNG.normal(size=(5, 2)), RNG.normal(size=3), RNG.normal(size=3)), (0, 1, 2, 4, 5),
     False),  # (the sigmoid's chain b / t12 / t12 * t11 is b * K: it rounds otherwise)
    (rk, (RNG.normal(size=3), 0.7, 0.3 * RNG.normal(size=(3, 3)), 6), (0, 1, 2), True),
])
def test_the_gradient_with_slopes_of_every_turn_at_once(f, args, wrt, exact):
    text = srcad.source(f, wrt=wrt, args=args)
    assert "for every turn at once" in text, text
    got = srcad.grad(f, wrt=wrt)(*args)
    plain = srcad.grad(f, wrt=wrt, disable="turns")(*args)
    for i, g, p in zip(wrt, got, plain):
        if exact:  # (a ufunc maps each item alone: the rows are the turns' values to the bit)
            np.testing.assert_array_equal(g, p)
        np.testing.assert_allclose(g, p, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(g, central_gradient(f, args, i), rtol=1e-6, atol=1e-8)


def test_a_chain_of_products_by_taped_values_is_one_product_where_they_are_finite():
    check_rewrite(batch_turn_expressions, loops("", [
        "    s1 = b / u",
        "    s2 = s1 / u",
        "    b = safe_mul(s2, g)"]), """
        def f(xs, h0):
            stack = []
            h = h0
            rows = range(xs.shape[0])
            g_turns = []
            u_turns = []
            for t in rows:
                g = xs[t] + h
                u = np.tanh(g)
                h = u * 0.5
                stack.append((g, u))
                g_turns.append(g)
                u_turns.append(u)
            b = h * 2.0
            g_all = np.array(g_turns)
            u_all = np.array(u_turns)
            g_factor_all = 1.0 / u_all / u_all * g_all
            g_factor_finite = bool(np.isfinite(g_factor_all).all() and g_factor_all.all())
            g_factor_turns = list(g_factor_all)
            del g_turns, g_all, u_turns, u_all
            for t in rows[::-1]:
                g, u = stack.pop()
                g_factor = g_factor_turns.pop()
                b = b * g_factor if g_factor_finite else safe_mul(b / u / u, g)
            return b
        """, (XS, H0), **FACTS)


@pytest.mark.parametrize("back", [
    ["    s1 = b / u", "    b = s1 * g + s1"],  # s1 read twice
    ["    s1 = b / u", "    c = b * 2.0", "    b = s1 * g"],  # not consecutive
    ["    b = b * u"],  # one plain step: nothing to gain
    ["    s1 = u / b", "    b = s1 * g"],  # b divides: not a product by the taped values
])
def test_chains_that_are_not_products_of_one_value_are_left_alone(back):
    check_unchanged(batch_turn_expressions, loops("", back), (XS, H0), **FACTS)


@pytest.mark.parametrize("x0", [0.0, -800.0, 800.0])
def test_a_sigmoid_chain_where_its_exponential_overflows_takes_the_chain(x0):
    """At z = -800, exp(-z) is inf and 1 / (1 + e^-z)'s slope is 0: the factor's items are
    0 or nan there, so every turn takes the chain as written, whose guard gives 0."""
    W, U, b, xs, h0, c0 = (0.4 * RNG.normal(size=(9, 3)), RNG.normal(size=(9, 2)),
                           RNG.normal(size=9), RNG.normal(size=(5, 2)), RNG.normal(size=3),
                           RNG.normal(size=3))
    b = b + x0
    args = (W, U, b, xs, h0, c0)
    got = srcad.grad(lstm, wrt=(0, 1, 2))(*args)
    plain = srcad.grad(lstm, wrt=(0, 1, 2), disable="turns")(*args)
    for g, p in zip(got, plain):
        assert np.all(np.isfinite(g))
        np.testing.assert_allclose(g, p, rtol=1e-12, atol=1e-300)


def test_two_loops_over_one_range_pushing_the_same_names_are_left_alone():
    """Two primal loops over R push tuples of the same names; the first adjoint loop undoes
    the second primal loop (pairing an adjoint loop with the nearest primal loop over R gave
    the other loop's values, a wrong gradient): loops are paired only one of each kind."""
    source = """
        def f(xs, h0):
            stack = []
            h = h0
            rows = range(xs.shape[0])
            for t in rows:
                u = np.tanh(xs[t] + h)
                h = u * 0.5
                stack.append((u,))
            for t in rows:
                u = np.sin(xs[t] * h)
                h = u * 0.25
                stack.append((u,))
            b = h * 2.0
            for t in rows[::-1]:
                (u,) = stack.pop()
                b = b * (1.0 - u * u)
            for t in rows[::-1]:
                (u,) = stack.pop()
                b = b * (2.0 - u * u)
            return b
        """
    taken = set()

    def fresh_name(hint):  # (as the namer: a name once)
        while hint in taken:
            hint += "_"
        taken.add(hint)
        return hint
    got = text_of(rewritten(batch_turn_expressions, source, **{**FACTS,
                                                                "fresh_name": fresh_name}))
    assert got == text_of(parsed(source))  # (more loops than one of each: not paired at all)
    np.testing.assert_array_equal(values(got, (XS, H0)), values(source, (XS, H0)))


def two_loops_over_one_range(xs, h0):
    R = range(xs.shape[0])
    h = h0
    for t in R:
        u = np.tanh(xs[t] + h)
        v = np.tanh(u * 2.0)
        h = u * v * 0.5 + 0.5 * h
    for t in R:
        u = np.tanh(xs[t] * h)
        v = np.tanh(u * 3.0)
        h = u * v * 0.25 + 0.5 * h
    return np.sum(h ** 2)


def test_the_gradient_of_two_loops_over_one_range():
    """(The tape pushes what these loops overwrite one by one, so the pass finds no tuple here:
    the numbers are checked all the same; the pairing is the unit case above.)"""
    args = (0.3 * RNG.normal(size=(40, 3)), H0)  # (40 turns: loops, not written out)
    got = srcad.grad(two_loops_over_one_range, wrt=(0, 1))(*args)
    plain = srcad.grad(two_loops_over_one_range, wrt=(0, 1), disable="turns")(*args)
    for i, g, p in zip((0, 1), got, plain):
        np.testing.assert_array_equal(g, p)
        np.testing.assert_allclose(g, central_gradient(two_loops_over_one_range, args, i),
                                   rtol=1e-6, atol=1e-8)
