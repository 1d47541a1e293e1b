"""Exact values of the selection adjoints: np.maximum, np.minimum, np.fmax, np.fmin (runtime
helper selection_share), the max/min reductions (unreduce_extremum) and builtins max/min
(above_weight), against the formulas they replaced, written out here as the reference.

"The same numbers" means the same bits: signed zeros, nan positions, dtypes and result types
included. The inputs cover ties (0.0 against -0.0 too), nan and inf operands, inf and nan
cotangents on the untaken side, broadcasting, float32, one and both operands active, and arrays
small and large (selection_share selects by a bit mask from 512 entries up).
"""
import itertools

import numpy as np
import pytest

import srcad
from generated import function_of
from srcad.runtime import HELPERS, selection_share, tie_mask, unbroadcast, unreduce_extremum

above_weight = HELPERS["above_weight"]

INF, NAN = np.inf, np.nan
OPERANDS = [-INF, -2.0, -0.0, 0.0, 1.5, 2.0, INF, NAN]
COTANGENTS = [1.0, -3.0, 0.0, -0.0, INF, -INF, NAN, 2.5]


# --- the previous formulas (templates/numpy_elementwise.py, srcad/runtime.py before) ---------

def old_maximum(g, x, y):
    return (np.where(x == y, 0.5 * g, np.where(x > y, g, 0.0)),
            np.where(x == y, 0.5 * g, np.where(x > y, 0.0, g)))


def old_minimum(g, x, y):
    return (np.where(x == y, 0.5 * g, np.where(x < y, g, 0.0)),
            np.where(x == y, 0.5 * g, np.where(x < y, 0.0, g)))


def old_fmax(g, x, y):
    return (np.where(x == y, 0.5 * g, np.where((x > y) | np.isnan(y), g, 0.0)),
            np.where(x == y, 0.5 * g, np.where((x > y) | np.isnan(y), 0.0, g)))


def old_fmin(g, x, y):
    return (np.where(x == y, 0.5 * g, np.where((x < y) | np.isnan(y), g, 0.0)),
            np.where(x == y, 0.5 * g, np.where((x < y) | np.isnan(y), 0.0, g)))


OLD = {np.maximum: old_maximum, np.minimum: old_minimum, np.fmax: old_fmax, np.fmin: old_fmin}
WINS = {np.maximum: lambda x, y: x > y, np.minimum: lambda x, y: x < y,
        np.fmax: lambda x, y: (x > y) | np.isnan(y), np.fmin: lambda x, y: (x < y) | np.isnan(y)}


def old_unreduce_extremum(g, x, y, axis=None, keepdims=False):
    if axis is not None and not keepdims:
        axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
        axes = tuple(a % np.ndim(x) for a in axes)
        g = np.expand_dims(g, axes)
        y = np.expand_dims(y, axes)
    mask = np.equal(x, y)
    out = np.multiply(g, mask)
    lanes = np.size(y)
    if np.count_nonzero(mask) == lanes and np.count_nonzero(np.equal(y, y)) == lanes:
        return out
    return out / mask.sum(axis=axis, keepdims=True).astype(out.dtype)


def old_weight(a, b):
    return (a > b) + 0.5 * (a == b)


def assert_same(got, want):
    """The same type, dtype, shape and bits (so -0.0 is not 0.0), nan where there was nan (its
    sign and payload aside: a sum's order decides those)."""
    assert type(got) is type(want), (type(got), type(want))
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan), (got, want)
    assert got[~nan].tobytes() == want[~nan].tobytes(), (got, want)


def all_pairs(repeat=1, dtype=np.float64):
    """x, y, g running through every combination of OPERANDS, OPERANDS and COTANGENTS."""
    x, y, g = (np.array(v, dtype=dtype) for v in zip(*itertools.product(
        OPERANDS, OPERANDS, COTANGENTS)))
    return np.tile(x, repeat), np.tile(y, repeat), np.tile(g, repeat)


# --- selection_share, the helper itself ----------------------------------------------------------

