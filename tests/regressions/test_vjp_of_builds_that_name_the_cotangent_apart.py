"""A vjp's generated function takes the cotangent by the keyword of the returned value's
adjoint, and builds for two shapes may name it apart (a loop over A's rows written out turn by
turn versions t1 as t1_2 or t1_4). The fast path's code passed every specialization the first
one's keyword: the second shape, called again, raised "unexpected keyword argument 'bt1_4'".
Found by the fuzzer's Jacobian mode (seed 62053), which calls one vjp for several shapes."""
import numpy as np

import srcad


def rows_summed(s, A):
    t1 = A[0, 0] * s
    for row in A:
        t1 = t1 + np.sum(row) * s
    return t1


def test_one_vjp_serves_shapes_whose_builds_name_the_cotangent_apart():
    vjp = srcad.vjp(rows_summed, wrt=(0, 1))
    for shape in ((4, 3), (2, 5), (4, 3), (2, 5), (3, 3), (5, 2), (6, 1), (4, 3)):
        A = np.arange(np.prod(shape), dtype=float).reshape(shape) / 10
        gs, gA = vjp(0.5, A, 2.0)
        expected = np.full(shape, 2.0 * 0.5)
        expected[0, 0] += 2.0 * 0.5
        np.testing.assert_allclose(gA, expected)
        assert np.isclose(gs, 2.0 * (A[0, 0] + A.sum()))
