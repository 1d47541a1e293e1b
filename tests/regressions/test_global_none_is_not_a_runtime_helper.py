"""A global whose value is None (`MASK = None`, a setting left unset) read by the function: resolve
took it for a runtime helper (`runtime.HELPERS.get(name) is value` is true when both are None),
so it was not recorded as a user global and never copied into the generated code's namespace:
NameError at the first call (and a VerifyError under verify mode, where the unoptimized
derivative kept the read)."""
import numpy as np

import srcad

NOTHING = None
SCALE = None


def loss(x):
    s = 2.0 if SCALE is None else SCALE
    return np.sum(x ** 2) * s + (NOTHING is None)


def test_a_global_holding_none_is_read_by_the_derivative():
    x = np.array([1.0, -2.0])
    for verify in (False, True):
        for disable in (None, "all"):
            assert np.allclose(srcad.grad(loss, verify=verify, disable=disable)(x), 4.0 * x)


def test_a_global_holding_none_is_a_user_global_of_the_build():
    from srcad.api import cache
    built = cache.compiled(loss, "reverse", "grad", 0).built
    assert {"NOTHING", "SCALE"} <= set(built.user_globals)
