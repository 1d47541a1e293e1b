"""Spec rows for templates/numpy_elementwise.py and numpy_selections.py: every op on a Python
float, a 0-d array and arrays, binary ops with numpy's broadcasting partners, draws inside each
function's domain and away from kinks; order=2 rows check the hessians (they run the helpers'
tangents)."""
import numpy as np

from specs import Arr, Spec

SHAPES = [None, (), (3,), (2, 3)]
PAIRS = [(None, None), ((), (3,)), ((3,), None), ((4, 3), (3,)), ((3,), (4, 3)),
         ((4, 1), (1, 3)), ((2, 1, 3), (4, 3)), ((4, 3), ())]

# (ops, expression in x, domain of x)
UNARY = [
    (np.sin, "np.sin(x)", {}),
    (np.cos, "np.cos(x)", {}),
    (np.tan, "np.tan(x)", dict(low=-1.2, high=1.2)),
    (np.arcsin, "np.arcsin(x)", dict(low=-0.9, high=0.9)),
    (np.arccos, "np.arccos(x)", dict(low=-0.9, high=0.9)),
    (np.arctan, "np.arctan(x)", dict(low=-3.0, high=3.0)),
    (np.sinh, "np.sinh(x)", {}),
    (np.cosh, "np.cosh(x)", {}),
    (np.tanh, "np.tanh(x)", {}),
    (np.arcsinh, "np.arcsinh(x)", dict(low=-3.0, high=3.0)),
    (np.arccosh, "np.arccosh(x)", dict(low=1.2, high=3.0)),
    (np.arctanh, "np.arctanh(x)", dict(low=-0.9, high=0.9)),
    (np.exp, "np.exp(x)", {}),
    (np.exp2, "np.exp2(x)", {}),
    (np.expm1, "np.expm1(x)", {}),
    (np.log, "np.log(x)", dict(low=0.2, high=3.0)),
    (np.log2, "np.log2(x)", dict(low=0.2, high=3.0)),
    (np.log10, "np.log10(x)", dict(low=0.2, high=3.0)),
    (np.log1p, "np.log1p(x)", dict(low=-0.7, high=3.0)),
    (np.sqrt, "np.sqrt(x)", dict(low=0.2, high=3.0)),
    (np.cbrt, "np.cbrt(x)", dict(away_from=[0.0])),
    (np.square, "np.square(x)", {}),
    (np.reciprocal, "np.reciprocal(x)", dict(away_from=[0.0, -0.1, 0.1])),
    ((np.abs, np.absolute), "np.abs(x)", dict(away_from=[0.0])),
    (np.absolute, "np.absolute(x)", dict(away_from=[0.0])),
    (np.fabs, "np.fabs(x)", dict(away_from=[0.0])),
    (np.sinc, "np.sinc(x)", {}),
    ((np.deg2rad, np.radians), "np.deg2rad(x)", {}),
    (np.radians, "np.radians(x)", {}),
    ((np.rad2deg, np.degrees), "np.rad2deg(x)", {}),
    (np.degrees, "np.degrees(x)", {}),
    ((np.conj, np.conjugate), "np.conj(x)", {}),
    (np.conjugate, "np.conjugate(x)", {}),
    (np.real, "np.real(x)", {}),
    (np.nan_to_num, "np.nan_to_num(x)", {}),
]

# (ops, expression in x and y, domain of x, domain of y)
BINARY = [
    (np.arctan2, "np.arctan2(x, y)", dict(away_from=[0.0]), {}),
    (np.hypot, "np.hypot(x, y)", dict(away_from=[0.0]), {}),
    (np.maximum, "np.maximum(x, y)", {}, {}),
    (np.minimum, "np.minimum(x, y)", {}, {}),
    (np.fmax, "np.fmax(x, y)", {}, {}),
    (np.fmin, "np.fmin(x, y)", {}, {}),
    (np.logaddexp, "np.logaddexp(x, y)", {}, {}),
    (np.logaddexp2, "np.logaddexp2(x, y)", {}, {}),
    (np.float_power, "np.float_power(x, y)", dict(low=0.3, high=2.0), {}),
    (np.copysign, "np.copysign(x, y)", dict(away_from=[0.0]), dict(away_from=[0.0])),
    (np.fmod, "np.fmod(x, y)", dict(low=-3.0, high=3.0), dict(low=0.7, high=1.6)),
    ((np.divide, np.true_divide), "np.divide(x, y)", {}, dict(low=0.5, high=2.0)),
]

SPECS = []
for ops, expr, domain in UNARY:
    SPECS += [Spec(ops, expr, x=Arr(shape, **domain)) for shape in SHAPES]
for ops, expr, xdomain, ydomain in BINARY:
    SPECS += [Spec(ops, expr, x=Arr(xs, **xdomain), y=Arr(ys, **ydomain)) for xs, ys in PAIRS]