@pytest.mark.parametrize("op", list(OLD), ids=lambda op: op.__name__)
@pytest.mark.parametrize("repeat", [1, 3])  # 512 entries and 1536: the bit mask from 512 up
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_selection_share_is_the_old_formula(op, repeat, dtype):
    x, y, g = all_pairs(repeat, dtype)
    want_x, want_y = OLD[op](g, x, y)
    wins, tied = WINS[op](x, y), x == y
    assert_same(selection_share(g, wins, tied), want_x)
    assert_same(selection_share(g, wins, tied, True), want_y)
    small = slice(7, 400, 3)  # fewer than 512 entries: np.where
    want_x, want_y = OLD[op](g[small], x[small], y[small])
    assert_same(selection_share(g[small], wins[small], tied[small]), want_x)
    assert_same(selection_share(g[small], wins[small], tied[small], True), want_y)


def test_selection_share_without_ties_small_and_large(rng):
    for n in (5, 240, 511, 512, 4096):
        x, y, g = rng.normal(size=(3, n))
        g[::7] = INF  # an inf adjoint on either side: an exact 0 where it is not taken
        g[1::11] = NAN
        g[2::5] = -0.0
        for op in OLD:
            want_x, want_y = OLD[op](g, x, y)
            assert_same(selection_share(g, WINS[op](x, y), x == y), want_x)
            assert_same(selection_share(g, WINS[op](x, y), x == y, True), want_y)


@pytest.mark.parametrize("loser", [False, True])
def test_selection_share_on_odd_layouts_and_dtypes(loser, rng):
    """Views, broadcast adjoints, other dtypes and scalars: the same numbers and types."""
    x = rng.normal(size=(3, 1200))
    x[:, ::9] = 0.0
    y = 0.0
    g = rng.normal(size=(3, 1200))
    g[:, ::4] = -INF
    pick = 1 if loser else 0
    cases = [
        (g[:, ::2], x[:, ::2]),                              # strided
        (np.asfortranarray(g), x),                           # Fortran order
        (np.broadcast_to(g[0], g.shape), x),                 # a read-only broadcast adjoint
        (g, x[0]),                                           # the mask broadcasts against g
        (g.astype(np.float16), x),                           # float16: np.where
        (g.astype(np.complex128), x),                        # complex: np.where
        (g.astype(">f8"), x),                                # big-endian: np.where
        (g.astype(np.float32), x.astype(np.float32)),
        (g, x.astype(np.float32)),                           # float64 adjoint, float32 operand
    ]
    for gg, xx in cases:
        with np.errstate(invalid="ignore"):  # 0.5 * complex inf: nan parts, as before
            want = old_maximum(gg, xx, y)[pick]
            assert_same(selection_share(gg, xx > y, xx == y, loser), want)
    for gg, xx, yy in [(2.0, 1.0, 1.0), (-3.0, 1.0, 2.0), (INF, 1.0, 2.0), (NAN, 3.0, 2.0),
                       (np.float32(2.0), np.float32(1.0), 1.0), (np.array(4.0), 1.0, NAN),
                       (-0.0, 1.0, 1.0), (2.0, np.array([1.0, 2.0, 3.0]), 2.0)]:
        want = old_maximum(gg, xx, yy)[pick]
        assert_same(selection_share(gg, xx > yy, xx == yy, loser), want)


def test_tie_mask_is_the_ties_or_none(rng):
    """x == y where something ties, else None; against a zero (relu) found by counting x's
    nonzero entries: nan and inf are not ties, -0.0 is."""
    x = rng.normal(size=(3, 7))
    x[0, 0], x[1, 1], x[2, 2] = NAN, INF, -INF
    for zero in (0.0, 0, -0.0):
        assert tie_mask(x, zero) is None and tie_mask(zero, x) is None
    assert tie_mask(x, x[0, 3]) is not None and np.count_nonzero(tie_mask(x, x[0, 3])) == 1
    assert tie_mask(x[0], x[0] + 1.0) is None  # (nan + 1 is no tie; inf + 1 would be)
    for value in (0.0, -0.0):
        x[1, 4] = value
        for zero in (0.0, 0, -0.0):
            assert_same(tie_mask(x, zero), x == 0.0)
            assert_same(tie_mask(zero, x), x == 0.0)
    y = x.copy()
    y[::2] += 1.0
    assert_same(tie_mask(x, y), x == y)
    assert tie_mask(1.0, 2.0) is None and tie_mask(2.0, 2.0) is True


