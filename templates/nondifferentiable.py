"""Operations whose results are constants to differentiation: comparisons, rounding, argmax,
shape queries, integer and boolean ops. They run in generated code as written; their results
carry no derivative (a zero one), never an error."""
import builtins

import numpy as np

from srcad.rules.registry import non_differentiable

non_differentiable(
    np.floor, np.ceil, np.round, np.rint, np.trunc, np.fix, np.sign, np.argmax, np.argmin,
    np.argsort, np.argwhere, np.nonzero, np.flatnonzero, np.searchsorted, np.isfinite, np.isnan,
    np.isinf, np.isclose, np.allclose, np.array_equal, np.greater, np.greater_equal, np.less,
    np.less_equal, np.equal, np.not_equal, np.logical_and, np.logical_or, np.logical_not,
    np.logical_xor, np.any, np.all, np.shape, np.ndim, np.size, np.zeros, np.ones, np.empty,
    np.zeros_like, np.ones_like, np.empty_like, np.eye,
    np.identity, np.count_nonzero, np.floor_divide, np.bitwise_and,
    np.bitwise_or, np.result_type, np.isscalar, np.heaviside, np.signbit,
    builtins.len, builtins.range, builtins.int, builtins.bool, builtins.isinstance,
    builtins.round, builtins.slice, builtins.print,
)
# (enumerate, zip and reversed carry their items' derivatives: in a for statement they are
# lowered to indexing (frontend/control.py); anywhere else, of values that vary, srcad has no
# template and says so, where it gave a zero derivative before)
