"""NumPy's elementwise functions (ufuncs). Adjoint and tangent of each op side by side.

Conventions at kinks (documented in docs/numerics.md): abs takes the subgradient 0 at 0;
maximum/minimum split the derivative evenly between tied operands; clip passes the derivative
where a_min <= x <= a_max.
"""
import numpy as np

from srcad.registry import adjoint, d, tangent


@adjoint(np.sin)
def sin(y, x):
    d[x] = d[y] * np.cos(x)


@tangent(np.sin)
def sin(y, x):
    d[y] = d[x] * np.cos(x)


@adjoint(np.cos)
def cos(y, x):
    d[x] = -d[y] * np.sin(x)


@tangent(np.cos)
def cos(y, x):
    d[y] = -d[x] * np.sin(x)


@adjoint(np.tan)
def tan(y, x):
    d[x] = d[y] * (1.0 + y * y)


@tangent(np.tan)
def tan(y, x):
    d[y] = d[x] * (1.0 + y * y)


@adjoint(np.arcsin)
def arcsin(y, x):
    d[x] = d[y] / np.sqrt(1.0 - x * x)


@tangent(np.arcsin)
def arcsin(y, x):
    d[y] = d[x] / np.sqrt(1.0 - x * x)


@adjoint(np.arccos)
def arccos(y, x):
    d[x] = -d[y] / np.sqrt(1.0 - x * x)


@tangent(np.arccos)
def arccos(y, x):
    d[y] = -d[x] / np.sqrt(1.0 - x * x)


@adjoint(np.arctan)
def arctan(y, x):
    d[x] = d[y] / (1.0 + x * x)


@tangent(np.arctan)
def arctan(y, x):
    d[y] = d[x] / (1.0 + x * x)


@adjoint(np.arctan2, broadcasts=True)
def arctan2(z, y, x):
    d[y] = d[z] * x / (x * x + y * y)
    d[x] = -d[z] * y / (x * x + y * y)


@tangent(np.arctan2, broadcasts=True)
def arctan2(z, y, x):
    d[z] = (d[y] * x - d[x] * y) / (x * x + y * y)


@adjoint(np.sinh)
def sinh(y, x):
    d[x] = d[y] * np.cosh(x)


@tangent(np.sinh)
def sinh(y, x):
    d[y] = d[x] * np.cosh(x)


@adjoint(np.cosh)
def cosh(y, x):
    d[x] = d[y] * np.sinh(x)


@tangent(np.cosh)
def cosh(y, x):
    d[y] = d[x] * np.sinh(x)


@adjoint(np.tanh)
def tanh(y, x):
    d[x] = d[y] * (1.0 - y * y)


@tangent(np.tanh)
def tanh(y, x):
    d[y] = d[x] * (1.0 - y * y)


@adjoint(np.exp)
def exp(y, x):
    d[x] = d[y] * y


@tangent(np.exp)
def exp(y, x):
    d[y] = d[x] * y


@adjoint(np.expm1)
def expm1(y, x):
    d[x] = d[y] * (y + 1.0)


@tangent(np.expm1)
def expm1(y, x):
    d[y] = d[x] * (y + 1.0)


@adjoint(np.log)
def log(y, x):
    d[x] = d[y] / x


@tangent(np.log)
def log(y, x):
    d[y] = d[x] / x


@adjoint(np.log1p)
def log1p(y, x):
    d[x] = d[y] / (1.0 + x)


@tangent(np.log1p)
def log1p(y, x):
    d[y] = d[x] / (1.0 + x)


@adjoint(np.log2)
def log2(y, x):
    d[x] = d[y] / (x * np.log(2.0))


@tangent(np.log2)
def log2(y, x):
    d[y] = d[x] / (x * np.log(2.0))


@adjoint(np.log10)
def log10(y, x):
    d[x] = d[y] / (x * np.log(10.0))


@tangent(np.log10)
def log10(y, x):
    d[y] = d[x] / (x * np.log(10.0))


@adjoint(np.sqrt)
def sqrt(y, x):
    d[x] = d[y] / (2.0 * y)


@tangent(np.sqrt)
def sqrt(y, x):
    d[y] = d[x] / (2.0 * y)


@adjoint(np.square)
def square(y, x):
    d[x] = d[y] * 2.0 * x


@tangent(np.square)
def square(y, x):
    d[y] = d[x] * 2.0 * x


@adjoint(np.reciprocal)
def reciprocal(y, x):
    d[x] = -d[y] * y * y


@tangent(np.reciprocal)
def reciprocal(y, x):
    d[y] = -d[x] * y * y


@adjoint(np.abs, np.fabs)
def abs(y, x):
    d[x] = d[y] * np.sign(x)


@tangent(np.abs, np.fabs)
def abs(y, x):
    d[y] = d[x] * np.sign(x)


@adjoint(np.hypot, broadcasts=True)
def hypot(z, x, y):
    d[x] = d[z] * x / z
    d[y] = d[z] * y / z


@tangent(np.hypot, broadcasts=True)
def hypot(z, x, y):
    d[z] = (d[x] * x + d[y] * y) / z


# maximum/minimum: ties share the derivative evenly (each operand gets half)
@adjoint(np.maximum, broadcasts=True)
def maximum(z, x, y):
    d[x] = d[z] * ((x > y) + 0.5 * (x == y))
    d[y] = d[z] * ((y > x) + 0.5 * (x == y))


@tangent(np.maximum, broadcasts=True)
def maximum(z, x, y):
    d[z] = d[x] * ((x > y) + 0.5 * (x == y)) + d[y] * ((y > x) + 0.5 * (x == y))


@adjoint(np.minimum, broadcasts=True)
def minimum(z, x, y):
    d[x] = d[z] * ((x < y) + 0.5 * (x == y))
    d[y] = d[z] * ((y < x) + 0.5 * (x == y))


@tangent(np.minimum, broadcasts=True)
def minimum(z, x, y):
    d[z] = d[x] * ((x < y) + 0.5 * (x == y)) + d[y] * ((y < x) + 0.5 * (x == y))


# where: the untaken branch gets an exact zero (np.where, not a product, so an inf or nan in
# the untaken branch's adjoint cannot leak into the taken one)
@adjoint(np.where, broadcasts=True)
def where(z, condition, x, y):
    d[x] = np.where(condition, d[z], 0.0)
    d[y] = np.where(condition, 0.0, d[z])


@tangent(np.where, broadcasts=True)
def where(z, condition, x, y):
    d[z] = np.where(condition, d[x], d[y])


@adjoint(np.clip, broadcasts=True)
def clip(y, a, a_min=None, a_max=None):
    d[a] = d[y] * ((a >= a_min) & (a <= a_max))
    d[a_min] = d[y] * (a < a_min)
    d[a_max] = d[y] * (a > a_max)


@tangent(np.clip, broadcasts=True)
def clip(y, a, a_min=None, a_max=None):
    d[y] = d[a] * ((a >= a_min) & (a <= a_max)) + d[a_min] * (a < a_min) + d[a_max] * (a > a_max)
