"""Teaching srcad a function it cannot read: derivative templates (docs/templates.md).

`softplus` below computes log(1 + e^x) one element at a time, with a try statement for overflow,
the way a compiled extension or a legacy routine might. srcad cannot differentiate it from its
source (it refuses try statements), so we register its derivative instead:

    d softplus(x) / dx = sigmoid(x) = 1 / (1 + e^-x)

Then a logistic-regression loss that calls softplus has a gradient and a Hessian, checked with
srcad.check_grads and against the closed forms (labels t = +-1, n samples, s = sigmoid(-t Xw)):

    L(w) = mean(softplus(-t * (X @ w)))
    grad L = -X^T (t s) / n,     hess L = X^T diag(s (1 - s)) X / n

Run: python examples/custom_template.py
"""
import math

import numpy as np

import srcad
from srcad import d


def softplus(x):
    """log(1 + e^x), elementwise, computed the way a C routine would."""
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    for i in range(x.size):
        v = float(x.flat[i])
        try:
            out.flat[i] = math.log1p(math.exp(v))
        except OverflowError:  # e^v overflowed: log(1 + e^v) = v to double precision
            out.flat[i] = v
    return out


# A runtime helper: generated code calls it by name, and srcad copies its source into every
# generated module that uses it. It may use numpy (as np) and other helpers, nothing else.
@srcad.runtime.helper(linear=False)
def logistic_sigmoid(x):
    """1 / (1 + e^-x), without overflow for large |x|."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


# The helper's own tangent: hessians differentiate the generated gradient again, and that
# gradient calls logistic_sigmoid. s is the helper's result, x its operand.
@srcad.tangent(logistic_sigmoid)
def logistic_sigmoid_tangent(s, x):
    d[s] = d[x] * s * (1.0 - s)


# The templates of softplus itself: result first, then the operands as the call passes them.
@srcad.adjoint(softplus)
def softplus_adjoint(y, x):
    d[x] = d[y] * logistic_sigmoid(x)


@srcad.tangent(softplus)
def softplus_tangent(y, x):
    d[y] = d[x] * logistic_sigmoid(x)


def loss(w, X, t):
    return np.mean(softplus(-t * (X @ w)))


def main():
    rng = np.random.default_rng(0)
    n = 50
    X = rng.normal(size=(n, 3))
    t = np.where(rng.normal(size=n) > 0, 1.0, -1.0)
    w = np.array([0.5, -1.0, 0.25])

    s = 1.0 / (1.0 + np.exp(t * (X @ w)))
    gradient_by_hand = -(X.T @ (t * s)) / n
    hessian_by_hand = (X.T * (s * (1.0 - s))) @ X / n

    gradient = srcad.grad(loss)(w, X, t)
    hessian = srcad.hessian(loss)(w, X, t)
    print(f"loss            = {loss(w, X, t):.6f}")
    print(f"srcad gradient  = {np.array2string(gradient, precision=6)}")
    print(f"max |gradient - closed form| = {np.max(np.abs(gradient - gradient_by_hand)):.1e}")
    print(f"max |hessian  - closed form| = {np.max(np.abs(hessian - hessian_by_hand)):.1e}")
    assert np.allclose(gradient, gradient_by_hand, rtol=1e-12, atol=1e-14)
    assert np.allclose(hessian, hessian_by_hand, rtol=1e-12, atol=1e-14)

    report = srcad.check_grads(loss, (w, X, t), order=2)
    print(f"check_grads(order=2) passed: dot-product test {report['dot_product'][0]:.15f} "
          f"(forward) vs {report['dot_product'][1]:.15f} (reverse)")

    print("\nThe generated gradient: softplus runs as is, its adjoint comes from the template\n")
    print(srcad.source(loss))


if __name__ == "__main__":
    main()
