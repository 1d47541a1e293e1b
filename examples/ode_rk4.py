"""Differentiating an ODE solution: a Runge-Kutta integrator written as a loop.

srcad does not differentiate scipy.integrate.odeint or solve_ivp (they run compiled code with
adaptive steps; srcad refuses them and points here). The way to differentiate what they compute
is to write the integrator as ordinary Python: srcad then differentiates through every step,
which is the exact derivative of the discrete solution (discretize-then-differentiate).

The model is the Lotka-Volterra predator-prey system, with prey x and predators y:

    dx/dt = alpha x - beta x y,     dy/dt = delta x y - gamma y

and the classical fourth-order Runge-Kutta step, which takes the right-hand side as a function
and passes the parameters on with *args:

    k1 = f(y), k2 = f(y + h k1 / 2), k3 = f(y + h k2 / 2), k4 = f(y + h k3)
    y <- y + h (k1 + 2 k2 + 2 k3 + k4) / 6

Two uses of the derivatives:
  1. the sensitivity of the final state to the initial state (a 2 x 2 Jacobian, forward and
     reverse mode) and of a loss on the final state to the parameters and the initial state,
     checked against central differences (srcad.check_grads);
  2. fitting the four rate constants and the initial populations to noisy observations of the
     trajectory by gradient descent on the squared error.
With SciPy installed the RK4 trajectory is compared with solve_ivp's.

Run: python examples/ode_rk4.py
"""
import numpy as np

import srcad

try:
    from scipy.integrate import solve_ivp
except ImportError:  # SciPy is optional
    solve_ivp = None


def lotka_volterra(state, t, alpha, beta, delta, gamma):
    x, y = state
    return np.array([alpha * x - beta * x * y, delta * x * y - gamma * y])


def rk4_step(f, y, t, h, *args):
    k1 = f(y, t, *args)
    k2 = f(y + 0.5 * h * k1, t + 0.5 * h, *args)
    k3 = f(y + 0.5 * h * k2, t + 0.5 * h, *args)
    k4 = f(y + h * k3, t + h, *args)
    return y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


def trajectory(y0, rates, t_end, steps):
    """The states at steps + 1 equally spaced times from 0 to t_end, stacked (steps + 1, 2)."""
    h = t_end / steps
    y = y0
    # not `states = [y0]`: srcad's forward mode makes its tangent a tuple and then appends to it
    states = []
    states.append(y0)
    for n in range(steps):
        y = rk4_step(lotka_volterra, y, n * h, h, *rates)
        states.append(y)
    return np.stack(states)


def final_state(y0, rates, t_end=10.0, steps=100):
    return trajectory(y0, rates, t_end, steps)[-1]


def final_loss(rates, y0, target):
    """Squared distance of the final state from a target."""
    return np.sum((final_state(y0, rates) - target) ** 2)


def fit_loss(log_rates, log_y0, observed, t_end, steps, every):
    """Mean squared log-error of the simulated trajectory at the observed times."""
    # the rates go in as an array, not tuple(np.exp(log_rates)): srcad's reverse mode crashes on
    # a tuple spread with *rates into rk4_step(f, y, t, h, *args) in a loop (a TypeError)
    simulated = trajectory(np.exp(log_y0), np.exp(log_rates), t_end, steps)[::every]
    assert simulated.shape == observed.shape
    return np.mean((np.log(simulated) - np.log(observed)) ** 2)


def main():
    rates = (1.0, 0.1, 0.075, 1.5)                  # alpha, beta, delta, gamma
    y0 = np.array([10.0, 5.0])

    # 1. sensitivities of the final state, and a loss on it
    jac_reverse = srcad.jacobian(final_state, wrt=0)(y0, rates)
    jac_forward = srcad.jacobian(final_state, wrt=0, mode="forward")(y0, rates)
    print(f"final state {np.array2string(final_state(y0, rates), precision=4)}")
    print(f"d final state / d y0 =\n{np.array2string(jac_reverse, precision=5)}")
    print(f"forward and reverse Jacobians agree to {np.max(np.abs(jac_reverse - jac_forward)):.1e}")
    assert np.allclose(jac_reverse, jac_forward, rtol=1e-12, atol=1e-12)

    target = np.array([5.0, 5.0])
    report = srcad.check_grads(final_loss, (np.array(rates), y0, target), wrt=(0, 1))
    srcad_side, fd_side = report["reverse_vs_fd"]
    print(f"check_grads: srcad {srcad_side:.10f}, central differences {fd_side:.10f}")
    d_rates, d_y0 = srcad.grad(final_loss, wrt=(0, 1))(np.array(rates), y0, target)
    print(f"d loss / d (alpha, beta, delta, gamma) = {np.array2string(d_rates, precision=3)}")
    print(f"d loss / d (x0, y0)                    = {np.array2string(d_y0, precision=3)}")

    if solve_ivp is not None:
        times = np.linspace(0.0, 10.0, 101)
        reference = solve_ivp(lambda t, s: lotka_volterra(s, t, *rates), (0.0, 10.0), y0,
                              t_eval=times, rtol=1e-10, atol=1e-10).y.T
        gap = np.max(np.abs(trajectory(y0, rates, 10.0, 100) - reference))
        print(f"max |RK4 trajectory - solve_ivp's| = {gap:.1e}")
        assert gap < 1e-2

    # 2. fit the rates and the initial state to noisy observations (every 5th of 60 steps)
    t_end, steps, every = 6.0, 60, 5
    rng = np.random.default_rng(0)
    clean = trajectory(y0, rates, t_end, steps)[::every]
    observed = clean * np.exp(0.02 * rng.normal(size=clean.shape))
    log_rates, log_y0 = np.log([1.2, 0.08, 0.09, 1.3]), np.log([8.0, 6.0])
    report = srcad.check_grads(fit_loss, (log_rates, log_y0, observed, t_end, steps, every),
                               wrt=(0, 1))
    print(f"check_grads (fit loss): srcad {report['reverse_vs_fd'][0]:.10f}, "
          f"central differences {report['reverse_vs_fd'][1]:.10f}")
    loss_grad = srcad.value_and_grad(fit_loss, wrt=(0, 1))
    history = []
    for it in range(60):
        value, (g_rates, g_y0) = loss_grad(log_rates, log_y0, observed, t_end, steps, every)
        log_rates, log_y0 = log_rates - 0.02 * g_rates, log_y0 - 0.02 * g_y0
        history.append(value)
        if it % 20 == 0:
            print(f"fit step {it:3d}: loss {value:.6f}")
    print(f"fit loss: first step {history[0]:.6f}, last step {history[-1]:.6f}")
    print(f"fitted rates {np.array2string(np.exp(log_rates), precision=3)} (true {rates}), "
          f"initial state {np.array2string(np.exp(log_y0), precision=2)} (true {y0})")
    assert history[-1] < 0.1 * history[0]


if __name__ == "__main__":
    main()
