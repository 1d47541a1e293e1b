"""Spec rows for templates/numpy_products.py and numpy_linalg.py: the products and numpy.linalg."""
import numpy as np

from specs import Arr, Spec

SPECS = [
    # dot: 0-d, 1-D, 2-D and N-D operands (tensordot semantics)
    Spec(np.dot, "np.sum(np.dot(a, b) ** 2)", a=Arr((3, 4)), b=Arr((4, 2)), order=2),
    Spec(np.dot, "np.dot(a, b)", a=Arr((4,)), b=Arr((4,))),
    Spec(np.dot, "np.dot(a, b)", a=Arr((3, 4)), b=Arr((4,))),
    Spec(np.dot, "np.dot(a, b)", a=Arr((4,)), b=Arr((4, 2))),
    Spec(np.dot, "np.dot(a, b)", a=Arr(None), b=Arr((3,))),
    Spec(np.dot, "np.dot(a, b)", a=Arr((2, 3)), b=Arr(())),
    Spec(np.dot, "np.sum(np.dot(a, b) ** 2)", a=Arr((2, 3, 4)), b=Arr((4,)), order=2),
    Spec(np.dot, "np.sum(np.dot(a, b) ** 2)", a=Arr((2, 3, 4)), b=Arr((5, 4, 2)), order=2),
    Spec(np.dot, "np.dot(a, b)", a=Arr((3,)), b=Arr((2, 3, 4))),
    Spec(np.dot, "np.sum(np.dot(a, b * b) ** 2)", a=Arr((3, 4)), b=Arr((4, 2)), order=2),
    # vdot, inner, outer
    Spec(np.vdot, "np.sum(np.vdot(a, b) ** 2)", a=Arr((3, 2)), b=Arr((6,)), order=2),
    Spec(np.vdot, "np.vdot(a, b)", a=Arr((4,)), b=Arr((4,))),
    Spec(np.inner, "np.inner(a, b)", a=Arr((4,)), b=Arr((4,))),
    Spec(np.inner, "np.sum(np.inner(a, b) ** 2)", a=Arr((2, 3, 4)), b=Arr((5, 4)), order=2),
    Spec(np.inner, "np.inner(a, b)", a=Arr(None), b=Arr((2, 3))),
    Spec(np.inner, "np.inner(a, b)", a=Arr((2, 3)), b=Arr(())),
    Spec(np.outer, "np.sum(np.outer(a, b) ** 2)", a=Arr((3,)), b=Arr((4,)), order=2),
    Spec(np.outer, "np.outer(a, b)", a=Arr((2, 2)), b=Arr((3,))),
    # tensordot: int axes and pairs of axis lists
    Spec(np.tensordot, "np.sum(np.tensordot(a, b) ** 2)", a=Arr((2, 3, 4)), b=Arr((3, 4, 5)),
         order=2),
    Spec(np.tensordot, "np.tensordot(a, b, 1)", a=Arr((2, 3)), b=Arr((3, 4))),
    Spec(np.tensordot, "np.tensordot(a, b, axes=0)", a=Arr((2,)), b=Arr((3, 2))),
    Spec(np.tensordot, "np.sum(np.tensordot(a, b, axes=([0, 2], [2, 1])) ** 2)", a=Arr((2, 3, 4)),
         b=Arr((5, 4, 2)), order=2),
    Spec(np.tensordot, "np.tensordot(a, b, axes=(1, 0))", a=Arr((2, 3)), b=Arr((3, 4))),
    Spec(np.tensordot, "np.tensordot(a, b, axes=([-1, 0], [0, -1]))", a=Arr((2, 3, 4)),
         b=Arr((4, 3, 2))),
    # kron
    Spec(np.kron, "np.sum(np.kron(a, b) ** 2)", a=Arr((2, 3)), b=Arr((3, 2)), order=2),
    Spec(np.kron, "np.kron(a, b)", a=Arr((3,)), b=Arr((2, 2))),
    Spec(np.kron, "np.kron(a, b)", a=Arr((2, 1, 2)), b=Arr((3,))),
    Spec(np.kron, "np.kron(a, b)", a=Arr(None), b=Arr((3,))),
    # cross of 3-vectors
    Spec(np.cross, "np.sum(np.cross(a, b) ** 2)", a=Arr((3,)), b=Arr((3,)), order=2),
    Spec(np.cross, "np.cross(a, b)", a=Arr((4, 3)), b=Arr((3,))),
    Spec(np.cross, "np.cross(a, b)", a=Arr((2, 1, 3)), b=Arr((4, 3))),
    Spec(np.cross, "np.cross(a, b, axis=0)", a=Arr((3, 4)), b=Arr((3, 4))),
    Spec(np.cross, "np.cross(a, b, axisa=0, axisb=1, axisc=0)", a=Arr((3, 4)),
         b=Arr((4, 3))),
]

