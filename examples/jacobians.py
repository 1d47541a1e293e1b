"""Whole Jacobians and Hessians in one sweep.

A Jacobian of f: R^n -> R^m is n Jacobian-vector products (forward mode) or m vector-Jacobian
products (reverse mode). srcad.jacobian computes all of them in one run of the derivative code:
it passes the code a stack of all n (or m) basis vectors, which the code treats as one tangent,
and every NumPy operation applies to the whole stack at once (JAX calls this vmap). Hessians by
forward or reverse mode over the gradient are Jacobians of the gradient, and go the same way.
With vectorize=False srcad runs one sweep per vector instead: the same numbers, more slowly.

Run: python examples/jacobians.py
"""
import time

import numpy as np

import srcad


def layer(x, W1, W2):
    return np.tanh(W2 @ np.tanh(W1 @ x))


def logistic_loss(w, X, y):
    return np.sum(np.logaddexp(0.0, -y * (X @ w))) + 0.5 * np.dot(w, w)


def best_of(function, args, repeats=20):
    function(*args)  # (the first call builds the code)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def hessian_by_hand(w, X, y):
    p = 1.0 / (1.0 + np.exp(y * (X @ w)))  # sigma(-y z)
    return X.T @ (X * (p * (1 - p))[:, None]) + np.eye(w.size)


def main():
    rng = np.random.default_rng(0)
    n = 50
    x, W1, W2 = rng.normal(size=n), rng.normal(size=(n, n)) / 7, rng.normal(size=(n, n)) / 7
    w, X, y = rng.normal(size=n) * 0.1, rng.normal(size=(200, n)), np.sign(rng.normal(size=200))
    cases = [("Jacobian of a two-layer map, forward", srcad.jacobian, layer,
              dict(mode="forward"), (x, W1, W2)),
             ("Jacobian of a two-layer map, reverse", srcad.jacobian, layer,
              dict(mode="reverse"), (x, W1, W2)),
             ("Hessian of a logistic loss", srcad.hessian, logistic_loss, {}, (w, X, y))]
    print(f"n = {n}:                                one sweep   a sweep per vector")
    results = {}
    for label, transform, func, options, args in cases:
        swept = transform(func, **options)
        per_vector = transform(func, **options, vectorize=False)
        gap = np.max(np.abs(swept(*args) - per_vector(*args)))
        assert gap < 1e-12, gap
        results[label] = swept(*args)
        print(f"{label:<38} {best_of(swept, args) * 1e3:7.3f} ms   "
              f"{best_of(per_vector, args) * 1e3:7.3f} ms   (results differ by {gap:.0e})")
    H = results["Hessian of a logistic loss"]
    gap = np.max(np.abs(H - hessian_by_hand(w, X, y))) / np.max(np.abs(H))
    print(f"the Hessian against X^T diag(p (1 - p)) X + I: relative gap {gap:.1e}")
    assert gap < 1e-12


if __name__ == "__main__":
    main()
