"""Generated derivatives on CuPy arrays: the same code runs on the GPU (numpy's functions dispatch
to CuPy's through NEP 18), and the gradient, an array on the GPU, holds the numbers the same
derivative gives on NumPy arrays. Skipped without CuPy or a GPU; test_duck_arrays.py checks the
same path everywhere, with an array type that refuses every copy to the host."""
import numpy as np
import pytest

import srcad

from test_duck_arrays import FUNCTIONS, guarded

cupy = pytest.importorskip("cupy", reason="CuPy is not installed (it needs an NVIDIA GPU)")


def _gpu():
    try:
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # (CuPy without a driver or device)
        return False


pytestmark = pytest.mark.skipif(not _gpu(), reason="CuPy is installed but finds no GPU")


def _arguments():
    rng = np.random.default_rng(7)
    x = rng.uniform(0.5, 1.5, 6)
    A = rng.normal(size=(6, 6))
    return x, A, rng.normal(size=6), rng.normal(size=(6, 6))


def _same(gpu, expected):
    if isinstance(expected, tuple):
        assert isinstance(gpu, tuple) and len(gpu) == len(expected)
        for g, e in zip(gpu, expected):
            _same(g, e)
        return
    assert isinstance(gpu, cupy.ndarray), type(gpu)  # (computed on the GPU)
    # (the GPU's own sin, exp, sums: the last bits may differ from NumPy's)
    np.testing.assert_allclose(cupy.asnumpy(gpu), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("func", FUNCTIONS, ids=lambda f: f.__name__)
def test_derivatives_run_on_cupy_arrays(func):
    x, A, tx, tA = _arguments()
    for derivative, extra in [(srcad.grad(func, wrt=(0, 1), verify=False), ()),
                              (srcad.vjp(func, wrt=(0, 1), verify=False), (0.7,)),
                              (srcad.jvp(func, wrt=(0, 1), verify=False), (tx, tA))]:
        expected = derivative(x, A, *extra)
        gpu = derivative(cupy.asarray(x), cupy.asarray(A),
                         *[cupy.asarray(e) if np.ndim(e) else e for e in extra])
        _same(gpu, expected)


def test_guards_at_zeros_and_ties_on_cupy_arrays():
    x = np.array([0.0, 1.5, 2.0, 0.0, 3.0, 0.5])
    A = np.array([[0.0, 1.0, 2.0, 0.0, -1.0, 0.5], [0.5, 1.5, 1.0, 0.0, 3.0, 2.0]] * 3)
    expected = srcad.grad(guarded, wrt=(0, 1), verify=False)(x, A)
    gpu = srcad.grad(guarded, wrt=(0, 1), verify=False)(cupy.asarray(x), cupy.asarray(A))
    _same(gpu, expected)
