"""A function defined inside the differentiated one (def rhs(y): ... in an integrator) was lifted
out and called: its derivative was the generic code of a callee (unbroadcast, a tape per call,
matmul_adjoint_a) where a helper of the module, written into its caller, gets its derivative
built with the caller's, specialized to the caller's shapes. An RK2 integrator took 3.0 ms per
gradient with its right-hand side nested against 1.0 ms with it at module level, and a second
derivative through a nested function called in a loop was refused (a callee's tape used whole
and item by item). frontend/inline.py now writes in a lifted nested function like a module's
helper (lift.py has already turned what it reads of the caller into arguments passed at each
call, so it sees their values at the call, as a closure does). The numbers are checked against
the same function with its helper at module level, central differences and derivatives by
hand; what a nested function computes at the call (a closure's late binding, a default computed
at the def) is kept.
"""
import numpy as np

import srcad
from tests.regressions.numeric import central_gradient

RNG = np.random.default_rng(7)
Y0 = RNG.normal(size=6)
A = RNG.normal(size=(6, 6)) * 0.3


def rhs(y, k, a):
    return a @ y + k * np.tanh(y)


def integrate_with_module_helper(y0, k, a, steps):
    y = y0
    for _ in range(steps):
        k1 = rhs(y, k, a)
        k2 = rhs(y + 0.025 * k1, k, a)
        y = y + 0.05 * k2
    return np.sum(y ** 2)


def integrate_with_nested_helper(y0, k, a, steps):
    def f(y):
        return a @ y + k * np.tanh(y)
    y = y0
    for _ in range(steps):
        k1 = f(y)
        k2 = f(y + 0.025 * k1)
        y = y + 0.05 * k2
    return np.sum(y ** 2)


def test_a_nested_helper_gets_the_derivative_a_module_helper_gets():
    args = (Y0, 0.7, A, 20)
    nested = srcad.grad(integrate_with_nested_helper, wrt=(0, 1, 2))(*args)
    module = srcad.grad(integrate_with_module_helper, wrt=(0, 1, 2))(*args)
    for got, want in zip(nested, module):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    by_differences = central_gradient(integrate_with_nested_helper, args, 1)
    np.testing.assert_allclose(nested[1], by_differences, rtol=1e-6)
    text = srcad.source(integrate_with_nested_helper, wrt=(0, 1, 2), args=args)
    assert "f_forward" not in text and "f_backward" not in text and "unbroadcast(" not in text
    tangent = srcad.jvp(integrate_with_nested_helper, wrt=1)(*args, 1.0)
    np.testing.assert_allclose(tangent[1] if isinstance(tangent, tuple) else tangent,
                               nested[1], rtol=1e-10)


def repeated_square(a, n):
    def times(u, v):
        return u * v
    for _ in range(n):
        a = times(a, a)
    return a


def test_second_derivative_through_a_nested_helper_in_a_loop():
    a = 0.9  # a ** 8 after three squarings: the second derivative is 56 a ** 6
    assert np.isclose(srcad.grad(repeated_square)(a, 3), 8 * a ** 7, rtol=1e-12)
    assert np.isclose(srcad.grad(srcad.grad(repeated_square))(a, 3), 56 * a ** 6, rtol=1e-12)


def late_binding(x):
    s = 2.0
    def g(v):
        return v * s
    s = 3.0  # g reads s when it is called: 3.0
    return np.sum(g(x))


def default_at_the_def(x):
    scale = 2.0
    def g(v, p=scale):  # p is 2.0: Python computes the default at the def
        return v * p
    scale = 5.0
    return np.sum(g(x)) + scale


def test_what_a_nested_function_reads_is_read_as_python_reads_it():
    x = np.array([0.3, -1.2, 2.0])
    np.testing.assert_allclose(srcad.grad(late_binding)(x), np.full(3, 3.0))
    np.testing.assert_allclose(srcad.grad(default_at_the_def)(x), np.full(3, 2.0))
    assert "g_forward" not in srcad.source(late_binding, args=(x,))
