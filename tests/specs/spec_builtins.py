"""Spec rows for templates/builtins.py: max/min of two values, abs, float, pow, sum, list,
tuple."""
import builtins

from specs import Arr, Spec

SPECS = [
    Spec(builtins.max, "max(x, y)", x=Arr(None, low=0.0, high=1.0), y=Arr(None, low=2.0, high=3.0)),
    Spec(builtins.max, "max(x, y) * x", x=Arr(None, low=2.0, high=3.0), y=Arr(None, low=0.0, high=1.0)),
    Spec(builtins.min, "min(x, y)", x=Arr(None, low=0.0, high=1.0), y=Arr(None, low=2.0, high=3.0)),
    Spec(builtins.min, "min(x * 2.0, y) * y", x=Arr(None, low=2.0, high=3.0), y=Arr(None, low=0.0, high=1.0)),
    Spec(builtins.abs, "abs(x) * x", x=Arr(None, away_from=[0.0])),
    Spec(builtins.abs, "abs(x[0]) + abs(x[1])", x=Arr((2,), away_from=[0.0])),
    Spec(builtins.float, "float(x) * x", x=Arr(None)),
    Spec(builtins.float, "float(x[0]) * x", x=Arr((3,))),
    Spec(builtins.pow, "pow(x, 3)", x=Arr(None)),
    Spec(builtins.pow, "pow(x, y)", x=Arr(None, low=0.5, high=2.0), y=Arr(None)),
    Spec(builtins.sum, "sum(x)", x=Arr((4,))),
    Spec(builtins.sum, "sum(x) * x", x=Arr((3, 2))),
    Spec(builtins.sum, "sum([x, y * y, x * y])", x=Arr((2,)), y=Arr((2,))),
    Spec(builtins.sum, "sum((x, y), 1.5)", x=Arr(None), y=Arr(None)),
    Spec(builtins.list, "np.stack(list(x)) * x", x=Arr((3, 2))),
    Spec(builtins.list, "list(x)[1] * list(x)[0]", x=Arr((2, 3))),
    Spec(builtins.tuple, "np.stack(tuple(x))[::-1] * x", x=Arr((3, 2))),
    Spec(builtins.tuple, "tuple([x, y * x])[1] * y", x=Arr((2,)), y=Arr((2,))),
]
