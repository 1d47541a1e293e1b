"""A Gaussian mixture fitted by gradient descent on its negative log-likelihood, with srcad.

A mixture of K Gaussians with diagonal covariances in D dimensions:

    p(x) = sum_k pi_k N(x; mu_k, diag(sigma_k^2)),    pi = softmax(a),   sigma_k = e^(s_k)

The unconstrained parameters (a, mu, s) live in a dict. The negative log-likelihood of the data
sums, over points, a log-sum-exp over components, written the stable way with np.max, np.log
and np.exp:

    nll = -sum_n log sum_k exp(log pi_k + log N(x_n; mu_k, sigma_k^2))

Each component's log density comes from a helper, called in a list comprehension over the
components (zip of the means and log standard deviations) and stacked. Instead of EM we
minimize the nll with Adam, using the gradient srcad generates; the gradient is checked against
central differences (srcad.check_grads). With scikit-learn installed the fit is compared with
sklearn.mixture.GaussianMixture (EM) on the same data, and the gradient is evaluated at EM's
solution, where it must vanish.

Run: python examples/mixture.py
"""
import numpy as np

import srcad

try:
    from sklearn.mixture import GaussianMixture
except ImportError:  # scikit-learn is optional
    GaussianMixture = None


def logsumexp(a, axis):
    amax = np.max(a, axis=axis, keepdims=True)
    return np.log(np.sum(np.exp(a - amax), axis=axis)) + np.squeeze(amax, axis=axis)


def component_logpdf(X, mean, log_std):
    """log N(x; mean, diag(exp(log_std)^2)) for each row x of X."""
    z = (X - mean) / np.exp(log_std)
    return -0.5 * np.sum(z ** 2, axis=1) - np.sum(log_std) - 0.5 * len(mean) * np.log(2 * np.pi)


def nll(params, X):
    log_weights = params["logits"] - logsumexp(params["logits"], axis=0)
    log_densities = np.stack([component_logpdf(X, mean, log_std)
                              for mean, log_std in zip(params["means"], params["log_stds"])],
                             axis=1)                                       # (N, K)
    assert log_densities.shape == (X.shape[0], len(log_weights))
    return -np.sum(logsumexp(log_weights + log_densities, axis=1))


def sample_data(rng):
    centers = np.array([[-2.0, 0.0], [2.0, 1.0], [0.0, 3.0]])
    stds = np.array([[0.5, 0.8], [0.7, 0.4], [0.4, 0.4]])
    counts = [150, 100, 50]
    return np.concatenate([c + s * rng.normal(size=(n, 2))
                           for c, s, n in zip(centers, stds, counts)])


def main():
    rng = np.random.default_rng(0)
    X = sample_data(rng)
    k = 3
    params = {"logits": np.zeros(k),
              "means": X.mean(axis=0) + X.std(axis=0) * rng.normal(size=(k, 2)),
              "log_stds": np.zeros((k, 2))}

    report = srcad.check_grads(nll, (params, X), wrt=0)
    srcad_side, fd_side = report["reverse_vs_fd"]
    print(f"check_grads: srcad {srcad_side:.10f}, central differences {fd_side:.10f}")

    nll_grad = srcad.value_and_grad(nll)
    rate, beta1, beta2 = 0.05, 0.9, 0.999
    m = {name: np.zeros_like(p) for name, p in params.items()}
    s = {name: np.zeros_like(p) for name, p in params.items()}
    history = []
    for step in range(1, 201):
        value, grads = nll_grad(params, X)
        m = {name: beta1 * m[name] + (1 - beta1) * g for name, g in grads.items()}
        s = {name: beta2 * s[name] + (1 - beta2) * g ** 2 for name, g in grads.items()}
        params = {name: p - rate * (m[name] / (1 - beta1 ** step))
                  / (np.sqrt(s[name] / (1 - beta2 ** step)) + 1e-8)
                  for name, p in params.items()}
        history.append(value / len(X))
        if step == 1 or step % 50 == 0:
            print(f"step {step:3d}: mean negative log-likelihood {history[-1]:.4f}")
    print(f"mean nll: first step {history[0]:.4f}, last step {history[-1]:.4f}")
    assert history[-1] < history[0]

    order = np.argsort(params["means"][:, 0])
    weights = np.exp(params["logits"] - logsumexp(params["logits"], axis=0))
    print(f"weights {np.array2string(weights[order], precision=3)}   (true [0.5 0.167 0.333])")
    print(f"means   {np.array2string(params['means'][order], precision=2).replace(chr(10), '')}")
    if GaussianMixture is not None:
        em = GaussianMixture(k, covariance_type="diag", tol=1e-12, max_iter=1000, reg_covar=0.0,
                             random_state=0).fit(X)
        print(f"scikit-learn's EM: mean nll {-em.score(X):.4f} "
              f"(gradient descent: {nll(params, X) / len(X):.4f})")
        assert abs(-em.score(X) - nll(params, X) / len(X)) < 1e-3
        # EM converges to a stationary point: srcad's gradient vanishes at EM's parameters
        em_params = {"logits": np.log(em.weights_), "means": em.means_,
                     "log_stds": 0.5 * np.log(em.covariances_)}
        largest = max(np.max(np.abs(g)) for g in srcad.grad(nll)(em_params, X).values())
        print(f"largest gradient entry at EM's solution {largest:.1e}")
        assert largest < 1e-5


if __name__ == "__main__":
    main()
