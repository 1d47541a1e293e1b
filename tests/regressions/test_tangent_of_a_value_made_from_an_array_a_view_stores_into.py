"""`t1 = A - B` makes a new array, but its tangent `rebroadcast(dA, t1)` is dA itself when B has
no tangent; a later store into A through a view (`v = A[1:]; v[0] = A[0]`) then wrote into dA,
and so into dt1: t1's tangent changed though t1 did not. Forward mode copied such tangents only
for arrays stored into by their own name, not through a view. A silent wrong jvp, and a wrong
hvp (forward over reverse). Found by the fuzzer (seed 57304, hvp)."""
import numpy as np

import srcad


def stored_through_a_view(A, B):
    A = 0.5 * A
    t1 = A - B
    v1 = A[1:]
    v1[0] = A[0]
    return np.sum(t1 ** 2)


def test_a_store_through_a_view_does_not_reach_a_new_values_tangent():
    A, B = np.array([[-0.8], [1.5]]), np.array([[0.1], [-1.0]])
    v = np.array([[-2.79], [0.966]])
    expected = np.sum((A - 2 * B) * 0.5 * v)  # d/dA sum((A/2 - B)^2) = (A/2 - B), along v
    for disable in (None, "all"):
        assert np.isclose(srcad.jvp(stored_through_a_view, disable=disable)(A, B, v), expected)
    np.testing.assert_allclose(srcad.hvp(stored_through_a_view)(A, B, v), 0.5 * v)
    srcad.check_grads(stored_through_a_view, (A, B), order=2)
