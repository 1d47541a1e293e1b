"""The math module: scalar functions. Adjoint and tangent of each op side by side."""
import math

from srcad.registry import adjoint, d, non_differentiable, tangent


@adjoint(math.sin)
def sin(y, x):
    d[x] = d[y] * math.cos(x)


@tangent(math.sin)
def sin(y, x):
    d[y] = d[x] * math.cos(x)


@adjoint(math.cos)
def cos(y, x):
    d[x] = -d[y] * math.sin(x)


@tangent(math.cos)
def cos(y, x):
    d[y] = -d[x] * math.sin(x)


@adjoint(math.tan)
def tan(y, x):
    d[x] = d[y] * (1.0 + y * y)


@tangent(math.tan)
def tan(y, x):
    d[y] = d[x] * (1.0 + y * y)


@adjoint(math.asin)
def asin(y, x):
    d[x] = d[y] / math.sqrt(1.0 - x * x)


@tangent(math.asin)
def asin(y, x):
    d[y] = d[x] / math.sqrt(1.0 - x * x)


@adjoint(math.acos)
def acos(y, x):
    d[x] = -d[y] / math.sqrt(1.0 - x * x)


@tangent(math.acos)
def acos(y, x):
    d[y] = -d[x] / math.sqrt(1.0 - x * x)


@adjoint(math.atan)
def atan(y, x):
    d[x] = d[y] / (1.0 + x * x)


@tangent(math.atan)
def atan(y, x):
    d[y] = d[x] / (1.0 + x * x)


@adjoint(math.atan2)
def atan2(z, y, x):
    d[y] = d[z] * x / (x * x + y * y)
    d[x] = -d[z] * y / (x * x + y * y)


@tangent(math.atan2)
def atan2(z, y, x):
    d[z] = (d[y] * x - d[x] * y) / (x * x + y * y)


@adjoint(math.sinh)
def sinh(y, x):
    d[x] = d[y] * math.cosh(x)


@tangent(math.sinh)
def sinh(y, x):
    d[y] = d[x] * math.cosh(x)


@adjoint(math.cosh)
def cosh(y, x):
    d[x] = d[y] * math.sinh(x)


@tangent(math.cosh)
def cosh(y, x):
    d[y] = d[x] * math.sinh(x)


@adjoint(math.tanh)
def tanh(y, x):
    d[x] = d[y] * (1.0 - y * y)


@tangent(math.tanh)
def tanh(y, x):
    d[y] = d[x] * (1.0 - y * y)


@adjoint(math.exp)
def exp(y, x):
    d[x] = d[y] * y


@tangent(math.exp)
def exp(y, x):
    d[y] = d[x] * y


@adjoint(math.expm1)
def expm1(y, x):
    d[x] = d[y] * (y + 1.0)


@tangent(math.expm1)
def expm1(y, x):
    d[y] = d[x] * (y + 1.0)


@adjoint(math.log)
def log(y, x, base=None):
    if base is None:
        d[x] = d[y] / x
    else:
        d[x] = d[y] / (x * math.log(base))
        d[base] = -d[y] * y / (base * math.log(base))


@tangent(math.log)
def log(y, x, base=None):
    if base is None:
        d[y] = d[x] / x
    else:
        d[y] = (d[x] / x - d[base] * y / base) / math.log(base)


@adjoint(math.log1p)
def log1p(y, x):
    d[x] = d[y] / (1.0 + x)


@tangent(math.log1p)
def log1p(y, x):
    d[y] = d[x] / (1.0 + x)


@adjoint(math.log2)
def log2(y, x):
    d[x] = d[y] / (x * math.log(2.0))


@tangent(math.log2)
def log2(y, x):
    d[y] = d[x] / (x * math.log(2.0))


@adjoint(math.log10)
def log10(y, x):
    d[x] = d[y] / (x * math.log(10.0))


@tangent(math.log10)
def log10(y, x):
    d[y] = d[x] / (x * math.log(10.0))


@adjoint(math.sqrt)
def sqrt(y, x):
    d[x] = d[y] / (2.0 * y)


@tangent(math.sqrt)
def sqrt(y, x):
    d[y] = d[x] / (2.0 * y)


@adjoint(math.pow)
def pow(z, x, y):
    d[x] = d[z] * y * math.pow(x, y - 1.0)
    d[y] = d[z] * z * math.log(x) if x > 0 else 0.0


@tangent(math.pow)
def pow(z, x, y):
    d[z] = d[x] * y * math.pow(x, y - 1.0) + d[y] * (z * math.log(x) if x > 0 else 0.0)


@adjoint(math.hypot)
def hypot(z, x, y):
    d[x] = d[z] * x / z
    d[y] = d[z] * y / z


@tangent(math.hypot)
def hypot(z, x, y):
    d[z] = (d[x] * x + d[y] * y) / z


# |x|: the subgradient 0 is taken at the kink x == 0 (math.copysign would give +-1)
@adjoint(math.fabs)
def fabs(y, x):
    d[x] = d[y] * ((x > 0) - (x < 0))


@tangent(math.fabs)
def fabs(y, x):
    d[y] = d[x] * ((x > 0) - (x < 0))


non_differentiable(math.floor, math.ceil, math.trunc, math.isfinite, math.isnan, math.isinf)
