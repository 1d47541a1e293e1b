"""srcad in one minute: the worked example every AD text starts with.

    f(x1, x2) = ln(x1) + x1 * x2 - sin(x2)        at (x1, x2) = (2, 5)

By hand: df/dx1 = 1/x1 + x2 = 5.5 and df/dx2 = x1 - cos(x2) = 2 - cos 5 = 1.71634...
srcad reads f's source, writes the derivative as ordinary Python (printed below), and runs it.

Run it with `make demo` or `python examples/quickstart.py`.
"""
import numpy as np

import srcad


def f(x1, x2):
    return np.log(x1) + x1 * x2 - np.sin(x2)


def main():
    x1, x2 = 2.0, 5.0
    print(f"f(2, 5)  = {f(x1, x2):.6f}")

    # Reverse mode: one sweep gives the whole gradient. wrt=(0, 1) asks for both arguments.
    df = srcad.grad(f, wrt=(0, 1))
    g1, g2 = df(x1, x2)
    print(f"df/dx1   = {g1:.6f}    (by hand: 1/x1 + x2 = 5.5)")
    print(f"df/dx2   = {g2:.6f}    (by hand: x1 - cos(x2) = {2 - np.cos(5.0):.6f})")

    # What srcad generated: plain numpy code you can read, step through, or emit to a file.
    print("\nThe generated reverse-mode gradient (srcad.source(f, wrt=(0, 1))):\n")
    print(srcad.source(f, wrt=(0, 1)))

    # Forward mode: push a tangent through f. Seeding dx1 = 1 gives df/dx1 again.
    jvp = srcad.jvp(f, wrt=0)
    print(f"forward mode, dx1 = 1: df = {jvp(x1, x2, 1.0):.6f}")
    print("\nNext: examples/batchnorm.py, or `srcad show examples/quickstart.py:f --mode forward`.")


if __name__ == "__main__":
    main()
