"""optimize/hoist.py: a loop over every row of a matrix X that multiplies each row by a matrix
M the loop does not change makes all the products before it, one matrix product, and reads its
row in the loop. Unit cases as text (the rewrite, and the cases it must leave alone: a loop that
may not read every row, a matrix the loop changes, a loop name bound again, f's own values in a
value_and_grad); end to end the gradients of recurrences against central differences and
against the gradient the pass is switched off in, and value_and_grad's value equal to f's to
the bit."""
import numpy as np
import pytest

import srcad
from srcad.optimize import hoist
from srcad.optimize.hoist import hoist_row_products

from before_after import check_rewrite, check_unchanged
from regressions.numeric import central_gradient

RNG = np.random.default_rng(5)
XS, U, V = RNG.normal(size=(6, 3)), RNG.normal(size=(4, 3)), RNG.normal(size=(3, 4))
H = RNG.normal(size=4)
SHAPES = {"xs": (6, 3), "U": (4, 3), "V": (3, 4), "h": (4,), "r": (3,), "z": (4,)}
FACTS = dict(shape_of=SHAPES.get, arrays={"xs", "U", "V", "h"}, derived={"z", "w"},
             returns_values=False, fresh_name=lambda hint: hint, new_shapes={}, shapes=SHAPES)


def test_a_loop_over_the_rows_makes_their_products_before_it():
    check_rewrite(hoist_row_products, """
        def f(xs, U, V, h):
            n = xs.shape[0]
            rows = range(n)
            for t in rows:
                r = xs[t]
                z = np.dot(U, r)
                w = xs[t] @ V
                h = np.tanh(h + z + w)
            return h
        """, """
        def f(xs, U, V, h):
            n = xs.shape[0]
            rows = range(n)
            U_xs = np.dot(xs, U.T)
            V_xs = np.dot(xs, V)
            for t in rows:
                z = U_xs[t]
                w = V_xs[t]
                h = np.tanh(h + z + w)
            del U_xs, V_xs
            return h
        """, (XS, U, V, H), **FACTS)


def test_the_row_read_after_the_loop_by_a_loop_that_binds_it_anew_goes():
    check_rewrite(hoist_row_products, """
        def f(xs, U, h):
            for t in range(len(xs)):
                r = xs[t]
                h = np.tanh(h + U.dot(r))
            for t in range(len(xs))[::-1]:
                r = xs[t]
                h = h * r.sum()
            return h
        """, """
        def f(xs, U, h):
            U_xs = np.dot(xs, U.T)
            for t in range(len(xs)):
                h = np.tanh(h + U_xs[t])
            del U_xs
            for t in range(len(xs))[::-1]:
                r = xs[t]
                h = h * r.sum()
            return h
        """, (XS, U, H), **{**FACTS, "derived": set()})


def test_a_row_read_after_the_loop_stays():
    check_rewrite(hoist_row_products, """
        def f(xs, U, h):
            for t in range(len(xs)):
                r = xs[t]
                h = np.tanh(h + U.dot(r))
            return h * r.sum()
        """, """
        def f(xs, U, h):
            U_xs = np.dot(xs, U.T)
            for t in range(len(xs)):
                r = xs[t]
                h = np.tanh(h + U_xs[t])
            del U_xs
            return h * r.sum()
        """, (XS, U, H), **{**FACTS, "derived": set()})


@pytest.mark.parametrize("loop", [
    "for t in range(2):",  # (may not read every row: the products would be work not done)
    "for t in range(1, xs.shape[0]):",
    "for t in range(len(U)):",
])
def test_a_loop_that_may_not_read_every_row_is_left_alone(loop):
    check_unchanged(hoist_row_products, f"""
        def f(xs, U, h):
            {loop}
                h = np.tanh(h + U.dot(xs[t]))
            return h
        """, (XS, U, H), **FACTS)


