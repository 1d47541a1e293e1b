"""optimize/outer.py batches a loop's outer products, bA += np.outer(bt, h), by appending the
vectors to lists and multiplying 32 steps at a time. The rows are kept by reference: where the
loop also writes into h's array after the append (the adjoint sweep's restore of a store,
h[i] = stack.pop(), in the same turn), the kept row had the restored values by the time of the
product, and the gradient in A was wrong with no error (fuzz seed 135632). Such vectors are not
batched now (the `mutated` fact)."""
import numpy as np

import srcad
from tests.regressions.numeric import central_gradient


def stored_into_then_rebound(x, A, n):
    h = np.zeros(n)
    for i in range(1, n):
        h[i] = np.cos(x[0] + 1.73)
        h = np.tanh(A @ h + np.exp(x[1]))
    return np.sum(h)


def test_gradient_in_the_matrix():
    rng = np.random.default_rng(0)
    x, A = rng.normal(size=2), 0.1 * rng.normal(size=(40, 40))
    f = stored_into_then_rebound
    got = srcad.grad(f, wrt=(0, 1))(x, A, 40)
    unoptimized = srcad.grad(f, wrt=(0, 1), disable="all")(x, A, 40)
    for i in (0, 1):
        np.testing.assert_allclose(got[i], central_gradient(f, (x, A, 40), i), rtol=1e-6,
                                   atol=1e-8)
        np.testing.assert_allclose(got[i], unoptimized[i], rtol=1e-12, atol=1e-15)
    assert "np.outer" in srcad.source(f, wrt=1, args=(x, A, 40))  # (h's rows: not batched)
