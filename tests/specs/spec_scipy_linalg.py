"""Spec rows for templates/scipy_linalg.py (scipy.linalg's solves, factors, inverse, determinant
and exponential), when scipy is installed: each function with each flag that changes its
derivative, a matrix and a vector right-hand side, and a Hessian (order=2) per function. The
functions of a symmetric matrix read it as a @ a.T + 3 I (differences of a's entries then move
it along symmetric directions, the ones their gradients are for); triangular and general
matrices as a + 4 I (well conditioned for draws in [-2, 2]). tests/rules/test_scipy_linalg.py
checks programs, Hessians of each, emitted modules and the refusals.
"""
from specs import Arr
from specs.spec_numpy_linalg import ScipySpec

try:
    import scipy.linalg as linalg
except ImportError:  # pragma: no cover - scipy missing: no rows (and no templates)
    linalg = None


class LinalgSpec(ScipySpec):
    """A row whose function's module imports scipy.linalg (after the function)."""

    def __init__(self, op, expr, **kwargs):
        super().__init__(op, expr, **kwargs)
        self.expr = self.expr + "\n\n\nimport scipy.linalg"


SPD = "a @ a.T + 3 * np.eye(3)"
WELL = "a + 4 * np.eye(3)"
SPECS = []
if linalg is not None:
    SPECS += [
        LinalgSpec(linalg.solve_triangular, f"scipy.linalg.solve_triangular({WELL}, b)",
                   a=Arr((3, 3)), b=Arr((3,))),
        LinalgSpec(linalg.solve_triangular,
                   f"np.sum(scipy.linalg.solve_triangular({WELL}, b, lower=True) ** 2)",
                   a=Arr((3, 3)), b=Arr((3, 2)), order=2),
        LinalgSpec(linalg.solve_triangular,
                   f"scipy.linalg.solve_triangular({WELL}, b, trans='T', unit_diagonal=True)",
                   a=Arr((3, 3)), b=Arr((3, 2))),
        LinalgSpec(linalg.solve_triangular,
                   f"scipy.linalg.solve_triangular({WELL}, b, 1, True)",
                   a=Arr((3, 3)), b=Arr((3,))),
        LinalgSpec(linalg.solve_triangular,
                   f"scipy.linalg.solve_triangular({WELL}, b, trans=2, lower=True)",
                   a=Arr((3, 3), const=True), b=Arr((3, 2))),
        LinalgSpec(linalg.cholesky, f"scipy.linalg.cholesky({SPD})", a=Arr((3, 3))),
        LinalgSpec(linalg.cholesky, f"np.sum(scipy.linalg.cholesky({SPD}, lower=True) ** 2)",
                   a=Arr((3, 3)), order=2),
        LinalgSpec(linalg.cho_factor, f"scipy.linalg.cho_factor({SPD})[0]", a=Arr((3, 3))),
        LinalgSpec(linalg.cho_factor,
                   f"np.sum(scipy.linalg.cho_factor({SPD}, lower=True)[0] ** 2)",
                   a=Arr((3, 3)), order=2),
        LinalgSpec(linalg.cho_solve, f"scipy.linalg.cho_solve(scipy.linalg.cho_factor({SPD}), b)",
                   a=Arr((3, 3)), b=Arr((3,))),
        LinalgSpec((linalg.cho_solve, linalg.cho_factor),
                   f"np.sum(scipy.linalg.cho_solve(scipy.linalg.cho_factor({SPD}, True), b) ** 2)",
                   a=Arr((3, 3)), b=Arr((3, 2)), order=2),
        LinalgSpec(linalg.lu_factor, "scipy.linalg.lu_factor(a)[0]", a=Arr((3, 3))),
        LinalgSpec(linalg.lu_factor, "np.sum(scipy.linalg.lu_factor(a)[0] ** 2)",
                   a=Arr((4, 4)), order=2),
        LinalgSpec(linalg.lu_solve, "scipy.linalg.lu_solve(scipy.linalg.lu_factor(a), b)",
                   a=Arr((3, 3)), b=Arr((3,))),
        LinalgSpec((linalg.lu_solve, linalg.lu_factor),
                   "np.sum(scipy.linalg.lu_solve(scipy.linalg.lu_factor(a), b, trans=1) ** 2)",
                   a=Arr((3, 3)), b=Arr((3, 2)), order=2),
        LinalgSpec(linalg.solve, f"scipy.linalg.solve({WELL}, b)", a=Arr((3, 3)), b=Arr((3,))),
        LinalgSpec(linalg.solve, f"np.sum(scipy.linalg.solve({WELL}, b, transposed=True) ** 2)",
                   a=Arr((3, 3)), b=Arr((3, 2)), order=2),
        LinalgSpec(linalg.solve, f"scipy.linalg.solve({SPD}, b, assume_a='pos')",
                   a=Arr((3, 3)), b=Arr((3,))),
        LinalgSpec(linalg.solve, f"scipy.linalg.solve({SPD}, b, lower=True, assume_a='sym')",
                   a=Arr((3, 3)), b=Arr((3, 2))),
        LinalgSpec(linalg.inv, f"scipy.linalg.inv({WELL})", a=Arr((3, 3))),
        LinalgSpec(linalg.inv, f"np.sum(scipy.linalg.inv({SPD}, assume_a='pos') ** 2)",
                   a=Arr((3, 3)), order=2),
        LinalgSpec(linalg.det, f"np.sum(scipy.linalg.det({WELL}) ** 2)", a=Arr((3, 3)),
                   order=2),
        LinalgSpec(linalg.logm, f"scipy.linalg.logm({SPD})", a=Arr((3, 3))),
        LinalgSpec(linalg.logm, f"np.sum(scipy.linalg.logm({SPD}) ** 2)", a=Arr((3, 3)),
                   order=2),
        LinalgSpec(linalg.sqrtm, f"scipy.linalg.sqrtm({WELL})", a=Arr((3, 3), low=-0.5,
                                                                    high=0.5)),
        LinalgSpec(linalg.sqrtm, f"np.sum(scipy.linalg.sqrtm({SPD}) ** 2)", a=Arr((3, 3)),
                   order=2),
        LinalgSpec(linalg.expm, "scipy.linalg.expm(0.3 * a)", a=Arr((3, 3))),
        LinalgSpec(linalg.expm, "np.sum(scipy.linalg.expm(0.3 * a) ** 2)", a=Arr((2, 3, 3)),
                   order=2),
    ]
