"""Every optimizer pass run by itself on a function written out (the before/after harness,
tests/before_after.py): the text the pass makes, and the same numbers before and after. The
pass-specific files (test_cancel.py, test_factor.py, test_signs.py, test_rank_one.py, ...)
check the passes inside whole builds; these pin down each rewrite by itself."""
import numpy as np
import pytest

from srcad.optimize import passes
from srcad.optimize.broadcasts import sink_broadcasts
from srcad.optimize.cancel import cancel_factors
from srcad.optimize.copies import copies
from srcad.optimize.deadcode import dead_code
from srcad.optimize.factor import factor_contributions
from srcad.optimize.inplace import in_place
from srcad.optimize.layout import lay_out
from srcad.optimize.outer import batch_outer_products
from srcad.optimize.proportional import fold_proportional
from srcad.optimize.signs import sink_signs
from srcad.optimize.singular import drop_singular_guards
from srcad.optimize.simplify import constants
from srcad.optimize.strength import reduce_strength

import test_contract
import test_factorizations
import test_guards
import test_hoist
import test_diagonal
import test_rank_one
import test_tiles
import test_turns
from before_after import check_rewrite, check_unchanged

RNG = np.random.default_rng(4)
A, B = RNG.normal(size=(3, 4)), RNG.normal(size=(4, 2))


def test_copies_are_propagated_into_their_reads():
    check_rewrite(copies, """
        def f(x, w):
            t = x
            y = t * w
            z = y
            return z + t
        """, """
        def f(x, w):
            y = x * w
            return y + x
        """, (A, 2.5))


def test_unread_pure_statements_are_dropped():
    check_rewrite(dead_code, """
        def f(x, w):
            t = np.sin(x)
            u = np.cos(x) * w
            return t * 2.0
        """, """
        def f(x, w):
            t = np.sin(x)
            return t * 2.0
        """, (A, 2.5))


def test_dead_code_drops_a_chain_feeding_only_dropped_statements_in_one_sweep():
    # (backwards, u is decided knowing v went: one sweep is the fixed point, dead_code's only)
    check_rewrite(dead_code, """
        def f(x, w):
            t = np.sin(x)
            s = x * w
            s = s + 1.0
            u = np.cos(s) * w
            v = u + t
            y = t
            return t * 2.0
        """, """
        def f(x, w):
            t = np.sin(x)
            return t * 2.0
        """, (A, 2.5))


def test_reductions_of_float_arrays_become_their_methods():
    a, b = RNG.normal(size=(6, 5)), RNG.normal(size=(5, 2))
    check_rewrite(reduce_strength, """
        def f(a, b):
            t = np.sum(a, axis=1)
            m = np.mean(a, 0)
            d = np.dot(a, b)
            return t, m, d
        """, """
        def f(a, b):
            t = a.sum(axis=1)
            m = a.sum(axis=0) / 6
            d = a.dot(b)
            return (t, m, d)
        """, (a, b), inexact={"a", "b"}, arrays={"a", "b"}, shapes={"a": (6, 5), "b": (5, 2)})


def test_sums_over_short_axes_are_sums_of_slices():
    """(the same additions in the same order: numpy adds a short axis's items one by one)"""
    big = RNG.normal(size=(3, 4, 50))
    check_rewrite(reduce_strength, """
        def f(a, b):
            t = np.sum(a, axis=1)
            k = a.sum(axis=(0,), keepdims=True)
            return t, k
        """, """
        def f(a, b):
            t = a[:, 0] + a[:, 1] + a[:, 2] + a[:, 3]
            k = a[0:1] + a[1:2] + a[2:3]
            return (t, k)
        """, (big, B), inexact={"a", "b"}, arrays={"a", "b"}, shapes={"a": (3, 4, 50)})


