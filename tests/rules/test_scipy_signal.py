"""scipy.signal convolutions (templates/scipy_signal.py): convolve, correlate, fftconvolve,
convolve2d and correlate2d in both operands, both modes and to second order.

The window each mode takes of the full convolution is checked against scipy itself for many
shape pairs; the derivatives against central differences, entry by entry, in every mode of
every function, with either operand the larger; Hessians in every Hessian mode; the dot-product
test between forward and reverse mode; a small convnet; the refused boundaries.

Every op also has spec rows in tests/specs/spec_scipy_signal.py (run by
tests/rules/test_templates.py).
"""
import itertools
import subprocess
import sys

import numpy as np
import pytest

import srcad
from srcad.api.matrices import HESSIAN_MODES

scipy_signal = pytest.importorskip("scipy.signal", reason="scipy is not installed")
import scipy.signal  # noqa: E402
from scipy import signal  # noqa: E402
from scipy.signal import correlate2d  # noqa: E402

from isolated import run_isolated  # noqa: E402

from srcad.templates.scipy_signal import signal_window  # noqa: E402

MODES = ("full", "same", "valid")


# ---------------------------------------------------------------------------------------------
# the window of each mode, against scipy

def _full_of(kind, a, v, axes):
    if kind == "fftconvolve":
        return scipy.signal.fftconvolve(a, v, "full", axes)
    if kind in ("correlate", "correlate2d"):
        return scipy.signal.correlate(a, v, "full", "direct")
    return scipy.signal.convolve(a, v, "full", "direct")


def _call(kind, a, v, mode, axes=None, method=None):
    if kind == "fftconvolve":
        return scipy.signal.fftconvolve(a, v, mode, axes)
    if method is not None:
        return getattr(scipy.signal, kind)(a, v, mode, method)
    return getattr(scipy.signal, kind)(a, v, mode)


def _window_agrees(kind, a, v, mode, axes=None, method=None):
    """Whether signal_window finds scipy's result in the full convolution (None where scipy
    refuses the shapes)."""
    try:
        out = _call(kind, a, v, mode, axes, method)
    except ValueError:
        return None
    slices, full_shape = signal_window(a.shape, v.shape, mode, kind, axes)
    full = _full_of(kind, a, v, axes)
    return (full.shape == full_shape and full[slices].shape == out.shape
            and np.allclose(full[slices], out, rtol=1e-10, atol=1e-10))


def test_the_window_of_every_mode_is_scipys():
    """Lengths 1 to 5 on every axis (odd and even, either operand the larger, 'valid' with
    the operands swapped by scipy, and mixed shapes scipy refuses), every method."""
    rng = np.random.default_rng(0)
    pairs = [((n1,), (n2,)) for n1 in range(1, 6) for n2 in range(1, 6)]
    pairs += [(tuple(rng.integers(1, 6, 2)), tuple(rng.integers(1, 6, 2))) for _ in range(50)]
    pairs += [(tuple(rng.integers(1, 5, 3)), tuple(rng.integers(1, 5, 3))) for _ in range(25)]
    pairs += [((), ())]
    checked = 0
    for s1, s2 in pairs:
        a, v = rng.normal(size=s1), rng.normal(size=s2)
        for mode in MODES:
            calls = [(kind, method) for kind in ("convolve", "correlate")
                     for method in ("direct", "fft", "auto")] + [("fftconvolve", None)]
            if len(s1) == 2:
                calls += [("convolve2d", None), ("correlate2d", None)]
            for kind, method in calls:
                agrees = _window_agrees(kind, a, v, mode, method=method)
                assert agrees is not False, (kind, method, s1, s2, mode)
                checked += agrees is True
    assert checked > 2000


def test_the_window_of_fftconvolve_along_some_axes_is_scipys():
    """Along the other axes fftconvolve multiplies entry by entry, broadcasting a length 1."""
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(12):
        s1 = tuple(int(n) for n in rng.integers(1, 5, 3))
        for r in (1, 2):
            for axes in itertools.combinations(range(3), r):
                s2 = tuple(int(rng.integers(1, 5)) if i in axes else int(rng.choice([s1[i], 1]))
                           for i in range(3))
                a, v = rng.normal(size=s1), rng.normal(size=s2)
                for mode in MODES:
                    for x, y, ax in ((a, v, axes), (v, a, tuple(i - 3 for i in axes))):
                        agrees = _window_agrees("fftconvolve", x, y, mode, ax)
                        assert agrees is not False, (x.shape, y.shape, mode, ax)
                        checked += agrees is True
    assert checked > 150