def test_relu_without_ties_is_the_old_formula(rng):
    """The relu form when no entry is 0 (the tie pass skipped), nan and inf operands included."""
    x = rng.normal(size=(4, 50))
    x[0, ::7], x[1, ::5], x[2, ::3] = NAN, INF, -INF
    g = rng.normal(size=(4, 50))
    g[:, ::4] = INF
    g[:, 1::6] = NAN
    assert_same(selection_share(g, x > 0.0, tie_mask(x, 0.0)), old_maximum(g, x, 0.0)[0])
    assert_same(selection_share(g, 0.0 > x, tie_mask(0.0, x), True), old_maximum(g, 0.0, x)[1])


# --- through generated code: one operand active, or both; broadcasting; float32 ------------------

@pytest.mark.parametrize("op", list(OLD), ids=lambda op: op.__name__)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_generated_adjoints_are_the_old_formula(op, dtype, tmp_path):
    f = function_of(f"np.{op.__name__}(x, y)", "x, y", tmp_path)
    for repeat in (1, 2):
        x, y, g = all_pairs(repeat, dtype)
        want_x, want_y = OLD[op](g, x, y)
        gx, gy = srcad.vjp(f, wrt=(0, 1))(x, y, g)
        assert_same(gx, want_x)
        assert_same(gy, want_y)
        assert_same(srcad.vjp(f, wrt=0)(x, y, g), want_x)
        assert_same(srcad.vjp(f, wrt=1)(x, y, g), want_y)


@pytest.mark.parametrize("expr", ["np.maximum(x, 0.0)", "np.maximum(0.0, x)",
                                  "np.minimum(x, 0.0)", "np.fmax(x, 0.0)", "np.fmin(0.0, x)"])
def test_relu_form_with_a_constant_operand(expr, tmp_path, rng):
    f = function_of(expr, "x", tmp_path)
    op = getattr(np, expr[3:expr.index("(")])
    constant_first = "(0.0" in expr
    for n in (240, 2048):
        x = rng.normal(size=n)
        x[::10] = 0.0
        x[1::10] = -0.0
        x[2::17] = NAN
        x[3::19] = -INF
        g = rng.normal(size=n)
        g[::3] = INF
        g[1::13] = NAN
        g[2::7] = -0.0
        old = OLD[op](g, 0.0, x)[1] if constant_first else OLD[op](g, x, 0.0)[0]
        assert_same(srcad.vjp(f)(x, g), old)
        for dtype in (np.float32,):
            x32, g32 = x.astype(dtype), g.astype(dtype)
            old = OLD[op](g32, 0.0, x32)[1] if constant_first else OLD[op](g32, x32, 0.0)[0]
            assert_same(srcad.vjp(f)(x32, g32), old)


@pytest.mark.parametrize("op", list(OLD), ids=lambda op: op.__name__)
@pytest.mark.parametrize("shapes", [((6, 1), (1, 5)), ((40, 1), (1, 30)), ((2, 300), (300,)),
                                    ((3, 1, 200), (4, 1)), ((), (700,))])
def test_broadcast_operands_sum_the_old_formula(op, shapes, tmp_path, rng):
    f = function_of(f"np.{op.__name__}(x, y)", "x, y", tmp_path)
    x = np.asarray(rng.choice(OPERANDS, size=shapes[0]))
    y = np.asarray(rng.choice(OPERANDS, size=shapes[1]))
    g = rng.choice(COTANGENTS, size=np.broadcast_shapes(x.shape, y.shape))
    if x.shape == ():
        x = float(x)
    with np.errstate(invalid="ignore"):  # inf - inf in the sums over broadcast axes
        want_x, want_y = OLD[op](g, x, y)
        gx, gy = srcad.vjp(f, wrt=(0, 1))(x, y, g)
        assert_same(gx, unbroadcast(want_x, x))
        assert_same(gy, unbroadcast(want_y, y))


