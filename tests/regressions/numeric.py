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