SPECS += [
    # einsum: explicit and implicit outputs, several operands, diagonals, full sums, ellipses
    Spec(np.einsum, "np.einsum('ij,jk->ik', a, b)", a=Arr((2, 3)), b=Arr((3, 4))),
    Spec(np.einsum, "np.sum(np.einsum('ij,jk->ik', a, b) ** 2)", a=Arr((2, 3)), b=Arr((3, 4)),
         order=2),
    Spec(np.einsum, "np.einsum('ij,jk', a, b)", a=Arr((2, 3)), b=Arr((3, 4))),
    Spec(np.einsum, "np.einsum('ba,bc', a, b)", a=Arr((3, 2)), b=Arr((3, 4))),
    Spec(np.einsum, "np.einsum('ij,jk,kl->il', a, b, c)", a=Arr((2, 3)), b=Arr((3, 4)),
         c=Arr((4, 2))),
    Spec(np.einsum, "np.sum(np.einsum('ij,jk,kl->li', a, b, c) ** 2)", a=Arr((2, 3)),
         b=Arr((3, 4)), c=Arr((4, 2)), order=2),
    Spec(np.einsum, "np.einsum('ii->i', a)", a=Arr((3, 3))),
    Spec(np.einsum, "np.einsum('ii', a)", a=Arr((3, 3))),
    Spec(np.einsum, "np.einsum('ij->', a)", a=Arr((2, 3))),
    Spec(np.einsum, "np.einsum('ij->j', a)", a=Arr((2, 3))),
    Spec(np.einsum, "np.einsum('ij->ji', a)", a=Arr((2, 3))),
    Spec(np.einsum, "np.einsum('i,i', a, b)", a=Arr((3,)), b=Arr((3,))),
    Spec(np.einsum, "np.einsum('i,j->ij', a, b)", a=Arr((3,)), b=Arr((2,))),
    Spec(np.einsum, "np.einsum('iij,jk->ik', a, b)", a=Arr((3, 3, 2)), b=Arr((2, 4))),
    Spec(np.einsum, "np.sum(np.einsum('iij,jk->ik', a, b) ** 2)", a=Arr((3, 3, 2)),
         b=Arr((2, 4)), order=2),
    Spec(np.einsum, "np.einsum('...ij,...jk->...ik', a, b)", a=Arr((5, 2, 3)), b=Arr((3, 4))),
    Spec(np.einsum, "np.einsum('...i,...i', a, b)", a=Arr((1, 3)), b=Arr((2, 3))),
    Spec(np.einsum, "np.einsum('i...->...', a)", a=Arr((3, 2))),
    Spec(np.einsum, "np.einsum('ij,ij->ij', a, b)", a=Arr((1, 3)), b=Arr((2, 3))),
    Spec(np.einsum, "np.einsum('bij,bjk->bik', a, b)", a=Arr((2, 3, 4)), b=Arr((2, 4, 2))),
    Spec(np.einsum, "np.einsum('ij,j->i', a, b)", a=Arr((2, 3)), b=Arr((3,), const=True)),
    Spec(np.einsum, "np.einsum(' i j , j k -> i k ', a, b)", a=Arr((2, 3)), b=Arr((3, 4))),
    Spec(np.einsum, "np.einsum('i,->i', a, b)", a=Arr((3,)), b=Arr(None)),
]