def test_relu_gradient_ties_and_untaken_inf():
    """What the conventions promise, spelled out: half at a tie, exactly 0 (not nan, not -0.0)
    on the untaken side for an inf or nan adjoint, everything to y when an operand is nan."""
    def f(x, y):
        return np.maximum(x, y)
    x = np.array([1.0, 2.0, -1.0, NAN, 3.0, 0.0])
    y = np.array([1.0, 1.0, 0.0, 0.0, NAN, -0.0])
    g = np.array([4.0, INF, NAN, 5.0, 6.0, -2.0])
    gx, gy = srcad.vjp(f, wrt=(0, 1))(x, y, g)
    assert_same(gx, np.array([2.0, INF, 0.0, 0.0, 0.0, -1.0]))
    assert_same(gy, np.array([2.0, 0.0, NAN, 5.0, 6.0, -1.0]))


# --- max/min reductions: unreduce_extremum -------------------------------------------------------

def extremum_cases(rng):
    x = rng.normal(size=(4, 5, 6))
    x[0, 1, :3] = 7.0          # ties along the last axis
    x[1, :, 2] = 9.0           # ties along the middle axis
    x[2, 3, 4] = NAN           # a nan lane
    x[3, 0, 1] = INF           # an inf lane
    x[3, 2, :] = -0.0
    x[3, 2, ::2] = 0.0         # 0.0 and -0.0 tie
    yield x
    yield np.abs(rng.normal(size=(4, 5, 6)))  # no ties, no nan: the fast path
    clean = rng.normal(size=(4, 5, 6))
    clean[0, 0, 0] = NAN       # a nan lane next to a lane with a tie: not tie-free
    clean[1, 1, :] = 3.0
    yield clean


