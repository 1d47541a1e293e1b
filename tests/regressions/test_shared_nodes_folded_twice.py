"""A pass that copies an expression into a second statement without cloning it leaves one node
in two places; the passes rewrite nodes in place, so a rewrite meant for one statement happens
to both. sink broadcasts copied `0.5 * (t5 ** 2 * bt7)` into a new temporary, the constant
folding merged the numbers in place (bt7 = 1.0: 0.5) for the temporary and again for the
original statement (0.25), and the gradient of mean((|A| (y < c))^2) + 1.0 was half the truth
(fuzz seed 601731; verify mode named the pass). Now no pass shares nodes (the pipeline checks
every pass's result: pipeline.unshared) and merging numbers builds a new node."""
import gast
import numpy as np
import pytest

import srcad
from srcad.pipeline import unshared

from .numeric import central_gradient


def masked_square_mean(A, y):
    t2 = np.sqrt(A * A) * (y < 0.537)
    t3 = 1.0
    return np.mean(t2 ** 2) + t3


def test_a_spread_value_read_twice_is_folded_once():
    A, y = np.array([[0.7, -0.6]]), np.array([1.2, -0.0])
    gA, gy = srcad.grad(masked_square_mean, wrt=(0, 1))(A, y)
    np.testing.assert_allclose(gA, central_gradient(masked_square_mean, (A, y), 0), atol=1e-8)
    np.testing.assert_array_equal(gy, [0.0, 0.0])


def test_a_node_in_two_places_is_an_internal_error():
    shared = gast.Name(id="x", ctx=gast.Load(), annotation=None, type_comment=None)
    fdef = gast.parse("def f(x):\n    a = x\n    b = x\n").body[0]
    fdef.body[0].value = fdef.body[1].value = shared
    with pytest.raises(AssertionError, match="in two places"):
        unshared(fdef, "a test")


def test_a_context_in_two_places_is_not_an_error():
    """Contexts and operators carry nothing a pass rewrites: one instance may serve many nodes
    (the census finds repeated nodes from all the ids at once, then looks closer)."""
    fdef = gast.parse("def f(x):\n    a = x + x\n    b = x\n").body[0]
    load = gast.Load()
    for node in gast.walk(fdef):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            node.ctx = load
    assert unshared(fdef, "a test") is fdef
    fdef.body[1].value = fdef.body[0].value.left
    with pytest.raises(AssertionError, match="in two places"):
        unshared(fdef, "a test")
