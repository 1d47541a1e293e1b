"""NumPy signal functions of 1-D sequences: convolve, correlate (bilinear: each mode is a
window of the full convolution) and interp.

interp: x on a knot takes the slope of the segment to its right (the last knot: to its left);
outside [xp[0], xp[-1]] the value is left/right (by default fp[0]/fp[-1]), slope 0 in x.
"""
import numpy as np

from srcad.rules.registry import adjoint, d, non_differentiable, tangent
from srcad.runtime import helper, unbroadcast

from .numpy_shapes import untake


# ---------------------------------------------------------------------------------------------
# runtime helpers of the second part: convolutions, polynomials, interpolation, covariance,
# layout

@helper(linear=False)
def conv_window(n_a, n_v, mode, correlate=False):
    """(start, length) of np.convolve(a, v, mode) (correlate: np.correlate) within the full
    product of a and v (lengths n_a, n_v)."""
    if not isinstance(mode, str):
        mode = {0: "valid", 1: "same", 2: "full"}[int(mode)]
    kind = mode.lower()[:1]
    lo, hi = min(n_a, n_v), max(n_a, n_v)
    if kind == "f":
        return 0, n_a + n_v - 1
    if kind == "v":
        return lo - 1, hi - lo + 1
    if kind == "s":  # np.correlate centres a shorter first operand differently
        return (n_a // 2 if correlate and n_a < n_v else (lo - 1) // 2), hi
    raise ValueError(f"mode must be 'full', 'same' or 'valid', not {mode!r}")


@helper
def full_conv_adjoint(g, v, a, start=0):
    """The adjoint of a in np.convolve(a, v, 'full')[start:start + len(g)]: g put in its place
    in the full product, correlated with v (shaped like a)."""
    full = np.zeros(np.size(a) + np.size(v) - 1, dtype=np.result_type(g, np.asarray(v), float))
    # (v as np.convolve takes it: a list or tuple too; result_type reads a list as a dtype)
    full[start:start + np.size(g)] = np.ravel(g)
    return np.reshape(np.correlate(full, np.ravel(v), "valid"), np.shape(a))


@helper
def full_conv_adjoint_by(v, g, a, start=0):
    """full_conv_adjoint(g, v, a, start), linear in its first argument v."""
    return full_conv_adjoint(g, v, a, start)


@helper
def convolve_by(t, v, mode="full"):
    """np.convolve(t, v, mode), linear in t."""
    return np.convolve(t, v, mode)


@helper
def correlate_by(t, v, mode="valid"):
    """np.correlate(t, v, mode), linear in t."""
    return np.correlate(t, v, mode)


@helper
def correlate_with(t, a, mode="valid"):
    """np.correlate(a, t, mode), linear in t."""
    return np.correlate(a, t, mode)


@helper(linear=False)
def interp_segment(x, xp):
    """The segment [xp[j], xp[j+1]] np.interp(x, xp, fp) interpolates on: the one to the right
    of a knot (the last for x >= xp[-1], the first for x < xp[0])."""
    n = np.size(xp)
    if n < 2:
        raise ValueError("srcad differentiates np.interp with two or more points xp")
    return np.clip(np.searchsorted(xp, x, side="right") - 1, 0, n - 2)


@helper(tangent="linear")
def masked(v, mask):
    """v where mask, 0 elsewhere (np.where: a NaN or inf outside the mask cannot leak)."""
    return np.where(mask, v, 0.0)


@helper
def interp_fp_share(dfp, j, t, below, above, left=None, right=None):
    """fp's share of the tangent of np.interp: dfp interpolated on the segment j at the
    fraction t inside [xp[0], xp[-1]], and dfp[0] (dfp[-1]) below (above) the range when left
    (right) is None."""
    inside = np.logical_not(np.logical_or(below, above))
    v = np.where(inside, np.take(dfp, j) * (1.0 - t) + np.take(dfp, j + 1) * t, 0.0)
    if left is None:
        v = v + np.where(below, np.take(dfp, 0), 0.0)
    if right is None:
        v = v + np.where(above, np.take(dfp, -1), 0.0)
    return v


# tangents of the second part's helpers

@tangent(full_conv_adjoint)
def full_conv_adjoint_tangent(z, g, v, a, start=0):
    d[z] = full_conv_adjoint(d[g], v, a, start) + full_conv_adjoint_by(d[v], g, a, start)


@tangent(full_conv_adjoint_by)
def full_conv_adjoint_by_tangent(z, v, g, a, start=0):
    d[z] = full_conv_adjoint_by(d[v], g, a, start) + full_conv_adjoint(d[g], v, a, start)


@tangent(convolve_by)
def convolve_by_tangent(z, t, v, mode="full"):
    d[z] = convolve_by(d[t], v, mode) + convolve_by(d[v], t, mode)  # convolve is symmetric


@tangent(correlate_by)
def correlate_by_tangent(z, t, v, mode="valid"):
    d[z] = correlate_by(d[t], v, mode) + correlate_with(d[v], t, mode)


@tangent(correlate_with)
def correlate_with_tangent(z, t, a, mode="valid"):
    d[z] = correlate_with(d[t], a, mode) + correlate_by(d[a], t, mode)


# linear in dfp; t enters through the interpolation weights
@tangent(interp_fp_share)
def interp_fp_share_tangent(z, dfp, j, t, below, above, left=None, right=None):
    d[z] = (interp_fp_share(d[dfp], j, t, below, above, left, right)
            + masked((np.take(dfp, j + 1) - np.take(dfp, j)) * d[t],
                     np.logical_not(np.logical_or(below, above))))


# ---------------------------------------------------------------------------------------------
# convolution and correlation of 1-D sequences: bilinear. Each mode is a window of the full
# product: np.convolve(a, v, mode) = full[start:start + length] with full_k = sum_i a_i v_{k-i},
# and np.correlate(a, v, mode) the same window of the full convolution of a with v reversed.

@adjoint(np.convolve)
def convolve(y, a, v, mode="full"):
    window = conv_window(np.size(a), np.size(v), mode, False)
    d[a] = full_conv_adjoint(d[y], v, a, window[0])
    d[v] = full_conv_adjoint(d[y], a, v, window[0])


@tangent(np.convolve)
def convolve(y, a, v, mode="full"):
    d[y] = convolve_by(d[a], v, mode) + convolve_by(d[v], a, mode)


@adjoint(np.correlate)
def correlate(y, a, v, mode="valid"):
    window = conv_window(np.size(a), np.size(v), mode, True)
    d[a] = full_conv_adjoint(d[y], np.flip(v), a, window[0])
    d[v] = np.flip(full_conv_adjoint(d[y], a, v, window[0]))


@tangent(np.correlate)
def correlate(y, a, v, mode="valid"):
    d[y] = correlate_by(d[a], v, mode) + correlate_with(d[v], a, mode)


# ---------------------------------------------------------------------------------------------
# interp: on the segment j, y = fp_j (1 - t) + fp_{j+1} t with t = (x - xp_j) / h,
# h = xp_{j+1} - xp_j:  dy/dx = s (the slope), dy/dxp_j = -s (1 - t), dy/dxp_{j+1} = -s t;
# outside [xp[0], xp[-1]] y = left (fp[0]) or right (fp[-1]). (period is not supported.)
@adjoint(np.interp)
def interp(y, x, xp, fp, left=None, right=None):
    j = interp_segment(x, xp)
    x0 = np.take(xp, j)
    h = np.take(xp, j + 1) - x0
    t = (x - x0) / h
    slope = (np.take(fp, j + 1) - np.take(fp, j)) / h
    below = x < np.take(xp, 0)
    above = x > np.take(xp, -1)
    g = masked(d[y], np.logical_not(np.logical_or(below, above)))
    d[x] = g * slope
    d[fp] = untake(g * (1.0 - t), fp, j) + untake(g * t, fp, j + 1)
    d[xp] = -(untake(g * slope * (1.0 - t), xp, j) + untake(g * slope * t, xp, j + 1))
    if left is None:
        d[fp] = untake(np.sum(masked(d[y], below)), fp, 0)
    else:
        d[left] = unbroadcast(masked(d[y], below), left)
    if right is None:
        d[fp] = untake(np.sum(masked(d[y], above)), fp, np.size(fp) - 1)
    else:
        d[right] = unbroadcast(masked(d[y], above), right)


@tangent(np.interp)
def interp(y, x, xp, fp, left=None, right=None):
    j = interp_segment(x, xp)
    x0 = np.take(xp, j)
    h = np.take(xp, j + 1) - x0
    t = (x - x0) / h
    slope = (np.take(fp, j + 1) - np.take(fp, j)) / h
    below = x < np.take(xp, 0)
    above = x > np.take(xp, -1)
    d[y] = (interp_fp_share(d[fp], j, t, below, above, left, right)
            + masked(slope * (d[x] - np.take(d[xp], j) * (1.0 - t) - np.take(d[xp], j + 1) * t),
                     np.logical_not(np.logical_or(below, above)))
            + masked(d[left], below) + masked(d[right], above))


non_differentiable(conv_window, interp_segment)