def test_the_max_and_min_over_a_short_axis_chain_its_slices():
    """(the same values, a NaN included: numpy's reduction over a short last axis costs per
    row, 19 us for 512 x 8 against 5 for the chain; an axis of more than 8 items, or a result
    of fewer than 16, keeps its method)"""
    big = RNG.normal(size=(40, 3))
    big[5, 1] = np.nan
    check_rewrite(reduce_strength, """
        def f(a, b):
            m = np.max(a, axis=1, keepdims=True)
            n = a.min(axis=1)
            k = b.max(axis=1)
            return m, n, k
        """, """
        def f(a, b):
            m = np.maximum(np.maximum(a[..., 0], a[..., 1]), a[..., 2])[..., None]
            n = np.minimum(np.minimum(a[..., 0], a[..., 1]), a[..., 2])
            k = b.max(axis=1)
            return (m, n, k)
        """, (big, RNG.normal(size=(40, 9))), inexact={"a", "b"}, arrays={"a", "b"},
        shapes={"a": (40, 3), "b": (40, 9)})


def test_pairwise_differences_are_made_in_fortran_order():
    """(the same items, laid out with the long first axis innermost: 12 us against 46 for
    64 x 64 x 3; the matrix follows its result through elementwise operations, reductions and
    views, each read the same in either layout)"""
    x = RNG.normal(size=(64, 3))
    shapes = {"x": (64, 3), "t1": (64, 1, 3), "t2": (1, 64, 3), "diff": (64, 64, 3),
              "d2": (64, 64), "e": (64, 64), "b": (64, 3)}
    check_rewrite(lay_out, """
        def f(x):
            t1 = x[:, None, :]
            t2 = x[None, :, :]
            diff = t1 - t2
            d2 = (diff * diff).sum(axis=2)
            e = np.exp(-d2)
            b = np.matmul(e[:, None, :], diff)[:, 0, :]
            return b
        """, """
        def f(x):
            t1 = x[:, None, :]
            t2 = x[None, :, :]
            diff = np.subtract(t1, t2, order='F')
            d2 = (diff * diff).sum(axis=2)
            e = np.exp(-d2)
            b = np.matmul(e[:, None, :], diff)[:, 0, :]
            return b
        """, (x,), arrays={"x", "t1", "t2"}, shape_of=shapes.get, shapes=shapes,
        returns_values=False)


def test_a_difference_that_reaches_the_return_keeps_its_layout():
    x = RNG.normal(size=(64, 3))
    shapes = {"x": (64, 3), "t1": (64, 1, 3), "t2": (1, 64, 3), "diff": (64, 64, 3)}
    check_unchanged(lay_out, """
        def f(x):
            t1 = x[:, None, :]
            t2 = x[None, :, :]
            diff = t1 - t2
            return diff * 2.0
        """, (x,), arrays={"x", "t1", "t2"}, shape_of=shapes.get, shapes=shapes,
        returns_values=False)


def test_sums_with_few_items_keep_their_method():
    """(x[..., i] costs more than the reduction below ~128 items: tiny_mlp's softmax)"""
    check_unchanged(reduce_strength, """
        def f(a, b):
            t = a.sum(axis=1)
            return t
        """, (A, B), inexact={"a", "b"}, arrays={"a", "b"}, shapes={"a": (3, 4)})


def test_a_reduction_of_a_name_not_known_as_an_array_stays():
    check_unchanged(reduce_strength, """
        def f(a, b):
            return np.sum(a, axis=1)
        """, (A, B), inexact=set(), arrays=set(), shapes={})


def test_a_negated_contribution_is_subtracted_instead():
    check_rewrite(sink_signs, """
        def f(bA, y, A):
            bD = -(bA * y).sum(axis=0)
            bC = bD / 2.0
            bA = bA + bC * A
            return bA
        """, """
        def f(bA, y, A):
            bD = (bA * y).sum(axis=0)
            bC = bD / 2.0
            bA = bA - bC * A
            return bA
        """, (A, A * 0.5, A + 1.0), derived={"bD", "bC", "bA"})


def test_the_two_contributions_of_a_quadratic_form_share_their_scalar_factor():
    x, M = RNG.normal(size=4), RNG.normal(size=(4, 4))
    check_rewrite(factor_contributions, """
        def f(s, t1, x, A):
            bx = s * t1
            bt1 = s * x
            bx = bx + np.dot(bt1, A)
            return bx
        """, """
        def f(s, t1, x, A):
            bt1 = s * x
            bx = s * (t1 + np.dot(x, A))
            return bx
        """, (1.7, M @ x, x, M), derived={"bx", "bt1"},
        shape_of={"s": (), "t1": (4,), "x": (4,), "A": (4, 4)}.get,
        probed={"s": "d", "t1": "d", "x": "d", "A": "d"}.get)


