"""The gradient of a float32 argument comes back as float64 although f computes in float32
(f(x32) is float32): 1.5 ** x, x -= np.sin(s), x += 0.5 ** x, ...

Affects: grad, value_and_grad, vjp with float32 arrays (the values are right, to float32
precision; the dtype is not the argument's).
Found by tests/fuzz: its float32 check asks for float32 gradients wherever f's output is float32;
72 of 3000 programs at c49de5f, the most common failure left (seeds 200541, 201513, 202993).
Mechanism (a guess): the derivative templates of `**` with a constant base and of a few others
multiply by a float64 (np.log(1.5), or a Python scalar turned into a float64 0-d array), and
numpy promotes the float32 adjoint; the zero gradients of unused arguments are float64 too.
Status: float64 at 0623fd6 ... a78144e; float32 since 5b4ef3e ("float32 stays float32").
"""
import os
import sys

import numpy as np

import srcad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import compare, done, expect, runs  # noqa: E402


def f(x):
    return np.sum(1.5 ** x)


def g(x, s):
    x = 0.5 * x
    x -= np.sin(s)
    return np.sum(x)


x = np.array([-1.3, 0.4], dtype=np.float32)
print("f(x) has dtype", np.asarray(f(x)).dtype)
got = runs("grad of f at float32 x", lambda: srcad.grad(f)(x))
if got is not None:
    expect("dtype of the gradient of float32 x", got.dtype == np.float32, str(got.dtype))
    compare("grad of f at float32 x", got, np.log(1.5) * 1.5 ** x.astype(float), rtol=1e-6)
print("g(x, 0.7) has dtype", np.asarray(g(x, 0.7)).dtype)
got = runs("grad of g at float32 x", lambda: srcad.grad(g)(x, 0.7))
if got is not None:
    expect("dtype of the gradient of float32 x", got.dtype == np.float32, str(got.dtype))
done()
