"""np.fft (templates/numpy_fft.py) and complex values (analysis/complexes.py): each transform
with its n, axis and norm, in both modes against central differences and the dot-product test
(check_grads), a real value's adjoint the real part of what reaches it, and the refusals: ops
whose templates do not hold for complex values, complex outputs, builds for any arguments."""
import warnings

import numpy as np
import pytest

import srcad
from regressions.numeric import central_gradient

R = np.random.default_rng(3)
X = R.normal(size=6)
Y = R.normal(size=(3, 4))
K = R.normal(size=3)


def power_spectrum(x):
    z = np.fft.rfft(x)
    return np.sum(np.real(z * np.conj(z)) * np.arange(4))


def fft_convolution(x, k):
    n = len(x) + len(k) - 1
    return np.sum(np.fft.irfft(np.fft.rfft(x, n) * np.fft.rfft(k, n), n) ** 2)


def full_transforms(x):
    z = np.fft.fft(x * 1.5, norm="ortho")
    w = np.fft.ifft(z * np.exp(1j * x), n=8)
    v = np.fft.fft(x, n=4, norm="forward") * np.fft.ifft(x[:4] ** 2, norm="backward")
    return np.sum(np.imag(w) * x[0]) + np.sum(np.real(v) - np.imag(v) ** 2)


def real_transforms(x):
    a = np.fft.irfft(np.fft.rfft(x, n=9, norm="ortho") * (1.0 + 0.5j), n=7)
    b = np.fft.irfft(np.fft.rfft(x ** 2)[:3], norm="forward")
    return np.sum(a * np.arange(7)) + np.sum(b ** 3)


def along_axes(y):
    z = np.fft.fft2(y) + np.fft.fftn(y * y, axes=(0,))
    w = np.fft.ifftn(z, axes=(1,), norm="ortho") * np.fft.rfft(y, axis=1)[:, :1]
    s = np.fft.irfft(np.fft.rfft(y, axis=0), n=3, axis=0)
    return np.sum(np.real(np.fft.ifft2(w)) ** 2) + np.sum(s * y) + np.sum(np.fft.fftshift(y)[0])


def magnitudes(x):
    z = np.fft.fft(x)
    return np.sum(np.abs(z) ** 2 + np.abs(z)) + np.sum(np.abs(x) * x)


@pytest.mark.parametrize("func, args, wrt", [
    (power_spectrum, (X,), 0),
    (fft_convolution, (X, K), (0, 1)),
    (full_transforms, (X,), 0),
    (real_transforms, (X,), 0),
    (along_axes, (Y,), 0),
    (magnitudes, (X,), 0),
])
def test_transforms_in_both_modes(func, args, wrt):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no ComplexWarning: real adjoints are real parts)
        srcad.check_grads(func, args, wrt=wrt)
        grads = srcad.grad(func, wrt=wrt)(*args)
    for g, a in zip(grads if isinstance(wrt, tuple) else (grads,), args):
        assert g.dtype == np.float64 and g.shape == a.shape


def test_abs_of_a_complex_value_has_templates_of_its_own():
    text = srcad.source(magnitudes, args=(X,))
    assert text.count("complex_abs(") >= 2 and "np.abs(x)" in text  # (x is real: np.abs)


def test_a_real_value_takes_the_real_part_of_its_adjoint():
    x = srcad.grad(power_spectrum)
    x(X)
    text = next(iter(x.specialized.values()))[2].built.source
    assert "bx = np.real(" in text


def clipped(x):
    return np.sum(np.real(np.maximum(np.fft.fft(x), 0.0)))


def complex_output(x):
    return np.sum(np.fft.fft(x))


def spectrum(x):
    return np.fft.rfft(x * 2.0)


def through_a_helper(x):
    return np.sum(np.real(spectrum(x)))


@pytest.mark.parametrize("func, snippet, hint, options", [
    (clipped, "np.maximum(np.fft.fft(x), 0.0)", "np.abs(z) before other functions", {}),
    (complex_output, "return np.sum(np.fft.fft(x))", "return np.real(...)", {}),
    # (the helper kept as a call: written in, its values are the caller's: the next test)
    (through_a_helper, "np.real(spectrum(x))", "not in a helper", {"disable": "inline"}),
])
def test_what_complex_values_cannot_meet_is_refused_at_the_users_line(func, snippet, hint,
                                                                      options):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(func, **options)(X)
    message = str(info.value)
    assert "test_fft.py" in message and snippet in message and hint in message


def test_a_helper_written_in_carries_its_complex_values_in_the_caller():
    """spectrum(x) inside np.real(...) is bound to a name and written in (frontend/inline.py),
    so its complex value never crosses a call."""
    np.testing.assert_allclose(srcad.grad(through_a_helper)(X),
                               central_gradient(through_a_helper, (X,)), rtol=1e-6, atol=1e-8)


def test_second_derivatives_are_refused_with_what_to_write():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.hessian(power_spectrum)(X)
    assert "differentiate it once" in str(info.value)
    assert "scipy.signal.fftconvolve" in str(info.value)


def test_shape_facts_indexed_and_added_are_folded():
    """np.shape(a)[axis] // 2 + 1 in a template, shapes known: one number in the code
    (instantiate's shape facts fold a tuple literal's item and int arithmetic)."""
    text = srcad.source(fft_convolution, args=(X, K), wrt=(0, 1))
    body = text.split("def fft_convolution_grad")[1]
    assert ")[-1]" not in body and "// 2" not in body
