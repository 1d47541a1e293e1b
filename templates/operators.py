"""Python's operators: + - * / ** @, unary - and +, indexing x[i], and tuple displays (a, b).

Each op's adjoint (reverse mode) and tangent (forward mode) side by side; for the linear ones
(+, -, unary -, indexing, attributes) and the bilinear ones (*, @) the adjoint alone, and the
registry writes the tangent (@linear, @bilinear in rules/registry.py). In an adjoint,
`d[x] = e` is x's share of the adjoint; broadcasting ops (broadcasts=True) have it summed over
the axes numpy broadcast x along, by the compiler, so the rules below read as scalar calculus.
"""
import operator

import numpy as np

from srcad.rules.operations import copy, pack
from srcad.rules.registry import adjoint, bilinear, d, diagonal, linear, non_differentiable, tangent
from srcad.runtime import item_adjoints, matmul_adjoint_a, matmul_adjoint_b, unattr, unindex
from srcad.templates.numpy_elementwise import safe_div, safe_mul

# z = x + y ------------------------------------------------------------------------------------
@linear(operator.add, np.add, broadcasts=True)
def add(z, x, y):
    d[x] = d[z]
    d[y] = d[z]


# z = x - y ------------------------------------------------------------------------------------
@linear(operator.sub, np.subtract, broadcasts=True)
def sub(z, x, y):
    d[x] = d[z]
    d[y] = -d[z]


# z = x * y ------------------------------------------------------------------------------------
@bilinear(operator.mul, np.multiply, broadcasts=True)
def mul(z, x, y):
    d[x] = d[z] * y
    d[y] = d[z] * x


# z = x / y ------------------------------------------------------------------------------------
@adjoint(operator.truediv, np.true_divide, broadcasts=True)
def truediv(z, x, y):
    share = safe_div(d[z], y)  # (one division serves both: -d[z] * z / y == -share * z)
    d[x] = share  # (guarded: a zero adjoint stays 0 over a zero or nan divisor, as where an
    # untaken np.where branch divides by 0; optimize/guards.py drops what cannot happen)
    if (isinstance(x, float) or isinstance(x, int)) and x == 1:  # 1 / y: share / y, which
        d[y] = -safe_div(share, y)  # meets what share met (0 over 0), not z = 1 / y
    else:
        d[y] = -safe_mul(share, z)


@tangent(operator.truediv, np.true_divide, broadcasts=True)
def truediv(z, x, y):
    d[z] = (d[x] - safe_mul(d[y], z)) / y  # z = 0 against an infinite d[y] contributes 0


# z = x ** y (d/dy uses log x, taken as 0 where x <= 0: there x ** y has no real slope in y
# unless x == 0, where the slope is 0 for y > 0)
# (x ** (y - 1) for an integer exponent y >= 1; np.power otherwise, so that a Python float 0.0
# to a negative power gives inf, as for arrays, not ZeroDivisionError)
@adjoint(operator.pow, np.power, broadcasts=True)
def pow(z, x, y):
    if isinstance(y, int) and y >= 1:
        d[x] = d[z] * y * x ** (y - 1)
    else:  # (x ** -1 at 0, x ** 0.5 below 0: a zero adjoint stays zero, as under np.where)
        d[x] = safe_mul(d[z], y * np.power(x, y - 1))
    d[y] = d[z] * z * np.log(np.where(x > 0, x, 1))


@tangent(operator.pow, np.power, broadcasts=True)
def pow(z, x, y):
    if isinstance(y, int) and y >= 1:
        d[z] = d[x] * y * x ** (y - 1) + d[y] * z * np.log(np.where(x > 0, x, 1))
    else:
        d[z] = d[x] * y * np.power(x, y - 1) + d[y] * z * np.log(np.where(x > 0, x, 1))


# z = x @ y (1-D operands and batch broadcasting handled by the runtime helpers) ---------------
@bilinear(operator.matmul, np.matmul)
def matmul(z, x, y):
    if np.ndim(x) == 2 and np.ndim(y) == 2:  # ranks known (a shape-specialized build)
        d[x] = d[z] @ y.T
        d[y] = x.T @ d[z]
    elif np.ndim(x) == 2 and np.ndim(y) == 1:
        d[x] = np.outer(d[z], y)
        d[y] = d[z] @ x
    elif np.ndim(x) == 1 and np.ndim(y) == 2:
        d[x] = y @ d[z]
        d[y] = np.outer(x, d[z])
    else:
        d[x] = matmul_adjoint_a(d[z], x, y)
        d[y] = matmul_adjoint_b(d[z], x, y)


# y = -x, y = +x -------------------------------------------------------------------------------
@linear(operator.neg, np.negative)
def neg(y, x):
    d[x] = -d[y]


@diagonal(operator.pos, np.positive)
def pos(y, x):
    d[y] = d[x]


# y = x[index] ---------------------------------------------------------------------------------
@linear(operator.getitem)
def getitem(y, x, index):
    d[x] = unindex(d[y], x, index)


# y = x.attribute (an array held by a simple object) -------------------------------------------
@linear(getattr, name="attribute read")
def attribute(y, x, attribute):
    d[x] = unattr(d[y], x, attribute)


# y = (a, b, ...) and y = a --------------------------------------------------------------------
@adjoint(pack, name="tuple display")
def tuple_display(y, *items):
    d[items] = item_adjoints(d[y], items)


@tangent(pack, name="tuple display")
def tuple_display(y, *items):
    d[y] = d[items]


@adjoint(copy, name="assignment")
def assignment(y, x):
    d[x] = d[y]


@tangent(copy, name="assignment")
def assignment(y, x):
    d[y] = d[x]


# z = x % y = x - y * floor(x / y): slopes 1 and -floor(x / y) between the jumps
@adjoint(operator.mod, np.mod, broadcasts=True)
def mod(z, x, y):
    d[x] = d[z]
    d[y] = -d[z] * np.floor(x / y)


@tangent(operator.mod, np.mod, broadcasts=True)
def mod(z, x, y):
    d[z] = d[x] - d[y] * np.floor(x / y)


non_differentiable(operator.floordiv, operator.not_, operator.invert,
                   operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne)
