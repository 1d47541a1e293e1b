"""Spec rows for templates/numpy_fft.py where they run in every build: the shifts and np.imag
of a real value. The transforms make complex values, which srcad differentiates only in builds
specialized to the arguments (analysis/complexes.py); tests/rules/test_fft.py checks them."""
import numpy as np

from specs import Arr, Spec

SPECS = [
    Spec(np.fft.fftshift, "np.fft.fftshift(a)", a=Arr((5,))),
    Spec(np.fft.fftshift, "np.fft.fftshift(a, axes=1)", a=Arr((2, 4))),
    Spec(np.fft.ifftshift, "np.fft.ifftshift(a)", a=Arr((3, 5))),
    Spec(np.fft.ifftshift, "np.sum(np.fft.ifftshift(a, 0) ** 2)", order=2, a=Arr((5,))),
    Spec(np.imag, "np.imag(a) + a", a=Arr((3,))),
]
