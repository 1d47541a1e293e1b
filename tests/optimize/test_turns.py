"""optimize/turns.py: an elementwise expression of values the adjoint sweep pops from the tape
(an activation's slope, 1 - u * u) is made for every turn at once after the primal loop, and
each adjoint turn pops its row. Unit cases as text (the rewrite, and the cases it must leave
alone); end to end the gradients of recurrences against central differences and, to the bit,
against the gradient with the pass switched off (a ufunc maps each item alone)."""
import numpy as np
import pytest

import srcad
from srcad.optimize.turns import batch_turn_expressions

from before_after import check_rewrite, check_unchanged
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


@pytest.mark.parametrize("f, args, wrt", [
    (lstm, (0.4 * RNG.normal(size=(9, 3)), RNG.normal(size=(9, 2)), RNG.normal(size=9),
            RNG.normal(size=(5, 2)), RNG.normal(size=3), RNG.normal(size=3)), (0, 1, 2, 4, 5)),
    (rk, (RNG.normal(size=3), 0.7, 0.3 * RNG.normal(size=(3, 3)), 6), (0, 1, 2)),
])
def test_the_gradient_with_slopes_of_every_turn_at_once(f, args, wrt):
    text = srcad.source(f, wrt=wrt, args=args)
    assert "for every turn at once" in text, text
    got = srcad.grad(f, wrt=wrt)(*args)
    plain = srcad.grad(f, wrt=wrt, disable="turns")(*args)
    for i, g, p in zip(wrt, got, plain):
        np.testing.assert_array_equal(g, p)
        np.testing.assert_allclose(g, central_gradient(f, args, i), rtol=1e-6, atol=1e-8)
