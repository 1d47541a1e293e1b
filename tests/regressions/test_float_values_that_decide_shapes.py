"""A derivative specialized at the first call is used again for arguments of the same types
and shapes; a float is keyed by its type alone. When a float argument's value decides a shape
inside (the test of an if under which a list grows, or that binds a number on one path and an
array on the other), the probe's shapes were written into code that other values then ran:
grow(x, -1.0) after grow(x, 1.0) returned the value and gradient of the longer list, silently;
pick(x, -1.0) after pick(x, 1.0) crashed in generated code (fuzz seed 390635). Only a float
array's values were followed into such tests. A float's are now too, and so are the floats
in a list, tuple or dict argument (p["r"] > 0), and the floats of globals and closure
variables (SCALE > 0), and the numbers in a global list or object, which can change in place
(SETTINGS.steps). The code for any shapes runs for them."""
import numpy as np
import pytest

import srcad
from tests.regressions.numeric import central_gradient


def grow(x, r):
    kept = [x * 0.5]
    if r > 0:
        kept.append(np.sin(x) * r)
    return np.sum(np.mean(np.stack(kept), axis=0))


def pick(x, r):
    acc = x if r > 0 else r
    return np.mean(acc ** 2)


def grow_by_a_dict_item(x, p):
    kept = [x * 0.5]
    if p["r"] > 0:
        kept.append(np.sin(x) * p["r"])
    return np.sum(np.mean(np.stack(kept), axis=0))


def grow_by_a_list_item(x, p):
    kept = [x * 0.5]
    if p[1] > 0:
        kept.append(np.sin(x) * p[0])
    return np.sum(np.mean(np.stack(kept), axis=0))


X = np.array([0.3, 0.7, 1.1])
CASES = [(grow, [1.0, -1.0, 2.0]), (pick, [1.0, -1.0, 0.5]), (grow, [np.float32(1.0),
                                                                   np.float32(-1.0)]),
         (grow_by_a_dict_item, [{"r": 1.0}, {"r": -1.0}]),
         (grow_by_a_list_item, [[1.0, 1.0], [1.0, -1.0]])]


@pytest.mark.parametrize("func, values", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_each_call_gets_its_own_values_numbers(func, values):
    derivative = srcad.value_and_grad(func)
    for r in values:  # (one derivative object: the first call specializes it)
        value, grad = derivative(X, r)
        assert value == func(X, r)
        np.testing.assert_allclose(grad, central_gradient(func, (X, r)), rtol=1e-6, atol=1e-8)


SCALE = 1.0


def grow_by_a_global(x):
    kept = [x * 0.5]
    if SCALE > 0:
        kept.append(np.sin(x) * SCALE)
    return np.sum(np.mean(np.stack(kept), axis=0))


def grower_by_a_closure():
    rate = [1.0]

    def grow_by_a_closure(x):
        kept = [x * 0.5]
        if rate[0] > 0:
            kept.append(np.sin(x) * rate[0])
        return np.sum(np.mean(np.stack(kept), axis=0))
    return grow_by_a_closure, rate


def test_a_global_float_that_decides_a_shape_is_read_at_each_call():
    """A build watches which object a global holds: a float rebound from 1.0 to -1.0 ran the
    shapes probed at 1.0 (the value 0.525 for 1.05)."""
    global SCALE
    derivative = srcad.value_and_grad(grow_by_a_global)
    try:
        for SCALE in (1.0, -1.0, 2.0):
            value, grad = derivative(X)
            assert value == grow_by_a_global(X)
            np.testing.assert_allclose(grad, central_gradient(grow_by_a_global, (X,)),
                                       rtol=1e-6, atol=1e-8)
    finally:
        SCALE = 1.0


def test_a_closure_list_of_floats_that_decides_a_shape():
    func, rate = grower_by_a_closure()
    derivative = srcad.value_and_grad(func)
    for rate[0] in (1.0, -1.0, 3.0):  # (the list changed in place between the calls)
        value, grad = derivative(X)
        assert value == func(X)
        np.testing.assert_allclose(grad, central_gradient(func, (X,)), rtol=1e-6, atol=1e-8)


class Settings:
    def __init__(self):
        self.rate, self.steps = 1.0, 2


SETTINGS = Settings()
STEPS = [2]


def grow_by_a_global_objects_attributes(x):
    kept = [x * 0.5]
    for i in range(SETTINGS.steps):
        kept.append(np.sin(x) * i)
    if SETTINGS.rate > 0:
        kept.append(x * SETTINGS.rate)
    return np.sum(np.mean(np.stack(kept), axis=0))


def grow_by_a_global_lists_int(x):
    kept = [x * 0.5]
    for i in range(STEPS[0]):
        kept.append(np.sin(x) * i)
    return np.sum(np.mean(np.stack(kept), axis=0))


def test_numbers_changed_in_place_in_a_global_object_or_list():
    """The watch sees another object bound to SETTINGS or STEPS, not an attribute or item
    changed in place: SETTINGS.steps = 3 after a build probed at 2 stacked 3 arrays for 4."""
    derivatives = [srcad.value_and_grad(grow_by_a_global_objects_attributes),
                   srcad.value_and_grad(grow_by_a_global_lists_int)]
    try:
        for steps, rate in ((2, 1.0), (3, -1.0), (1, 2.0)):
            SETTINGS.steps, SETTINGS.rate, STEPS[0] = steps, rate, steps
            for func, derivative in zip((grow_by_a_global_objects_attributes,
                                         grow_by_a_global_lists_int), derivatives):
                value, grad = derivative(X)
                assert value == func(X)
                np.testing.assert_allclose(grad, central_gradient(func, (X,)), rtol=1e-6,
                                           atol=1e-8)
    finally:
        SETTINGS.steps, SETTINGS.rate, STEPS[0] = 2, 1.0, 2