# well-conditioned matrices: a + 3 I; symmetric positive definite: a a^T + 3 I
WELL = "(a + 3 * np.eye(3))"
SPD = "(a @ np.swapaxes(a, -1, -2) + 3 * np.eye(3))"
SPECS += [
    Spec(np.linalg.inv, f"np.linalg.inv({WELL})", a=Arr((3, 3))),
    Spec(np.linalg.inv, f"np.sum(np.linalg.inv({WELL}) ** 2)", a=Arr((3, 3)), order=2),
    Spec(np.linalg.inv, f"np.linalg.inv({WELL})", a=Arr((2, 3, 3))),
    Spec(np.linalg.det, f"np.linalg.det({WELL})", a=Arr((3, 3)), order=2),
    Spec(np.linalg.det, f"np.linalg.det({WELL})", a=Arr((2, 3, 3))),
    Spec(np.linalg.det, "np.linalg.det(a)", a=Arr((2, 2))),
    Spec(np.linalg.slogdet, f"np.linalg.slogdet({WELL})[1]", a=Arr((3, 3)), order=2),
    Spec(np.linalg.slogdet, "np.linalg.slogdet(a)[1]", a=Arr((2, 3, 3))),
    Spec(np.linalg.slogdet, "np.linalg.slogdet(a)[0] * np.linalg.slogdet(a)[1]",
         a=Arr((3, 3))),
    Spec(np.linalg.solve, f"np.linalg.solve({WELL}, b)", a=Arr((3, 3)), b=Arr((3,))),
    Spec(np.linalg.solve, f"np.sum(np.linalg.solve({WELL}, b) ** 2)", a=Arr((3, 3)),
         b=Arr((3, 2)), order=2),
    Spec(np.linalg.solve, f"np.linalg.solve({WELL}, b)", a=Arr((2, 3, 3)), b=Arr((3,))),
    Spec(np.linalg.solve, f"np.linalg.solve({WELL}, b)", a=Arr((2, 3, 3)), b=Arr((2, 3, 4))),
    Spec(np.linalg.solve, f"np.linalg.solve({WELL}, b)", a=Arr((3, 3)), b=Arr((2, 3, 4))),
    Spec(np.linalg.solve, f"np.linalg.solve({WELL}, b)", a=Arr((2, 1, 3, 3)),
         b=Arr((4, 3, 2))),
    Spec(np.linalg.solve, f"np.linalg.solve({WELL}, b)", a=Arr((3, 3), const=True),
         b=Arr((3,))),
    Spec(np.linalg.cholesky, f"np.linalg.cholesky({SPD})", a=Arr((3, 3))),
    Spec(np.linalg.cholesky, f"np.sum(np.linalg.cholesky({SPD}) ** 2)", a=Arr((3, 3)),
         order=2),
    Spec(np.linalg.cholesky, f"np.linalg.cholesky({SPD})", a=Arr((2, 3, 3))),
    Spec(np.linalg.cholesky, f"np.linalg.cholesky({SPD}, upper=True)", a=Arr((3, 3))),
    Spec(np.linalg.eigh, f"np.linalg.eigh({SPD})[0]", a=Arr((3, 3))),
    Spec(np.linalg.eigh, f"np.sum(np.linalg.eigh({SPD})[0] ** 2)", a=Arr((3, 3)), order=2),
    Spec(np.linalg.eigh, f"np.linalg.eigh({SPD})[1] ** 2", a=Arr((3, 3))),
    Spec(np.linalg.eigh, f"np.sum(np.linalg.eigh({SPD})[1] ** 2 * c)", a=Arr((3, 3)),
         c=Arr((3, 3), const=True), order=2),
    Spec(np.linalg.eigh, f"np.linalg.eigh({SPD})[1] ** 2", a=Arr((2, 3, 3))),
    Spec(np.linalg.eigvalsh, f"np.linalg.eigvalsh({SPD})", a=Arr((3, 3))),
    Spec(np.linalg.eigvalsh, f"np.sum(np.linalg.eigvalsh({SPD}) ** 3)", a=Arr((2, 3, 3)),
         order=2),
    Spec(np.linalg.svd, "np.linalg.svd(a, full_matrices=False)[1]", a=Arr((4, 3))),
    Spec(np.linalg.svd, "np.linalg.svd(a, full_matrices=False)[1]", a=Arr((2, 3, 5))),
    Spec(np.linalg.svd, "np.sum(np.linalg.svd(a, full_matrices=False)[1] ** 3)",
         a=Arr((4, 3)), order=2),
    Spec(np.linalg.svd, "np.linalg.svd(a, compute_uv=False)", a=Arr((3, 4))),
    Spec(np.linalg.svd, "np.sum(np.linalg.svd(a, compute_uv=False) ** 3)", a=Arr((3, 4)),
         order=2),
    Spec(np.linalg.svd, "np.linalg.svd(a)[1]", a=Arr((3, 3))),
    Spec(np.linalg.pinv, "np.linalg.pinv(a)", a=Arr((4, 3))),
    Spec(np.linalg.pinv, "np.linalg.pinv(a)", a=Arr((3, 4))),
    Spec(np.linalg.pinv, "np.sum(np.linalg.pinv(a) ** 2)", a=Arr((4, 3)), order=2),
    Spec(np.linalg.pinv, "np.linalg.pinv(a)", a=Arr((2, 3, 4))),
    # lstsq: the solution, the residuals and the singular values (rows: 6 > 3, 3 < 5, square)
    Spec(np.linalg.lstsq, "np.linalg.lstsq(a, b, rcond=None)[0]", a=Arr((6, 3)), b=Arr((6,))),
    Spec(np.linalg.lstsq, "np.linalg.lstsq(a, b, rcond=None)[0]", a=Arr((6, 3)), b=Arr((6, 2))),
    Spec(np.linalg.lstsq, "np.linalg.lstsq(a, b, rcond=None)[0]", a=Arr((3, 5)), b=Arr((3,))),
    Spec(np.linalg.lstsq, "np.linalg.lstsq(a, b, rcond=None)[0]", a=Arr((4, 4)), b=Arr((4, 2))),
    Spec(np.linalg.lstsq, "np.linalg.lstsq(a, b, rcond=None)[1]", a=Arr((6, 3)), b=Arr((6,))),
    Spec(np.linalg.lstsq, "np.linalg.lstsq(a, b, rcond=None)[1]", a=Arr((6, 3)), b=Arr((6, 2))),
    Spec(np.linalg.lstsq, "np.linalg.lstsq(a, b, rcond=None)[3]", a=Arr((5, 3)), b=Arr((5,))),
    Spec(np.linalg.lstsq, "np.linalg.lstsq(a, b, rcond=None)[0] * 2.0",
         a=Arr((5, 2)), b=Arr((5,), const=True)),
    Spec(np.linalg.lstsq, "np.sum(np.linalg.lstsq(a, b, rcond=None)[0] ** 2)", order=2,
         a=Arr((5, 3)), b=Arr((5,))),
    Spec(np.linalg.lstsq, "np.sum(np.linalg.lstsq(a, b, rcond=None)[1])", order=2,
         a=Arr((5, 2)), b=Arr((5, 2))),
    Spec(np.linalg.lstsq, "np.sum(np.linalg.lstsq(a, b, rcond=None)[3] ** 2)", order=2,
         a=Arr((4, 3)), b=Arr((4,))),
    Spec(np.linalg.matrix_power, "np.linalg.matrix_power(a, 3)", a=Arr((3, 3))),
    Spec(np.linalg.matrix_power, "np.sum(np.linalg.matrix_power(a, 4) ** 2)", a=Arr((3, 3)),
         order=2),
    Spec(np.linalg.matrix_power, "np.linalg.matrix_power(a, 0)", a=Arr((3, 3))),
    Spec(np.linalg.matrix_power, "np.linalg.matrix_power(a, 1)", a=Arr((2, 3, 3))),
    Spec(np.linalg.matrix_power, f"np.linalg.matrix_power({WELL}, -2)", a=Arr((3, 3))),
    Spec(np.linalg.matrix_power, "np.linalg.matrix_power(a, n)", a=Arr((2, 3, 3)),
         n=Arr(values=5, const=True)),
]

