"""Spec rows for templates/scipy_signal.py (scipy.signal convolutions), when scipy is installed:
each function in each mode, positional and keyword, either operand the larger, one operand a
constant, and a Hessian (order=2) per function. tests/rules/test_scipy_signal.py checks the
windows against scipy, every case entry by entry, Hessians in every mode and the refusals.
"""
from specs import Arr
from specs.spec_numpy_linalg import ScipySpec

try:
    import scipy.signal as signal
except ImportError:  # pragma: no cover - scipy missing: no rows (and no templates)
    signal = None


class SignalSpec(ScipySpec):
    """A row whose function's module imports scipy.signal (after the function, as ScipySpec's
    import scipy.special)."""

    def __init__(self, op, expr, **kwargs):
        super().__init__(op, expr, **kwargs)
        self.expr = self.expr + "\n\n\nimport scipy.signal"


SPECS = []
if signal is not None:
    SPECS += [
        SignalSpec(signal.convolve, "scipy.signal.convolve(a, v)", a=Arr((5,)), v=Arr((3,))),
        SignalSpec(signal.convolve, "scipy.signal.convolve(a, v, 'same')", a=Arr((3, 4)),
                   v=Arr((4, 2))),
        SignalSpec(signal.convolve, "scipy.signal.convolve(a, v, mode='valid', method='fft')",
                   a=Arr((2, 3)), v=Arr((4, 5))),
        SignalSpec(signal.convolve, "np.sum(scipy.signal.convolve(a, v, 'same') ** 2)", order=2,
                   a=Arr((4, 3)), v=Arr((2, 2))),
        SignalSpec(signal.correlate, "scipy.signal.correlate(a, v)", a=Arr((3, 4)),
                   v=Arr((2, 2))),
        SignalSpec(signal.correlate, "scipy.signal.correlate(a, v, 'same', 'direct')",
                   a=Arr((4,)), v=Arr((6,))),
        SignalSpec(signal.correlate, "scipy.signal.correlate(a, v, mode='valid')",
                   a=Arr((2, 3, 2)), v=Arr((4, 3, 3))),
        SignalSpec(signal.correlate, "scipy.signal.correlate(a, v, 'valid')",
                   a=Arr((5, 4), const=True), v=Arr((2, 3))),
        SignalSpec(signal.correlate, "np.sum(scipy.signal.correlate(a, v, 'same') ** 2)",
                   order=2, a=Arr((5,)), v=Arr((2,))),
        SignalSpec(signal.fftconvolve, "scipy.signal.fftconvolve(a, v, 'same')", a=Arr((5, 4)),
                   v=Arr((2, 3))),
        SignalSpec(signal.fftconvolve, "scipy.signal.fftconvolve(a, v, mode='valid', axes=1)",
                   a=Arr((3, 5)), v=Arr((1, 2))),
        SignalSpec(signal.fftconvolve, "np.sum(scipy.signal.fftconvolve(a, v) ** 2)", order=2,
                   a=Arr((3,)), v=Arr((3,))),
        SignalSpec(signal.convolve2d, "scipy.signal.convolve2d(a, v)", a=Arr((3, 4)),
                   v=Arr((2, 2))),
        SignalSpec(signal.convolve2d, "scipy.signal.convolve2d(a, v, 'valid')", a=Arr((2, 3)),
                   v=Arr((4, 4))),
        SignalSpec(signal.convolve2d,
                   "scipy.signal.convolve2d(a, v, mode='same', boundary='fill', fillvalue=0)",
                   a=Arr((4, 3)), v=Arr((2, 3), const=True)),
        SignalSpec(signal.convolve2d, "np.sum(scipy.signal.convolve2d(a, v, 'same') ** 2)",
                   order=2, a=Arr((3, 3)), v=Arr((2, 2))),
        SignalSpec(signal.correlate2d, "scipy.signal.correlate2d(a, v, 'same')", a=Arr((3, 4)),
                   v=Arr((2, 4))),
        SignalSpec(signal.correlate2d, "scipy.signal.correlate2d(a, v, mode='valid')",
                   a=Arr((2, 2)), v=Arr((3, 4))),
        SignalSpec(signal.correlate2d, "np.sum(scipy.signal.correlate2d(a, v, 'same') ** 2)",
                   order=2, a=Arr((3, 3)), v=Arr((2, 2))),
    ]
