"""Numerical conventions of the reduction and shape templates (docs/numerics.md), pinned down by
exact values where the spec rows' random draws never land: ties in max/min/ptp, zeros in prod and
cumprod (to third order), a constant lane in std, NaNs in nansum/nanmean; the runtime helpers
against plain loops; and the calls srcad refuses rather than answer wrongly."""
import itertools
import math

import numpy as np
import pytest

import srcad
from srcad.runtime import HELPERS
from srcad.templates import (numpy_nan_reductions, numpy_reductions, numpy_scans, numpy_shapes,
                             numpy_sorting)


def both_jacobians(f, x, wrt=0):
    """The Jacobian of f at x by reverse mode and by forward mode."""
    return (srcad.jacobian(f, wrt=wrt, mode="reverse")(x),
            srcad.jacobian(f, wrt=wrt, mode="forward")(x))


# --- max, min, ptp: ties share the derivative evenly -------------------------------------------

def max_all(x):
    return np.max(x)


def min_rows(x):
    return np.min(x, axis=1)


def amax_cols_keepdims(x):
    return np.amax(x, axis=0, keepdims=True)


def ptp_all(x):
    return np.ptp(x)


def ptp_rows(x):
    return np.ptp(x, axis=-1)


def test_max_with_ties_splits_the_gradient_evenly():
    x = np.array([1.0, 3.0, 3.0, 2.0])
    np.testing.assert_array_equal(srcad.grad(max_all)(x), [0.0, 0.5, 0.5, 0.0])
    # forward mode: the mean of the tied entries' tangents, the same linear map
    assert srcad.jvp(max_all)(x, np.array([0.0, 1.0, 3.0, 7.0])) == 2.0
    rev, fwd = both_jacobians(max_all, x)
    np.testing.assert_array_equal(rev, fwd)


def test_min_and_amax_with_ties_along_an_axis():
    x = np.array([[3.0, 1.0, 1.0], [0.0, 2.0, 4.0], [5.0, 5.0, 5.0]])
    rev, fwd = both_jacobians(min_rows, x)
    want = np.zeros((3, 3, 3))
    want[0, 0, 1:] = 0.5
    want[1, 1, 0] = 1.0
    want[2, 2, :] = 1.0 / 3.0
    np.testing.assert_array_equal(rev, want)
    np.testing.assert_array_equal(fwd, want)
    rev, fwd = both_jacobians(amax_cols_keepdims, x.T)
    np.testing.assert_array_equal(rev, fwd)
    # column 2 of x.T is [5, 5, 5]: each entry gets a third; column 0 is [3, 1, 1]
    want = np.zeros((3, 3))
    want[:, 2] = 1 / 3
    np.testing.assert_array_equal(rev[0, 2], want)
    want = np.zeros((3, 3))
    want[0, 0] = 1.0
    np.testing.assert_array_equal(rev[0, 0], want)


def test_ptp_ties_at_both_ends_and_a_constant_lane():
    np.testing.assert_array_equal(srcad.grad(ptp_all)(np.array([1.0, 1.0, 4.0, 4.0])),
                                  [-0.5, -0.5, 0.5, 0.5])
    # a constant lane: max and min are the same entries, so the derivative is exactly 0
    x = np.array([[2.0, 2.0, 2.0], [1.0, 0.0, 3.0]])
    rev, fwd = both_jacobians(ptp_rows, x)
    np.testing.assert_array_equal(rev[0], np.zeros((2, 3)))
    np.testing.assert_array_equal(rev[1], [[0.0, 0.0, 0.0], [0.0, -1.0, 1.0]])
    np.testing.assert_array_equal(fwd, rev)


# --- prod, cumprod: zeros are exact (no division anywhere) --------------------------------------

def prod_all(x):
    return np.prod(x)


def prod_rows(x):
    return np.prod(x, axis=1)


def cumprod_rows(x):
    return np.cumprod(x, axis=-1)


def sum_cumprod(x):
    return np.sum(np.cumprod(x))


def others(x, skip):
    """The product of the entries of the 1-D x whose positions are not in `skip`."""
    return math.prod(v for i, v in enumerate(x) if i not in skip)


def prod_hessian(x):
    n = len(x)
    return np.array([[others(x, {i, j}) if i != j else 0.0 for j in range(n)]
                     for i in range(n)])