# ---------------------------------------------------------------------------------------------
# gradients in both modes against central differences, entry by entry

def convolve_loss(a, v, mode):
    return np.sum(np.sin(scipy.signal.convolve(a, v, mode)))


def correlate_loss(a, v, mode):
    return np.sum(np.sin(scipy.signal.correlate(a, v, mode=mode)))


def fftconvolve_loss(a, v, mode):
    return np.sum(np.sin(signal.fftconvolve(a, v, mode)))


def convolve2d_loss(a, v, mode):
    return np.sum(np.sin(signal.convolve2d(a, v, mode)))


def correlate2d_loss(a, v, mode):
    return np.sum(np.sin(correlate2d(a, v, mode=mode)))


LOSSES = {"convolve": convolve_loss, "correlate": correlate_loss,
          "fftconvolve": fftconvolve_loss, "convolve2d": convolve2d_loss,
          "correlate2d": correlate2d_loss}
# the first operand larger on every axis (odd and even lengths), and the second
SHAPES = {1: ((7,), (4,)), 2: ((5, 4), (3, 2)), 3: ((4, 3, 3), (2, 2, 3))}


def _cases():
    for name in LOSSES:
        for ndim in ((2,) if name.endswith("2d") else (1, 2, 3)):
            for mode in MODES:
                for larger in ("first", "second"):
                    yield name, ndim, mode, larger


def numeric_gradient(func, args, position, h=1e-6):
    x = args[position]
    out = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = h
        plus = list(args)
        minus = list(args)
        plus[position] = x + step
        minus[position] = x - step
        out[index] = (func(*plus) - func(*minus)) / (2 * h)
    return out


@pytest.mark.parametrize("name, ndim, mode, larger", list(_cases()),
                         ids=["-".join(map(str, c)) for c in _cases()])
def test_gradient_in_both_operands_and_both_modes(name, ndim, mode, larger):
    loss = LOSSES[name]
    rng = np.random.default_rng(ndim)
    s1, s2 = SHAPES[ndim] if larger == "first" else SHAPES[ndim][::-1]
    a, v = rng.normal(size=s1), rng.normal(size=s2)
    want = [numeric_gradient(loss, (a, v, mode), p) for p in (0, 1)]
    reverse = srcad.grad(loss, wrt=(0, 1))(a, v, mode)
    forward = srcad.jacobian(loss, wrt=(0, 1), mode="forward")(a, v, mode)
    for got in (reverse, forward):
        for g, w in zip(got, want):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-8)
    da, dv = rng.normal(size=s1), rng.normal(size=s2)
    jv = srcad.jvp(loss, wrt=(0, 1))(a, v, mode, da, dv)
    assert np.isclose(jv, np.vdot(want[0], da) + np.vdot(want[1], dv), rtol=1e-6, atol=1e-8)


def fftconvolve_axes_loss(a, v, mode, axes):
    return np.sum(np.sin(scipy.signal.fftconvolve(a, v, mode, axes=axes)))


@pytest.mark.parametrize("mode", MODES)
def test_fftconvolve_along_some_axes(mode):
    """A batch axis (3 against 3), a broadcast one (1 against 2) and a convolved one."""
    rng = np.random.default_rng(5)
    cases = [((3, 1, 6), (3, 2, 3), (2,)), ((3, 2, 3), (3, 1, 6), (-1,)),
             ((1, 4, 5), (2, 3, 2), (1, 2))]
    for s1, s2, axes in cases:
        a, v = rng.normal(size=s1), rng.normal(size=s2)
        args = (a, v, mode, axes)
        want = [numeric_gradient(fftconvolve_axes_loss, args, p) for p in (0, 1)]
        for got in (srcad.grad(fftconvolve_axes_loss, wrt=(0, 1))(*args),
                    srcad.jacobian(fftconvolve_axes_loss, wrt=(0, 1), mode="forward")(*args)):
            for g, w in zip(got, want):
                assert g.shape == w.shape
                np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-8)


