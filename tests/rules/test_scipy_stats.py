"""scipy.stats distributions (templates/scipy_stats*.py): how their methods are resolved and
spelled, gradients and Hessians against closed forms and central differences, and refusals.

Every registered (distribution, method) also has spec rows in tests/specs/spec_scipy_stats.py
(run by tests/rules/test_templates.py): both modes against central differences in every argument,
positional, keyword and broadcast calls, defaults, and Hessians of the log-densities.
"""
import subprocess
import sys

import numpy as np
import pytest

import srcad
from srcad.rules.registry import REGISTRY

scipy_stats = pytest.importorskip("scipy.stats", reason="scipy is not installed")
import scipy.stats  # noqa: E402
import scipy.stats as st  # noqa: E402
from scipy.stats import gamma, multivariate_normal, norm, t  # noqa: E402

from isolated import run_isolated  # noqa: E402


# ---------------------------------------------------------------------------------------------
# resolution: every spelling reaches the distribution's own method

def issue_example(mu, x):
    return np.sum(norm.logpdf(x, mu, 2.0)) + np.sum(st.t.logpdf(x, 3.0, loc=mu))


def spelled_fully(mu, x):
    return np.sum(scipy.stats.norm.logpdf(x, loc=mu, scale=2.0))


def test_the_issue_example_differentiates():
    x = np.array([-1.0, 0.5, 2.0])
    mu = 0.3
    got = srcad.grad(issue_example)(mu, x)
    z = x - mu
    want = np.sum(z / 4.0) + np.sum(4.0 * z / (3.0 + z * z))  # d/dmu of both log-densities
    assert np.isclose(got, want, rtol=1e-12)
    srcad.check_grads(issue_example, (mu, x), wrt=(0, 1), order=2)


def test_every_spelling_is_written_as_scipy_stats_dist_method():
    text = srcad.source(issue_example)
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    assert "scipy.stats.norm.logpdf(x, mu, 2.0)" in code
    assert "scipy.stats.t.logpdf(x, 3.0, loc=mu)" in code
    assert "rv_continuous" not in text and " st.t" not in code and " norm." not in code
    assert "scipy.stats.norm.logpdf(x, loc=mu, scale=2.0)" in srcad.source(spelled_fully)
    assert srcad.grad(spelled_fully)(0.3, np.ones(3)) == pytest.approx(3 * 0.7 / 4.0)


def test_each_distribution_method_has_its_own_key_and_name():
    assert REGISTRY.adjoint_of(norm.logpdf) is REGISTRY.adjoint_of(scipy.stats.norm.logpdf)
    assert REGISTRY.adjoint_of(norm.logpdf) is not REGISTRY.adjoint_of(t.logpdf)
    assert REGISTRY.adjoint_of(norm.logpdf) is not REGISTRY.adjoint_of(norm.pdf)
    assert REGISTRY.name_of(norm.logpdf) == "scipy.stats.norm.logpdf"
    assert REGISTRY.name_of(st.gumbel_r.ppf) == "scipy.stats.gumbel_r.ppf"  # (not registered)
    names = {row["name"] for row in srcad.coverage()}
    assert {"scipy.stats.norm.logcdf", "scipy.stats.multivariate_normal.logpdf",
            "scipy.stats.poisson.logpmf", "scipy.stats.dirichlet.logpdf"} <= names


def gaussian_nll(w, X, y, s):
    return -np.sum(scipy.stats.norm.logpdf(y, X @ w, s))