def test_numbers_are_folded():
    check_rewrite(constants, """
        def f(x):
            t = 2.0 * 3.0
            y = x * t
            z = y * 1.0
            return z + 0.0
        """, """
        def f(x):
            t = 6.0
            y = x * t
            z = y
            return z + 0.0
        """, (A,), derived=set(), float64={"x", "y", "z"}, shares={}, inexact={"x", "y", "z"},
        arrays={"x", "y", "z"})


def test_a_float_minus_zero_is_the_float():
    # (x - 0.0 is x to the bit, -0.0 and nan too; x + 0.0 and 0.0 - x are not: -0.0 + 0.0 is 0.0)
    x = np.array([-0.0, 0.0, np.nan, -1.5, np.inf])
    check_rewrite(constants, """
        def f(x, n):
            a = x - 0.0
            b = x + 0.0
            c = 0.0 - x
            d = n - 0.0
            return a, b, c, d
        """, """
        def f(x, n):
            a = x
            b = x + 0.0
            c = 0.0 - x
            d = n - 0.0
            return (a, b, c, d)
        """, (x, 3), derived=set(), float64={"x"}, shares={}, inexact={"x"}, arrays={"x"})
    assert np.signbit(x - 0.0)[0] and not np.signbit(x + 0.0)[0]


def test_accumulation_into_an_owned_array_happens_in_place():
    check_rewrite(in_place, """
        def f(x, g, h):
            bx = np.zeros(4)
            bx = bx + h
            bx = bx - unindex(g, x, slice(1, None, None))
            return bx
        """, """
        def f(x, g, h):
            bx = np.zeros(4)
            bx += h
            bx[1:] -= g
            return bx
        """, (A[0], A[1, :3], A[2]), seeded=True,
        shape_of={"x": (4,), "g": (3,), "h": (4,), "bx": (4,)}.get)


def test_the_adjoint_of_a_view_with_unit_axes_is_a_reshape_and_not_owned():
    """x[:, None, :] names each item of x once: unindex(g, x, that index) is g without the
    axis of length 1. The reshape is a view of g, so the sum after it is not made in place
    (bx += ... would write into g; the sum's result is bx's own again); an index that drops
    items keeps unindex."""
    check_rewrite(in_place, """
        def f(x, g, h, k):
            bx = unindex(g, x, (slice(None, None, None), None, slice(None, None, None)))
            bx = bx + unindex(h, x, (None, slice(None, None, None)))
            bx = bx + unindex(k, x, (slice(None, None, None), None, 0))
            return bx, g
        """, """
        def f(x, g, h, k):
            bx = np.reshape(g, (3, 4))
            bx = bx + np.reshape(h, (3, 4))
            bx += unindex(k, x, (slice(None, None, None), None, 0))
            return bx, g
        """, (A, A[:, None, :] * 2.0, A[None] * 3.0, A[:, None, 0] * 5.0), seeded=True,
        shape_of={"x": (3, 4), "g": (3, 1, 4), "h": (1, 3, 4), "k": (3, 1), "bx": (3, 4)}.get)


SLICES = dict(seeded=True, shape_of={"x": (6,), "g": (2,), "h": (2,), "k": (6,),
                                    "bx": (6,)}.get)
SLICE_ARGS = (RNG.normal(size=6), RNG.normal(size=2), RNG.normal(size=2), RNG.normal(size=6))


def test_adjoints_of_disjoint_slices_of_fresh_zeros_are_stored_not_added():
    """Bounds the specialization fixes (int literals, items of a parameter's shape, sums and
    products of them): a slice no store since np.zeros has reached still holds zeros, so
    bx[i] += g is bx[i] = g (and -= is = -g). A slice that overlaps one stored is added."""
    check_rewrite(in_place, """
        def f(x, g, h, k):
            s = x.shape
            n = s[0]
            m = n - 2
            bx = unindex(g, x, slice(None, 2, None))
            bx = bx + unindex(h, x, slice(2, 4, None))
            bx = bx - unindex(h, x, slice(m, None, None))
            bx = bx + unindex(g, x, slice(1, 3, None))
            return bx
        """, """
        def f(x, g, h, k):
            s = x.shape
            n = s[0]
            m = n - 2
            bx = np.zeros((6,), g.dtype)
            bx[:2] = g
            bx[2:4] = h
            bx[m:] = -h
            bx[1:3] += g
            return bx
        """, SLICE_ARGS, **SLICES)


