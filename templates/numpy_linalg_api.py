"""numpy.linalg's array-API functions, which work on the last axes: trace, diagonal, vecdot,
matvec, vecmat, vector_norm, matrix_norm, svdvals, and cross, outer, tensordot, matmul,
matrix_transpose as the numpy functions of the same name (templates in numpy_linalg.py and
numpy_shapes.py)."""
import numpy as np

from srcad.rules.registry import REGISTRY, adjoint, d, linear, tangent
from srcad.runtime import helper, unbroadcast, unreduce

from .numpy_linalg import norm_coefficients, norm_extremum_weights, signed_power
from .numpy_reductions import undiagonal


@helper(tangent="linear")
def matrix_norm_fro(g, ord="fro"):
    """g, after checking that np.linalg.matrix_norm's ord is 'fro' (the one srcad
    differentiates)."""
    if not (isinstance(ord, str) and ord == "fro"):
        raise ValueError(f"srcad differentiates np.linalg.matrix_norm with ord='fro' only, "
                         f"not ord={ord!r}")
    return g


# ---------------------------------------------------------------------------------------------
# numpy.linalg's array-API functions that work on the last axes

@linear(np.linalg.trace)
def linalg_trace(y, x, *, offset=0, dtype=None):
    d[x] = undiagonal(np.expand_dims(d[y], -1), x, offset, -2, -1)


@linear(np.linalg.diagonal)
def linalg_diagonal(y, x, *, offset=0):
    d[x] = undiagonal(d[y], x, offset, -2, -1)


# vecdot(x1, x2, axis) = sum(x1 * x2) along axis (each operand's own axis), batch axes broadcast
@adjoint(np.vecdot, np.linalg.vecdot)
def vecdot(y, x1, x2, *, axis=-1):
    d[x1] = np.moveaxis(unbroadcast(np.expand_dims(d[y], -1) * np.moveaxis(x2, axis, -1),
                                    np.moveaxis(x1, axis, -1)), -1, axis)
    d[x2] = np.moveaxis(unbroadcast(np.expand_dims(d[y], -1) * np.moveaxis(x1, axis, -1),
                                    np.moveaxis(x2, axis, -1)), -1, axis)


@tangent(np.vecdot, np.linalg.vecdot)
def vecdot(y, x1, x2, *, axis=-1):
    d[y] = np.sum(np.moveaxis(d[x1], axis, -1) * np.moveaxis(x2, axis, -1)
                  + np.moveaxis(x1, axis, -1) * np.moveaxis(d[x2], axis, -1), axis=-1)


# matvec(A, v)_i = sum_j A_ij v_j,  vecmat(v, A)_j = sum_i v_i A_ij (batch axes broadcast)
@adjoint(np.matvec)
def matvec(y, x1, x2):
    d[x1] = unbroadcast(np.expand_dims(d[y], -1) * np.expand_dims(x2, -2), x1)
    d[x2] = unbroadcast(np.sum(np.expand_dims(d[y], -1) * x1, axis=-2), x2)


@tangent(np.matvec)
def matvec(y, x1, x2):
    d[y] = np.sum(d[x1] * np.expand_dims(x2, -2) + x1 * np.expand_dims(d[x2], -2), axis=-1)


@adjoint(np.vecmat)
def vecmat(y, x1, x2):
    d[x1] = unbroadcast(np.sum(np.expand_dims(d[y], -2) * x2, axis=-1), x1)
    d[x2] = unbroadcast(np.expand_dims(x1, -1) * np.expand_dims(d[y], -2), x2)


@tangent(np.vecmat)
def vecmat(y, x1, x2):
    d[y] = np.sum(np.expand_dims(d[x1], -1) * x2 + np.expand_dims(x1, -1) * d[x2], axis=-2)


# vector_norm: a p-norm over axis (None: all entries, whatever the shape), weights as for
# np.linalg.norm (numpy_linalg.py): w = sign(x) |x / y|^(p-1), or the extremal entries
@adjoint(np.linalg.vector_norm)
def vector_norm(y, x, *, axis=None, keepdims=False, ord=2):
    coef = norm_coefficients(ord)
    yb = unreduce(y, x, axis, keepdims)
    w = (coef[1] * signed_power(x / np.where(yb > 0, yb, 1.0), coef[0])
         + coef[2] * norm_extremum_weights(x, yb, axis))
    d[x] = unreduce(d[y], x, axis, keepdims) * w


@tangent(np.linalg.vector_norm)
def vector_norm(y, x, *, axis=None, keepdims=False, ord=2):
    coef = norm_coefficients(ord)
    yb = unreduce(y, x, axis, keepdims)
    w = (coef[1] * signed_power(x / np.where(yb > 0, yb, 1.0), coef[0])
         + coef[2] * norm_extremum_weights(x, yb, axis))
    d[y] = np.sum(w * d[x], axis=axis, keepdims=keepdims)


# matrix_norm 'fro' over the last two axes: dy = sum(x dx) / y (0 where y = 0)
@adjoint(np.linalg.matrix_norm)
def matrix_norm(y, x, *, keepdims=False, ord="fro"):
    yb = unreduce(y, x, (-2, -1), keepdims)
    d[x] = matrix_norm_fro(unreduce(d[y], x, (-2, -1), keepdims), ord) * (
        x / np.where(yb > 0, yb, 1.0))


@tangent(np.linalg.matrix_norm)
def matrix_norm(y, x, *, keepdims=False, ord="fro"):
    yb = unreduce(y, x, (-2, -1), keepdims)
    d[y] = matrix_norm_fro(np.sum(d[x] * (x / np.where(yb > 0, yb, 1.0)), axis=(-2, -1),
                                  keepdims=keepdims), ord)


# singular values: ds = diag(U^T dA V),  A_bar = U diag(s_bar) V^T (thin SVD)
@adjoint(np.linalg.svdvals)
def svdvals(s, x):
    usv = np.linalg.svd(x, full_matrices=False)
    d[x] = (usv[0] * np.expand_dims(d[s], -2)) @ usv[2]


@tangent(np.linalg.svdvals)
def svdvals(s, x):
    usv = np.linalg.svd(x, full_matrices=False)
    d[s] = np.diagonal(np.swapaxes(usv[0], -1, -2) @ d[x] @ np.swapaxes(usv[2], -1, -2),
                       0, -2, -1)


# the array-API spellings in numpy.linalg that compute what the numpy functions compute: the
# same templates (np.linalg.cross, outer, tensordot, matmul, matrix_transpose)
for _op, _same in ((np.linalg.cross, np.cross), (np.linalg.outer, np.outer),
                   (np.linalg.tensordot, np.tensordot), (np.linalg.matmul, np.matmul),
                   (np.linalg.matrix_transpose, np.matrix_transpose),
                   (np.asanyarray, np.asarray)):
    if _op is not _same:
        REGISTRY.same_as(_op, _same)