def test_emitted_module_imports_scipy_stats_and_runs_without_srcad(tmp_path):
    rng = np.random.default_rng(1)
    X, y, w = rng.normal(size=(6, 2)), rng.normal(size=6), rng.normal(size=2)
    path = tmp_path / "gaussian_nll_grad_emitted.py"
    srcad.emit(gaussian_nll, str(path))
    text = path.read_text()
    assert "import scipy.stats" in text
    (got,) = run_isolated(path, "gaussian_nll_grad", (w, X, y, 1.5))
    assert np.allclose(got, -(X.T @ (y - X @ w)) / 1.5 ** 2, rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# binding as scipy binds: positional, keyword, defaults; broadcasting

def norm_positional(x, loc, scale):
    return np.sum(norm.logpdf(x, loc, scale))


def norm_keywords(x, loc, scale):
    return np.sum(norm.logpdf(scale=scale, x=x, loc=loc))


def t_keywords(x, df, loc, scale):
    return np.sum(t.logpdf(x, df=df, scale=scale, loc=loc))


def t_positional(x, df, loc, scale):
    return np.sum(t.logpdf(x, df, loc, scale))


def norm_defaults(x):
    return np.sum(norm.logpdf(x))


def test_keywords_and_positions_give_the_same_gradient():
    x, loc, scale = np.array([-0.5, 0.2, 1.7]), 0.4, 1.3
    a = srcad.grad(norm_positional, wrt=(0, 1, 2))(x, loc, scale)
    b = srcad.grad(norm_keywords, wrt=(0, 1, 2))(x, loc, scale)
    z = (x - loc) / scale
    for got in (a, b):
        assert np.allclose(got[0], -z / scale)
        assert np.isclose(got[1], np.sum(z / scale))
        assert np.isclose(got[2], np.sum((z * z - 1.0) / scale))
    c = srcad.grad(t_keywords, wrt=(0, 1, 2, 3))(x, 4.0, loc, scale)
    d = srcad.grad(t_positional, wrt=(0, 1, 2, 3))(x, 4.0, loc, scale)
    for u, v in zip(c, d):
        assert np.allclose(u, v, rtol=1e-13)
    assert np.allclose(srcad.grad(norm_defaults)(x), -x)


def gamma_broadcast(x, a, loc, scale):
    return np.sum(gamma.logpdf(x, a, loc=loc, scale=scale) ** 2)


def test_broadcasting_sums_each_argument_over_its_broadcast_axes():
    rng = np.random.default_rng(2)
    x = rng.uniform(1.0, 3.0, (3, 1))
    a = rng.uniform(0.8, 2.5, (4,))
    args = (x, a, 0.2, 1.5)  # loc and scale numbers against a (3, 4) result
    grads = srcad.grad(gamma_broadcast, wrt=(0, 1, 2, 3))(*args)
    assert [np.shape(g) for g in grads] == [(3, 1), (4,), (), ()]
    srcad.check_grads(gamma_broadcast, args, wrt=(0, 1, 2, 3), order=2)


# ---------------------------------------------------------------------------------------------
# second order: Hessians and Hessian-vector products run the templates' code differentiated

def norm_all(p, x):
    return np.sum(norm.logpdf(x, p[0], p[1]))


def test_norm_hessian_matches_the_closed_form():
    x = np.array([-1.0, 0.3, 0.8, 2.5])
    p = np.array([0.2, 1.4])
    mu, s = p
    r = x - mu
    n = x.size
    want = np.array([[-n / s ** 2, -2 * np.sum(r) / s ** 3],
                     [-2 * np.sum(r) / s ** 3, n / s ** 2 - 3 * np.sum(r * r) / s ** 4]])
    assert np.allclose(srcad.hessian(norm_all)(p, x), want, rtol=1e-12)
    v = np.array([0.7, -1.1])
    assert np.allclose(srcad.hvp(norm_all)(p, x, v), want @ v, rtol=1e-12)


def t_all(x, df, loc, scale):
    return np.sum(t.logpdf(x, df, loc, scale) + t.cdf(x, 5.0, loc, scale))


def gamma_all(x, a, scale):
    return np.sum(gamma.logpdf(x, a, scale=scale) + gamma.pdf(x, a, scale=scale)
                  + gamma.sf(x, 2.5, scale=scale))


def test_t_and_gamma_hessians():
    x = np.array([-1.2, 0.1, 0.9, 2.2])
    for wrt in (0, 1, 2, 3):
        srcad.check_grads(t_all, (x, 3.5, 0.3, 1.2), wrt=wrt, order=2)
    y = np.array([0.4, 1.1, 2.6])
    for wrt in (0, 1, 2):
        srcad.check_grads(gamma_all, (y, 1.7, 0.8), wrt=wrt, order=2)
    h = srcad.hessian(gamma_all, wrt=1)(y, 1.7, 0.8)  # d2/da2 logpdf = -psi'(a), + pdf's
    pdf = gamma.pdf(y, 1.7, scale=0.8)
    dlog = np.log(y / 0.8) - scipy.special.digamma(1.7)
    want = -y.size * scipy.special.polygamma(1, 1.7) + np.sum(
        pdf * (dlog ** 2 - scipy.special.polygamma(1, 1.7)))
    assert np.isclose(h, want, rtol=1e-10)


def mvn_loss(x, mean, A):
    cov = A @ A.T + np.eye(3)
    return np.sum(multivariate_normal.logpdf(x, mean, cov))


def test_multivariate_normal_gradient_and_hessian():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(5, 3))
    mean = rng.normal(size=3)
    A = rng.normal(size=(3, 3)) * 0.5
    cov = A @ A.T + np.eye(3)
    P = np.linalg.inv(cov)
    r = x - mean
    gx, gm, gA = srcad.grad(mvn_loss, wrt=(0, 1, 2))(x, mean, A)
    assert np.allclose(gx, -r @ P, rtol=1e-10)
    assert np.allclose(gm, np.sum(r @ P, axis=0), rtol=1e-10)
    dS = 0.5 * (P @ r.T @ r @ P - 5 * P)  # symmetric gradient in cov, through A A^T: 2 dS A
    assert np.allclose(gA, 2 * dS @ A, rtol=1e-10)
    for wrt in (0, 1, 2):
        srcad.check_grads(mvn_loss, (x, mean, A), wrt=wrt, order=2)
    v = rng.normal(size=3)
    hv = srcad.hvp(mvn_loss, wrt=1)(x, mean, A, v)
    assert np.allclose(hv, -5 * P @ v, rtol=1e-10)