@pytest.mark.parametrize("x", [[2.0, 0.0, 3.0, 4.0], [2.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0],
                               [1.5, -2.0, 0.5, 3.0], [0.0], [7.0]])
def test_prod_with_zeros_is_exact_to_second_order(x):
    x = np.array(x)
    with np.errstate(all="raise"):  # no 0/0, no division by zero, nowhere
        grad = srcad.grad(prod_all)(x)
        jvps = [srcad.jvp(prod_all)(x, e) for e in np.eye(len(x))]
        hess = srcad.hessian(prod_all)(x)
    want = [others(x, {i}) for i in range(len(x))]
    np.testing.assert_array_equal(grad, want)
    np.testing.assert_array_equal(jvps, want)
    np.testing.assert_allclose(hess, prod_hessian(x), rtol=1e-15, atol=0)


def test_prod_with_one_and_two_zeros_by_hand():
    one = np.array([2.0, 0.0, 3.0, 4.0])
    np.testing.assert_array_equal(srcad.grad(prod_all)(one), [0.0, 24.0, 0.0, 0.0])
    two = np.array([2.0, 0.0, 3.0, 0.0])
    np.testing.assert_array_equal(srcad.grad(prod_all)(two), np.zeros(4))
    hess = srcad.hessian(prod_all)(two)
    want = np.zeros((4, 4))
    want[1, 3] = want[3, 1] = 6.0
    np.testing.assert_array_equal(hess, want)


def test_prod_along_an_axis_with_zero_one_two_and_all_zeros_per_row():
    x = np.array([[1.5, -2.0, 0.5, 3.0], [2.0, 0.0, 3.0, 4.0], [2.0, 0.0, 3.0, 0.0],
                  [0.0, 0.0, 0.0, 0.0]])
    with np.errstate(all="raise"):
        rev, fwd = both_jacobians(prod_rows, x)
    want = np.zeros((4, 4, 4))
    for r in range(4):
        want[r, r] = [others(x[r], {i}) for i in range(4)]
    np.testing.assert_array_equal(rev, want)
    np.testing.assert_array_equal(fwd, want)


def cumprod_jacobian(x):
    """d cumprod(x)_i / d x_j = product of x_k for k <= i, k != j (j <= i), by loops."""
    n = len(x)
    return np.array([[others(x[:i + 1], {j}) if j <= i else 0.0 for j in range(n)]
                     for i in range(n)])


@pytest.mark.parametrize("x", [[2.0, 0.0, 3.0, 4.0], [0.0, 2.0, 0.0, 3.0, 5.0],
                               [1.5, -2.0, 0.5, 3.0, -1.0], [0.0, 0.0], [4.0]])
def test_cumprod_with_zeros_is_exact(x):
    x = np.array(x)
    with np.errstate(all="raise"):
        rev, fwd = both_jacobians(cumprod_rows, x)
        hess = srcad.hessian(sum_cumprod)(x)
    want = cumprod_jacobian(x)
    np.testing.assert_allclose(rev, want, rtol=1e-15, atol=0)
    np.testing.assert_allclose(fwd, want, rtol=1e-15, atol=0)
    # d2/dx_i dx_j sum_k cumprod(x)_k = sum over k >= max(i, j) of the product without i, j
    n = len(x)
    want_hess = np.array([[sum(others(x[:k + 1], {i, j}) for k in range(max(i, j), n))
                           if i != j else 0.0 for j in range(n)] for i in range(n)])
    np.testing.assert_allclose(hess, want_hess, rtol=1e-14, atol=0)


def sin_prod_cols(x):
    return np.sum(np.sin(np.prod(x, axis=0)))


def sin_cumprod_rows(x):
    return np.sum(np.sin(np.cumprod(x, axis=1)))


@pytest.mark.parametrize("f", [sin_prod_cols, sin_cumprod_rows, prod_all])
def test_third_derivatives_through_the_helpers_tangents(f):
    """Forward mode over the Hessian-vector product: the helpers' tangents are differentiated
    once more (their templates only use helpers that have templates), zeros included."""
    x = np.array([[1.5, 0.0, -0.7, 1.2], [0.0, 2.0, 0.0, -1.1], [0.0, 0.0, 0.0, 0.0],
                  [0.6, 1.3, -0.8, 0.0]])
    rng = np.random.default_rng(3)
    hvp = srcad.jvp(srcad.grad(f).generated)
    third = srcad.jvp(hvp.generated)
    for point in (x, rng.standard_normal((4, 4))):
        v, u = rng.standard_normal((2, 4, 4))
        h = 1e-5
        fd = (hvp(point + h * u, v) - hvp(point - h * u, v)) / (2 * h)
        got = third(point, u, dx=v)
        assert np.max(np.abs(got - fd)) <= 1e-7 * max(1.0, np.max(np.abs(fd)))


