"""Black-box variational inference of a Bayesian logistic regression, with srcad's gradients.

Model: weights w ~ N(0, 2^2 I) in R^3, labels t_j in {-1, +1} with p(t_j | w) = sigma(t_j x_j.w).
The posterior has no closed form, so we fit a diagonal Gaussian q(w) = N(m, diag(e^(2 r))) by
maximizing the evidence lower bound

    ELBO(m, r) = E_q[log p(t | w) + log p(w)] + H[q],    H[q] = sum(r) + D (1 + log 2 pi) / 2.

The expectation is estimated with S reparameterized samples w_s = m + e^r * eps_s, eps_s ~ N(0, I):
the noise eps is drawn outside the loss and passed in, so the estimate is a deterministic function
of (m, r) that srcad differentiates like any other; a fresh eps at every step makes its gradient
an unbiased estimate of the ELBO's gradient ("reparameterization gradients"). The variational
parameters are a dict; the Monte Carlo average is a sum of a generator over the samples.

The log densities are written with numpy: srcad does not differentiate scipy.stats.norm.logpdf
yet (it refuses it: no adjoint template for rv_continuous.logpdf).

The gradient is checked against central differences (srcad.check_grads) and against the
reparameterization gradient derived by hand, then Adam maximizes the
ELBO, and the fitted mean is compared with the maximum a posteriori weights.

Run: python examples/bbvi.py
"""
import numpy as np

import srcad

PRIOR_STD = 2.0


def norm_logpdf(x, loc, scale):
    """log N(x; loc, scale^2), elementwise (scipy.stats.norm.logpdf, written out)."""
    z = (x - loc) / scale
    return -0.5 * z ** 2 - np.log(scale) - 0.5 * np.log(2 * np.pi)


def log_joint(w, X, t):
    """log p(t | w) + log p(w); log sigma(z) = -log(1 + e^-z), without overflow."""
    log_likelihood = -np.sum(np.logaddexp(0.0, -t * (X @ w)))
    return log_likelihood + np.sum(norm_logpdf(w, 0.0, PRIOR_STD))


def negative_elbo(params, X, t, eps):
    mean, log_std = params["mean"], params["log_std"]
    samples = mean + np.exp(log_std) * eps                    # (S, D), reparameterized
    assert samples.shape == eps.shape
    expected_log_joint = sum(log_joint(w, X, t) for w in samples) / len(samples)
    entropy = np.sum(log_std) + 0.5 * len(mean) * (1.0 + np.log(2 * np.pi))
    return -(expected_log_joint + entropy)


def negative_elbo_grad_by_hand(params, X, t, eps):
    """d/dm = -mean_s g(w_s),  d/dr = -mean_s g(w_s) eps_s e^r - 1,  g = grad log_joint."""
    std = np.exp(params["log_std"])
    samples = params["mean"] + std * eps
    s = 1.0 / (1.0 + np.exp(t * (samples @ X.T)))            # sigma(-t x.w), (S, n)
    g = (t * s) @ X - samples / PRIOR_STD ** 2                  # (S, D)
    return {"mean": -np.mean(g, axis=0), "log_std": -np.mean(g * eps, axis=0) * std - 1.0}


def main():
    rng = np.random.default_rng(0)
    n, dim, n_samples = 60, 3, 10
    true_w = np.array([1.5, -2.0, 0.5])
    X = rng.normal(size=(n, dim))
    t = np.where(rng.uniform(size=n) < 1 / (1 + np.exp(-X @ true_w)), 1.0, -1.0)
    params = {"mean": np.zeros(dim), "log_std": np.zeros(dim)}

    eps = rng.normal(size=(n_samples, dim))
    report = srcad.check_grads(negative_elbo, (params, X, t, eps), wrt=0)
    srcad_side, fd_side = report["reverse_vs_fd"]
    print(f"check_grads: srcad {srcad_side:.10f}, central differences {fd_side:.10f}")
    grads = srcad.grad(negative_elbo)(params, X, t, eps)
    by_hand = negative_elbo_grad_by_hand(params, X, t, eps)
    gap = max(np.max(np.abs(grads[k] - by_hand[k])) for k in params)
    print(f"max |srcad - gradient derived by hand| = {gap:.1e}")
    assert gap < 1e-12

    objective = srcad.value_and_grad(negative_elbo)
    rate, beta1, beta2 = 0.05, 0.9, 0.999
    m = {k: np.zeros_like(v) for k, v in params.items()}
    s = {k: np.zeros_like(v) for k, v in params.items()}
    history = []
    for step in range(1, 301):
        value, grads = objective(params, X, t, rng.normal(size=(n_samples, dim)))
        m = {k: beta1 * m[k] + (1 - beta1) * g for k, g in grads.items()}
        s = {k: beta2 * s[k] + (1 - beta2) * g ** 2 for k, g in grads.items()}
        params = {k: v - rate * (m[k] / (1 - beta1 ** step))
                  / (np.sqrt(s[k] / (1 - beta2 ** step)) + 1e-8)
                  for k, v in params.items()}
        history.append(value)
        if step % 60 == 0:
            print(f"step {step:3d}: -ELBO (mean of the last 60 estimates) "
                  f"{np.mean(history[-60:]):.4f}")
    first, last = np.mean(history[:60]), np.mean(history[-60:])
    print(f"-ELBO: first 60 steps {first:.4f}, last 60 steps {last:.4f}")
    assert last < first

    # the maximum a posteriori weights, by gradient ascent on log_joint itself
    w_map = np.zeros(dim)
    log_joint_grad = srcad.grad(log_joint)
    for _ in range(500):
        w_map = w_map + 0.01 * log_joint_grad(w_map, X, t)
    print(f"q's mean      {np.array2string(params['mean'], precision=3)}")
    print(f"q's std       {np.array2string(np.exp(params['log_std']), precision=3)}")
    print(f"MAP weights   {np.array2string(w_map, precision=3)}   (true {true_w})")
    assert np.max(np.abs(params["mean"] - w_map)) < 2 * np.max(np.exp(params["log_std"]))


if __name__ == "__main__":
    main()