def mvn_direct(x, mean, cov):
    return multivariate_normal.logpdf(x, mean, cov)


def test_multivariate_normal_covariance_as_scipy_reads_it():
    """scipy reads the lower triangle of cov: the derivative of an entry above it is 0, and on
    the lower triangle it is the symmetric gradient doubled off the diagonal."""
    x = np.array([0.4, -0.3, 1.2])
    mean = np.zeros(3)
    cov = np.array([[2.0, 0.3, -0.2], [0.3, 1.5, 0.4], [-0.2, 0.4, 1.0]])
    g = srcad.grad(mvn_direct, wrt=2)(x, mean, cov)
    P = np.linalg.inv(cov)
    sym = 0.5 * (np.outer(P @ x, P @ x) - P)
    assert np.allclose(g, np.tril(2 * sym) - np.diag(np.diag(sym)), rtol=1e-12)
    assert np.all(np.triu(g, 1) == 0.0)
    srcad.check_grads(mvn_direct, (x, mean, cov), wrt=(0, 1, 2))
    # one point as a (1, k) array, the mean left out: gradients shaped as the arguments
    gx, gc = srcad.grad(mvn_without_mean, wrt=(0, 1))(x[None, :2], cov[:2, :2])
    assert np.shape(gx) == (1, 2) and np.shape(gc) == (2, 2)
    assert np.allclose(gx, -x[None, :2] @ np.linalg.inv(cov[:2, :2]), rtol=1e-12)
    # a number covariance c: c times the identity, d/dc = (|x - mean|^2 / c^2 - k / c) / 2
    gc = srcad.grad(mvn_direct, wrt=2)(x, mean, 1.7)
    assert np.shape(gc) == () and np.isclose(gc, 0.5 * (x @ x / 1.7 ** 2 - 3 / 1.7))


def mvn_without_mean(x, cov):
    return multivariate_normal.logpdf(x, cov=cov)


# ---------------------------------------------------------------------------------------------
# numerics: the log distribution functions far in the tails

def norm_logcdf(x):
    return np.sum(norm.logcdf(x))


def norm_logsf(x):
    return np.sum(norm.logsf(x, 1.0, 2.0))


def test_log_distribution_functions_are_finite_far_in_the_tails():
    x = np.array([-40.0, -12.0, 0.0, 12.0, 40.0])
    with np.errstate(over="raise", invalid="raise", divide="raise", under="ignore"):
        g = srcad.grad(norm_logcdf)(x)
        h = srcad.grad(norm_logsf)(x)
    # d/dx log Phi(x) = phi(x) / Phi(x) = -x / (1 - 1/x^2 + 3/x^4 - 15/x^6 + ...) for x -> -inf
    # (the asymptotic series of Mills' ratio), -> 0 for x -> inf
    def mills(v):
        return -v / (1 - v ** -2 + 3 * v ** -4 - 15 * v ** -6 + 105 * v ** -8)
    assert np.allclose(g[:2], mills(x[:2]), rtol=1e-7)
    assert np.isclose(g[2], 2 * norm.pdf(0.0))
    assert g[4] == 0.0 and 0 < g[3] < 1e-30
    z = (x - 1.0) / 2.0
    assert np.isclose(h[4], -mills(-z[4]) / 2.0, rtol=1e-7)
    assert np.all(np.isfinite(h))