# --- std of a constant lane ----------------------------------------------------------------------

def std_all(x):
    return np.std(x)


def std_rows(x):
    return np.std(x, axis=1, ddof=1)


def var_all(x):
    return np.var(x)


def test_std_of_a_constant_vector_has_derivative_zero():
    """std is not differentiable where it is 0 (std(c + t v) = |t| std(v)). srcad returns 0
    there, in both modes, without a NaN or a warning: the smallest subgradient of the convex
    function std (as abs takes 0 at 0). The second derivative there is also returned as 0."""
    x = np.full(5, 1.5)
    with np.errstate(all="raise"):
        assert np.std(x) == 0.0
        np.testing.assert_array_equal(srcad.grad(std_all)(x), np.zeros(5))
        assert srcad.jvp(std_all)(x, np.arange(5.0)) == 0.0
        np.testing.assert_array_equal(srcad.hessian(std_all)(x), np.zeros((5, 5)))
        # var is differentiable there: its gradient 2 (x - mean) / n is 0 indeed
        np.testing.assert_array_equal(srcad.grad(var_all)(x), np.zeros(5))


def test_std_with_one_constant_row_leaves_the_other_rows_exact():
    x = np.array([[2.0, 2.0, 2.0], [1.0, 0.0, 4.0]])
    with np.errstate(all="raise"):
        rev, fwd = both_jacobians(std_rows, x)
    np.testing.assert_array_equal(rev[0], np.zeros((2, 3)))
    row = x[1]
    want = (row - row.mean()) / (2 * np.std(row, ddof=1))
    np.testing.assert_allclose(rev[1, 1], want, rtol=1e-14)
    np.testing.assert_allclose(fwd, rev, rtol=1e-14, atol=1e-300)


# --- nansum, nanmean: NaN entries are constants -----------------------------------------------

def nansum_cols(x):
    return np.nansum(x, axis=0)


def nanmean_all(x):
    return np.nanmean(x)


def test_nan_entries_get_exactly_zero_derivative():
    x = np.array([[1.0, np.nan], [np.nan, np.nan], [3.0, 2.0]])
    rev = srcad.vjp(nansum_cols)(x, np.array([1.0, 10.0]))
    np.testing.assert_array_equal(rev, [[1.0, 0.0], [0.0, 0.0], [1.0, 10.0]])
    # a NaN (or inf) in the tangent at a NaN entry does not leak into the result
    v = np.where(np.isnan(x), np.nan, 1.0)
    np.testing.assert_array_equal(srcad.jvp(nansum_cols)(x, v), [2.0, 1.0])
    np.testing.assert_array_equal(srcad.grad(nanmean_all)(x),
                                  [[1 / 3, 0.0], [0.0, 0.0], [1 / 3, 1 / 3]])
    assert srcad.jvp(nanmean_all)(x, v) == 1.0


# --- the runtime helpers against plain loops ---------------------------------------------------

def test_linear_scan_and_exclusive_cumprod_match_loops():
    rng = np.random.default_rng(0)
    for n in (0, 1, 2, 5, 8, 13):
        g, b = rng.standard_normal((2, 3, n))
        forward, backward = np.zeros((3, n)), np.zeros((3, n))
        for i in range(n):
            forward[:, i] = g[:, i] + (b[:, i] * forward[:, i - 1] if i else 0.0)
        for i in reversed(range(n)):
            backward[:, i] = g[:, i] + (b[:, i] * backward[:, i + 1] if i < n - 1 else 0.0)
        np.testing.assert_allclose(HELPERS["linear_scan"](g, b), forward, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(HELPERS["linear_scan"](g, b, True), backward, rtol=1e-12,
                                   atol=1e-12)
        before = [[math.prod(row[:i]) for i in range(n)] for row in b]
        after = [[math.prod(row[i + 1:]) for i in range(n)] for row in b]
        np.testing.assert_allclose(HELPERS["exclusive_cumprod"](b), np.reshape(before, (3, n)),
                                   rtol=1e-12)
        np.testing.assert_allclose(HELPERS["exclusive_cumprod"](b, True),
                                   np.reshape(after, (3, n)), rtol=1e-12)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (2, 0), (-1, 1), ()])
