"""frontend/sizes.py: int arithmetic of sizes in a loop's body (an LSTM's gate bounds, 2 * H,
bound in every turn once in ANF) is done once before the loop, so reverse mode keeps none of it
on its tape; and optimize/inplace.py, which then knows those bounds, stores the adjoints of
disjoint slices into the fresh zeros they start from instead of adding them. Values and
gradients are the same as without the hoisting (disable="sizes"), in every mode; statements
the pass cannot vouch for stay in the loop."""

import numpy as np
import pytest

import srcad

from regressions.numeric import central_gradient
from workload_functions import fresh_functions


RNG = np.random.default_rng(23)
H, D, T = 4, 3, 3
ARGS = (RNG.normal(size=(4 * H, H)) * 0.5, RNG.normal(size=(4 * H, D)) * 0.5,
        RNG.normal(size=4 * H) * 0.1, RNG.normal(size=(T, D)), RNG.normal(size=H) * 0.1,
        RNG.normal(size=H) * 0.1)
lstm = fresh_functions()["lstm"]


def _loop_of(text):
    """The lines of the first for loop's body in text."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("for "))
    depth = len(lines[start]) - len(lines[start].lstrip())
    body = []
    for line in lines[start + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= depth:
            break
        body.append(line.strip())
    return body


def test_the_gate_bounds_are_computed_once_before_the_loop():
    text = srcad.source(lstm, stage="sizes")
    body = _loop_of(text)
    assert "z_1 = g[:t9]" in body and "f = sigmoid_g[H:t13]" in body
    assert not any(line.endswith("* H") for line in body), body
    assert "t9 = 3 * H" in text.split("for ")[0]
    assert any(line.endswith("= 2 * H") for line in _loop_of(srcad.source(
        lstm, stage="sizes", disable="sizes")))


def test_the_tape_keeps_no_bound_and_the_gate_adjoints_are_stored():
    text = srcad.source(lstm, wrt=(0, 1, 2), args=ARGS)
    pushed = [line for line in text.splitlines() if "stack.append((" in line]
    assert pushed and not any("t13" in line or "t9" in line for line in pushed), pushed
    # (stored, not added: by the in-place pass, and the stores that tile the zeros are one
    # concatenation, tiles.py)
    assert "bsigmoid_g = np.concatenate((bi, bf, bo))" in text and "+= bf" not in text
    assert "bg = np.concatenate((bz_1, bt17))" in text
    stored = srcad.source(lstm, wrt=(0, 1, 2), args=ARGS, disable="tiles")
    assert "bsigmoid_g[H:t13] = bf" in stored and "bsigmoid_g[:H] = bi" in stored
    assert "bg[:t9] = " in stored and "+= bf" not in stored


@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp", "unoptimized"])
def test_the_numbers_are_those_without_the_hoisting(mode):
    v = tuple(RNG.normal(size=np.shape(a)) for a in ARGS[:3])
    if mode == "grad":
        def run(**options):
            return srcad.grad(lstm, wrt=(0, 1, 2), **options)(*ARGS)
    elif mode == "jvp":
        def run(**options):
            return srcad.jvp(lstm, wrt=(0, 1, 2), **options)(*ARGS, *v)
    elif mode == "hvp":
        def run(**options):
            return srcad.hvp(lstm, wrt=0, **options)(*ARGS, v[0])
    else:
        def run(**options):
            off = options.get("disable", ())
            return srcad.grad(lstm, wrt=(0, 1, 2), disable=tuple(
                p for p in srcad.pipeline.PASSES if p != "sizes") + tuple(off))(*ARGS)
    got, want = run(), run(disable=("sizes",))
    for a, b in zip(*(x if isinstance(x, tuple) else (x,) for x in (got, want))):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    if mode == "grad":
        for i, a in enumerate(got):
            np.testing.assert_allclose(a, central_gradient(lstm, ARGS, i), rtol=1e-6,
                                       atol=1e-8)


def nested(x, n):
    m = x.shape[0]
    total = 0.0
    for i in range(n):
        for j in range(2):
            k = 2 * m
            total = total + np.sum(np.sin(x[j:k:2])) * (i + 1)
    return total


def test_from_a_loop_in_a_loop_out_of_both():
    text = srcad.source(nested, stage="sizes")
    assert "k = 2 * m" in text.split("for ")[0]
    x = RNG.normal(size=5)
    np.testing.assert_allclose(srcad.grad(nested)(x, 3), srcad.grad(nested, disable="sizes")(
        x, 3), rtol=1e-14)
    np.testing.assert_allclose(srcad.grad(nested)(x, 3), central_gradient(nested, (x, 3)),
                               rtol=1e-7)


def rebound(x, n):
    m = x.shape[0]
    total = 0.0
    for i in range(n):
        k = 2 * m  # (m changes in the loop: not a size)
        total = total + np.sum(x[:k]) * i
        m = m - 1
    return total


def read_after(x, n):
    m = x.shape[0]
    total = 0.0
    k = 0
    for i in range(n):
        k = m - 1  # (bound twice)
        total = total + np.sum(x[:k]) * i
    return total + k


def bound_twice(x, n):
    m = x.shape[0]
    total = 0.0
    for i in range(n):
        k = m - 1
        total = total + np.sum(x[:k]) * i
        k = m - 2  # (moved out, the first binding would leave k = m - 2 in later turns)
    return total


def read_before(x, n):
    m = x.shape[0]
    total = 0.0
    for i in range(n):
        if i > 0:
            total = total + np.sum(x[:k]) * i  # (k of the turn before)  # noqa: F821
        k = m - 1
    return total


def of_a_parameter(x, n, w):
    total = 0.0
    for i in range(n):
        k = 2 * w  # (w may be a float or an array: not a size)
        total = total + np.sum(x * k) * i
    return total


@pytest.mark.parametrize("func, kept", [(rebound, "k = 2 * m"), (read_after, "k = m - 1"),
                                        (bound_twice, "k = m - 1"), (read_before, "k = m - 1"),
                                        (of_a_parameter, "k = 2 * w")])
def test_what_the_pass_cannot_vouch_for_stays_in_the_loop(func, kept):
    text = srcad.source(func, stage="sizes")
    assert kept in _loop_of(text), text
    x = RNG.normal(size=6)
    for n in (3, 20):  # (3 turns are written out in the build for the arguments; 20 are not)
        args = (x, n, 1.5) if func is of_a_parameter else (x, n)
        want = central_gradient(func, args)
        for disable in (None, "specialize"):
            np.testing.assert_allclose(srcad.grad(func, disable=disable)(*args), want,
                                       rtol=1e-7, atol=1e-9)
