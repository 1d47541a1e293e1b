"""A helper that updates its parameters in place (vx -= c * grad_p; return vx, vy), called with
arrays the caller has just made and never reads again (a fluid solver's projection step on the
advected velocities), was refused: "project changes an argument in place". The refusal guards
callers that read the array afterwards and would see the change, which srcad's derivative,
taking the update as a new value (vx = vx - ...), does not make. Where nothing can see it, the
call computes what the derivative computes, so it is now accepted (frontend/mutation.py): the
helper changes parameters only by updating them (p op= v; a store or a writing method is
refused as before), and each array it is passed for one was made by the caller, is not read
after the call (by its name, another name, a view, a container) and is not passed for another
parameter too. The caller's own arguments and globals are refused as before (the caller's
callers could see them)."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient


def project(vx, vy, c):
    vx -= c * np.roll(vy, 1)
    vy *= 1.0 + 0.1 * np.tanh(vx)
    return vx, vy


def steps(w, u):
    vx, vy = w * 1.0, u + 0.5
    for t in range(20):  # (a loop too long to write out: the arrays die each turn)
        ax = np.sin(vx) + 0.1 * vy
        ay = np.cos(vy) * vx
        vx, vy = project(ax, ay, 0.3)
    return np.sum(vx ** 2) + np.sum(vy)


def once(w, u):
    a = w * 2.0
    b = u - w
    x, y = project(a, b, 0.5)
    return np.sum(x * y)


def read_after(w, u):
    a = w * 2.0
    b = u - w
    x, y = project(a, b, 0.5)
    return np.sum(x * y) + np.sum(a)


def view_read_after(w, u):
    a = w * 2.0
    head = a[:2]
    x, y = project(a, u * 1.0, 0.5)
    return np.sum(x * y) + np.sum(head)


def same_array_twice(w, u):
    a = w * 2.0
    x, y = project(a, a, 0.5)
    return np.sum(x * y)


def own_argument(w, u):
    x, y = project(w, u * 1.0, 0.5)
    return np.sum(x * y)


def store(v, c):
    v[0] = c
    return v


def stores_into_it(w, u):
    a = w * 2.0
    return np.sum(store(a, 1.0) * u)


W = np.array([0.5, -1.2, 0.8])
U = np.array([0.3, 0.1, -0.7])


@pytest.mark.parametrize("f", [steps, once])
def test_updates_nothing_reads_after(f):
    got = srcad.grad(f)(W, U)
    np.testing.assert_allclose(got, central_gradient(f, (W.copy(), U.copy())), rtol=1e-6,
                               atol=1e-9)
    v = np.array([0.2, -0.4, 0.9])
    np.testing.assert_allclose(srcad.jvp(f)(W, U, v), got @ v, rtol=1e-10)


@pytest.mark.parametrize("f", [read_after, view_read_after, same_array_twice, own_argument,
                               stores_into_it])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_updates_that_could_be_seen_are_refused(f, mode):
    with pytest.raises(srcad.SrcadError, match="changes an argument in place"):
        if mode == "grad":
            srcad.grad(f)(W, U)
        else:
            srcad.jvp(f)(W, U, np.ones(3))
