"""NumPy's discrete Fourier transforms: fft, ifft, rfft, irfft along one axis, fft2, ifft2, fftn,
ifftn along several, and fftshift, ifftshift. All are linear.

Complex values follow one convention (autograd's): the adjoint of a complex value z = u + iv is
dL/du - i dL/dv, so a holomorphic op's adjoint is the cotangent times its derivative, with no
conjugate, and every template srcad has for + - * / ** sum, indexing and exp stays right for
complex values. The adjoint of a linear map is its transpose (not its conjugate transpose); a
real value's gradient is the real part of its adjoint (pipeline: the adjoints that reach a real
value from a complex one are written np.real(...)). pipeline.check_complex lets complex values
meet only ops whose templates keep to this, in builds specialized to the arguments, where the
probe knows which values are complex.

    fft:    y = F P x   (P crops or pads x to n along axis)     d[x] = P^T F d[y]  (F = F^T)
    rfft:   y = S F P x (S keeps frequencies 0 .. n // 2)        d[x] = P^T F S^T d[y]
    irfft:  x_m = c sum_k w_k Re(y_k e^{2 pi i k m / n})        d[y_k] = w_k ifft(d[x])_k
            (w_k = 2 but for 0 and, n even, n / 2; c the norm's scale, which ifft shares)

np.imag(z) has the adjoint -1j d[y] for a complex z (and 0 for a real one, whose imaginary
part is 0 whatever it is); np.real and np.conj have theirs in numpy_elementwise.py.

fft2, ifft2, fftn and ifftn are fft and ifft along several axes at once; srcad takes them with
s=None (their own lengths). The norm ("backward", "ortho", "forward") scales F and its transpose
alike.
"""
import numpy as np

from srcad.rules.registry import adjoint, d, linear, non_differentiable, tangent
from srcad.runtime import helper


@helper(tangent="linear")
def fft_fit(g, length, axis=-1):
    """g cropped or padded with zeros to `length` entries along `axis` (what np.fft does to its
    input for n=length): its own transpose sends the result back (fft_fit to g's length)."""
    have = np.shape(g)[axis]
    if have == length:
        return g
    if have > length:
        return np.take(g, np.arange(length), axis=axis)
    widths = [(0, 0)] * np.ndim(g)
    widths[axis] = (0, length - have)
    return np.pad(g, widths)


@linear(fft_fit)
def fft_fit_(z, g, length, axis=-1):
    d[g] = fft_fit(d[z], np.shape(g)[axis], axis)


