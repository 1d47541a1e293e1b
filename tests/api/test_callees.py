"""Callee derivatives specialized to each call's arguments (srcad/api/callees.py).

Helpers that stay calls (closures, recursive helpers) had one derivative for any arguments,
with unbroadcast and generic matrix-product adjoints on every call. In code specialized to the
caller's arguments they now get derivatives specialized to each call's arguments; these tests
check the numbers (central differences, the unoptimized derivative through verify mode, which
the suite turns on, and `disable="callees"`), that the two halves of a reverse-mode callee stay
paired when one helper meets several shapes, and what stays generic (forward mode's tangents
among it).
"""
import inspect

import numpy as np
import pytest

import srcad
from srcad.api import callees
from tests.regressions.numeric import central_gradient as central_one


def central_gradient(f, args, wrt=0):
    if isinstance(wrt, tuple):
        return tuple(central_one(f, args, i) for i in wrt)
    return central_one(f, args, wrt)


def make_model(A):
    def rhs(y, k):  # a closure: not written into its caller
        return A @ y + k * np.tanh(y)

    def integrate(y0, k):
        y = y0
        for _ in range(6):
            k1 = rhs(y, k)
            k2 = rhs(y + 0.05 * k1, k)
            y = y + 0.1 * k2
        return np.sum(y ** 2)
    return rhs, integrate


RNG = np.random.default_rng(7)
A = RNG.normal(size=(4, 4)) * 0.4
Y0 = RNG.normal(size=4)


def _dispatch(helper):
    (found,) = callees._DISPATCHES[helper].values()
    return found


def test_closure_helper_derivative_is_specialized_to_the_call():
    rhs, integrate = make_model(A)
    got = srcad.grad(integrate, wrt=(0, 1))(Y0, 0.3)
    want = central_gradient(integrate, (Y0, 0.3), wrt=(0, 1))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-9)
    found = _dispatch(rhs)
    assert isinstance(found, callees.RecordDispatch)
    assert len(found.by_signature) == 1 and not found.generic_used
    ((record, backward),) = found.by_signature.values()
    # the backward half specialized to (4,)-vectors: no unbroadcast (A, a closure value read at
    # each call, keeps its generic product adjoint: its shape is not in any signature); k's
    # adjoint sums a strong product, since y, its caller's value, may be nan where the caller
    # discards what rhs gives (modes/strong_zeros.py)
    text = inspect.getsource(backward)
    assert "unbroadcast" not in text and "bk = strong_mul(bout, t2).sum()" in text, text
    unspecialized = srcad.grad(integrate, wrt=(0, 1), disable="callees")(Y0, 0.3)
    for g, w in zip(got, unspecialized):
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-15)


def make_shapes():
    scale = [2.0]

    def norm2(v):  # a closure, called with a vector, a matrix and a scalar
        return scale[0] * np.sum(v * v) + np.sum(np.sin(v))

    def f(x, M, s):
        return norm2(x) * norm2(M) + norm2(s) + norm2(x[1:] * M[0, :3])
    return norm2, f


def test_one_helper_called_with_several_shapes_keeps_each_half_paired():
    norm2, f = make_shapes()
    x, M, s = RNG.normal(size=4), RNG.normal(size=(2, 3)), 0.7
    got = srcad.grad(f, wrt=(0, 1, 2))(x, M, s)
    want = central_gradient(f, (x, M, s), wrt=(0, 1, 2))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-9)
    assert len(_dispatch(norm2).by_signature) == 4  # (4,), (2, 3), a float and (3,)


def shrinking(x):  # recursive: another call, another shape
    if x.shape[0] == 1:
        return np.sum(x ** 2)
    return np.sum(np.sin(x[0] * x[1:])) + 1.5 * shrinking(x[1:])