SPECS += [
    Spec(np.linalg.norm, "np.linalg.norm(x)", x=Arr((4,))),
    Spec(np.linalg.norm, "np.linalg.norm(x)", x=Arr((3, 4)), order=2),
    Spec(np.linalg.norm, "np.linalg.norm(x, 2)", x=Arr((4,)), order=2),
    Spec(np.linalg.norm, "np.linalg.norm(x, 1)", x=Arr((4,), away_from=[0.0])),
    Spec(np.linalg.norm, "np.linalg.norm(x, np.inf)", x=Arr((4,))),
    Spec(np.linalg.norm, "np.linalg.norm(x, -np.inf)", x=Arr((4,))),
    Spec(np.linalg.norm, "np.linalg.norm(x, 3)", x=Arr((4,)), order=2),
    Spec(np.linalg.norm, "np.linalg.norm(x, 1.5)", x=Arr((4,), away_from=[0.0]), order=2),
    Spec(np.linalg.norm, "np.linalg.norm(x, -2)", x=Arr((4,), away_from=[0.0])),
    Spec(np.linalg.norm, "np.linalg.norm(x, 0)", x=Arr((4,), away_from=[0.0])),
    Spec(np.linalg.norm, "np.linalg.norm(x, 'fro')", x=Arr((3, 4)), order=2),
    Spec(np.linalg.norm, "np.linalg.norm(x, axis=1)", x=Arr((3, 4))),
    Spec(np.linalg.norm, "np.linalg.norm(x, axis=0, keepdims=True)", x=Arr((3, 4))),
    Spec(np.linalg.norm, "np.linalg.norm(x, 1, axis=-1)", x=Arr((2, 3, 4), away_from=[0.0])),
    Spec(np.linalg.norm, "np.linalg.norm(x, np.inf, axis=0)", x=Arr((3, 4))),
    Spec(np.linalg.norm, "np.linalg.norm(x, ord=3, axis=1, keepdims=True)", x=Arr((3, 4))),
    Spec(np.linalg.norm, "np.linalg.norm(x, axis=(1, 2))", x=Arr((2, 3, 4))),
    Spec(np.linalg.norm, "np.linalg.norm(x, 'fro', axis=(0, 2), keepdims=True)",
         x=Arr((2, 3, 4))),
    Spec(np.linalg.norm, "np.linalg.norm(x, keepdims=True)", x=Arr((3, 4))),
    Spec(np.linalg.norm, "np.linalg.norm(x)", x=Arr(None)),
]