def test_prod_of_others_and_lanes_match_brute_force(axis):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 3, 4))
    a[0, 1, 2] = a[1, 2, 0] = 0.0
    lanes = HELPERS["to_lanes"](a, axis)
    np.testing.assert_array_equal(HELPERS["from_lanes"](lanes, a, axis), a)
    reduced = range(3) if axis is None else [ax % 3 for ax in np.atleast_1d(axis)]
    want = np.empty_like(a)
    for index in itertools.product(*map(range, a.shape)):
        lane = [j for j in itertools.product(*map(range, a.shape))
                if all(j[k] == index[k] for k in range(3) if k not in reduced)]
        want[index] = math.prod(a[j] for j in lane if j != index)
    np.testing.assert_allclose(HELPERS["prod_of_others"](a, axis), want, rtol=1e-14, atol=0)


# --- what srcad refuses instead of answering wrongly ---------------------------------------------

def average_returned(x, w):
    return np.average(x, weights=w, returned=True)


def pad_mean(x):
    return np.sum(np.pad(x, 1, mode="mean"))


def atleast_two(x, y):
    return np.atleast_1d(x, y)


def sum_where(x):
    return np.sum(x, where=x > 0)


def test_unsupported_arguments_are_refused():
    for f in (average_returned, sum_where, atleast_two):
        with pytest.raises(srcad.SrcadError, match="cannot match this call"):
            srcad.grad(f)
    # np.pad in a mode that does not copy entries: refused when the derivative runs
    with pytest.raises(ValueError, match="modes constant, edge, reflect, symmetric and wrap"):
        srcad.grad(pad_mean)(np.ones(3))
    with pytest.raises(ValueError, match="modes constant, edge, reflect, symmetric and wrap"):
        srcad.jvp(pad_mean)(np.ones(3), np.ones(3))


def quantile_inverted_cdf(x):
    return np.quantile(x, 0.3, method="inverted_cdf")


def weighted_percentile(x, w):
    return np.percentile(x, 30, weights=w, method="inverted_cdf")


def test_quantiles_of_methods_that_invert_the_cdf_are_refused_when_they_run():
    """np.quantile's inverted_cdf methods (and weights=, which only they take) pick an order
    statistic by a rule srcad does not follow: a clear error, not a derivative."""
    x = np.linspace(0.1, 1.0, 7)
    with pytest.raises(ValueError, match="not method='inverted_cdf'"):
        srcad.grad(quantile_inverted_cdf)(x)
    with pytest.raises(ValueError, match="not method='inverted_cdf'"):
        srcad.jvp(quantile_inverted_cdf)(x, np.ones(7))
    with pytest.raises(ValueError, match="weighted quantiles"):
        srcad.grad(weighted_percentile)(x, np.ones(7))


def test_quantile_weights_give_numpys_values():
    """The weights are the derivative because the quantile is linear in the sorted values: the
    weighted sum of the entries is numpy's quantile, for every method srcad takes."""
    weights = numpy_sorting.quantile_weights
    rng = np.random.default_rng(3)
    for n, q, axis in itertools.product((1, 2, 5, 8), (0.0, 0.03, 0.25, 0.5, 0.61, 0.99, 1.0),
                                        (None, 1)):
        x = rng.normal(size=(3, n))
        for method in ("linear", "lower", "higher", "nearest", "midpoint", "weibull", "hazen",
                       "interpolated_inverted_cdf", "median_unbiased", "normal_unbiased"):
            got = np.sum(weights(x, q, axis, method) * x, axis=axis)
            np.testing.assert_allclose(got, np.quantile(x, q, axis=axis, method=method),
                                       rtol=1e-12, atol=1e-12, err_msg=f"{method} {n} {q}")


def int_cast(x):
    return np.sum(np.asarray(x, dtype=int) * x)


def test_a_cast_to_integers_has_derivative_zero():
    x = np.array([1.5, -0.5, 2.7])
    np.testing.assert_array_equal(srcad.grad(int_cast)(x), [1.0, 0.0, 2.0])
    assert srcad.jvp(int_cast)(x, np.ones(3)) == 3.0


# --- the helpers' own tangents, checked against finite differences ---------------------------
# (generated gradients call these helpers; their tangent templates are what forward mode over a
# gradient instantiates, so each is checked here as a function of its differentiated arguments)

