"""Whole Jacobians and Hessians in one sweep against one sweep per row or column.

    make bench-jacobian
    .venv/bin/python benchmarks/jacobian.py --sizes 10,100

srcad.jacobian and srcad.hessian run the derivative code once on a stack of all basis vectors
(srcad/api/batched.py); `vectorize=False` gives the sweep per vector they made before. For each
workload and size: the median of warm calls of both (after the first, which builds), their
ratio, and the largest difference between the two results (they must agree to rounding).

    layer      J of x -> tanh(W2 @ tanh(W1 @ x)), R^n -> R^n        forward and reverse
    rosenbrock H of sum(100 (x[1:] - x[:-1]^2)^2 + (1 - x[:-1])^2)  forward over reverse
    logistic   H of a regularized logistic loss in n weights       forward over reverse
    softmax    J of softmax(A @ x), R^n -> R^n                      forward and reverse

BLAS threads are pinned to 1 (the Makefile sets them; so does this file before numpy loads).
"""
import argparse
import statistics
import sys
import time

import environment  # noqa: E402 - one BLAS thread, before NumPy loads

environment.plain_builds(("SRCAD_VERIFY",))  # (verify mode runs both and compares)

import numpy as np  # noqa: E402

import srcad  # noqa: E402


def layer(x, W1, W2):
    return np.tanh(W2 @ np.tanh(W1 @ x))


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def logistic(w, X, y):
    return np.sum(np.logaddexp(0.0, -y * (X @ w))) + 0.5 * np.dot(w, w)


def softmax(x, A):
    z = A @ x
    e = np.exp(z - np.max(z))
    return e / np.sum(e)


def workloads(n, rng):
    W1, W2 = rng.normal(size=(n, n)) / np.sqrt(n), rng.normal(size=(n, n)) / np.sqrt(n)
    X, y = rng.normal(size=(4 * n, n)), np.sign(rng.normal(size=4 * n))
    return [
        ("layer J fwd", lambda v: srcad.jacobian(layer, mode="forward", vectorize=v),
         (rng.normal(size=n), W1, W2)),
        ("layer J rev", lambda v: srcad.jacobian(layer, mode="reverse", vectorize=v),
         (rng.normal(size=n), W1, W2)),
        ("rosenbrock H", lambda v: srcad.hessian(rosenbrock, vectorize=v),
         (rng.normal(size=n),)),
        ("logistic H", lambda v: srcad.hessian(logistic, vectorize=v),
         (rng.normal(size=n) * 0.1, X, y)),
        ("softmax J fwd", lambda v: srcad.jacobian(softmax, mode="forward", vectorize=v),
         (rng.normal(size=n), W1)),
        ("softmax J rev", lambda v: srcad.jacobian(softmax, mode="reverse", vectorize=v),
         (rng.normal(size=n), W1)),
    ]


def median_time(function, args, budget=0.5):
    function(*args)  # (built)
    times = []
    start = time.perf_counter()
    while len(times) < 5 or (time.perf_counter() - start < budget and len(times) < 200):
        t0 = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,50,200", help="comma-separated n")
    options = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    print(f"{'workload':<15} {'n':>5} {'per vector ms':>14} {'one sweep ms':>13} {'speedup':>8} "
          f"{'max difference':>15}")
    for n in [int(s) for s in options.sizes.split(",")]:
        for label, make, args in workloads(n, rng):
            loop, swept = make(False), make(True)
            difference = float(np.max(np.abs(loop(*args) - swept(*args))))
            slow, fast = median_time(loop, args), median_time(swept, args)
            print(f"{label:<15} {n:>5} {slow * 1e3:>14.3f} {fast * 1e3:>13.3f} "
                  f"{slow / fast:>7.1f}x {difference:>15.1e}")


if __name__ == "__main__":
    sys.exit(main())
