"""Gaussian-process regression: fit the kernel's hyperparameters with a gradient srcad generates.

The model: y = f(x) + noise, f ~ GP(0, k), with the squared-exponential (RBF) kernel

    k(x, x') = s^2 exp(-|x - x'|^2 / (2 l^2)),     noise variance sigma^2,

so y ~ N(0, K) with K = k(X, X) + sigma^2 I. The hyperparameters are fitted by minimizing the
negative log marginal likelihood, written with a Cholesky factor K = L L^T:

    alpha = K^-1 y = L^-T (L^-1 y)
    nll = y^T alpha / 2 + sum(log diag L) + n log(2 pi) / 2

over theta = (log l, log s^2, log sigma^2) (logs keep them positive without constraints).
srcad differentiates through np.linalg.cholesky and np.linalg.solve; the same likelihood written
with np.linalg.slogdet gives the same value and gradient. The gradient is checked against
central differences (srcad.check_grads, with its Hessian-vector products) and handed to SciPy as the Jacobian:

    scipy.optimize.minimize(nll, theta0, args=(X, y), jac=srcad.grad(nll), method="L-BFGS-B")

Without SciPy the script says so and takes plain gradient steps instead.

Run: python examples/gaussian_process.py
"""
import numpy as np

import srcad

try:
    from scipy.optimize import minimize
except ImportError:  # SciPy is optional
    minimize = None


def rbf_kernel(A, B, lengthscale, variance):
    sqdist = np.sum((A[:, None, :] - B[None, :, :]) ** 2, axis=-1)
    return variance * np.exp(-0.5 * sqdist / lengthscale ** 2)


def nll(theta, X, y):
    """Negative log marginal likelihood of y under the GP with log-hyperparameters theta."""
    log_ell, log_sf2, log_sn2 = theta
    n = len(y)
    K = rbf_kernel(X, X, np.exp(log_ell), np.exp(log_sf2)) + np.exp(log_sn2) * np.eye(n)
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * n * np.log(2 * np.pi)


def nll_slogdet(theta, X, y):
    """The same likelihood, with a linear solve and a log-determinant instead of Cholesky."""
    log_ell, log_sf2, log_sn2 = theta
    n = len(y)
    K = rbf_kernel(X, X, np.exp(log_ell), np.exp(log_sf2)) + np.exp(log_sn2) * np.eye(n)
    sign, logdet = np.linalg.slogdet(K)
    assert sign > 0
    return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * logdet + 0.5 * n * np.log(2 * np.pi)


def posterior_mean(theta, X, y, X_new):
    log_ell, log_sf2, log_sn2 = theta
    K = rbf_kernel(X, X, np.exp(log_ell), np.exp(log_sf2)) + np.exp(log_sn2) * np.eye(len(y))
    return rbf_kernel(X_new, X, np.exp(log_ell), np.exp(log_sf2)) @ np.linalg.solve(K, y)


def main():
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, size=(40, 1))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=40)
    theta0 = np.array([0.0, 0.0, np.log(0.5)])   # l = 1, s^2 = 1, sigma^2 = 0.5

    for f in (nll, nll_slogdet):  # order=2: Hessian-vector products checked too
        report = srcad.check_grads(f, (theta0, X, y), wrt=0, order=2)
        srcad_side, fd_side = report["reverse_vs_fd"]
        hvp_error, hvp_scale = report["hvp_vs_fd_0"]
        print(f"check_grads({f.__name__}): srcad {srcad_side:.10f}, central differences "
              f"{fd_side:.10f}; |H v - differences| = {hvp_error:.1e} (scale {hvp_scale:.1f})")
    g_chol = srcad.grad(nll)(theta0, X, y)
    g_slogdet = srcad.grad(nll_slogdet)(theta0, X, y)
    print(f"nll(theta0) = {nll(theta0, X, y):.6f} (Cholesky), "
          f"{nll_slogdet(theta0, X, y):.6f} (slogdet)")
    print(f"gradient    = {np.array2string(g_chol, precision=6)} (Cholesky)")
    print(f"              {np.array2string(g_slogdet, precision=6)} (slogdet)")
    assert np.allclose(g_chol, g_slogdet, rtol=1e-9, atol=1e-12)

    if minimize is not None:
        result = minimize(nll, theta0, args=(X, y), jac=srcad.grad(nll), method="L-BFGS-B")
        theta = result.x
        print(f"L-BFGS-B: {result.nit} iterations, {result.nfev} evaluations, "
              f"nll {nll(theta0, X, y):.4f} -> {result.fun:.4f}")
    else:
        print("SciPy is not installed: fitting with plain gradient descent instead")
        nll_grad = srcad.value_and_grad(nll)
        theta = theta0
        for step in range(200):
            value, g = nll_grad(theta, X, y)
            theta = theta - 0.01 * g
        print(f"gradient descent: nll {nll(theta0, X, y):.4f} -> {nll(theta, X, y):.4f}")
    ell, sf2, sn2 = np.exp(theta)
    print(f"fitted: lengthscale {ell:.3f}, signal variance {sf2:.3f}, "
          f"noise standard deviation {np.sqrt(sn2):.3f} (true 0.1)")
    assert nll(theta, X, y) < nll(theta0, X, y) - 10

    X_new = np.linspace(-2.5, 2.5, 6)[:, None]
    error = np.max(np.abs(posterior_mean(theta, X, y, X_new) - np.sin(2 * X_new[:, 0])))
    print(f"max |posterior mean - sin(2x)| on a grid of 6 points = {error:.3f}")


if __name__ == "__main__":
    main()
