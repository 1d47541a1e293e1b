"""Spec rows for templates/math.py: Python floats inside each function's domain, first and second
order (the hessians run the polygamma helper's tangent for gamma and lgamma)."""
import math

from specs import Arr, Spec

POS = dict(low=0.3, high=2.5)
UNIT = dict(low=-0.9, high=0.9)

# (op, expression, domains of the arguments)
ROWS = [
    (math.sin, "math.sin(x)", dict(x={})),
    (math.cos, "math.cos(x)", dict(x={})),
    (math.tan, "math.tan(x)", dict(x=dict(low=-1.2, high=1.2))),
    (math.asin, "math.asin(x)", dict(x=UNIT)),
    (math.acos, "math.acos(x)", dict(x=UNIT)),
    (math.atan, "math.atan(x)", dict(x=dict(low=-3.0, high=3.0))),
    (math.atan2, "math.atan2(x, y)", dict(x=dict(away_from=[0.0]), y={})),
    (math.hypot, "math.hypot(x, y)", dict(x=dict(away_from=[0.0]), y={})),
    (math.hypot, "math.hypot(x, y, w)", dict(x=dict(away_from=[0.0]), y={}, w={})),
    (math.hypot, "math.hypot(x)", dict(x=dict(away_from=[0.0]))),
    (math.degrees, "math.degrees(x)", dict(x={})),
    (math.radians, "math.radians(x)", dict(x={})),
    (math.sinh, "math.sinh(x)", dict(x={})),
    (math.cosh, "math.cosh(x)", dict(x={})),
    (math.tanh, "math.tanh(x)", dict(x={})),
    (math.asinh, "math.asinh(x)", dict(x=dict(low=-3.0, high=3.0))),
    (math.acosh, "math.acosh(x)", dict(x=dict(low=1.2, high=3.0))),
    (math.atanh, "math.atanh(x)", dict(x=UNIT)),
    (math.exp, "math.exp(x)", dict(x={})),
    (math.exp2, "math.exp2(x)", dict(x={})),
    (math.expm1, "math.expm1(x)", dict(x={})),
    (math.log, "math.log(x)", dict(x=POS)),
    (math.log, "math.log(x, b)", dict(x=POS, b=dict(low=1.5, high=4.0))),
    (math.log, "math.log(x, 10.0)", dict(x=POS)),
    (math.log, "math.log(8.0, b)", dict(b=dict(low=1.5, high=4.0))),
    (math.log1p, "math.log1p(x)", dict(x=dict(low=-0.7, high=2.0))),
    (math.log2, "math.log2(x)", dict(x=POS)),
    (math.log10, "math.log10(x)", dict(x=POS)),
    (math.sqrt, "math.sqrt(x)", dict(x=POS)),
    (math.cbrt, "math.cbrt(x)", dict(x=dict(away_from=[0.0]))),
    (math.pow, "math.pow(x, y)", dict(x=POS, y={})),
    (math.pow, "math.pow(x, 3.0)", dict(x={})),
    (math.pow, "math.pow(2.0, y)", dict(y={})),
    (math.fabs, "math.fabs(x)", dict(x=dict(away_from=[0.0]))),
    (math.copysign, "math.copysign(x, y)", dict(x=dict(away_from=[0.0]), y=dict(away_from=[0.0]))),
    (math.fmod, "math.fmod(x, y)", dict(x=dict(low=-3.0, high=3.0), y=dict(low=0.7, high=1.6))),
    (math.remainder, "math.remainder(x, y)",
     dict(x=dict(low=-3.0, high=3.0), y=dict(low=0.7, high=1.6))),
    (math.erf, "math.erf(x)", dict(x={})),
    (math.erfc, "math.erfc(x)", dict(x={})),
    (math.gamma, "math.gamma(x)", dict(x=dict(low=0.2, high=5.0))),
    (math.gamma, "math.gamma(x)", dict(x=dict(low=-2.9, high=-2.1))),
    (math.lgamma, "math.lgamma(x)", dict(x=dict(low=0.2, high=30.0))),
    (math.lgamma, "math.lgamma(x)", dict(x=dict(low=-3.9, high=-3.1))),
]

SPECS = []
for op, expr, domains in ROWS:
    args = {name: Arr(None, **domain) for name, domain in domains.items()}
    SPECS.append(Spec(op, expr, **args))
    SPECS.append(Spec(op, expr, order=2, **args))
SPECS += [
    Spec(math.ldexp, "math.ldexp(x, 3)", x=Arr(None)),
    Spec(math.ldexp, "math.ldexp(x, i) * x", order=2, x=Arr(None),
         i=Arr(values=-2, const=True)),
    Spec(math.lgamma, "math.lgamma(x)", x=Arr(values=0.5)),
    Spec(math.lgamma, "math.lgamma(x)", order=2, x=Arr(values=-0.5)),
    Spec(math.gamma, "math.gamma(x) * math.lgamma(x)", order=2, x=Arr(values=7.25)),
    # fsum: a sum of numbers; x ** k / k! with the integer functions in a loop (their int
    # arguments reach the Hessian's forward pass through the gradient's tape)
    Spec(math.fsum, "math.fsum([x, x * y, 2.5])", x=Arr(None), y=Arr(None)),
    Spec(math.fsum, "math.fsum([x * x, math.sin(y)])", order=2, x=Arr(None), y=Arr(None)),
    Spec((math.factorial, math.comb, math.perm, math.gcd, math.lcm, math.isqrt),
         "sum(x ** k / math.factorial(k) * math.comb(4, k) / math.perm(4, k) * math.gcd(k, 6)"
         " / math.lcm(k, 2) * math.isqrt(k) for k in range(1, 4))", order=2, x=Arr(None)),
]
