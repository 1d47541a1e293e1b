"""Central differences in float64: the oracle the regression tests compare srcad with."""
import numpy as np


def central_gradient(f, args, i=0, h=1e-6):
    """The gradient of a scalar f(*args) with respect to args[i] (an array or a float), entry by
    entry."""
    x = np.asarray(args[i], dtype=float)
    out = np.zeros(x.shape)
    for j in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[j] += h
        down[j] -= h
        a, b = list(args), list(args)
        a[i], b[i] = up, down
        if not isinstance(args[i], np.ndarray):
            a[i], b[i] = float(up), float(down)
        out[j] = (f(*a) - f(*b)) / (2 * h)
    return out if isinstance(args[i], np.ndarray) else float(out)


def central(f, x, h=1e-6):
    """The gradient of a scalar f(x) with respect to the array x."""
    return central_gradient(f, (x,), 0, h)


def numeric_hvp(f, x, v, h=1e-4):
    """H v of a scalar f at the array x by second-order central differences of f alone:
    entry j is (f(x+hv+he_j) - f(x+hv-he_j) - f(x-hv+he_j) + f(x-hv-he_j)) / 4h^2."""
    x, v = np.asarray(x, dtype=float), np.asarray(v, dtype=float)
    out = np.zeros(x.shape)
    for j in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[j] = h
        out[j] = (f(x + h * v + e) - f(x + h * v - e) - f(x - h * v + e)
                  + f(x - h * v - e)) / (4 * h * h)
    return out


def check_value_gradient_and_tangent(func, x, atol):
    """value_and_grad of a scalar func at the array x: the value func's to the bit, the gradient
    against central differences, and the jvp along ones against their sum (srcad imported
    here: the rest of this module is srcad-free)."""
    import srcad
    right = central(func, x)
    value, grad = srcad.value_and_grad(func)(x)
    assert value == func(x)
    np.testing.assert_allclose(grad, right, rtol=1e-6, atol=atol)
    np.testing.assert_allclose(srcad.jvp(func)(x, np.ones(x.shape)), right.sum(), rtol=1e-6)