def test_after_any_other_use_of_the_zeros_slices_are_added():
    """What else happens to the zeros (a sum into all of them, a store into an item) is not
    followed: the next slice is added. So is one whose bound the specialization does not fix
    (len(k) of a parameter: the pass reads only shapes; the shape of a local, which the probe
    saw but the specialization does not fix)."""
    check_rewrite(in_place, """
        def f(x, g, h, k):
            bx = unindex(g, x, slice(None, 2, None))
            bx = bx + k
            bx = bx + unindex(h, x, slice(2, 4, None))
            by = unindex(g, x, slice(None, 2, None))
            j = len(k) - 2
            by = by + unindex(h, x, slice(j, None, None))
            bz = unindex(g, x, slice(None, 2, None))
            bz[3] = 1.0
            bz = bz + unindex(h, x, slice(2, 4, None))
            y = k[:j]
            t = y.shape
            q = t[0]
            bw = unindex(g, x, slice(None, 2, None))
            bw = bw + unindex(h, x, slice(q, None, None))
            return bx, by, bz, bw
        """, """
        def f(x, g, h, k):
            bx = np.zeros((6,), g.dtype)
            bx[:2] = g
            bx += k
            bx[2:4] += h
            by = np.zeros((6,), g.dtype)
            by[:2] = g
            j = len(k) - 2
            by[j:] += h
            bz = np.zeros((6,), g.dtype)
            bz[:2] = g
            bz[3] = 1.0
            bz[2:4] += h
            y = k[:j]
            t = y.shape
            q = t[0]
            bw = np.zeros((6,), g.dtype)
            bw[:2] = g
            bw[q:] += h
            return bx, by, bz, bw
        """, SLICE_ARGS, **dict(SLICES, shape_of={"x": (6,), "g": (2,), "h": (2,), "k": (6,),
                                                   "y": (4,), "bx": (6,), "by": (6,),
                                                   "bz": (6,), "bw": (6,)}.get))


@pytest.mark.parametrize("t_char", ["d", "f"])
def test_a_spread_adjoint_is_left_to_broadcasting(t_char):
    """np.full((10,), bt8) * t -> bt8 * t where that keeps the dtype: for a float64 t; for a
    float32 t6 the product was float64 and bt8 * t6 (a Python float: weak) would be float32,
    so that spread stays (met by the float64 x, it goes)."""
    names = iter(range(100))
    t6 = RNG.normal(size=10).astype(np.float64 if t_char == "d" else np.float32)
    kept = "bt8" if t_char == "d" else "bt7"
    check_rewrite(sink_broadcasts, """
        def f(bt8, t6, x):
            bt7 = np.full((10,), bt8)
            b_x = bt7 * t6
            bt6 = bt7 * x
            return b_x, bt6
        """, f"""
        def f(bt8, t6, x):
            bt7 = np.full((10,), bt8)
            b_x = {kept} * t6
            bt6 = bt8 * x
            return (b_x, bt6)
        """, (0.7, t6, RNG.normal(size=10)),
        shape_of={"bt8": (), "t6": (10,), "x": (10,), "bt7": (10,), "b_x": (10,),
                  "bt6": (10,)}.get, fresh=lambda prefix: f"{prefix}{next(names)}", new_shapes={},
        probed={"bt8": "d", "t6": t_char, "x": "d", "bt7": "d", "b_x": "d", "bt6": "d"}.get)


