"""What srcad must refuse instead of returning a number: a function returning None (its
"gradient" was zeros), a vjp cotangent not shaped like the output (it was broadcast), a callable
argument differentiated (an object-dtype zero), complex values where srcad's convention does
not hold (the conjugate convention, silently), np.matrix and masked arrays (their operators mean other things); and x.real, which
gave a dict in reverse mode."""
import numpy as np
import pytest

import srcad

X = np.array([0.7, -1.3, 2.1])


def returns_none(x):
    y = x * 2
    return None


def doubles(x):
    return x * 2.0


class Model:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.sum(self.w * x)


def calls_its_argument(model, x):
    return model(x)


def squares(x):
    return np.sum(x * x)


def complex_constant(x, c):
    return np.real(np.sum(c * x))


def real_part(x):
    return np.sum(x.real * x.real) + np.sum(x.imag)


def test_a_function_returning_none_is_refused():
    with pytest.raises(srcad.SrcadError, match="must return a value"):
        srcad.grad(returns_none)


def test_a_cotangent_of_another_shape_is_refused():
    with pytest.raises(ValueError, match=r"cotangent has shape \(2,\), the output has shape"):
        srcad.vjp(doubles)(X, np.ones(2))
    with pytest.raises(ValueError, match=r"cotangent has shape \(\)"):
        srcad.vjp(doubles)(X, 1.0)
    np.testing.assert_array_equal(srcad.vjp(doubles)(X, np.ones(3)), 2.0 * np.ones(3))


def test_a_called_argument_is_not_differentiated_silently():
    for wrt in (0, 1):
        with pytest.raises(srcad.SrcadError, match="cannot tell which function model is"):
            srcad.grad(calls_its_argument, wrt=wrt)(Model(X), X)


@pytest.mark.parametrize("value, what", [
    (X + 1j, "complex"), (np.ma.masked_array(X, [0, 1, 0]), "MaskedArray"),
    (np.matrix(X), "numpy.matrix")])
def test_arguments_srcad_does_not_differentiate(value, what):
    for transform in (srcad.grad, srcad.value_and_grad):
        with pytest.raises(srcad.SrcadError, match=what):
            transform(squares)(value)


def complex_magnitude(x, c):
    return np.sum(np.abs(c * x))


def complex_clipped(x, c):
    return np.sum(np.real(np.maximum(c * x, 0.0)))


def test_complex_values_reaching_the_derivative_keep_to_srcad_convention():
    """(Refused before np.fft was differentiated; now the real part of c reaches x, |c x| has
    templates of its own, and an op whose template does not hold for complex values is refused:
    analysis/complexes.py. Verify mode's reference is then the code specialized to the
    arguments too: the code for any arguments refuses complex ones.)"""
    np.testing.assert_allclose(srcad.grad(complex_constant)(X, 1 + 2j), np.ones(3))
    np.testing.assert_allclose(srcad.jvp(complex_constant)(X, 1 + 2j, X), np.sum(X))
    np.testing.assert_allclose(srcad.grad(complex_magnitude)(X, 1 + 2j),
                               np.sign(X) * abs(1 + 2j))
    for transform in (srcad.grad, srcad.jvp):
        with pytest.raises(srcad.SrcadError, match="complex values"):
            args = (X, 1 + 2j) if transform is srcad.grad else (X, 1 + 2j, X)
            transform(complex_clipped)(*args)


def test_complex_arguments_are_refused_by_the_code_for_any_arguments():
    """The code built for any arguments cannot tell which values are complex (it gave the
    derivative of |c x| as sign(Re(c x)) |c|... in place of Re(conj(c x) c) / |c x|)."""
    for transform in (srcad.grad, srcad.jvp):
        with pytest.raises(srcad.SrcadError, match="only in a derivative built for the"):
            args = (X, 1 + 2j) if transform is srcad.grad else (X, 1 + 2j, X)
            transform(complex_magnitude, disable="specialize")(*args)


def complex_in_a_list(x, cs):
    return np.sum(np.abs(cs[0] * x))


def test_complex_arguments_are_refused_after_real_ones_by_the_code_for_any_arguments():
    """The check ran when the generic code was first made: a later call with a complex argument
    reused it and got |c| sign(Re(c x))-like numbers, silently (a call with a list, which may
    hold one, skipped it on the fast path)."""
    df = srcad.grad(complex_magnitude, disable="specialize")
    np.testing.assert_allclose(df(X, 2.0), 2.0 * np.sign(X))
    with pytest.raises(srcad.SrcadError, match="only in a derivative built for the"):
        df(X, 1 + 2j)
    dl = srcad.grad(complex_in_a_list)
    for _ in range(3):  # (the fast path would learn the real list's call)
        np.testing.assert_allclose(dl(X, [2.0]), 2.0 * np.sign(X))
    with pytest.raises(srcad.SrcadError, match="only in a derivative built for the"):
        dl(X, [1 + 2j])


def test_real_and_imag_of_a_real_array():
    for disable in (None, "all"):
        np.testing.assert_allclose(srcad.grad(real_part, disable=disable)(X), 2 * X)
        np.testing.assert_allclose(srcad.jvp(real_part, disable=disable)(X, X), 2 * X @ X)
