"""Spec rows for templates/operators.py: every broadcasting combination of the binary ops."""
import operator

import numpy as np

from srcad.rules.operations import copy
from specs import Arr, Spec

POS = dict(low=0.5, high=2.0)
# (shape of x, shape of y): scalars, 0-d, equal, and numpy's broadcasting combinations
PAIRS = [(None, None), ((), (3,)), ((3,), None), (None, (3,)), ((4, 3), (3,)), ((3,), (4, 3)),
         ((1, 3), (4, 3)), ((4, 1), (1, 3)), ((4, 3), (4, 1)), ((2, 1, 3), (4, 3)), ((4, 3), ())]

SPECS = []
for xs, ys in PAIRS:
    SPECS += [
        Spec((operator.add, np.add), "x + y", x=Arr(xs), y=Arr(ys)),
        Spec((operator.sub, np.subtract), "x - y", x=Arr(xs), y=Arr(ys)),
        Spec((operator.mul, np.multiply), "x * y", x=Arr(xs), y=Arr(ys)),
        Spec((operator.truediv, np.true_divide), "x / y", x=Arr(xs), y=Arr(ys, **POS)),
        Spec((operator.pow, np.power), "x ** y", x=Arr(xs, **POS), y=Arr(ys)),
    ]
SPECS += [
    Spec(np.add, "np.add(x, y)", x=Arr((3,)), y=Arr((2, 3))),
    Spec(np.subtract, "np.subtract(x, y)", x=Arr((2, 3)), y=Arr((3,))),
    Spec(np.multiply, "np.multiply(x, y)", x=Arr((2, 1)), y=Arr((3,))),
    Spec(np.true_divide, "np.true_divide(x, y)", x=Arr((3,)), y=Arr((2, 3), **POS)),
    Spec(np.power, "np.power(x, y)", x=Arr((3,), **POS), y=Arr((2, 3))),
    Spec(operator.pow, "x ** 2", x=Arr((3,))),
    Spec(operator.pow, "x ** 3.0", x=Arr(None)),
    Spec(operator.pow, "2.0 ** y", y=Arr((3,))),
    Spec(operator.pow, "x ** n", x=Arr((3,)), n=Arr(values=3, const=True)),
    Spec(operator.truediv, "x / np.sum(x, axis=1, keepdims=True)", x=Arr((3, 4), **POS)),
    Spec(operator.truediv, "1.0 / x", x=Arr((3,), **POS)),
    Spec((operator.neg, np.negative), "-x", x=Arr((3,))),
    Spec(np.negative, "np.negative(x)", x=Arr((3,))),
    Spec((operator.pos, np.positive), "+x", x=Arr(None)),
    Spec(np.positive, "np.positive(x)", x=Arr((2,))),
    Spec((operator.matmul, np.matmul), "x @ y", x=Arr((3, 4)), y=Arr((4, 2))),
    Spec(operator.matmul, "x @ y", x=Arr((4,)), y=Arr((4,))),
    Spec(operator.matmul, "x @ y", x=Arr((3, 4)), y=Arr((4,))),
    Spec(operator.matmul, "x @ y", x=Arr((4,)), y=Arr((4, 2))),
    Spec(operator.matmul, "x @ y", x=Arr((2, 3, 4)), y=Arr((4, 5))),
    Spec(operator.matmul, "x @ y", x=Arr((3, 4)), y=Arr((2, 4, 5))),
    Spec(operator.matmul, "x @ y", x=Arr((4,)), y=Arr((2, 4, 5))),
    Spec(operator.matmul, "x @ y", x=Arr((2, 3, 4)), y=Arr((4,))),
    Spec(np.matmul, "np.matmul(x, y)", x=Arr((2, 1, 3, 4)), y=Arr((5, 4, 2))),
    Spec(operator.getitem, "x[1]", x=Arr((3, 4))),
    Spec(operator.getitem, "x[1:3, ::2]", x=Arr((4, 5))),
    Spec(operator.getitem, "x[..., 0]", x=Arr((2, 3, 4))),
    Spec(operator.getitem, "x[-1]", x=Arr((4,))),
    Spec(operator.getitem, "x[::-1, None]", x=Arr((4,))),
    Spec(operator.getitem, "x[i]", x=Arr((5,)), i=Arr(values=np.array([0, 2, 2, 4]), const=True)),
    Spec(operator.getitem, "x[x > 0]", x=Arr((6,), away_from=[0.0])),
    Spec(copy, "x", x=Arr((3,))),
    Spec((operator.mod, np.mod), "x % y", x=Arr((4,), low=0.1, high=0.9),
         y=Arr(None, low=0.3, high=0.35)),
    Spec(np.mod, "np.mod(x, 0.75)", x=Arr((2, 3), low=0.1, high=0.7)),
]
