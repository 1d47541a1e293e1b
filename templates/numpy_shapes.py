"""NumPy shape functions: transpose, reshape, expand_dims, squeeze, ravel, concatenate, stack.

All are linear: the tangent applies the same function to d[x]; the adjoint applies its
transpose (reshape back, transpose back, cut back into pieces).
"""
import numpy as np

from srcad.registry import adjoint, d, tangent
from srcad.runtime import unconcatenate, unstack


@adjoint(np.transpose)
def transpose(y, a, axes=None):
    if axes is None:
        d[a] = np.transpose(d[y])
    else:
        d[a] = np.transpose(d[y], np.argsort(axes))


@tangent(np.transpose)
def transpose(y, a, axes=None):
    d[y] = np.transpose(d[a], axes)


@adjoint(np.reshape)
def reshape(y, a, shape=None, order="C"):
    d[a] = np.reshape(d[y], np.shape(a), order=order)


@tangent(np.reshape)
def reshape(y, a, shape=None, order="C"):
    d[y] = np.reshape(d[a], shape, order=order)


@adjoint(np.ravel)
def ravel(y, a, order="C"):
    d[a] = np.reshape(d[y], np.shape(a), order=order)


@tangent(np.ravel)
def ravel(y, a, order="C"):
    d[y] = np.ravel(d[a], order=order)


@adjoint(np.expand_dims)
def expand_dims(y, a, axis):
    d[a] = np.reshape(d[y], np.shape(a))


@tangent(np.expand_dims)
def expand_dims(y, a, axis):
    d[y] = np.expand_dims(d[a], axis)


@adjoint(np.squeeze)
def squeeze(y, a, axis=None):
    d[a] = np.reshape(d[y], np.shape(a))


@tangent(np.squeeze)
def squeeze(y, a, axis=None):
    d[y] = np.squeeze(d[a], axis)


@adjoint(np.concatenate)
def concatenate(y, arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    d[arrays] = unconcatenate(d[y], arrays, axis)


@tangent(np.concatenate)
def concatenate(y, arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    d[y] = np.concatenate(d[arrays], axis)


@adjoint(np.stack)
def stack(y, arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    d[arrays] = unstack(d[y], axis)


@tangent(np.stack)
def stack(y, arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    d[y] = np.stack(d[arrays], axis)
