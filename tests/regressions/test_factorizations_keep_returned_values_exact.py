"""The factorizations pass shares one LU factorization among a matrix's slogdet, solve and inv
(SciPy's getrf; lu_slogdet sums the logarithms of the pivots with np.sum). Where the code
returns f's value (value_and_grad), the log-determinant it returned differed from numpy's
slogdet in the last bit (fuzz seed 390213: -0.9899230686135577 for -0.9899230686135579): numpy
adds the logarithms one by one, np.sum pairwise. The primal's calls now stay numpy's where the
value is returned; the adjoint's still share their factors."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient


def logdet_of_a_shifted_identity(y, z, s):
    t6 = np.concatenate([y, z])
    A1 = s * t6 + np.eye(len(t6))
    sign1, logdet1 = np.linalg.slogdet(A1)
    return logdet1


def gp_like(y, L):
    K = L @ L.T + np.eye(len(y))
    sign, logdet = np.linalg.slogdet(K)
    alpha = np.linalg.solve(K, y)
    return 0.5 * y @ alpha + 0.5 * logdet + np.sum(np.linalg.inv(K))


Y = np.array([1.0039817973084713, 0.5319289408144144, 1.3034607461948262, 1.0017118937128622,
              1.4590656261748227])
Z = np.array([1.4531804543148525, 1.9101413493136192, 0.7767712359045643])
S = -0.14529344392619947


def test_the_log_determinant_value_and_grad_returns_is_numpys_to_the_bit():
    value, grads = srcad.value_and_grad(logdet_of_a_shifted_identity, wrt=(0, 2))(Y, Z, S)
    assert value == logdet_of_a_shifted_identity(Y, Z, S)
    right = central_gradient(logdet_of_a_shifted_identity, (Y, Z, S), 2)
    assert grads[1] == pytest.approx(right, rel=1e-6)


@pytest.mark.parametrize("seed", range(5))
def test_a_gp_value_is_fs_and_its_gradient_still_shares_factors(seed):
    rng = np.random.default_rng(seed)
    y, L = rng.normal(size=6), rng.normal(size=(6, 6))
    value, g = srcad.value_and_grad(gp_like, wrt=1)(y, L)
    assert value == gp_like(y, L)
    np.testing.assert_allclose(g, central_gradient(gp_like, (y, L), 1), rtol=1e-5, atol=1e-6)
    source = srcad.source(gp_like, wrt=1, kind="value_and_grad", args=(y, L))
    assert "t1 = np.linalg.slogdet(K)" in source or "np.linalg.slogdet(K)" in source
    assert "lu_factors(K)" in source  # (the adjoint's solve and inverse share one)