to_lanes, from_lanes, shift_along, linear_scan, exclusive_cumprod, prod_of_others = (
    HELPERS[name] for name in ("to_lanes", "from_lanes", "shift_along", "linear_scan",
                               "exclusive_cumprod", "prod_of_others"))
expand_weights, unexpand_weights, undiagonal = (
    HELPERS[name] for name in ("expand_weights", "unexpand_weights", "undiagonal"))
untranspose, unjoin, untile, unrepeat, unpad, repad, pad_constant, unpad_constant = (
    HELPERS[name] for name in ("untranspose", "unjoin", "untile", "unrepeat", "unpad", "repad",
                               "pad_constant", "unpad_constant"))
untake, untake_along_axis, undiag, through_cast, cast_back = (
    HELPERS[name] for name in ("untake", "untake_along_axis", "undiag", "through_cast",
                               "cast_back"))
nan_extremum_spread, nan_extremum_pick, reverse_cumsum, scan_drop_initial, scan_with_initial = (
    HELPERS[name] for name in ("nan_extremum_spread", "nan_extremum_pick", "reverse_cumsum",
                               "scan_drop_initial", "scan_with_initial"))
WITH_NAN = np.array([[0.3, np.nan, 1.2, 1.2], [np.nan, np.nan, np.nan, np.nan],
                     [-0.5, 2.0, np.nan, 0.1]])

A3 = np.zeros((2, 3, 4))
X2 = np.zeros((3, 4))
W42 = np.ones((4, 2))


def h_to_lanes(x):
    return to_lanes(x, (2, 0))


def h_from_lanes(g):
    return from_lanes(g, A3, (0, -1))


def h_shift_along(x):
    return shift_along(x, True)


def h_linear_scan(g, b):
    return linear_scan(g, b)


def h_linear_scan_reverse(g, b):
    return linear_scan(g, b, True)


def h_exclusive_cumprod(x):
    return exclusive_cumprod(x)


def h_exclusive_cumprod_reverse(x):
    return exclusive_cumprod(x, True)


def h_prod_of_others(x):
    return prod_of_others(x, (0, 2))


def h_prod_of_others_all(x):
    return prod_of_others(x)


def h_expand_weights(w):
    return expand_weights(w, A3, (2, 0))


def h_unexpand_weights(g):
    return unexpand_weights(g, W42, A3, (2, 0))


def h_undiagonal(g):
    return undiagonal(g, A3, 1, 2, 0)


def h_untranspose(g):
    return untranspose(g, (2, 0, 1))


def h_unjoin(g):
    return unjoin(g, (np.zeros((3, 1)), X2), "h")[1]


def h_untile(g):
    return untile(g, X2, (2, 1, 2))


def h_unrepeat(g):
    return unrepeat(g, X2, np.array([2, 0, 1, 3]), 1)


def h_unpad(g):
    return unpad(g, X2, ((1, 0), (2, 1)), "reflect")


def h_repad(dx):
    return repad(dx, 2, "symmetric")


def h_pad_constant(c):
    return pad_constant(c, X2, ((1, 2), (0, 1)))


def h_unpad_constant(g):
    return unpad_constant(g, X2, ((1, 2), (2, 1)), W42[:2])


def h_untake(g):
    return untake(g, X2, np.array([[5, -1], [0, 0]]), 1, "wrap")


def h_untake_along_axis(g):
    return untake_along_axis(g, X2, np.array([[2, 0, 0, 1]]), 0)


def h_undiag(g):
    return undiag(g, np.zeros(3), 1)


def h_through_cast(g):
    return through_cast(g, np.ones(3))


def h_nan_extremum_spread(g):
    return nan_extremum_spread(g, WITH_NAN, np.nanmax(WITH_NAN, axis=1), 1)


def h_nan_extremum_pick(g):
    return nan_extremum_pick(g, WITH_NAN, np.nanmax(WITH_NAN, axis=1), 1)


def h_reverse_cumsum(g):
    return reverse_cumsum(g, 1)


def h_scan_drop_initial(g):
    return scan_drop_initial(g, 1, True)


def h_scan_with_initial(g):
    return scan_with_initial(g, 0, True)


def h_cast_back(g):
    return cast_back(g, np.ones(3, dtype=np.float32), np.ones(3))  # (float64 x: exact)


