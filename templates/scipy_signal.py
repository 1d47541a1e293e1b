"""scipy.signal convolutions of real arrays: convolve, correlate and fftconvolve (N-d, every
method, fftconvolve's axes) and convolve2d, correlate2d (2-d, boundary='fill' with fillvalue=0
only). Registered only when scipy imports: srcad itself does not need scipy.

Each is bilinear: y = W(F(in1, in2)) where F is the full convolution,

    F[k] = sum_i in1[i] in2[k - i]        (shape in1.shape + in2.shape - 1 on every axis)

of in2 itself (convolve, fftconvolve, convolve2d) or of in2 flipped along every axis (correlate,
correlate2d), and W the mode's window of F (signal_window): 'full' all of it, 'same' in1's shape
centred, 'valid' where the smaller operand fits inside the larger one, whichever operand that
is. fftconvolve convolves along `axes` only; along the others it multiplies entry by entry
(equal lengths: there F is that long and W takes it whole) or broadcasts a length 1 (the same
as convolving with one entry, which is how these axes are windowed).

The tangent applies the op to one tangent at a time, the other operand as it is (@bilinear).
The adjoint puts the cotangent g in its place in a zero array shaped like F (signal_unwindow,
whose adjoint cuts the window out again: signal_window_of) and takes the transpose of the full
convolution, a correlation in mode 'valid' with the other operand:

    d in1 = correlate(G, in2, 'valid'),   d in2 = correlate(G, in1, 'valid')       (convolve)
    d in1 = convolve(G, in2, 'valid'),    d in2 = flip(correlate(G, in1, 'valid'))  (correlate)

G is at least as large as either operand on every axis, so scipy never swaps the operands of
these 'valid' calls. The derivatives are these ops again, so derivatives of every order are.

Complex values are refused by srcad as a whole (scipy conjugates in2 in the correlations). The
other boundaries of convolve2d and correlate2d are refused where they are differentiated
(signal_fill_mode): 'wrap' and 'symm' read in1 across its edges, and fillvalue != 0 makes the
op affine in in1, not linear.
"""
import numpy as np

from srcad.rules.registry import adjoint, bilinear, by_name, d, non_differentiable, tangent
from srcad.runtime import helper, unbroadcast

try:
    import scipy.signal
except ImportError:  # pragma: no cover - without scipy nothing here is registered
    scipy = None


bilinear_of = by_name(bilinear, scipy.signal if scipy else None)
tangent_of = by_name(tangent, scipy.signal if scipy else None)


# ---------------------------------------------------------------------------------------------
# runtime helpers: the window of a mode, and putting a cotangent in its place

