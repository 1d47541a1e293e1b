"""optimize/contract.py: an adjoint that sums a product of arrays over some axes is one
np.einsum (a dot product, np.vdot, where every axis is summed), with no array of the product's
shape formed. The numbers against central differences and against the derivative without the
pass; the pass leaves the code alone where what the product reads may change before the sum,
where the values are not floats, and where the product is small."""
import numpy as np

import srcad
from srcad.optimize.contract import contract_sums

from before_after import check_rewrite, check_unchanged
from regressions.numeric import central_gradient


def pair_energy(x):
    diff = x[:, None, :] - x[None, :, :]
    d2 = np.sum(diff ** 2, axis=2)
    return np.sum(np.exp(-d2))


def test_the_adjoint_of_pairwise_differences_is_summed_as_it_is_multiplied():
    x = np.random.default_rng(0).normal(size=(24, 3))
    text = srcad.source(pair_energy, args=(x,))
    assert "np.matmul(bd2[:, None, :], diff)" in text and "bdiff" not in text
    assert "unindex" not in text  # (the adjoint of x[:, None, :]: a reshape, inplace.py)
    got = srcad.grad(pair_energy)(x)
    np.testing.assert_allclose(got, central_gradient(pair_energy, (x,)), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(got, srcad.grad(pair_energy, disable="contract")(x), rtol=1e-12,
                               atol=1e-14)
    srcad.check_grads(pair_energy, (x,), order=2)


RNG = np.random.default_rng(1)
ARGS = (RNG.normal(size=(20, 20)), RNG.normal(size=(20, 20, 3)), RNG.normal(size=(20, 20)))
SHAPES = {"w": (20, 20), "d": (20, 20, 3), "k": (20, 20), "p": (20, 20, 3), "q": (20, 20),
          "bt1": (20, 1, 3), "bt2": (1, 20, 3), "bs": (), "m": (20, 20, 3)}
FACTS = dict(shape_of=SHAPES.get, probed=lambda name: "d" if name in SHAPES else None,
             derived={"p", "bt1", "bt2", "bs", "q"}, returns_values=False)


def test_a_sum_of_a_product_bound_before_is_an_einsum_of_its_arrays():
    check_rewrite(contract_sums, """
        def f(w, d, k):
            p = np.reshape(w, (20, 20, 1)) * 2 * d
            bt1 = p.sum(axis=(1,), keepdims=True)
            bt2 = -p.sum(axis=(0,), keepdims=True)
            return bt1, bt2
        """, """
        def f(w, d, k):
            p = np.reshape(w, (20, 20, 1)) * 2 * d
            bt1 = 2 * np.matmul(w[:, None, :], d)
            bt2 = -(2 * np.matmul(w.T[:, None, :], d.transpose((1, 0, 2))).transpose((1, 0, 2)))
            return bt1, bt2
        """, ARGS, **FACTS)


def test_a_sum_over_one_axis_of_a_matrix_and_a_stack_is_a_batched_matrix_product():
    """One label summed, found in both arrays; the others kept: in both (a batch axis of
    np.matmul) or in one. The result's axes are arranged as the sum asked (here without
    keepdims: the summed axis dropped, the kept ones in order)."""
    check_rewrite(contract_sums, """
        def f(w, d, k):
            bt1 = (w[:, :, None] * d).sum(axis=1)
            bt2 = (d * k[:, :, None]).sum(axis=0)
            q = (w[:, :, None] * k[None, :, :]).sum(axis=1)
            return bt1, bt2, q
        """, """
        def f(w, d, k):
            bt1 = np.matmul(w[:, None, :], d)[:, 0, :]
            bt2 = np.matmul(k.T[:, None, :], d.transpose((1, 0, 2)))[:, 0, :]
            q = np.matmul(w, k)
            return bt1, bt2, q
        """, ARGS, **FACTS)


def test_a_divisor_the_same_along_the_summed_axes_divides_the_sum():
    """sum_a(x / q) = sum_a(x) / q for q constant along a. The adjoint's temporaries (derived
    names bound once to products) stand for their factors, so bs and share are not formed; with
    two arrays of the product's shape and a third, those two are multiplied first and the sum
    is one np.matmul (as in the mixture benchmark's adjoint of (x - mu) / s)."""
    check_rewrite(contract_sums, """
        def f(w, d, s):
            bs = np.reshape(w, (20, 20, 1)) * 2 * d
            share = bs / s
            bt1 = share.sum(axis=(0,), keepdims=True)
            bt2 = (share * d).sum(axis=0)
            return bt1, bt2
        """, """
        def f(w, d, s):
            bs = np.reshape(w, (20, 20, 1)) * 2 * d
            share = bs / s
            bt1 = 2 * np.matmul(w.T[:, None, :], d.transpose((1, 0, 2))).transpose((1, 0, 2)) / s
            bt2 = 2 * np.matmul(w.T[:, None, :], (d * d).transpose((1, 0, 2)))[:, 0, :] / s
            return bt1, bt2
        """, (ARGS[0], ARGS[1], RNG.uniform(1.0, 2.0, size=(20, 3))),
        **dict(FACTS, derived=FACTS["derived"] | {"bs", "share"}, probed=lambda name: "d",
               shape_of=dict(SHAPES, bs=(20, 20, 3), share=(20, 20, 3), s=(20, 3)).get))


def test_a_divisor_that_changes_along_a_summed_axis_keeps_the_code():
    """m varies along axis 0, the one summed: the sum of x / m is not sum(x) / m. Without
    keepdims, r (shape (1, 20, 3)), the same along axis 0 but with that axis, would not divide
    the sum (of shape (20, 3)) item by item: sum(x, axis=0) / r has shape (1, 20, 3)."""
    shapes = dict(SHAPES, bs=(20, 20, 3), m=(20, 20, 3), r=(1, 20, 3))
    for before in ("""
        def f(w, d, m, r):
            bs = np.reshape(w, (20, 20, 1)) * d / m
            bt1 = bs.sum(axis=(0,), keepdims=True)
            return bt1
        """, """
        def f(w, d, m, r):
            bs = np.reshape(w, (20, 20, 1)) * d / r
            bt1 = bs.sum(axis=(0,))
            return bt1
        """):
        check_unchanged(contract_sums, before, (ARGS[0], ARGS[1], RNG.normal(size=(20, 20, 3)),
                                                RNG.normal(size=(1, 20, 3))),
                        **dict(FACTS, derived=FACTS["derived"] | {"bs"}, probed=lambda name: "d",
                               shape_of=shapes.get))


def test_a_batch_of_dot_products_stays_an_einsum():
    """No label free in either array: a dot product per batch item, which einsum does faster
    than np.matmul of (., 1, n) by (., n, 1)."""
    check_rewrite(contract_sums, """
        def f(w, d, k):
            bt2 = (d * d).sum(axis=(0,), keepdims=True)
            return bt2
        """, """
        def f(w, d, k):
            bt2 = np.einsum('abc,abc->bc', d, d)[None, :, :]
            return bt2
        """, ARGS, **FACTS)


def test_every_axis_summed_of_two_arrays_of_one_shape_is_a_dot_product():
    check_rewrite(contract_sums, """
        def f(w, d, k):
            bs = (d * d).sum()
            return bs
        """, """
        def f(w, d, k):
            bs = np.vdot(d, d)
            return bs
        """, ARGS, **FACTS)


def test_three_arrays_and_a_view_with_unit_axes():
    check_rewrite(contract_sums, """
        def f(w, d, k):
            q = np.sum(w[:, :, None] * d * k[:, :, None], axis=2)
            return q
        """, """
        def f(w, d, k):
            q = np.einsum('ab,abc,ab->ab', w, d, k)
            return q
        """, ARGS, **FACTS)


def test_a_store_between_the_product_and_its_sum_keeps_the_code():
    check_unchanged(contract_sums, """
        def f(w, d, k):
            p = np.reshape(w, (20, 20, 1)) * d
            w[0, 0] = 5.0
            bt1 = p.sum(axis=(1,), keepdims=True)
            return bt1
        """, ARGS, **FACTS)


def test_a_name_the_product_reads_bound_again_before_the_sum_keeps_the_code():
    check_unchanged(contract_sums, """
        def f(w, d, k):
            p = np.reshape(w, (20, 20, 1)) * d
            w = k
            bt1 = p.sum(axis=(1,), keepdims=True)
            return bt1
        """, ARGS, **FACTS)


def test_values_that_are_not_floats_keep_the_code():
    ints = (ARGS[0].astype(int), ARGS[1].astype(int), ARGS[2])
    check_unchanged(contract_sums, """
        def f(w, d, k):
            bt1 = (np.reshape(w, (20, 20, 1)) * d).sum(axis=(1,), keepdims=True)
            return bt1
        """, ints, **dict(FACTS, probed=lambda name: None))


def test_a_small_product_keeps_the_code():
    small = {"w": (4, 4), "k": (4, 4), "bs": ()}
    check_unchanged(contract_sums, """
        def f(w, k):
            bs = (w * k).sum()
            return bs
        """, (ARGS[0][:4, :4], ARGS[2][:4, :4]),
        **dict(FACTS, shape_of=small.get))


def test_a_sum_that_is_not_a_derivative_keeps_the_code():
    check_unchanged(contract_sums, """
        def f(w, d, k):
            m = (w * k).sum()
            return m
        """, ARGS, **FACTS)


def test_where_values_are_returned_a_derivative_that_feeds_them_keeps_its_sum():
    """bs = (d * d).sum() read by out = bs * 2.0 (the optimizer keeps one of two equal
    expressions under the adjoint's name): f's value must be f's to the bit, and np.vdot adds
    in another order. The same code where no value is returned is contracted."""
    source = """
        def f(w, d, k):
            bs = (d * d).sum()
            out = bs * 2.0
            return out
        """
    check_unchanged(contract_sums, source, ARGS, **dict(FACTS, returns_values=True))
    check_rewrite(contract_sums, source, """
        def f(w, d, k):
            bs = np.vdot(d, d)
            out = bs * 2.0
            return out
        """, ARGS, **FACTS)