@pytest.mark.parametrize("w_char", ["d", "f"])
def test_the_dot_product_of_a_spread_number_keeps_the_dtype(w_char):
    """np.dot(np.full((10,), bt8), w) -> bt8 * w.sum() for a float64 w; for a float32 w the sum
    would be float32 (a float64 dot before): it stays."""
    names = iter(range(100))
    w = RNG.normal(size=10).astype(np.float64 if w_char == "d" else np.float32)
    after = "bt8 * w.sum()" if w_char == "d" else "np.dot(bt7, w)"
    check_rewrite(sink_broadcasts, """
        def f(bt8, w):
            bt7 = np.full((10,), bt8)
            s = np.dot(bt7, w)
            return s
        """, f"""
        def f(bt8, w):
            bt7 = np.full((10,), bt8)
            s = {after}
            return s
        """, (0.7, w), shape_of={"bt8": (), "w": (10,), "bt7": (10,), "s": ()}.get,
        fresh=lambda prefix: f"{prefix}{next(names)}", new_shapes={},
        probed={"bt8": "d", "w": w_char, "bt7": "d", "s": "d"}.get)


@pytest.mark.parametrize("t_char", ["d", "f"])
def test_a_factor_taken_out_of_a_sum_keeps_the_dtype(t_char):
    """(c * t2).sum(axis=(0,)) -> t2.sum(axis=(0,)) * c for a row c (the same along the summed
    axis) and a float64 t2; a float32 t2 would be summed in float32 (float64 before)."""
    names = iter(range(100))
    t2 = RNG.normal(size=(4, 3)).astype(np.float64 if t_char == "d" else np.float32)
    after = ("t2.sum(axis=(0,)) * c" if t_char == "d" else "(c * t2).sum(axis=(0,))")
    check_rewrite(sink_broadcasts, """
        def f(c, t2):
            s = (c * t2).sum(axis=(0,))
            return s
        """, f"""
        def f(c, t2):
            s = {after}
            return s
        """, (RNG.normal(size=3), t2),
        shape_of={"c": (3,), "t2": (4, 3), "s": (3,)}.get,
        fresh=lambda prefix: f"{prefix}{next(names)}", new_shapes={},
        probed={"c": "d", "t2": t_char, "s": "d"}.get)


def test_a_factor_common_to_numerator_and_denominator_cancels():
    check_rewrite(cancel_factors, """
        def f(t1, c):
            t2 = t1 * c
            bt2 = 1.0 / t2
            bt1 = bt2 * c
            return bt1
        """, """
        def f(t1, c):
            t2 = t1 * c
            bt2 = 1.0 / t2
            bt1 = 1.0 / t1
            return bt1
        """, (RNG.uniform(1, 2, size=3), RNG.uniform(1, 2, size=3)), derived={"bt2", "bt1"},
        shape_of=dict.fromkeys(("t1", "c", "t2", "bt2", "bt1"), (3,)).get,
        probed=dict.fromkeys(("t1", "c", "t2", "bt2", "bt1"), "d").get)


def test_tangents_proportional_to_another_are_folded():
    check_rewrite(fold_proportional, """
        def f(x, dx):
            t2 = 3.7 * x
            dt2 = 3.7 * dx
            t3 = 1.0 - x
            dt3 = -dx
            y = t2 * t3
            dy = dt2 * t3 + t2 * dt3
            return dy
        """, """
        def f(x, dx):
            t2 = 3.7 * x
            t3 = 1.0 - x
            y = t2 * t3
            dy = dx * (3.7 * t3 - t2)
            return dy
        """, (A, B[0, 0] * A), tangents={"dx", "dt2", "dt3", "dy"})


def test_guards_that_matter_only_where_the_output_is_not_finite_are_dropped():
    check_rewrite(drop_singular_guards, """
        def f(bD, D, g, s):
            bC = safe_div(bD, 2.0 * D)
            bt = safe_mul(g, s)
            return bC + bt
        """, """
        def f(bD, D, g, s):
            bC = bD / (2.0 * D)
            bt = slope_mul(g, s)
            return bC + bt
        """, (A, A + 3.0, A * 2.0, A - 1.0), singular={"D": {"ZN"}, "s": {"N"}}, arrays=set())


def test_a_python_number_divides_plainly_only_an_array():
    # (a Python float over 0.0 raises ZeroDivisionError, where safe_div gives inf)
    check_rewrite(drop_singular_guards, """
        def f(g, h, n):
            a = safe_div(g, n)
            b = safe_div(h, n)
            return a * b
        """, """
        def f(g, h, n):
            a = g / n
            b = safe_div(h, n)
            return a * b
        """, (A, 2.5, 1.5), singular={"n": {"ZN", "number"}}, arrays={"g"})