@pytest.mark.parametrize("change", [
    "U = U * 0.5",  # the matrix bound again in the loop
    "xs[t] = xs[t] * 2.0",  # the rows written into
    "U[0] = xs[t]",  # the matrix written into
    "t = t - 1",  # the loop's name bound again
])
def test_a_loop_that_changes_what_the_product_reads_is_left_alone(change):
    check_unchanged(hoist_row_products, f"""
        def f(xs, U, h):
            for t in range(xs.shape[0]):
                h = np.tanh(h + U.dot(xs[t]))
                {change}
            return h
        """, (XS.copy(), U.copy(), H), **FACTS)


def test_products_larger_than_the_bound_are_left_alone(monkeypatch):
    monkeypatch.setattr(hoist, "MAX_ITEMS", 6 * 4 - 1)  # (xs: 6 rows, U: 4 of them)
    check_unchanged(hoist_row_products, """
        def f(xs, U, h):
            for t in range(xs.shape[0]):
                h = np.tanh(h + U.dot(xs[t]))
            return h
        """, (XS, U, H), **FACTS)


def test_a_matrix_bound_more_than_once_is_left_alone():
    check_unchanged(hoist_row_products, """
        def f(xs, U, h):
            W = U * 2.0
            for t in range(xs.shape[0]):
                h = np.tanh(h + W.dot(xs[t]))
            W = U
            return h + W[0, 0]
        """, (XS, U, H), **{**FACTS, "arrays": FACTS["arrays"] | {"W"},
                            "shape_of": {**SHAPES, "W": (4, 3)}.get})


def test_f_values_are_not_hoisted_where_the_code_returns_them():
    check_unchanged(hoist_row_products, """
        def f(xs, U, h):
            for t in range(xs.shape[0]):
                z = U.dot(xs[t])
                h = np.tanh(h + z)
            return h
        """, (XS, U, H), **{**FACTS, "returns_values": True})


def rnn(W, U, b, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(np.dot(W, h) + np.dot(U, xs[t]) + b)
    return np.sum(h ** 2)


def rnn_rows_on_the_left(W, V, b, xs, h0):
    h = h0
    for t in range(len(xs)):
        h = np.tanh(h @ W + xs[t] @ V + b)
    return np.sum(h ** 2)


ARGS = (0.4 * RNG.normal(size=(4, 4)), RNG.normal(size=(4, 3)), RNG.normal(size=4),
        RNG.normal(size=(7, 3)), RNG.normal(size=4))
ARGS_LEFT = (ARGS[0], RNG.normal(size=(3, 4))) + ARGS[2:]


@pytest.mark.parametrize("f, args", [(rnn, ARGS), (rnn_rows_on_the_left, ARGS_LEFT)])
def test_forward_mode_through_a_recurrence_with_hoisted_products(f, args):
    """jvp against the gradient (the dot-product test) and against jvp with the pass off."""
    wrt = (0, 1, 2, 3, 4)
    v = tuple(RNG.normal(size=np.shape(a)) for a in args)
    text = srcad.source(f, mode="forward", kind="jvp", wrt=wrt, args=args)
    assert "for every t at once" in text, text
    tangent = srcad.jvp(f, wrt=wrt)(*args, *v)
    plain = srcad.jvp(f, wrt=wrt, disable="hoist")(*args, *v)
    np.testing.assert_allclose(tangent, plain, rtol=1e-13)
    grads = srcad.grad(f, wrt=wrt)(*args)
    np.testing.assert_allclose(tangent, sum(np.vdot(g, d) for g, d in zip(grads, v)),
                               rtol=1e-12)
    for i, g in zip(wrt, grads):
        np.testing.assert_allclose(g, central_gradient(f, args, i), rtol=1e-6, atol=1e-8)


def test_reverse_mode_keeps_its_products_in_the_loop():
    """A reverse sweep's peak is the end of the primal loop, where the tape is full: the hoisted
    products would add T rows to it (the RNN benchmark's peak 57 -> 69 KiB, over its 1.5x of
    the hand-written gradient's), for 9 % of its time. Reverse mode leaves the pass out."""
    assert "for every t at once" not in srcad.source(rnn, wrt=(0, 1), args=ARGS)
    assert "for every t at once" in srcad.source(srcad.grad(rnn, wrt=1), mode="forward",
                                                 kind="jvp", wrt=1, args=ARGS)