def test_recursive_helper_specializes_each_depth():
    x = np.array([0.3, 0.7, -1.1, 0.4, 0.9])
    got = srcad.grad(shrinking)(x)
    np.testing.assert_allclose(got, central_gradient(shrinking, (x,)), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(srcad.jvp(shrinking)(x, np.ones(5)), got.sum(), rtol=1e-12)


def test_forward_mode_callee_stays_generic():
    rhs, integrate = make_model(A)
    v = RNG.normal(size=4)
    got = srcad.jvp(integrate, wrt=0)(Y0, 0.3, v)
    assert rhs not in callees._DISPATCHES
    np.testing.assert_allclose(got, srcad.grad(integrate)(Y0, 0.3) @ v, rtol=1e-12)


def test_closure_values_read_at_each_call():
    weights = {"w": 1.0}

    def helper(v):
        return weights["w"] * np.sum(np.tanh(v)) if v.shape[0] > 0 else 0.0

    def f(x):
        return helper(x) * helper(x[:2])
    x = RNG.normal(size=3)
    g = srcad.grad(f)
    first = g(x)
    weights["w"] = 3.0
    np.testing.assert_allclose(g(x), 9.0 * first, rtol=1e-12)


def test_changing_int_argument_stays_within_the_caps():
    def helper(v, n):  # (two returns: not written into its caller)
        if n > 0:
            return np.sum(v[:n] ** 3)
        return np.sum(v)

    def loop(v):
        total = 0.0
        for n in range(3 * (callees_caps()[0] + 2)):
            total = total + helper(v, n % 40)
        return total
    v = RNG.normal(size=40)
    got = srcad.grad(loop)(v)
    np.testing.assert_allclose(got, central_gradient(loop, (v,)), rtol=1e-7, atol=1e-8)
    found = _dispatch(helper)
    assert len(found.by_signature) <= callees_caps()[0] and found.generic_used


def callees_caps():
    from srcad.api import derivatives
    return derivatives.VALUES, derivatives.TOTAL


def sine_helper(v):
    if v[0] > 100.0:
        return v
    return np.sin(v)


def cosine_helper(v):
    if v[0] > 100.0:
        return v
    return np.cos(v)


helper_slot = sine_helper


def through_the_slot(x):
    return np.sum(helper_slot(x) * helper_slot(x[::-1]))


def test_redefined_callee_rebuilds(monkeypatch):
    x = RNG.normal(size=3)
    g = srcad.grad(through_the_slot)
    np.testing.assert_allclose(g(x), central_gradient(through_the_slot, (x,)), rtol=1e-7)
    monkeypatch.setitem(globals(), "helper_slot", cosine_helper)
    np.testing.assert_allclose(g(x), central_gradient(through_the_slot, (x,)), rtol=1e-7)
    assert cosine_helper in callees._DISPATCHES


@pytest.mark.parametrize("disable", ["callees", "specialize"])
def test_switched_off_callees_stay_generic(disable):
    rhs, integrate = make_model(A)
    srcad.grad(integrate, disable=disable)(Y0, 0.3)
    assert rhs not in callees._DISPATCHES


def positive_part(v):  # a float's value decides a shape: its specializations are generic
    if v.shape[0] > 100:
        return v
    return np.sum(v[v > 0.0] ** 2)


def over_lengths(x):
    return sum(positive_part(x[:n]) for n in range(2, 7))


def test_helper_whose_specializations_come_out_generic_is_not_built_again(monkeypatch):
    built = []
    compiled = callees.cache.compiled

    def counting(target, mode, kind, *rest, **kw):
        if kw.get("signature") is not None:  # (a specialization: not the code for any)
            built.append(kind)
        return compiled(target, mode, kind, *rest, **kw)
    monkeypatch.setattr(callees.cache, "compiled", counting)
    x = np.array([0.5, -0.3, 1.2, 0.7, -0.1, 2.0])
    got = srcad.grad(over_lengths)(x)
    np.testing.assert_allclose(got, central_gradient(over_lengths, (x,)), rtol=1e-7)
    found = _dispatch(positive_part)
    assert found.fruitless == callees.FRUITLESS and not found.bound
    assert built.count("record") == callees.FRUITLESS  # (then no more builds: 5 lengths)


def elementwise(v):  # its derivative for any arguments needs no shapes: nothing to gain
    if v[0] > 100.0:
        return v
    return np.tanh(np.exp(v))


def uses_elementwise(x):
    return np.sum(elementwise(x) * elementwise(x[::-1]))


def test_callee_whose_generic_code_needs_no_shapes_is_not_dispatched():
    x = RNG.normal(size=5)
    got = srcad.grad(uses_elementwise)(x)
    np.testing.assert_allclose(got, central_gradient(uses_elementwise, (x,)), rtol=1e-7)
    assert list(callees._DISPATCHES[elementwise].values()) == [None]


def test_the_source_marks_the_callee_code_that_runs_specialized():
    """srcad.source(f, args=...) shows the code f's calls run; a callee's halves that the
    dispatch builds per call are shown for any shapes, and say so. Not in code for any shapes,
    with callees switched off, for a callee that is not dispatched, nor in an emitted module."""
    rhs, integrate = make_model(A)
    marker = "builds it for each call's argument shapes"
    text = srcad.source(integrate, args=(Y0, 0.3))
    assert text.count(marker) == 2, text  # (the record and the backward half)
    assert marker not in srcad.source(integrate)
    assert marker not in srcad.source(integrate, args=(Y0, 0.3), disable="callees")
    assert marker not in srcad.source(uses_elementwise, args=(RNG.normal(size=5),))