# ---------------------------------------------------------------------------------------------
# scipy.special (templates/scipy_special.py), when scipy is installed

class ScipySpec(Spec):
    """A row whose function's module imports scipy.special: the shared header of
    specs.make_function imports math, operator and numpy only, so the import line is appended
    after the function (the id shows the expression alone)."""

    def __init__(self, op, expr, **kwargs):
        super().__init__(op, expr + "\n\n\nimport scipy.special", **kwargs)
        self.shown = expr

    @property
    def id(self):
        shapes = ",".join(f"{k}{'' if a.shape is None else list(a.shape)}"
                          for k, a in self.args.items())
        return f"{self.shown} [{shapes}]"


try:
    import scipy.special as special
except ImportError:
    special = None

if special is not None:
    NEG_INF = np.array([[0.5, -np.inf, 1.0, 2.0], [-np.inf, -np.inf, 1.5, -1.0],
                        [700.0, 710.0, -np.inf, 1.0]])
    SPECS += [
        ScipySpec(special.expit, "np.sum(scipy.special.expit(x) ** 2)",
                  x=Arr((4,), low=-5, high=5), order=2),
        ScipySpec(special.expit, "scipy.special.expit(x)", x=Arr(None)),
        ScipySpec(special.logit, "np.sum(scipy.special.logit(x) ** 2)",
                  x=Arr((4,), low=0.1, high=0.9), order=2),
        ScipySpec(special.erf, "np.sum(scipy.special.erf(x) ** 2)", x=Arr((4,)), order=2),
        ScipySpec(special.erfc, "np.sum(scipy.special.erfc(x) ** 2)", x=Arr((4,)), order=2),
        ScipySpec(special.erfcx, "np.sum(scipy.special.erfcx(x) ** 2)",
                  x=Arr((4,), low=-2, high=3), order=2),
        ScipySpec(special.gammaln, "np.sum(scipy.special.gammaln(x) ** 2)",
                  x=Arr((4,), low=0.2, high=5), order=2),
        ScipySpec(special.gammaln, "scipy.special.gammaln(x)",
                  x=Arr((3,), values=np.array([-0.5, -1.5, -2.7]))),
        ScipySpec(special.digamma, "np.sum(scipy.special.digamma(x) ** 2)",
                  x=Arr((4,), low=0.2, high=5), order=2),
        ScipySpec(special.polygamma, "np.sum(scipy.special.polygamma(2, x) ** 2)",
                  x=Arr((4,), low=0.5, high=5), order=2),
        ScipySpec(special.entr, "np.sum(scipy.special.entr(x) ** 2)",
                  x=Arr((4,), low=0.1, high=3), order=2),
        ScipySpec(special.logsumexp, "np.sum(scipy.special.logsumexp(x) ** 2)", x=Arr((3, 4)),
                  order=2),
        ScipySpec(special.logsumexp, "scipy.special.logsumexp(x, axis=1)", x=Arr((3, 4))),
        ScipySpec(special.logsumexp, "scipy.special.logsumexp(x, axis=0, keepdims=True)",
                  x=Arr((3, 4))),
        ScipySpec(special.logsumexp, "scipy.special.logsumexp(x, axis=(0, 2))",
                  x=Arr((2, 3, 4))),
        ScipySpec(special.logsumexp, "scipy.special.logsumexp(x + c, axis=1)", x=Arr((3, 4)),
                  c=Arr(values=NEG_INF, const=True)),
        ScipySpec(special.logsumexp, "scipy.special.logsumexp(x, axis=-1, b=b)", x=Arr((3, 4)),
                  b=Arr((3, 4), low=0.5, high=2.0)),
        ScipySpec(special.logsumexp, "scipy.special.logsumexp(x, b=b)", x=Arr((3, 4)),
                  b=Arr((4,), low=0.5, high=2.0)),
        ScipySpec(special.logsumexp, "scipy.special.logsumexp(x, b=b, return_sign=True)[0]",
                  x=Arr((4,)), b=Arr((4,), values=np.array([1.0, -2.0, 0.5, -1.0]))),
        ScipySpec(special.softmax, "np.sum(scipy.special.softmax(x) ** 2)", x=Arr((4,)), order=2),
        ScipySpec(special.softmax, "scipy.special.softmax(x, axis=1)", x=Arr((3, 4))),
        ScipySpec(special.softmax, "scipy.special.softmax(x, axis=0)", x=Arr((3, 4))),
        ScipySpec(special.log_softmax, "np.sum(scipy.special.log_softmax(x) ** 2)",
                  x=Arr((4,)), order=2),
        ScipySpec(special.log_softmax, "scipy.special.log_softmax(x, axis=-1)",
                  x=Arr((3, 4))),
        # -inf entries: log_softmax is -inf there, so the check goes through exp
        ScipySpec(special.log_softmax, "np.exp(scipy.special.log_softmax(x + c, axis=1))",
                  x=Arr((3, 4)), c=Arr(values=NEG_INF, const=True)),
    ]