@pytest.mark.parametrize("axis, keepdims", [(None, False), (None, True), (0, False), (-1, False),
                                            (1, True), ((0, 2), False), ((1, -1), True)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_unreduce_extremum_is_the_old_helper(axis, keepdims, dtype, rng):
    for x in extremum_cases(rng):
        x = x.astype(dtype)
        for reduce in (np.max, np.min):
            with np.errstate(invalid="ignore"):
                y = reduce(x, axis=axis, keepdims=keepdims)
                g = rng.normal(size=np.shape(y)).astype(dtype)
                if np.ndim(g):
                    g.flat[::3] = INF  # inf lanes: the entries off the extremum get nan, as before
                    g.flat[1::4] = -0.0
                g = g if np.ndim(g) else g[()]
                got = unreduce_extremum(g, x, y, axis, keepdims)
                want = old_unreduce_extremum(g, x, y, axis, keepdims)
            assert_same(got, want)


def test_unreduce_extremum_scalars_and_sequences():
    with np.errstate(invalid="ignore"):
        for g, x in [(2.0, [1.0, 3.0, 3.0]), (np.float32(2.0), np.array([1.0, 4.0], np.float32)),
                     (1.5, [2.0, NAN, 2.0]), (-0.0, [5.0, 1.0]), (INF, [1.0, 2.0]),
                     (3.0, np.array([[1.0, 2.0], [2.0, 2.0]]))]:
            y = np.max(x)
            assert_same(unreduce_extremum(g, x, y), old_unreduce_extremum(g, x, y))
        x = np.array([1.0, 5.0, 5.0])  # axis=0 of a vector: g and y are scalars
        for g in (2.0, np.float64(-1.0), np.array(3.0)):
            y = np.max(x, axis=0)
            assert_same(unreduce_extremum(g, x, y, 0), old_unreduce_extremum(g, x, y, 0))
        # a nan lane (no entry equals nan) beside a lane with two tied entries: as many matches
        # as lanes, but not one per lane
        x = np.array([[NAN, 1.0, 0.0], [4.0, 4.0, 2.0]], dtype=np.float32)
        for axis, xx in [(1, x), (0, x.T), (-1, x)]:
            for keepdims in (False, True):
                y = np.max(xx, axis=axis, keepdims=keepdims)
                g = np.array([2.0, 3.0], dtype=np.float32).reshape(y.shape)
                want = old_unreduce_extremum(g, xx, y, axis, keepdims)
                assert np.isnan(want).sum() == 3
                assert_same(unreduce_extremum(g, xx, y, axis, keepdims), want)
        x = np.array([[1.0, 2.0], [8.0, 8.0]])[:, ::-1]  # a reversed view
        y = np.min(x, axis=1)
        g = np.broadcast_to(np.array(2.0), (2,))
        assert_same(unreduce_extremum(g, x, y, 1), old_unreduce_extremum(g, x, y, 1))


def test_softmax_shift_gradient_through_generated_code(rng):
    """The max-shift of a softmax, as in the tiny_mlp benchmark: with and without ties."""
    def shifted(z):
        return z - np.max(z, axis=1, keepdims=True)
    for z in (rng.normal(size=(15, 3)), np.array([[1.0, 1.0, 0.0], [2.0, 3.0, 3.0]])):
        g = rng.normal(size=z.shape)
        want = g + old_unreduce_extremum(-g.sum(axis=1, keepdims=True), z,
                                         z.max(axis=1, keepdims=True), 1, True)
        np.testing.assert_array_equal(srcad.vjp(shifted)(z, g), want)


# --- builtins max/min: above_weight --------------------------------------------------------------

NUMBERS = [-INF, -2.0, -0.0, 0.0, 1.5, 3, INF, NAN]


@pytest.mark.parametrize("kind", [float, int, np.float64, np.float32, np.array,
                                  lambda v: np.array([v])])
def test_above_weight_is_the_old_weight(kind):
    """The same value and type (a Python float for Python numbers, a float64 for numpy scalars,
    which matters: a float64 weight makes a float32 adjoint float64, as it did)."""
    for a, b in itertools.product(NUMBERS, NUMBERS):
        if kind is int and not (np.isfinite(a) and np.isfinite(b)):
            continue
        a, b = kind(a), kind(b)
        new, old = above_weight(a, b), old_weight(a, b)
        assert_same(new, old)
        with np.errstate(invalid="ignore"):
            for g in COTANGENTS + [np.float32(-2.0), np.float32(INF)]:
                assert_same(g * new, g * old)


def builtin_max(x, y):
    return max(x, y) * 3.0


def builtin_min(x, y):
    return min(x, y) * y


@pytest.mark.parametrize("f", [builtin_max, builtin_min])
def test_builtin_max_min_derivatives(f):
    """Reverse and forward mode on Python floats: the old weights' numbers, as Python floats."""
    values = [1.0, 2.0, NAN, -0.0, 0.0, INF]
    for x, y in itertools.product(values, repeat=2):
        z = min(x, y)
        if f is builtin_max:
            want = (3.0 * old_weight(x, y), 3.0 * old_weight(y, x))
        else:  # min(x, y) * y
            want = (y * old_weight(y, x), z + y * old_weight(x, y))
        with np.errstate(invalid="ignore"):
            gx, gy = srcad.vjp(f, wrt=(0, 1))(x, y, 1.0)
            tx = srcad.jvp(f, wrt=0)(x, y, 1.0)
            ty = srcad.jvp(f, wrt=1)(x, y, 1.0)
        for got, wanted in zip((gx, gy, tx, ty), want + want):
            assert isinstance(got, float)
            assert_same(np.float64(got), np.float64(wanted))


def weighted_bins(x, idx):
    y = np.bincount(idx, weights=x)
    return np.sum(y ** 2 * np.arange(1.0, y.size + 1))


def test_bincount_bins_are_decided_by_the_indices_values():
    """The number of bins is max(idx) + 1: calls with indices of one shape and other values
    have other shapes inside, so they do not share code specialized to the first one."""
    x = np.linspace(0.5, 2.0, 5)
    gradient = srcad.grad(weighted_bins)
    for idx in ([1, 3, 0, 1, 2], [1, 1, 1, 1, 1], [4, 0, 6, 6, 2]):
        idx = np.array(idx)
        bins = np.bincount(idx, weights=x)
        expected = 2 * bins[idx] * (idx + 1.0)
        np.testing.assert_allclose(gradient(x, idx), expected, rtol=1e-12)