# ---------------------------------------------------------------------------------------------
# refusals: methods without a template, derivatives without a closed form

def uses_ppf(q, mu):
    return np.sum(norm.ppf(q, mu))


def test_a_method_without_a_template_is_refused_by_its_own_name():
    for mode in ("reverse", "forward"):
        derivative = srcad.grad if mode == "reverse" else srcad.jvp
        with pytest.raises(srcad.SrcadError) as info:
            derivative(uses_ppf, wrt=1)
        message = str(info.value)
        assert "scipy.stats.norm.ppf" in message
        kind = "adjoint" if mode == "reverse" else "tangent"
        assert f"@srcad.{kind}(scipy.stats.norm.ppf)" in message
        assert "rv_continuous" not in message and "_distn_infrastructure" not in message


def noisy_constant(mu):
    noise = st.norm.rvs(size=4, random_state=0)
    return np.sum((noise - mu) ** 2)


def noisy_draw(mu):
    return np.sum(st.norm.rvs(mu, 1.0, size=4, random_state=0))


def test_rvs_of_constants_is_a_constant_and_of_a_variable_is_refused():
    noise = st.norm.rvs(size=4, random_state=0)
    assert np.isclose(srcad.grad(noisy_constant)(0.3), -2 * np.sum(noise - 0.3))
    with pytest.raises(srcad.SrcadError, match=r"scipy\.stats\.norm\.rvs"):
        srcad.grad(noisy_draw)


def t_cdf_in_df(df):
    return np.sum(t.cdf(np.array([0.5, 1.0]), df))


def test_a_shape_parameter_without_a_closed_form_derivative_says_so():
    with pytest.raises(ValueError, match=r"scipy\.stats\.t\.cdf .*shape parameter df"):
        srcad.grad(t_cdf_in_df)(3.0)
    with pytest.raises(ValueError, match=r"shape parameter df"):
        srcad.jvp(t_cdf_in_df)(3.0, 1.0)


def dirichlet_short(x, alpha):
    return scipy.stats.dirichlet.logpdf(x, alpha)


def test_dirichlet_with_k_minus_one_components_is_refused():
    alpha = np.array([1.5, 2.0, 3.0])
    with pytest.raises(ValueError, match="all 3 components"):
        srcad.grad(dirichlet_short, wrt=(0, 1))(np.array([0.2, 0.3]), alpha)
    got = srcad.grad(dirichlet_short, wrt=1)(np.array([0.2, 0.3, 0.5]), alpha)
    want = np.log([0.2, 0.3, 0.5]) - scipy.special.digamma(alpha) + scipy.special.digamma(6.5)
    assert np.allclose(got, want, rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# a user's own template for a method srcad has none for (docs/templates.md's example), in a
# separate interpreter: registering it here would register norm.ppf for the whole test session

PPF_TEMPLATE = '''
import numpy as np
import scipy.stats

import srcad
from srcad import d


@srcad.adjoint(scipy.stats.norm.ppf, broadcasts=True)
def norm_ppf_adjoint(y, q, loc=0, scale=1):
    d[q] = d[y] / scipy.stats.norm.pdf(y, loc, scale)
    d[loc] = d[y]
    d[scale] = d[y] * (y - loc) / scale


@srcad.tangent(scipy.stats.norm.ppf, broadcasts=True)
def norm_ppf_tangent(y, q, loc=0, scale=1):
    d[y] = d[q] / scipy.stats.norm.pdf(y, loc, scale) + d[loc] + d[scale] * (y - loc) / scale


def quantile_loss(q, mu, sigma):
    return np.sum(scipy.stats.norm.ppf(q, mu, sigma) ** 2)


q = np.array([0.1, 0.5, 0.8])
srcad.check_grads(quantile_loss, (q, 0.3, 1.5), wrt=(0, 1, 2), order=2)
z = scipy.stats.norm.ppf(q)
g = srcad.grad(quantile_loss, wrt=(1, 2))(q, 0.3, 1.5)
assert np.allclose(g, [np.sum(2 * (0.3 + 1.5 * z)), np.sum(2 * (0.3 + 1.5 * z) * z)])
assert srcad.REGISTRY.adjoint_of(scipy.stats.t.ppf) is None  # norm's own, not t's
print("ok")
'''


def test_a_user_template_for_one_distribution_method(tmp_path):
    (tmp_path / "ppf_template.py").write_text(PPF_TEMPLATE)
    done = subprocess.run([sys.executable, "ppf_template.py"], cwd=tmp_path, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
