"""value_and_grad's value differed from f's in the last bit where a helper returned an array in
Fortran order (computed from A.T) and f summed it: the helper's value was handed on through
copy_value, whose `y.copy()` made a C-ordered copy, and NumPy's sum adds an array in its
memory order. copy_value now copies in the array's own order (order="K"). Found by the fuzzer
(seed 530227: -3.4125414179362195 for -3.412541417936219)."""
import numpy as np

import srcad


def helper(v, depth):
    if depth <= 0:
        return v
    return helper(0.5 * v - 0.25 * np.cos(v), depth - 1)


def f(x, A):
    return helper(A.T, 2).sum() + np.sum(x)


def test_the_value_is_f_s_to_the_bit():
    x = np.array([0.7765540429089448, 0.2528103777834212, 0.22229266787133684])
    A = np.array([[-0.14645842779221807, 0.6777099370821684, 0.03623432800031523],
                  [-1.444897643520701, -0.896723940496629, -0.5459509773887974],
                  [-0.35786560078476226, -0.8748463841850841, 1.1004673037542227]])
    for disable in (None, "all"):
        value, _ = srcad.value_and_grad(f, wrt=(0, 1), disable=disable)(x, A)
        assert value == f(x, A)
    rng = np.random.default_rng(5)
    for _ in range(20):  # (other matrices: the value is f's wherever the orders would differ)
        A = rng.normal(size=(5, 5))
        assert srcad.value_and_grad(f, wrt=(0, 1))(x, A)[0] == f(x, A)