OUTER_FACTS = dict(shape_of={"bW": (3, 3), "bt8": (3,), "h": (3,)}.get,
                   fresh_name=lambda prefix: prefix)


def _outer_loop(head, batched):
    """f with a loop whose turn runs `head` (lines) and adds np.outer(bt8, h) to bW: as
    written, or as batch_outer_products writes it (rows, a matrix product per 32 turns)."""
    turn = "".join(f"\n                {line}" for line in head)
    if not batched:
        return f"""
        def f(hs, gs):
            bW = np.zeros((3, 3))
            for t in range(40):{turn}
                bW += np.outer(bt8, h)
            return bW
        """
    return f"""
        def f(hs, gs):
            bW = np.zeros((3, 3))
            bt8_rows = []
            h_rows = []
            for t in range(40):{turn}
                bt8_rows.append(bt8)
                h_rows.append(h)
                if len(bt8_rows) == 32:
                    bt8_rows = np.array(bt8_rows)
                    h_rows = np.array(h_rows)
                    bW += np.dot(bt8_rows.T, h_rows)
                    bt8_rows = []
                    h_rows = []
            if bt8_rows:
                bt8_rows = np.array(bt8_rows)
                h_rows = np.array(h_rows)
                bW += np.dot(bt8_rows.T, h_rows)
            return bW
        """


@pytest.mark.parametrize("head", [
    ["bt8 = gs[t]", "h = hs[t]"],
    # a vector made anew in the turn and filled before the product: a row kept by reference
    # keeps its values (the LSTM's gate adjoints: bg = np.zeros(n); bg[:h] = ...)
    ["bt8 = np.zeros(3)", "bt8[:2] = gs[t, :2]", "h = hs[t]"],
], ids=["read", "made_anew_and_filled"])
def test_outer_products_of_a_loop_are_added_32_steps_at_a_time(head):
    hs, gs = RNG.normal(size=(40, 3)), RNG.normal(size=(40, 3))
    check_rewrite(batch_outer_products, _outer_loop(head, False), _outer_loop(head, True),
                  (hs, gs), **OUTER_FACTS)


@pytest.mark.parametrize("body", [
    # written after the product (in the turn): the kept row would have the later values
    """bt8 = np.zeros(3)
                bt8[:2] = gs[t, :2]
                h = hs[t]
                bW += np.outer(bt8, h)
                bt8[2] = h[0]""",
    # one array through every turn (not made anew), written before the product: later turns
    # write into the rows kept (every row is that one array)
    """h[t % 3] = gs[t, 0]
                bt8 = gs[t]
                bW += np.outer(bt8, h)""",
    # a view of the array, kept into the next turn and written there
    """if t > 0:
                    view[0] = 5.0
                bt8 = np.zeros(3)
                bt8[:2] = gs[t, :2]
                bW += np.outer(bt8, h)
                view = bt8[1:]""",
])
def test_outer_products_of_a_vector_written_after_it_is_kept_are_not_batched(body):
    hs, gs = RNG.normal(size=(40, 3)), RNG.normal(size=(40, 3))
    check_unchanged(batch_outer_products, f"""
        def f(hs, gs):
            bW = np.zeros((3, 3))
            h = hs[0].copy()
            view = None
            for t in range(40):
                {body}
            return bW
        """, (hs, gs), **OUTER_FACTS)


def test_every_pass_of_the_pipeline_has_a_before_after_test_here():
    """A new pass gets its test in this file (or test_rank_one.py, test_contract.py,
    test_factorizations.py, test_guards.py, test_hoist.py, test_tiles.py, test_turns.py,
    test_diagonal.py): the
    check above for it."""
    tested = {id(v) for module in (test_rank_one, test_contract, test_factorizations,
                                   test_guards, test_hoist, test_tiles, test_turns,
                                   test_diagonal)
              for v in vars(module).values()} | {id(v) for v in globals().values()}
    declared = [p for entry in passes.PIPELINE for p in getattr(entry, "passes", (entry,))]
    assert [p.name for p in declared if id(p.run) not in tested] == []
