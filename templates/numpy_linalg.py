"""NumPy products: dot, outer (matmul is with the @ operator in operators.py)."""
import numpy as np

from srcad.registry import adjoint, d, tangent
from srcad.runtime import dot_adjoint_a, dot_adjoint_b


# dot: for 0-d operands a product, otherwise (1-D and 2-D operands) a matrix product
@adjoint(np.dot)
def dot(c, a, b, out=None):
    d[a] = dot_adjoint_a(d[c], a, b)
    d[b] = dot_adjoint_b(d[c], a, b)


@tangent(np.dot)
def dot(c, a, b, out=None):
    d[c] = np.dot(d[a], b) + np.dot(a, d[b])


@adjoint(np.outer)
def outer(c, a, b, out=None):
    d[a] = np.reshape(np.dot(d[c], np.ravel(b)), np.shape(a))
    d[b] = np.reshape(np.dot(np.ravel(a), d[c]), np.shape(b))


@tangent(np.outer)
def outer(c, a, b, out=None):
    d[c] = np.outer(d[a], b) + np.outer(a, d[b])

