"""optimize/tiles.py: an adjoint made as zeros and filled slice by slice, the slices tiling it,
is the concatenation of its parts, made at the last part. Unit cases as text (the rewrite, and
the cases it must leave alone: slices that do not tile or overlap, a part bound again or
written into before the last store, the array read in between, a part of another dtype); end to
end the gradients of programs that read an array in parts against central differences and
against the gradient the pass is switched off in."""
import numpy as np
import pytest

import srcad
from srcad.optimize.tiles import concatenate_tiles

from before_after import check_rewrite, check_unchanged
from regressions.numeric import central_gradient

RNG = np.random.default_rng(8)
H0, A, B, C = RNG.normal(size=3), RNG.normal(size=3), RNG.normal(size=3), RNG.normal(size=3)
SHAPES = {"h0": (3,), "a": (3,), "b": (3,), "c": (3,), "g": (9,), "w": (3,)}
SHAPES["b2"] = (2,)
FACTS = dict(shape_of=SHAPES.get, float64={"a", "b", "b2", "c", "g", "w"})


def test_stores_that_tile_the_zeros_become_one_concatenation():
    check_rewrite(concatenate_tiles, """
        def f(h0, a, b, c):
            s = h0.shape
            H = s[0]
            t2 = 2 * H
            g = np.zeros((9,), b.dtype)
            g[H:t2] = b
            w = a * 2.0
            g[t2:] = c
            g[:H] = w
            return g * 1.5
        """, """
        def f(h0, a, b, c):
            s = h0.shape
            H = s[0]
            t2 = 2 * H
            w = a * 2.0
            g = np.concatenate((w, b, c))
            return g * 1.5
        """, (H0, A, B, C), **FACTS)


CASES = {
    "a gap": ("g[:H] = a", "g[H2:] = c", "b2 = b[:2]", "g[H:H2m] = b2"),
    "overlapping parts": ("g[:H] = a", "g[Hm:H2m] = b", "g[H2:] = c"),
    "a part bound again": ("g[:H] = a", "a = a * 2.0", "g[H:H2] = b", "g[H2:] = c"),
    "a part written into": ("g[:H] = a", "a[0] = 1.0", "g[H:H2] = b", "g[H2:] = c"),
    "a part added to": ("g[:H] = a", "a += 1.0", "g[H:H2] = b", "g[H2:] = c"),
    "the array read": ("g[:H] = a", "w = g * 2.0", "g[H:H2] = b", "g[H2:] = c"),
    "a call with out=": ("g[:H] = a", "np.multiply(a, 2.0, out=a)", "g[H:H2] = b",
                         "g[H2:] = c"),
    "a method that writes": ("g[:H] = a", "a.sort()", "g[H:H2] = b", "g[H2:] = c"),
    "a step": ("g[0:9:3] = a", "g[1:9:3] = b", "g[2:9:3] = c"),
    "a bound not fixed": ("g[:H] = a", "g[H:n2] = b", "g[H2:] = c"),
}
PREAMBLE = "\n        ".join(["s = h0.shape", "H = s[0]", "H2 = 2 * H", "Hm = H - 1",
                               "H2m = H2 - 1", "n2 = len(a) * 2"])


@pytest.mark.parametrize("case", sorted(CASES))
def test_stores_that_do_not_surely_tile_the_zeros_are_left_alone(case):
    lines = "\n        ".join(CASES[case])
    check_unchanged(concatenate_tiles, f"""
    def f(h0, a, b, c):
        {PREAMBLE}
        g = np.zeros((9,), b.dtype)
        {lines}
        return g * 1.5
    """, (H0, A.copy(), B.copy(), C), **FACTS)


TILED = f"""
    def f(h0, a, b, c):
        {PREAMBLE}
        g = np.zeros((9,), b.dtype)
        g[:H] = a
        g[H:H2] = b
        g[H2:] = c
        return g * 1.5
    """


def test_the_same_stores_with_sizes_fixed_do_tile():
    check_rewrite(concatenate_tiles, TILED, f"""
    def f(h0, a, b, c):
        {PREAMBLE}
        g = np.concatenate((a, b, c))
        return g * 1.5
    """, (H0, A, B, C), **FACTS)


def test_a_part_of_another_dtype_is_left_alone():
    check_unchanged(concatenate_tiles, TILED, (H0, A, B, C),
                    **{**FACTS, "float64": {"a", "b", "g"}})


def gates(W, x, h0):
    H = h0.shape[0]
    g = W @ x
    i = 1.0 / (1.0 + np.exp(-g[:H]))
    f = np.tanh(g[H:2 * H])
    o = g[2 * H:] ** 2
    return np.sum(i * f + o * h0)


def gates_in_a_loop(W, xs, h0):
    H = h0.shape[0]
    h = h0
    for t in range(xs.shape[0]):
        g = W @ np.concatenate((xs[t], h))
        h = np.tanh(g[:H]) * (1.0 / (1.0 + np.exp(-g[H:])))
    return np.sum(h ** 2)


@pytest.mark.parametrize("f, args", [
    (gates, (RNG.normal(size=(9, 4)), RNG.normal(size=4), RNG.normal(size=3))),
    (gates_in_a_loop, (0.5 * RNG.normal(size=(6, 5)), RNG.normal(size=(4, 2)),
                       RNG.normal(size=3))),
])
def test_the_gradient_of_an_array_read_in_parts(f, args):
    text = srcad.source(f, wrt=(0, 1, 2), args=args)
    assert "bg = np.concatenate((" in text and "bg = np.zeros" not in text, text
    got = srcad.grad(f, wrt=(0, 1, 2))(*args)
    plain = srcad.grad(f, wrt=(0, 1, 2), disable="tiles")(*args)
    for i, g, p in zip(range(3), got, plain):
        np.testing.assert_allclose(g, p, rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(g, central_gradient(f, args, i), rtol=1e-6, atol=1e-8)
