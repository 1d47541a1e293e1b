"""Derivatives of derivatives, and the controls around them (README: "Composing derivatives").

1. The n-th derivative of tanh by applying srcad.grad n times, against its closed form: the
   derivatives of tanh are polynomials in t = tanh(x), P_0(t) = t, P_{n+1}(t) = P_n'(t) (1 - t^2).
2. Halley's method for x e^x = 2 (the Lambert W function at 2) with f' and f'' from srcad:
   x <- x - 2 f f' / (2 f'^2 - f f''), cubically convergent.
3. One Hessian four ways (forward or reverse over forward or reverse): they agree to rounding.
4. A loss with an auxiliary output and a stop_gradient: grad(has_aux=True) gives (gradient, aux).
5. A gradient hook: an RNN whose gradient through the hidden state is clipped at every step
   (srcad.grad_hook), as a training loop against exploding gradients does; the generated code
   shows where the hook applies.

Run: python examples/higher_order.py
"""
import numpy as np

import srcad


def th(x):
    return np.tanh(x)


def closed_form(order, x):
    poly = np.polynomial.Polynomial([0.0, 1.0])
    for _ in range(order):
        poly = poly.deriv() * np.polynomial.Polynomial([1.0, 0.0, -1.0])
    return poly(np.tanh(x))


def lambert_residual(x):
    return x * np.exp(x) - 2.0


def energy(x):
    return np.sum(np.tanh(x) ** 2 * x[::-1]) + np.prod(x[:2]) ** 2


def centered_loss(w, X, y):
    pred = X @ w
    baseline = srcad.stop_gradient(np.mean(pred))  # a constant for the derivative
    loss = np.mean((pred - baseline - y) ** 2)
    return loss, {"baseline": baseline, "max_error": np.max(np.abs(pred - y))}


def clip(g):
    """The adjoint g scaled down to norm 1 where it is longer."""
    norm = np.sqrt(np.sum(g * g))
    return g if norm <= 1.0 else g / norm


def rnn_clipped(W, h, xs):
    for t in range(xs.shape[0]):
        h = srcad.grad_hook(np.tanh(W @ h + xs[t]), clip)
    return np.sum(h ** 2)


def rnn_plain(W, h, xs):
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h ** 2)


def main():
    print("1. d^n tanh(x) / dx^n at x = 0.3 by n nested srcad.grad, and the closed form")
    derivative = th
    for order in range(1, 7):
        derivative = srcad.grad(derivative)
        got, want = derivative(0.3), closed_form(order, 0.3)
        assert abs(got - want) <= 1e-12 * max(1.0, abs(want))
        print(f"   order {order}: {got: .12f}   closed form {want: .12f}")

    print("2. Halley's method for x e^x = 2")
    f1, f2 = srcad.grad(lambert_residual), srcad.grad(srcad.grad(lambert_residual))
    x = 1.0
    for step in range(4):
        f, d1, d2 = lambert_residual(x), f1(x), f2(x)
        x = x - 2.0 * f * d1 / (2.0 * d1 * d1 - f * d2)
        print(f"   step {step + 1}: x = {x:.15f}   residual {lambert_residual(x): .2e}")
    assert abs(lambert_residual(x)) < 1e-14

    print("3. the Hessian of energy by the four mode pairs")
    point = np.array([0.3, -0.7, 1.1])
    hessians = {mode: srcad.hessian(energy, mode=mode)(point)
                for mode in ("forward-over-reverse", "reverse-over-reverse",
                             "reverse-over-forward", "forward-over-forward")}
    reference = hessians["forward-over-reverse"]
    for mode, H in hessians.items():
        gap = np.max(np.abs(H - reference))
        assert gap <= 1e-12 * np.max(np.abs(reference))
        print(f"   {mode:22s} largest gap to forward-over-reverse {gap:.1e}")
    print("   H =", np.array2string(reference, precision=6, suppress_small=True))

    print("4. a loss with an auxiliary output and a stop_gradient")
    rng = np.random.default_rng(0)
    X, y, w = rng.standard_normal((20, 3)), rng.standard_normal(20), np.zeros(3)
    step = srcad.grad(centered_loss, has_aux=True)
    for _ in range(200):
        gradient, aux = step(w, X, y)
        w = w - 0.1 * gradient
    loss, _ = centered_loss(w, X, y)
    print(f"   loss {loss:.6f}, baseline {aux['baseline']: .6f}, "
          f"max error {aux['max_error']:.6f}")
    print("   the generated gradient (the baseline is a constant: no adjoint flows into it):")
    text = srcad.grad(centered_loss, has_aux=True).source
    body = text[text.index("def centered_loss_aux"):].splitlines()
    print("\n".join("   " + line for line in body[:16]))

    print("5. a gradient hook that clips the adjoint of the hidden state at every step")
    W, h0, xs = 3.0 * rng.standard_normal((4, 4)), rng.standard_normal(4), rng.standard_normal(
        (30, 4))
    plain, clipped = srcad.grad(rnn_plain)(W, h0, xs), srcad.grad(rnn_clipped)(W, h0, xs)
    assert rnn_plain(W, h0, xs) == rnn_clipped(W, h0, xs)  # (the hook leaves values alone)
    print(f"   |dL/dW| without the hook {np.linalg.norm(plain):.6f}, "
          f"with it {np.linalg.norm(clipped):.6f}")
    text = srcad.source(rnn_clipped)
    hooked = [line.strip() for line in text.splitlines() if "clip(" in line]
    print(f"   in the generated gradient: {hooked[0]}")


if __name__ == "__main__":
    main()