@helper(linear=False)
def irfft_weights(n, axis, ndim):
    """w_k of irfft's adjoint, shaped to broadcast along `axis` of an ndim-dimensional array: 1
    for frequency 0 (and n / 2 for even n), 2 for the others, which stand for two."""
    w = np.full(n // 2 + 1, 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    shape = [1] * ndim
    shape[axis] = n // 2 + 1
    return np.reshape(w, shape)


non_differentiable(irfft_weights)


@helper(linear=False)
def fft_length(x, n, axis):
    """The n of a transform called with n=None: x's length along axis."""
    return np.shape(x)[axis] if n is None else n


non_differentiable(fft_length)


@linear(np.fft.fft, keywords=("n", "axis", "norm"))
def fft(y, a, n=None, axis=-1, norm=None, out=None):
    d[a] = fft_fit(np.fft.fft(d[y], None, axis, norm), np.shape(a)[axis], axis)


@linear(np.fft.ifft, keywords=("n", "axis", "norm"))
def ifft(y, a, n=None, axis=-1, norm=None, out=None):
    d[a] = fft_fit(np.fft.ifft(d[y], None, axis, norm), np.shape(a)[axis], axis)


@linear(np.fft.rfft, keywords=("n", "axis", "norm"))
def rfft(y, a, n=None, axis=-1, norm=None, out=None):
    d[a] = fft_fit(np.fft.fft(fft_fit(d[y], fft_length(a, n, axis), axis), None, axis, norm),
                   np.shape(a)[axis], axis)


@linear(np.fft.irfft, keywords=("n", "axis", "norm"))
def irfft(y, a, n=None, axis=-1, norm=None, out=None):
    d[a] = fft_fit(fft_fit(np.fft.ifft(d[y], None, axis, norm), np.shape(y)[axis] // 2 + 1,
                           axis) * irfft_weights(np.shape(y)[axis], axis, np.ndim(y)),
                   np.shape(a)[axis], axis)


@linear(np.fft.fftn, np.fft.fft2, keywords=("s", "axes", "norm"))
def fftn(y, a, s=None, axes=None, norm=None, out=None):
    d[a] = np.fft.fftn(d[y], whole_lengths(s), axes, norm)


@linear(np.fft.ifftn, np.fft.ifft2, keywords=("s", "axes", "norm"))
def ifftn(y, a, s=None, axes=None, norm=None, out=None):
    d[a] = np.fft.ifftn(d[y], whole_lengths(s), axes, norm)


@helper(linear=False)
def whole_lengths(s):
    """None, for s=None; srcad differentiates fftn and ifftn (fft2, ifft2) at their own lengths
    only (a ValueError saying what to write otherwise)."""
    if s is not None:
        raise ValueError("srcad differentiates np.fft.fftn/ifftn/fft2/ifft2 with s=None only: "
                         "crop or pad the array first (np.pad, slicing), then transform it")
    return None


non_differentiable(whole_lengths)


@linear(np.fft.fftshift)
def fftshift(y, x, axes=None):
    d[x] = np.fft.ifftshift(d[y], axes)


@linear(np.fft.ifftshift)
def ifftshift(y, x, axes=None):
    d[x] = np.fft.fftshift(d[y], axes)


# fftfreq(n, d) = k / (n d): a frequency is inversely proportional to the spacing d (named
# spacing here: d[...] is the template's derivative; d= passed by keyword with a differentiated
# value is refused as a call the template cannot match, a constant one is never looked at)
@adjoint(np.fft.fftfreq, np.fft.rfftfreq)
def fftfreq(y, n, spacing=1.0, device=None):
    d[spacing] = -np.sum(d[y] * y) / spacing


@tangent(np.fft.fftfreq, np.fft.rfftfreq)
def fftfreq(y, n, spacing=1.0, device=None):
    d[y] = -y * (d[spacing] / spacing)


@helper(tangent="linear")
def imag_adjoint(g, z):
    """The adjoint of np.imag(z): -1j g for a complex z, zeros for a real one."""
    if np.iscomplexobj(z):
        return -1j * g
    return np.zeros_like(g)


@linear(imag_adjoint)
def imag_adjoint_(out, g, z):  # (the transpose of g -> -1j g, real to complex: Im of it)
    d[g] = np.real(imag_adjoint(d[out], z))


@linear(np.imag)
def imag(y, val):
    d[val] = imag_adjoint(d[y], val)


# |z| of a complex z: what srcad writes for np.abs(z) where the probe knows z is complex
# (analysis/complexes.py; np.abs's own templates, d[x] * np.sign(x), hold for real x only)
@helper(linear=False)
def complex_abs(z):
    """np.abs(z), for a complex z."""
    return np.abs(z)


@helper(linear=False)
def abs_slope(z, y):
    """conj(z) / |z| (y = |z|), 0 where z is 0 (|z|'s subgradient there): d|z| = Re(abs_slope
    dz), and the adjoint of z is d[y] abs_slope."""
    return np.conj(z) / np.where(y == 0, 1.0, y) * (y != 0)


non_differentiable(abs_slope)  # (complex values are differentiated to first order only)


@adjoint(complex_abs)
def complex_abs_adjoint(y, z):
    d[z] = d[y] * abs_slope(z, y)


@tangent(complex_abs)
def complex_abs_tangent(y, z):
    d[y] = np.real(abs_slope(z, y) * d[z])