def method_loss(a, v, method):
    return (np.sum(np.cos(scipy.signal.convolve(a, v, "same", method)))
            + np.sum(np.sin(scipy.signal.correlate(a, v, "valid", method=method))))


@pytest.mark.parametrize("method", ("auto", "direct", "fft"))
def test_every_method_gives_the_same_derivatives(method):
    rng = np.random.default_rng(6)
    a, v = rng.normal(size=(6, 5)), rng.normal(size=(3, 4))
    srcad.check_grads(method_loss, (a, v, method), wrt=(0, 1))


def scalars(a, v):
    return scipy.signal.convolve(a, v) * scipy.signal.correlate(a, v)


def test_zero_dimensional_operands():
    a, v = np.array(0.7), np.array(-1.3)
    srcad.check_grads(scalars, (a, v), wrt=(0, 1), order=2)
    ga, gv = srcad.grad(scalars, wrt=(0, 1))(a, v)
    assert np.isclose(ga, 2 * a * v * v) and np.isclose(gv, 2 * a * a * v)


# ---------------------------------------------------------------------------------------------
# second order

SECOND_ORDER = [("convolve", 2, "same", "first"), ("correlate", 1, "valid", "second"),
                ("fftconvolve", 3, "full", "first"), ("convolve2d", 2, "same", "second"),
                ("correlate2d", 2, "same", "first"), ("correlate2d", 2, "valid", "second")]


@pytest.mark.parametrize("name, ndim, mode, larger", SECOND_ORDER,
                         ids=["-".join(map(str, c)) for c in SECOND_ORDER])
def test_hessians_in_every_mode(name, ndim, mode, larger):
    loss = LOSSES[name]
    rng = np.random.default_rng(7)
    shapes = {1: ((6,), (3,)), 2: ((4, 3), (2, 2)), 3: ((3, 2, 2), (2, 2, 1))}[ndim]
    s1, s2 = shapes if larger == "first" else shapes[::-1]
    a, v = rng.normal(size=s1), rng.normal(size=s2)
    for position, x in ((0, a), (1, v)):
        gradient = srcad.grad(loss, wrt=position)
        want = np.zeros(x.shape + x.shape)
        for index in np.ndindex(x.shape):
            step = np.zeros_like(x)
            step[index] = 1e-5
            shifted = [[a, v, mode], [a, v, mode]]
            shifted[0][position] = x + step
            shifted[1][position] = x - step
            want[(Ellipsis,) + index] = (gradient(*shifted[0]) - gradient(*shifted[1])) / 2e-5
        for hessian_mode in HESSIAN_MODES:
            H = srcad.hessian(loss, wrt=position, mode=hessian_mode)(a, v, mode)
            np.testing.assert_allclose(H, want, rtol=1e-6, atol=1e-7, err_msg=hessian_mode)
    srcad.check_grads(loss, (a, v, mode), wrt=(0, 1), order=2)


@pytest.mark.parametrize("name", list(LOSSES))
def test_the_mixed_second_derivative(name):
    """d/dv of the gradient in a: the bilinear op's own cross term and the chain rule's."""
    loss = LOSSES[name]
    rng = np.random.default_rng(8)
    a, v = rng.normal(size=(4, 5)), rng.normal(size=(2, 3))
    mixed = srcad.jacobian(srcad.grad(loss, wrt=0), wrt=1)(a, v, "full")
    gradient = srcad.grad(loss, wrt=0)
    want = np.zeros(a.shape + v.shape)
    for index in np.ndindex(v.shape):
        step = np.zeros_like(v)
        step[index] = 1e-5
        want[(Ellipsis,) + index] = (gradient(a, v + step, "full")
                                     - gradient(a, v - step, "full")) / 2e-5
    np.testing.assert_allclose(mixed, want, rtol=1e-6, atol=1e-7)


def two_ops(a, v):
    return (np.sum(np.sin(scipy.signal.correlate2d(a, v, "same")))
            + np.sum(np.cos(scipy.signal.fftconvolve(a, v, "valid"))))


def test_third_order():
    rng = np.random.default_rng(14)
    a, v = rng.normal(size=(4, 3)), rng.normal(size=(2, 2))
    srcad.check_grads(two_ops, (a, v), wrt=(0, 1), order=3)


