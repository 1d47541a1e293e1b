"""A function defined inside another (indented source) was parsed with column offsets shifted
but end columns not: compile() refused the nodes, so the shape probe failed silently and every
call ran generic code. Positions are rebased as a whole, so the probe compiles them."""
import numpy as np

import srcad


def test_an_indented_function_gets_code_specialized_to_its_arguments():
    def h(x, w):
        return np.sum(x * w)
    x, w = np.array([0.5, -1.2, 2.0]), np.array([1.0, 2.0, 3.0])
    text = srcad.source(h, args=(x, w))
    assert "unbroadcast(" not in text  # the probe ran: shapes are known
    np.testing.assert_allclose(srcad.grad(h)(x, w), w)