POS = dict(low=0.3, high=2.0)
SPECS += [
    # second order: hessian-vector products through the generated gradients (and so through
    # safe_mul, safe_div and np.where in them)
    Spec(np.sqrt, "np.sum(np.sqrt(x))", order=2, x=Arr((4,), **POS)),
    Spec(np.cbrt, "np.sum(np.cbrt(x) * x)", order=2, x=Arr((4,), away_from=[0.0])),
    Spec(np.log, "np.sum(np.log(x) * x)", order=2, x=Arr((4,), **POS)),
    Spec(np.log2, "np.log2(x)", order=2, x=Arr(None, **POS)),
    Spec(np.log10, "np.log10(x)", order=2, x=Arr(None, **POS)),
    Spec(np.log1p, "np.sum(np.log1p(x))", order=2, x=Arr((3,), **POS)),
    Spec(np.exp, "np.sum(np.exp(x) * x)", order=2, x=Arr((4,))),
    Spec(np.exp2, "np.exp2(x)", order=2, x=Arr(None)),
    Spec(np.expm1, "np.sum(np.expm1(x))", order=2, x=Arr((3,))),
    Spec(np.sinh, "np.sum(np.sinh(x))", order=2, x=Arr((3,))),
    Spec(np.cosh, "np.sum(np.cosh(x))", order=2, x=Arr((3,))),
    Spec(np.tanh, "np.sum(np.tanh(x))", order=2, x=Arr((3,))),
    Spec(np.tan, "np.sum(np.tan(x))", order=2, x=Arr((3,), low=-1.0, high=1.0)),
    Spec(np.arcsin, "np.sum(np.arcsin(x))", order=2, x=Arr((3,), low=-0.9, high=0.9)),
    Spec(np.arccos, "np.sum(np.arccos(x))", order=2, x=Arr((3,), low=-0.9, high=0.9)),
    Spec(np.arctan, "np.sum(np.arctan(x))", order=2, x=Arr((3,))),
    Spec(np.arcsinh, "np.sum(np.arcsinh(x))", order=2, x=Arr((3,))),
    Spec(np.arccosh, "np.sum(np.arccosh(x))", order=2, x=Arr((3,), low=1.2, high=3.0)),
    Spec(np.arctanh, "np.sum(np.arctanh(x))", order=2, x=Arr((3,), low=-0.9, high=0.9)),
    Spec(np.reciprocal, "np.sum(np.reciprocal(x))", order=2, x=Arr((3,), **POS)),
    Spec(np.sinc, "np.sum(np.sinc(x))", order=2, x=Arr((5,))),
    Spec(np.square, "np.sum(np.square(x) * x)", order=2, x=Arr((3,))),
    Spec(np.arctan2, "np.sum(np.arctan2(x, y))", order=2, x=Arr((3,), away_from=[0.0]),
         y=Arr((2, 3))),
    Spec(np.hypot, "np.sum(np.hypot(x, y))", order=2, x=Arr((2, 3), away_from=[0.0]),
         y=Arr((3,))),
    Spec(np.logaddexp, "np.sum(np.logaddexp(x, y))", order=2, x=Arr((3,)), y=Arr((2, 1))),
    Spec(np.logaddexp2, "np.sum(np.logaddexp2(x, y))", order=2, x=Arr((3,)), y=Arr(None)),
    Spec(np.float_power, "np.sum(np.float_power(x, y))", order=2, x=Arr((3,), **POS),
         y=Arr((2, 3))),
    Spec(np.maximum, "np.sum(np.maximum(x, y) ** 2)", order=2, x=Arr((3,)), y=Arr((2, 3))),
    Spec(np.minimum, "np.sum(np.minimum(x, y) ** 2)", order=2, x=Arr((3,)), y=Arr((2, 3))),
    Spec(np.fmax, "np.sum(np.fmax(x, y) ** 2)", order=2, x=Arr((3,)), y=Arr((2, 3))),
    Spec(np.fmin, "np.sum(np.fmin(x, y) ** 2)", order=2, x=Arr((3,)), y=Arr((2, 3))),
    Spec(np.copysign, "np.sum(np.copysign(x, y) ** 3)", order=2, x=Arr((3,), away_from=[0.0]),
         y=Arr((3,), away_from=[0.0])),
    Spec(np.abs, "np.sum(np.abs(x) ** 3)", order=2, x=Arr((3,), away_from=[0.0])),
    Spec(np.sinc, "np.sinc(x)", order=2, x=Arr(values=0.0)),
    # kinks and special values
    Spec(np.sinc, "np.sinc(x)", x=Arr(values=np.array([0.0, 1e-9, -1e-3, 0.02, -0.05, 1.0]))),
    Spec(np.maximum, "np.maximum(x, 0.0)", x=Arr((5,), away_from=[0.0])),
    Spec(np.minimum, "np.minimum(x, 0.5)", x=Arr((5,), away_from=[0.5])),
    Spec(np.maximum, "np.maximum(x, x)", x=Arr((3,))),          # a tie: half and half
    Spec(np.minimum, "np.minimum(x, x)", x=Arr(None)),
    Spec(np.fmax, "np.fmax(x, y)", x=Arr((3,)), y=Arr(values=np.array([np.nan, 0.5, np.nan]))),
    Spec(np.fmin, "np.fmin(x, y)", x=Arr(values=np.array([np.nan, -0.5])), y=Arr((2,))),
    Spec(np.float_power, "np.float_power(x, 2.0)", x=Arr((3,))),
    Spec(np.float_power, "np.float_power(2.0, y)", y=Arr((3,))),
    Spec(np.ldexp, "np.ldexp(x, i)", x=Arr((3,)), i=Arr(values=np.array([-1, 0, 3]), const=True)),
    Spec(np.ldexp, "np.ldexp(x, i)", x=Arr((2, 1)), i=Arr(values=np.array([2, -3]), const=True)),
    Spec(np.ldexp, "np.ldexp(x, 2)", x=Arr(None)),
    Spec(np.nan_to_num, "np.nan_to_num(x)",
         x=Arr(values=np.array([1.0, np.nan, np.inf, -np.inf, -0.5]))),
    Spec(np.nan_to_num, "np.nan_to_num(x, nan=a, posinf=b, neginf=c)",
         x=Arr(values=np.array([[1.0, np.nan, np.inf], [-np.inf, np.nan, 2.0]])),
         a=Arr(None), b=Arr(None), c=Arr(None)),
    Spec(np.real, "np.real(x) * x", x=Arr((3,))),
    # where: constant and computed conditions, branches of every broadcasting shape
    Spec(np.where, "np.where(c, x, y)", c=Arr(values=np.array([True, False, True]), const=True),
         x=Arr((3,)), y=Arr((3,))),
    Spec(np.where, "np.where(c, x, y)", c=Arr(values=np.array([[True], [False]]), const=True),
         x=Arr((3,)), y=Arr(None)),
    Spec(np.where, "np.where(c, x, y)", c=Arr(values=True, const=True), x=Arr((2, 3)),
         y=Arr(())),
    Spec(np.where, "np.where(x > 0, x, 0.0)", x=Arr((5,), away_from=[0.0])),
    Spec(np.where, "np.where(x > 0, np.sqrt(x), -x)", x=Arr((5,), away_from=[0.0])),
    Spec(np.where, "np.where(x > y, x * y, y)", x=Arr((4, 1)), y=Arr((3,))),
    Spec(np.where, "np.sum(np.where(x > 0, x ** 3, np.sin(x)))", order=2,
         x=Arr((5,), away_from=[0.0])),
    # clip: constant, None, array and keyword bounds
    Spec(np.clip, "np.clip(x, -0.5, 0.5)", x=Arr((7,), away_from=[-0.5, 0.5])),
    Spec(np.clip, "np.clip(x, -0.5, 0.5)", x=Arr(None, away_from=[-0.5, 0.5])),
    Spec(np.clip, "np.clip(x, None, 0.5)", x=Arr((7,), away_from=[0.5])),
    Spec(np.clip, "np.clip(x, -0.5, None)", x=Arr((2, 3), away_from=[-0.5])),
    Spec(np.clip, "np.clip(x, a_max=0.3, a_min=-0.2)", x=Arr((7,), away_from=[-0.2, 0.3])),
    Spec(np.clip, "np.clip(x, min=-0.5)", x=Arr((7,), away_from=[-0.5])),
    Spec(np.clip, "np.clip(x, min=lo, max=hi)", x=Arr((7,), away_from=[-0.5, 0.5]),
         lo=Arr(values=-0.5), hi=Arr(values=0.5)),
    Spec(np.clip, "np.clip(x, lo, hi)", x=Arr((2, 4), away_from=[-0.5, 0.5]),
         lo=Arr((4,), low=-1.0, high=-0.3), hi=Arr((2, 1), low=0.3, high=1.0)),
    Spec(np.clip, "np.clip(x, lo, hi)", x=Arr((6,)), lo=Arr(values=-0.6), hi=Arr(values=0.7)),
    Spec(np.clip, "np.clip(x, lo, hi)", x=Arr((4,)), lo=Arr(values=0.5), hi=Arr(values=-0.5)),
    Spec(np.clip, "np.clip(x, lo, None)", x=Arr(()), lo=Arr((3,))),
    Spec(np.clip, "np.sum(np.clip(x, lo, hi) ** 2)", order=2, x=Arr((5,), away_from=[-0.5, 0.5]),
         lo=Arr(values=-0.5), hi=Arr(values=0.5)),
]