# ---------------------------------------------------------------------------------------------
# the dot-product test between the modes, on the convolution itself (a non-scalar output)

def convolve_both(a, v, mode):
    return scipy.signal.convolve(a, v, mode) + 0.5 * scipy.signal.fftconvolve(a, v, mode)


def correlate_2d_both(a, v, mode):
    return scipy.signal.correlate2d(a, v, mode) - 0.5 * scipy.signal.correlate(a, v, mode)


@pytest.mark.parametrize("func, s1, s2", [(convolve_both, (5, 3, 2), (2, 3, 2)),
                                          (correlate_2d_both, (3, 5), (4, 2))])
@pytest.mark.parametrize("mode", MODES)
def test_jvp_and_vjp_are_transposes(func, s1, s2, mode):
    rng = np.random.default_rng(9)
    a, v = rng.normal(size=s1), rng.normal(size=s2)
    if mode == "valid" and func is correlate_2d_both:
        a, v = rng.normal(size=(6, 5)), v
    da, dv = rng.normal(size=a.shape), rng.normal(size=v.shape)
    jv = srcad.jvp(func, wrt=(0, 1))(a, v, mode, da, dv)
    w = rng.normal(size=np.shape(func(a, v, mode)))
    ba, bv = srcad.vjp(func, wrt=(0, 1))(a, v, mode, w)
    lhs, rhs = np.vdot(jv, w), np.vdot(da, ba) + np.vdot(dv, bv)
    assert np.isclose(lhs, rhs, rtol=1e-12, atol=1e-12)
    srcad.check_grads(func, (a, v, mode), wrt=(0, 1))


# ---------------------------------------------------------------------------------------------
# a convnet as written with scipy.signal

def convnet_loss(kernel, image):
    features = scipy.signal.correlate2d(image, kernel, mode="valid")
    return np.sum(np.tanh(features) ** 2)


def test_a_convolutional_layer_trains_its_kernel():
    rng = np.random.default_rng(10)
    image, kernel = rng.normal(size=(12, 10)), rng.normal(size=(3, 3)) * 0.3
    got = srcad.grad(convnet_loss)(kernel, image)
    t = np.tanh(scipy.signal.correlate2d(image, kernel, mode="valid"))
    # d/dz tanh(z)^2 = 2 t (1 - t^2), and the kernel's gradient correlates the image with it
    want = scipy.signal.correlate2d(image, 2 * t * (1 - t * t), mode="valid")
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got, numeric_gradient(convnet_loss, (kernel, image), 0),
                               rtol=1e-6, atol=1e-8)
    srcad.check_grads(convnet_loss, (kernel, image), wrt=(0, 1), order=2)


def test_a_constant_operand_has_no_tangent_term():
    """The image is a constant: the kernel's tangent is one correlation, not two (the ops are
    declared bilinear, so a zero tangent drops its term)."""
    code = "\n".join(line for line in srcad.source(convnet_loss, mode="forward").splitlines()
                     if not line.strip().startswith("#"))
    assert code.count("scipy.signal.correlate2d(") == 2  # the value and its tangent
    assert "zeros_like" not in code


def two_layers(k1, k2, w, image):
    hidden = np.tanh(signal.convolve2d(image, k1, "same"))
    pooled = scipy.signal.fftconvolve(hidden, k2, "valid")
    return np.sum((pooled.ravel() @ w - 1.0) ** 2)


def test_two_layers_and_a_readout():
    rng = np.random.default_rng(11)
    image = rng.normal(size=(8, 7))
    k1, k2 = rng.normal(size=(3, 2)) * 0.5, rng.normal(size=(2, 2)) * 0.5
    w = rng.normal(size=7 * 6) * 0.1  # ((8, 7) 'same', then (2, 2) 'valid': (7, 6) outputs)
    srcad.check_grads(two_layers, (k1, k2, w, image), wrt=(0, 1, 2), order=2)


# ---------------------------------------------------------------------------------------------
# spellings, emitted modules

def spellings(a, v):
    return (np.sum(signal.convolve(a, v)) + np.sum(correlate2d(a, v))
            + np.sum(scipy.signal.fftconvolve(a, v, mode="same")))


