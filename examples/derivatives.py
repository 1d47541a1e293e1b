"""Every kind of derivative srcad makes, on two small functions with derivatives known by hand.

    f(x) = [x0 x1 + sin x2,  x0^2 x2]            R^3 -> R^2, Jacobian J (2 x 3)
    g(x) = x0^2 x1 + x1 x2^3 + exp(x0)           R^3 -> R,   gradient and Hessian

    J = [[x1,      x0, cos x2],                  grad g = [2 x0 x1 + exp(x0), x0^2 + x2^3, 3 x1 x2^2]
         [2 x0 x2, 0,  x0^2  ]]
                                                 H = [[2 x1 + exp(x0), 2 x0,     0       ],
                                                      [2 x0,           0,        3 x2^2  ],
                                                      [0,              3 x2^2,   6 x1 x2 ]]

Every number printed is compared with these formulas. Run: python examples/derivatives.py
"""
import numpy as np

import srcad


def f(x):
    return np.array([x[0] * x[1] + np.sin(x[2]), x[0] ** 2 * x[2]])


def g(x):
    return x[0] ** 2 * x[1] + x[1] * x[2] ** 3 + np.exp(x[0])


def jacobian_of_f(x):
    return np.array([[x[1], x[0], np.cos(x[2])],
                     [2 * x[0] * x[2], 0.0, x[0] ** 2]])


def gradient_of_g(x):
    return np.array([2 * x[0] * x[1] + np.exp(x[0]), x[0] ** 2 + x[2] ** 3, 3 * x[1] * x[2] ** 2])


def hessian_of_g(x):
    return np.array([[2 * x[1] + np.exp(x[0]), 2 * x[0], 0.0],
                     [2 * x[0], 0.0, 3 * x[2] ** 2],
                     [0.0, 3 * x[2] ** 2, 6 * x[1] * x[2]]])


def show(name, value, expected):
    error = np.max(np.abs(np.asarray(value) - expected))
    text = np.array2string(np.asarray(value), precision=6, prefix=" " * 35)
    print(f"{name:<34} {text}\n{'':<34} max |srcad - by hand| = {error:.1e}")
    assert error < 1e-12, name


def main():
    np.set_printoptions(suppress=True)
    x = np.array([0.5, -1.5, 2.0])
    J = jacobian_of_f(x)
    dx = np.array([1.0, 2.0, 3.0])   # a direction in the input space
    dy = np.array([1.0, -1.0])       # a direction in the output space

    print(f"x = {x}\n")
    show("grad(g)(x)", srcad.grad(g)(x), gradient_of_g(x))
    value, gradient = srcad.value_and_grad(g)(x)
    show("value_and_grad(g)(x)[0]", value, g(x))
    show("value_and_grad(g)(x)[1]", gradient, gradient_of_g(x))
    show("vjp(f)(x, dy)      = dy^T J", srcad.vjp(f)(x, dy), dy @ J)
    show("jvp(f)(x, dx)      = J dx", srcad.jvp(f)(x, dx), J @ dx)
    J_reverse = srcad.jacobian(f, mode="reverse")(x)   # one reverse sweep per output
    J_forward = srcad.jacobian(f, mode="forward")(x)   # one forward sweep per input
    show("jacobian(f, mode='reverse')(x)", J_reverse, J)
    show("jacobian(f, mode='forward')(x)", J_forward, J)
    print(f"{'':<34} the two modes agree to {np.max(np.abs(J_reverse - J_forward)):.1e}")
    show("hessian(g)(x)", srcad.hessian(g)(x), hessian_of_g(x))
    show("hvp(g)(x, dx)      = H dx", srcad.hvp(g)(x, dx), hessian_of_g(x) @ dx)

    print("\nThe generated forward-mode code (srcad.source(f, mode='forward')):\n")
    print(srcad.source(f, mode="forward"))


if __name__ == "__main__":
    main()
