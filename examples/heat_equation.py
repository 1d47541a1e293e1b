"""Differentiating a PDE solver: the 2-D heat equation, time-stepped with np.roll.

The heat equation du/dt = kappa (d^2u/dx^2 + d^2u/dy^2) on a periodic 32 x 32 grid (spacing 1),
stepped with explicit Euler and the five-point Laplacian written with np.roll:

    u_{n+1} = u_n + dt kappa (roll(u, 1, 0) + roll(u, -1, 0) + roll(u, 1, 1) + roll(u, -1, 1) - 4 u)

srcad differentiates the whole simulation, a Python loop of N steps, with respect to the initial
state u_0 (an array) and the diffusion coefficient kappa (a float): the generated reverse sweep
runs the adjoint equation backward in time. For this symmetric, periodic scheme the adjoint
step is the step itself, so the gradient of L = |u_N - target|^2 / 2 with respect to u_0 is
the residual u_N - target simulated N steps forward, a check independent of srcad. The script
ends by printing the generated reverse loop.

Two inverse problems, each solved by a few gradient steps:
  1. the diffusion coefficient that turns a known initial state into an observed final state;
  2. the initial state that diffuses into a target after N steps (ill-posed backward in time:
     a small penalty on the roughness of u_0 keeps it smooth).

Run: python examples/heat_equation.py
"""
import numpy as np

import srcad

DT = 1.0


def laplacian(u):
    return (np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0)
            + np.roll(u, 1, axis=1) + np.roll(u, -1, axis=1) - 4.0 * u)


def simulate(u0, kappa, steps):
    u = u0
    for _ in range(steps):
        u = u + DT * kappa * laplacian(u)
    return u


def mismatch(u0, kappa, target, steps):
    return 0.5 * np.sum((simulate(u0, kappa, steps) - target) ** 2)


def regularized_mismatch(u0, kappa, target, steps, smoothing):
    return mismatch(u0, kappa, target, steps) + 0.5 * smoothing * np.sum(u0 * -laplacian(u0))


def blobs(n, centers, width):
    y, x = np.mgrid[0:n, 0:n]
    return sum(np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * width ** 2)) for cx, cy in centers)


def main():
    n, steps, kappa_true = 32, 20, 0.2
    u0_true = blobs(n, [(10, 12), (22, 20), (8, 24)], 2.0)
    target = simulate(u0_true, kappa_true, steps)

    # the gradient with respect to the initial state and the diffusion coefficient
    rng = np.random.default_rng(0)
    u0, kappa = u0_true + 0.1 * rng.normal(size=(n, n)), 0.15
    report = srcad.check_grads(mismatch, (u0, kappa, target, steps), wrt=(0, 1))
    srcad_side, fd_side = report["reverse_vs_fd"]
    print(f"check_grads: srcad {srcad_side:.10f}, central differences {fd_side:.10f}")
    du0, dkappa = srcad.grad(mismatch, wrt=(0, 1))(u0, kappa, target, steps)
    adjoint = simulate(simulate(u0, kappa, steps) - target, kappa, steps)
    print(f"max |dL/du0 - adjoint simulation| = {np.max(np.abs(du0 - adjoint)):.1e}")
    assert np.max(np.abs(du0 - adjoint)) < 1e-12

    # 1. the diffusion coefficient, from a 50% error, by Newton's method on the scalar kappa
    kappa_grad = srcad.grad(mismatch, wrt=1)
    kappa_hess = srcad.hessian(mismatch, wrt=1)
    kappa = 0.1
    for it in range(5):
        g, h = kappa_grad(u0_true, kappa, target, steps), kappa_hess(u0_true, kappa, target, steps)
        print(f"kappa step {it}: kappa = {kappa:.8f}, loss {mismatch(u0_true, kappa, target, steps):.3e}")
        kappa = kappa - g / h
    print(f"fitted kappa = {kappa:.8f} (true {kappa_true})")
    assert abs(kappa - kappa_true) < 1e-8

    # 2. the initial state, from zero, by gradient descent
    value_and_grad = srcad.value_and_grad(regularized_mismatch)
    u0 = np.zeros((n, n))
    history = []
    for it in range(30):
        value, du0 = value_and_grad(u0, kappa_true, target, steps, 1e-3)
        u0 = u0 - 1.0 * du0
        history.append(value)
        if it % 10 == 0:
            print(f"initial-state step {it:2d}: loss {value:.5f}")
    final = mismatch(u0, kappa_true, target, steps)
    print(f"initial-state loss: first step {history[0]:.5f}, after 30 steps {final:.5f}; "
          f"max |u_N - target| = {np.max(np.abs(simulate(u0, kappa_true, steps) - target)):.3f}")
    assert final < 0.01 * history[0]

    # the generated code: the gradient of the mismatch, and the reverse sweep through time
    source = srcad.source(mismatch, wrt=(0, 1))
    shown = [block for block in source.split("\n\n\n")
             if block.startswith(("def mismatch_grad(", "def simulate_backward"))]
    print("\nThe generated gradient, its adjoint time loop (from srcad.source(mismatch, "
          "wrt=(0, 1))):\n")
    print("\n\n\n".join(shown))


if __name__ == "__main__":
    main()