def test_every_spelling_is_written_as_scipy_signal():
    code = "\n".join(line for line in srcad.source(spellings, wrt=(0, 1)).splitlines()
                     if not line.strip().startswith("#"))
    assert "scipy.signal.convolve(a, v)" in code
    assert "scipy.signal.correlate2d(a, v)" in code
    assert "scipy.signal.fftconvolve(a, v, mode='same')" in code


def test_emitted_module_imports_scipy_signal_and_runs_without_srcad(tmp_path):
    rng = np.random.default_rng(12)
    kernel, image = rng.normal(size=(2, 3)), rng.normal(size=(6, 5))
    path = tmp_path / "convnet_loss_grad_emitted.py"
    srcad.emit(convnet_loss, str(path))
    assert "import scipy.signal" in path.read_text()
    (got,) = run_isolated(path, "convnet_loss_grad", (kernel, image))
    np.testing.assert_allclose(got, srcad.grad(convnet_loss)(kernel, image), rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# refusals

def wrapped(a, v):
    return np.sum(scipy.signal.convolve2d(a, v, "same", boundary="wrap") ** 2)


def symmetric(a, v):
    return np.sum(scipy.signal.correlate2d(a, v, "same", "symm") ** 2)


def filled(a, v):
    return np.sum(scipy.signal.convolve2d(a, v, "same", fillvalue=1.5) ** 2)


def fill_of(a, c):
    return np.sum(scipy.signal.correlate2d(a, np.ones((2, 2)), "same", fillvalue=c) ** 2)


def test_other_boundaries_are_refused_in_both_modes():
    rng = np.random.default_rng(13)
    a, v = rng.normal(size=(4, 4)), rng.normal(size=(2, 3))
    for func, match in ((wrapped, r"convolve2d with boundary='fill' only, not boundary='wrap'"),
                        (symmetric, r"correlate2d with boundary='fill' only, not "
                                    r"boundary='symm'"),
                        (filled, r"convolve2d with fillvalue=0 only, not fillvalue=1.5")):
        for wrt in (0, 1):
            with pytest.raises(ValueError, match=match) as info:
                srcad.grad(func, wrt=wrt)(a, v)
            assert "np.pad" in str(info.value)
            with pytest.raises(ValueError, match=match):
                srcad.jvp(func, wrt=wrt)(a, v, np.ones_like((a, v)[wrt]))


def test_a_fillvalue_that_carries_a_derivative_is_refused():
    a = np.arange(9.0).reshape(3, 3)
    with pytest.raises(ValueError, match="in fillvalue"):
        srcad.grad(fill_of, wrt=1)(a, 0.0)
    with pytest.raises(ValueError, match="in fillvalue"):
        srcad.jvp(fill_of, wrt=1)(a, 0.0, 1.0)
    g = srcad.grad(fill_of, wrt=0)(a, 0.0)  # a constant 0: a's gradient as usual
    np.testing.assert_allclose(g, numeric_gradient(fill_of, (a, 0.0), 0), rtol=1e-6)


def complex_kernel(a):
    return np.sum(np.abs(scipy.signal.convolve(a, np.array([1.0, 1j]))) ** 2)


def test_complex_values_are_refused():
    with pytest.raises(srcad.SrcadError, match="complex"):
        srcad.grad(complex_kernel)(np.array([0.5, -1.0, 2.0]))


def uses_lfilter(x):
    return np.sum(scipy.signal.lfilter([1.0, 0.5], [1.0], x))


def test_a_scipy_signal_function_without_templates_is_refused_by_name():
    with pytest.raises(srcad.SrcadError, match=r"scipy\.signal\.lfilter"):
        srcad.grad(uses_lfilter)


NO_SCIPY = '''
import importlib.abc, sys

class NoScipy(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "scipy" or name.startswith("scipy."):
            raise ImportError("no scipy here")

sys.meta_path.insert(0, NoScipy())
import numpy as np
import srcad

def f(x):
    return np.sum(np.convolve(x, x))

print(srcad.grad(f)(np.array([1.0, 2.0])).tolist())
'''


def test_srcad_imports_and_works_without_scipy(tmp_path):
    (tmp_path / "no_scipy.py").write_text(NO_SCIPY)
    done = subprocess.run([sys.executable, "no_scipy.py"], cwd=tmp_path, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[6.0, 6.0]"