@helper(linear=False)
def signal_window(shape1, shape2, mode, kind="convolve", axes=None):
    """(slices, full shape): scipy.signal.<kind>(in1, in2, mode) for in1, in2 of shapes shape1,
    shape2 is full[slices], full the full convolution (kind: convolve, correlate, fftconvolve,
    convolve2d or correlate2d; axes: fftconvolve's)."""
    if len(shape1) != len(shape2):
        raise ValueError(f"scipy.signal.{kind}: in1 and in2 have {len(shape1)} and "
                         f"{len(shape2)} axes")
    if min(shape1, default=1) == 0 or min(shape2, default=1) == 0:
        raise ValueError(f"srcad differentiates scipy.signal.{kind} of non-empty arrays only")
    if not (isinstance(mode, str) and mode in ("full", "same", "valid")):
        raise ValueError(f"scipy.signal.{kind}: mode must be 'full', 'same' or 'valid', not "
                         f"{mode!r}")
    n = len(shape1)
    along = range(n) if axes is None else [a % n for a in np.atleast_1d(axes).tolist()]
    slices, full = [], []
    for axis, (n1, n2) in enumerate(zip(shape1, shape2)):
        if axis not in along and n1 == n2:  # fftconvolve: entry by entry along this axis
            slices.append(slice(0, n1))
            full.append(n1)
            continue
        if axis not in along and min(n1, n2) != 1:
            raise ValueError(f"scipy.signal.{kind}: lengths {n1} and {n2} along axis {axis}, "
                             f"which it does not convolve along")
        length = n1 + n2 - 1
        if mode == "full":
            start, size = 0, length
        elif mode == "same":  # in1's length, centred (correlate2d: the other way when even)
            start, size = (n2 // 2 if kind == "correlate2d" else (n2 - 1) // 2), n1
        else:
            start, size = min(n1, n2) - 1, abs(n1 - n2) + 1
        slices.append(slice(start, start + size))
        full.append(length)
    return tuple(slices), tuple(full)


@helper(tangent="linear")
def signal_unwindow(g, in1, in2, mode, kind="convolve", axes=None):
    """The adjoint of the window: g put in its place in zeros shaped like the full convolution
    of in1 and in2 (for scipy.signal.<kind>(in1, in2, mode, ...))."""
    slices, full = signal_window(np.shape(in1), np.shape(in2), mode, kind, axes)
    out = np.zeros(full, dtype=np.result_type(g, 0.0))
    out[slices] = g
    return out


@helper(tangent="linear")
def signal_window_of(h, in1, in2, mode, kind="convolve", axes=None):
    """The window of h (shaped like the full convolution of in1 and in2) that
    scipy.signal.<kind>(in1, in2, mode, ...) returns: the adjoint of signal_unwindow."""
    return h[signal_window(np.shape(in1), np.shape(in2), mode, kind, axes)[0]]


@adjoint(signal_unwindow)
def signal_unwindow_adjoint(z, g, in1, in2, mode, kind="convolve", axes=None):
    d[g] = signal_window_of(d[z], in1, in2, mode, kind, axes)


@adjoint(signal_window_of)
def signal_window_of_adjoint(z, h, in1, in2, mode, kind="convolve", axes=None):
    d[h] = signal_unwindow(d[z], in1, in2, mode, kind, axes)


@helper(linear=False)
def signal_fill_mode(mode, boundary, fillvalue, kind):
    """mode, once boundary is 'fill' and fillvalue 0 (what srcad differentiates in
    scipy.signal.convolve2d and correlate2d); a ValueError saying what to write otherwise."""
    if not (isinstance(boundary, str) and boundary in ("fill", "pad")):
        raise ValueError(f"srcad differentiates scipy.signal.{kind} with boundary='fill' only, "
                         f"not boundary={boundary!r}: pad in1 yourself with np.pad (mode='wrap' "
                         f"for 'wrap' or 'circular', mode='symmetric' for 'symm' or "
                         f"'symmetric') and call scipy.signal.{kind} with mode='valid' (srcad "
                         f"differentiates both)")
    if np.iscomplexobj(fillvalue) or fillvalue != 0:
        raise ValueError(f"srcad differentiates scipy.signal.{kind} with fillvalue=0 only, not "
                         f"fillvalue={fillvalue!r}: pad in1 yourself with np.pad(in1, ..., "
                         f"constant_values=fillvalue) and call scipy.signal.{kind} with "
                         f"mode='valid' (srcad differentiates both)")
    return mode


@helper(tangent="linear")
def signal_no_fill_derivative(g, kind):
    """Raised where a derivative needs scipy.signal.<kind>'s derivative in fillvalue (reached
    only when fillvalue carries one)."""
    raise ValueError(f"srcad does not differentiate scipy.signal.{kind} in fillvalue: pass "
                     f"fillvalue as a constant 0, or pad in1 yourself with np.pad(in1, ..., "
                     f"constant_values=fillvalue) and call scipy.signal.{kind} with "
                     f"mode='valid'")


@adjoint(signal_no_fill_derivative)  # (it raises: so does its adjoint, in a gradient of one)
def signal_no_fill_derivative_adjoint(z, g, kind):
    d[g] = signal_no_fill_derivative(d[z], kind)


non_differentiable(signal_window, signal_fill_mode)


# ---------------------------------------------------------------------------------------------
# N-d: convolve and correlate (any method: the numbers are the same), fftconvolve (its axes)

@bilinear_of("convolve")
def convolve(y, in1, in2, mode="full", method="auto"):
    full = signal_unwindow(d[y], in1, in2, mode, "convolve")
    d[in1] = scipy.signal.correlate(full, in2, "valid", method)
    d[in2] = scipy.signal.correlate(full, in1, "valid", method)


@bilinear_of("correlate")
def correlate(y, in1, in2, mode="full", method="auto"):
    full = signal_unwindow(d[y], in1, in2, mode, "correlate")
    d[in1] = scipy.signal.convolve(full, in2, "valid", method)
    d[in2] = np.flip(scipy.signal.correlate(full, in1, "valid", method))


# along the axes it does not convolve along, fftconvolve multiplies entry by entry: there the
# 'valid' fftconvolve of the transpose multiplies too, and unbroadcast sums a broadcast length 1
@bilinear_of("fftconvolve")
def fftconvolve(y, in1, in2, mode="full", axes=None):
    full = signal_unwindow(d[y], in1, in2, mode, "fftconvolve", axes)
    d[in1] = unbroadcast(scipy.signal.fftconvolve(full, np.flip(in2, axes), "valid", axes), in1)
    d[in2] = unbroadcast(scipy.signal.fftconvolve(full, np.flip(in1, axes), "valid", axes), in2)


# ---------------------------------------------------------------------------------------------
# 2-d: convolve2d and correlate2d with boundary='fill', fillvalue=0. Declared bilinear (so a
# zero tangent of one operand drops its term), with tangents written here that refuse the other
# boundaries as the adjoints do (the declaration's tangent would pass them through).

@bilinear_of("convolve2d")
def convolve2d(y, in1, in2, mode="full", boundary="fill", fillvalue=0):
    full = signal_unwindow(d[y], in1, in2, signal_fill_mode(mode, boundary, fillvalue,
                                                            "convolve2d"), "convolve2d")
    d[in1] = scipy.signal.correlate2d(full, in2, "valid")
    d[in2] = scipy.signal.correlate2d(full, in1, "valid")
    d[fillvalue] = signal_no_fill_derivative(d[y], "convolve2d")


@tangent_of("convolve2d")
def convolve2d(y, in1, in2, mode="full", boundary="fill", fillvalue=0):
    filled = signal_fill_mode(mode, boundary, fillvalue, "convolve2d")
    d[y] = (scipy.signal.convolve2d(d[in1], in2, filled)
            + scipy.signal.convolve2d(in1, d[in2], filled)
            + signal_no_fill_derivative(d[fillvalue], "convolve2d"))


@bilinear_of("correlate2d")
def correlate2d(y, in1, in2, mode="full", boundary="fill", fillvalue=0):
    full = signal_unwindow(d[y], in1, in2, signal_fill_mode(mode, boundary, fillvalue,
                                                            "correlate2d"), "correlate2d")
    d[in1] = scipy.signal.convolve2d(full, in2, "valid")
    d[in2] = np.flip(scipy.signal.correlate2d(full, in1, "valid"))
    d[fillvalue] = signal_no_fill_derivative(d[y], "correlate2d")


@tangent_of("correlate2d")
def correlate2d(y, in1, in2, mode="full", boundary="fill", fillvalue=0):
    filled = signal_fill_mode(mode, boundary, fillvalue, "correlate2d")
    d[y] = (scipy.signal.correlate2d(d[in1], in2, filled)
            + scipy.signal.correlate2d(in1, d[in2], filled)
            + signal_no_fill_derivative(d[fillvalue], "correlate2d"))
