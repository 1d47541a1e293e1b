"""Spec rows for templates/scipy_stats*.py (scipy.stats distributions), when scipy is installed.

Each method of each location-scale family gets three rows, every argument differentiable unless
its derivative does not exist (the count of a pmf) or has no closed form (the shape parameter of
t/gamma/beta cdf and sf, passed as a constant there):
- x an array, the shape parameters, loc and scale numbers, positionally;
- broadcasting, by keyword: x (3, 1) against loc (4,), scale (1, 4) and shape parameters (4,);
- loc and scale left out (scipy's defaults 0 and 1);
and the Hessian (order=2) of the sum of the first row. Points are drawn inside the support.
tests/rules/test_scipy_stats.py checks spellings, tails, multivariate edge cases and refusals.
"""
import numpy as np

from specs import Arr
from specs.spec_numpy_linalg import ScipySpec

try:
    import scipy.stats as stats
except ImportError:  # pragma: no cover - scipy missing: no rows (and no templates)
    stats = None


class StatsSpec(ScipySpec):
    """A row whose function's module imports scipy.stats (after the function, as ScipySpec's
    import scipy.special)."""

    def __init__(self, op, expr, **kwargs):
        super().__init__(op, expr, **kwargs)
        self.expr = expr + "\n\n\nimport scipy.stats"


# distribution -> (its shape parameters with their ranges, x's range, loc's range, scale's
# range, methods). Ranges keep z = (x - loc) / scale inside the support, off laplace's kink.
FAMILIES = {
    "norm": ({}, (-2, 2), (-1, 1), (0.5, 2), "logpdf pdf cdf logcdf sf logsf"),
    "t": ({"df": (1.5, 6)}, (-2, 2), (-1, 1), (0.5, 2), "logpdf pdf cdf sf"),
    "gamma": ({"a": (0.8, 3)}, (0.5, 4), (-0.4, 0.3), (0.5, 2), "logpdf pdf cdf sf"),
    "beta": ({"a": (0.8, 3), "b": (0.8, 3)}, (0.2, 0.8), (-0.1, 0.1), (1.0, 1.2),
             "logpdf pdf cdf sf"),
    "expon": ({}, (0.5, 3), (-0.3, 0.3), (0.5, 2), "logpdf pdf cdf logcdf sf logsf"),
    "laplace": ({}, (0.5, 2), (-1, 0), (0.5, 2), "logpdf pdf cdf logcdf sf logsf"),
    "cauchy": ({}, (-2, 2), (-1, 1), (0.5, 2), "logpdf pdf cdf logcdf sf logsf"),
    "logistic": ({}, (-2, 2), (-1, 1), (0.5, 2), "logpdf pdf cdf logcdf sf logsf"),
    "lognorm": ({"s": (0.5, 1.5)}, (0.5, 3), (-0.3, 0.3), (0.5, 2),
                "logpdf pdf cdf logcdf sf logsf"),
    "uniform": ({}, (-0.4, 1.5), (-1, -0.5), (2.5, 3), "logpdf pdf cdf logcdf sf logsf"),
}
NO_SHAPE_DERIVATIVE = {"cdf", "sf"}  # of t, gamma and beta: shape parameters constant


def family_rows(dist, shapes, x_range, loc_range, scale_range, methods):
    rows = []
    for method in methods.split():
        op = getattr(getattr(stats, dist), method)
        call = f"scipy.stats.{dist}.{method}"
        const = bool(shapes) and method in NO_SHAPE_DERIVATIVE and dist != "lognorm"
        shape_args = {name: Arr(None, *bounds, const=const) for name, bounds in shapes.items()}
        names = "".join(f", {name}" for name in shapes)
        rows.append(StatsSpec(op, f"{call}(x{names}, loc, scale)", x=Arr((4,), *x_range),
                              **shape_args, loc=Arr(None, *loc_range),
                              scale=Arr(None, *scale_range)))
        keywords = "".join(f", {name}={name}" for name in shapes)
        rows.append(StatsSpec(op, f"{call}(x{keywords}, scale=scale, loc=loc)",
                              x=Arr((3, 1), *x_range),
                              **{name: Arr((4,), *bounds, const=const)
                                 for name, bounds in shapes.items()},
                              loc=Arr((4,), *loc_range), scale=Arr((1, 4), *scale_range)))
        if dist not in ("gamma", "expon", "lognorm", "uniform", "laplace", "beta"):
            rows.append(StatsSpec(op, f"{call}(x{names})", x=Arr((3,), *x_range), **shape_args))
        else:  # (the default loc=0, scale=1: x drawn for that support)
            low = max(x_range[0] - loc_range[0], 0.1) if dist != "laplace" else 0.3
            high = 0.9 if dist in ("beta", "uniform") else x_range[1]
            rows.append(StatsSpec(op, f"{call}(x{names})", x=Arr((3,), low, high), **shape_args))
        if method == "logpdf":
            rows.append(StatsSpec(op, f"np.sum({call}(x{names}, loc, scale))", order=2,
                                  x=Arr((4,), *x_range), **shape_args,
                                  loc=Arr(None, *loc_range), scale=Arr(None, *scale_range)))
    return rows