HELPER_CASES = [
    (h_to_lanes, [(2, 3, 4)]), (h_from_lanes, [(3, 8)]), (h_shift_along, [(3, 4)]),
    (h_linear_scan, [(3, 5), (3, 5)]), (h_linear_scan_reverse, [(3, 5), (3, 5)]),
    (h_exclusive_cumprod, [(3, 5)]), (h_exclusive_cumprod_reverse, [(2, 6)]),
    (h_prod_of_others, [(2, 3, 4)]), (h_prod_of_others_all, [(3, 4)]),
    (h_expand_weights, [(4, 2)]), (h_unexpand_weights, [(2, 3, 4)]), (h_undiagonal, [(3, 1)]),
    (h_untranspose, [(2, 3, 4)]), (h_unjoin, [(3, 5)]), (h_untile, [(2, 3, 8)]),
    (h_unrepeat, [(3, 6)]), (h_unpad, [(4, 7)]), (h_repad, [(2, 3)]), (h_pad_constant, [(2, 2)]),
    (h_unpad_constant, [(6, 7)]), (h_untake, [(3, 2, 2)]), (h_untake_along_axis, [(1, 4)]),
    (h_undiag, [(4, 4)]), (h_through_cast, [(3,)]), (h_cast_back, [(3,)]),
    (h_nan_extremum_spread, [(3,)]), (h_nan_extremum_pick, [(3, 4)]), (h_reverse_cumsum, [(2, 5)]),
    (h_scan_drop_initial, [(2, 5)]), (h_scan_with_initial, [(3, 2)]),
]


@pytest.mark.parametrize("f, shapes", HELPER_CASES, ids=[f.__name__ for f, _ in HELPER_CASES])
def test_helper_tangents_match_finite_differences(f, shapes):
    rng = np.random.default_rng(4)
    args = tuple(rng.uniform(-2.0, 2.0, shape) for shape in shapes)
    srcad.check_grads(f, args, wrt=tuple(range(len(args))), modes=("forward",))


def test_every_reduction_and_shape_helper_is_checked():
    modules = (numpy_reductions, numpy_nan_reductions, numpy_scans, numpy_shapes)
    mine = {name for name, f in HELPERS.items()
            if f.__module__ in {module.__name__ for module in modules}}
    checked = {f.__name__[2:] for f, _ in HELPER_CASES}
    assert mine <= checked, sorted(mine - checked)


# --- regressions: nested displays and tuples used twice (once lost or concatenated adjoints) ---

def nested_display(a, b, c, d):
    return np.sum(np.array([[a, b], [c, d]]) ** 2)


def tuple_used_twice(a, b):
    xs = (a, b)
    return np.sum(np.concatenate(xs)) + np.sum(np.concatenate(xs) ** 2)


def test_nested_list_display_in_reverse_mode():
    args = (1.0, 2.0, 3.0, 4.0)
    np.testing.assert_array_equal(srcad.grad(nested_display, wrt=(0, 1, 2, 3))(*args),
                                  [2.0, 4.0, 6.0, 8.0])


def test_tuple_variable_used_by_two_joins():
    a, b = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    ga, gb = srcad.grad(tuple_used_twice, wrt=(0, 1))(a, b)
    np.testing.assert_allclose(ga, 1.0 + 2.0 * a)
    np.testing.assert_allclose(gb, 1.0 + 2.0 * b)


def test_extremum_adjoint_without_ties_and_with_a_nan_lane_beside_a_tie():
    """unreduce_extremum skips the tie count when every lane has one extremum; a NaN lane (no
    entry equals NaN) next to a lane with a tie must not pass for that."""
    from srcad.runtime import unreduce_extremum
    x = np.array([[1.0, 3.0, 0.0], [5.0, 4.0, 2.0]])
    got = unreduce_extremum(np.array([[2.0], [3.0]]), x, x.max(axis=1, keepdims=True), 1, True)
    assert np.array_equal(got, [[0.0, 2.0, 0.0], [3.0, 0.0, 0.0]])
    x = np.array([[np.nan, 1.0, 0.0], [4.0, 4.0, 2.0]])
    with np.errstate(invalid="ignore"):
        got = unreduce_extremum(np.ones((2, 1)), x, np.max(x, axis=1, keepdims=True), 1, True)
    assert np.isnan(got[0]).all() and np.array_equal(got[1], [0.5, 0.5, 0.0])
