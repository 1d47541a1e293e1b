"""The runtime's strong products (modes/strong_zeros.py): strong_mul(g, s) is g * s but for
g's zeros against s's infs and nans (0); safe_matmul and safe_tensordot are the matrix and
tensor products whose sums add 0 for a zero times an inf or nan. Checked against the sums
written out, on operands with zeros, infs and nans, of every rank matmul takes."""
import numpy as np
import pytest

from srcad.runtime import HELPERS

strong_mul, safe_matmul = HELPERS["strong_mul"], HELPERS["safe_matmul"]
safe_tensordot = HELPERS["safe_tensordot"]


def _strong(x, y):
    """x * y with a zero factor winning against inf and nan (entrywise, broadcast)."""
    x, y = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float))
    with np.errstate(invalid="ignore"):
        out = x * y
    return np.where((x == 0) | (y == 0), 0.0, out)


def _draw(rng, shape):
    v = rng.normal(size=shape)
    flat = v.reshape(-1)
    if flat.size:
        flat[rng.integers(flat.size, size=max(1, flat.size // 3))] = 0.0
        flat[rng.integers(flat.size)] = rng.choice([np.inf, -np.inf, np.nan])
    return v


def test_strong_mul_is_one_sided():
    g = np.array([0.0, 0.0, 2.0, np.inf, 1.0])
    s = np.array([np.inf, np.nan, np.inf, 0.0, 3.0])
    with np.errstate(invalid="ignore"):
        got = strong_mul(g, s)
    np.testing.assert_array_equal(got, [0.0, 0.0, np.inf, np.nan, 3.0])
    assert strong_mul(0.0, float("-inf")) == 0.0 and strong_mul(2.0, 3) == 6.0
    assert strong_mul(g, 2.0).tolist() == (g * 2.0).tolist()


@pytest.mark.parametrize("shapes", [((3, 4), (4, 2)), ((4,), (4, 2)), ((3, 4), (4,)),
                                    ((4,), (4,)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5))])
def test_safe_matmul_is_the_strong_sum_of_products(shapes):
    rng = np.random.default_rng(3)
    for _ in range(20):
        a, b = _draw(rng, shapes[0]), _draw(rng, shapes[1])
        left = a[None, :] if a.ndim == 1 else a
        right = b[:, None] if b.ndim == 1 else b
        want = _strong(left[..., :, :, None], right[..., None, :, :]).sum(axis=-2)
        want = want[..., 0] if b.ndim == 1 else want
        want = (want[..., 0] if b.ndim == 1 else want[..., 0, :]) if a.ndim == 1 else want
        with np.errstate(invalid="ignore"):
            got = safe_matmul(a, b)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)  # (nan where nan)
    finite = rng.normal(size=shapes[0]), rng.normal(size=shapes[1])
    np.testing.assert_array_equal(safe_matmul(*finite), np.matmul(*finite))


def _strong_tensordot(a, b, ia, ib):
    """The contraction as every product (strong), summed."""
    free_a = [i for i in range(a.ndim) if i not in ia]
    free_b = [i for i in range(b.ndim) if i not in ib]
    inner = int(np.prod([a.shape[i] for i in ia]))
    left = np.transpose(a, free_a + ia).reshape(-1, inner)
    right = np.transpose(b, ib + free_b).reshape(inner, -1)
    sums = _strong(left[:, :, None], right[None, :, :]).sum(axis=1)
    return sums.reshape([a.shape[i] for i in free_a] + [b.shape[i] for i in free_b])


@pytest.mark.parametrize("shapes, axes", [(((2, 3, 4), (3, 5)), ([1], [0])),
                                          (((2, 3, 4), (3, 2, 4)), ([0, 2], [1, 2])),
                                          (((2, 3, 4), (4, 2, 3)), ([2, 0], [0, 1]))])
def test_safe_tensordot_is_the_strong_sum_of_products(shapes, axes):
    rng = np.random.default_rng(4)
    for _ in range(20):
        a, b = _draw(rng, shapes[0]), _draw(rng, shapes[1])
        with np.errstate(invalid="ignore"):
            got = safe_tensordot(a, b, axes)
        np.testing.assert_allclose(got, _strong_tensordot(a, b, *axes), rtol=1e-13, atol=1e-15)
    finite = rng.normal(size=shapes[0]), rng.normal(size=shapes[1])
    np.testing.assert_array_equal(safe_tensordot(*finite, axes), np.tensordot(*finite, axes))


def test_einsum_sums_are_strong_sums_of_products():
    # einsum's derivatives (templates/numpy_products.py's einsum_sums): a contraction whose
    # products meet an inf or nan of one factor where the other is 0 adds 0 for them
    einsum_sums = HELPERS["einsum_sums"]
    rng = np.random.default_rng(5)
    for _ in range(20):
        a, b = _draw(rng, (3, 4)), _draw(rng, (4, 2))
        (got,) = einsum_sums([a, b], [[("ij,jk->ik", [0, 1])]])
        want = _strong(a[:, :, None], b[None, :, :]).sum(axis=1)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
        (got,) = einsum_sums([a, b[:, 0]], [[("ij,j->ij", [0, 1])]])  # (no sum: products)
        np.testing.assert_array_equal(got, _strong(a, b[None, :, 0]))