SPD = np.array([[2.0, 0.3, -0.2], [0.3, 1.5, 0.4], [-0.2, 0.4, 1.0]])

SPECS = []
if stats is not None:
    for _dist, _family in FAMILIES.items():
        SPECS += family_rows(_dist, *_family)
    SPECS += [
        # discrete: the counts are constants (integers), the rate and probability are not
        StatsSpec(stats.poisson.logpmf, "scipy.stats.poisson.logpmf(k, mu)",
                  k=Arr(values=np.array([0, 1, 3, 6]), const=True), mu=Arr((4,), 0.5, 4)),
        StatsSpec(stats.poisson.logpmf, "np.sum(scipy.stats.poisson.logpmf(k, mu, loc=1))",
                  k=Arr(values=np.array([[1], [2], [5]]), const=True), mu=Arr((4,), 0.5, 4),
                  order=2),
        StatsSpec(stats.poisson.pmf, "scipy.stats.poisson.pmf(k, mu)",
                  k=Arr(values=np.array([0, 1, 3, 6]), const=True), mu=Arr(None, 0.5, 4)),
        StatsSpec(stats.binom.logpmf, "scipy.stats.binom.logpmf(k, n, p)",
                  k=Arr(values=np.array([0, 2, 5]), const=True), n=Arr(values=5, const=True),
                  p=Arr((3,), 0.2, 0.8)),
        StatsSpec(stats.binom.logpmf, "np.sum(scipy.stats.binom.logpmf(k, 7, p, loc=1))",
                  k=Arr(values=np.array([[1], [3], [8]]), const=True), p=Arr((2,), 0.2, 0.8),
                  order=2),
        StatsSpec(stats.binom.pmf, "scipy.stats.binom.pmf(k, n, p)",
                  k=Arr(values=np.array([0, 2, 5]), const=True), n=Arr(values=5, const=True),
                  p=Arr(None, 0.2, 0.8)),
        # multivariate_normal: points (n, k) and (k,), a full, diagonal and scalar covariance,
        # the mean left out (cov's upper triangle is not read by scipy: derivative 0 there)
        StatsSpec(stats.multivariate_normal.logpdf,
                  "scipy.stats.multivariate_normal.logpdf(x, m, c)",
                  x=Arr((4, 3)), m=Arr((3,), -1, 1), c=Arr(values=SPD)),
        StatsSpec(stats.multivariate_normal.logpdf,
                  "scipy.stats.multivariate_normal.logpdf(x, mean=m, cov=c)",
                  x=Arr((3,)), m=Arr((3,), -1, 1), c=Arr(values=SPD)),
        StatsSpec(stats.multivariate_normal.logpdf,
                  "np.sum(scipy.stats.multivariate_normal.logpdf(x, m, a @ a.T + np.eye(3)))",
                  x=Arr((2, 2, 3)), m=Arr((3,), -1, 1), a=Arr((3, 3), -1, 1), order=2),
        StatsSpec(stats.multivariate_normal.logpdf,
                  "scipy.stats.multivariate_normal.logpdf(x, m, c)",
                  x=Arr((4, 3)), m=Arr((3,), -1, 1), c=Arr((3,), 0.5, 2)),
        StatsSpec(stats.multivariate_normal.logpdf,
                  "scipy.stats.multivariate_normal.logpdf(x, m, c)",
                  x=Arr((4, 2)), m=Arr((2,), -1, 1), c=Arr(None, 0.5, 2)),
        StatsSpec(stats.multivariate_normal.logpdf,
                  "scipy.stats.multivariate_normal.logpdf(x, cov=c)",
                  x=Arr((4, 3)), c=Arr(values=SPD)),
        StatsSpec(stats.multivariate_normal.logpdf,
                  "scipy.stats.multivariate_normal.logpdf(x, m, c)",
                  x=Arr((5,)), m=Arr(None, -1, 1), c=Arr(None, 0.5, 2)),
        # dirichlet: x moves on the simplex (scipy refuses points off it)
        StatsSpec(stats.dirichlet.logpdf,
                  "scipy.stats.dirichlet.logpdf(p / np.sum(p, axis=0), alpha)",
                  p=Arr((3, 4), 0.5, 2), alpha=Arr((3,), 0.8, 3)),
        StatsSpec(stats.dirichlet.logpdf,
                  "np.sum(scipy.stats.dirichlet.logpdf(p / np.sum(p), alpha) ** 2)",
                  p=Arr((4,), 0.5, 2), alpha=Arr((4,), 0.8, 3), order=2),
    ]
