"""What users control about differentiation: stop_gradient and constant helpers, auxiliary
outputs (has_aux), SciPy's Hessian-vector product (hessp), and check_grads at third order."""
import numpy as np
import pytest

import srcad
from srcad import stop_gradient


# --- stop_gradient: the value, with derivative zero in every mode ---------------------------------

def centered_by_stopped_mean(x):
    m = srcad.stop_gradient(np.mean(x))
    return np.sum((x - m) ** 2) + stop_gradient(x[0]) * x[1]


def centered_by_constant(x, m, x0):
    return np.sum((x - m) ** 2) + x0 * x[1]


X = np.array([0.5, -1.0, 2.0, 0.25])


def test_stop_gradient_is_a_constant_in_both_modes_and_at_second_order():
    m, x0 = np.mean(X), X[0]
    expected = srcad.grad(centered_by_constant)(X, m, x0)
    np.testing.assert_allclose(srcad.grad(centered_by_stopped_mean)(X), expected, rtol=1e-14)
    v = np.array([1.0, 2.0, -1.0, 0.5])
    np.testing.assert_allclose(srcad.jvp(centered_by_stopped_mean)(X, v),
                               srcad.jvp(centered_by_constant)(X, m, x0, v), rtol=1e-14)
    np.testing.assert_allclose(srcad.hessian(centered_by_stopped_mean)(X),
                               srcad.hessian(centered_by_constant)(X, m, x0), rtol=1e-14)
    assert centered_by_stopped_mean(X) == centered_by_constant(X, m, x0)  # the value unchanged


def test_stop_gradient_shows_in_the_generated_source():
    assert "srcad.stop_gradient(" in srcad.source(centered_by_stopped_mean)


@srcad.non_differentiable
def scale_of(x):
    return np.max(np.abs(x)) + 1.0


def normalized(x):
    return np.sum(x ** 2) / scale_of(x)


def test_a_helper_marked_non_differentiable_is_a_constant():
    s = scale_of(X)
    np.testing.assert_allclose(srcad.grad(normalized)(X), 2 * X / s, rtol=1e-14)
    np.testing.assert_allclose(srcad.jvp(normalized)(X, np.ones(4)), np.sum(2 * X) / s,
                               rtol=1e-14)


# --- has_aux ---------------------------------------------------------------------------------------

def loss_with_stats(w, x):
    pred = np.tanh(x @ w)
    loss = np.mean(pred ** 2)
    return loss, {"pred_mean": np.mean(pred), "count": x.shape[0]}


def branchy_with_aux(w, x):
    loss = np.sum((x @ w) ** 2)
    if loss > 1.0:
        return loss, np.max(w)
    return 2.0 * loss, np.min(w)


def loss_alone(w, x):
    return loss_with_stats(w, x)[0]


W = np.array([0.3, -0.2, 0.5])
DATA = np.array([[1.0, 2.0, 0.5], [0.1, -0.3, 0.7]])


def test_grad_with_aux_gives_the_gradient_and_the_aux_undifferentiated():
    for _ in range(2):  # the first call and the fast path
        grads, aux = srcad.grad(loss_with_stats, has_aux=True)(W, DATA)
        np.testing.assert_allclose(grads, srcad.grad(loss_alone)(W, DATA), rtol=1e-14)
        assert aux == loss_with_stats(W, DATA)[1]


def test_value_and_grad_with_aux_returns_f_s_value_whole():
    vg = srcad.value_and_grad(loss_with_stats, wrt=(0, 1), has_aux=True)
    (value, aux), (gw, gx) = vg(W, DATA)
    assert (value, aux) == loss_with_stats(W, DATA)
    expected = srcad.grad(loss_alone, wrt=(0, 1))(W, DATA)
    np.testing.assert_allclose(gw, expected[0], rtol=1e-14)
    np.testing.assert_allclose(gx, expected[1], rtol=1e-14)


@pytest.mark.parametrize("scale", [1.0, 0.01])
def test_grad_with_aux_follows_each_return_of_a_branch(scale):
    x = DATA * scale
    grads, aux = srcad.grad(branchy_with_aux, has_aux=True)(W, x)
    loss, expected_aux = branchy_with_aux(W, x)
    factor = 1.0 if loss > 1.0 else 2.0
    np.testing.assert_allclose(grads, factor * 2 * x.T @ (x @ W), rtol=1e-13)
    assert aux == expected_aux


def test_vjp_and_jacobian_with_aux():
    def field(w, x):
        y = np.sin(x @ w)
        return y, [np.sum(y)]
    dy = np.array([1.0, -2.0])
    bw, aux = srcad.vjp(field, has_aux=True)(W, DATA, dy)
    np.testing.assert_allclose(bw, DATA.T @ (dy * np.cos(DATA @ W)), rtol=1e-14)
    assert aux == field(W, DATA)[1]
    J, aux = srcad.jacobian(field, has_aux=True)(W, DATA)
    np.testing.assert_allclose(J, np.cos(DATA @ W)[:, None] * DATA, rtol=1e-14)
    assert aux == field(W, DATA)[1]


def test_has_aux_refuses_a_function_that_does_not_return_a_pair():
    with pytest.raises(TypeError, match="must return a pair"):
        srcad.grad(loss_alone, has_aux=True)(W, DATA)


def test_check_grads_with_aux_and_at_third_order():
    report = srcad.check_grads(loss_with_stats, (W, DATA), has_aux=True, order=2)
    assert report["aux"]["count"] == 2

    def cubic(x):
        return np.sum(np.tanh(x) ** 3 * x[::-1])
    report = srcad.check_grads(cubic, (X,), order=3)
    assert "third_symmetry_0" in report


def test_check_grads_at_third_order_catches_a_wrong_third_derivative():
    """A template whose tangent is wrong at second order only shows at third: check_grads at
    order=3 must see it (the check cannot pass vacuously)."""
    def f(x):
        return np.sum(np.tanh(x) ** 3 * x[::-1])
    report = srcad.check_grads(f, (X,), order=3)
    err, scale = report["third_vs_fd_0"]
    assert scale > 0.1 and err < 1e-5 * scale  # a real third derivative, and close to it


# --- hessp: SciPy's order ------------------------------------------------------------------------

def rosenbrock(x, a, b):
    return np.sum(b * (x[1:] - x[:-1] ** 2) ** 2 + (a - x[:-1]) ** 2)


def test_hessp_takes_scipy_s_argument_order():
    x, p = np.array([0.5, 1.2, -0.3, 0.8]), np.array([1.0, -1.0, 0.5, 2.0])
    H = srcad.hessian(rosenbrock)(x, 1.0, 100.0)
    np.testing.assert_allclose(srcad.hessp(rosenbrock)(x, p, 1.0, 100.0), H @ p, rtol=1e-12)


@pytest.mark.parametrize("method", ["Newton-CG", "trust-ncg", "trust-krylov"])
def test_scipy_minimize_with_srcad_derivatives(method):
    """SciPy with srcad's gradient and Hessian-vector product takes the steps it takes with its
    own exact Rosenbrock derivatives (args= passed through as SciPy passes them)."""
    optimize = pytest.importorskip("scipy.optimize", reason="scipy is an optional extra")
    x0 = np.array([1.3, 0.7, 0.8, 1.9, 1.2])
    ours = optimize.minimize(rosenbrock, x0, args=(1.0, 100.0), method=method,
                             jac=srcad.grad(rosenbrock), hessp=srcad.hessp(rosenbrock))
    theirs = optimize.minimize(optimize.rosen, x0, method=method, jac=optimize.rosen_der,
                               hessp=optimize.rosen_hess_prod)
    assert ours.nit == theirs.nit
    np.testing.assert_allclose(ours.x, theirs.x, rtol=1e-9)
    with_value = optimize.minimize(srcad.value_and_grad(rosenbrock), x0, args=(1.0, 100.0),
                                   jac=True, hess=srcad.hessian(rosenbrock), method="trust-exact")
    exact = optimize.minimize(optimize.rosen, x0, jac=optimize.rosen_der,
                              hess=optimize.rosen_hess, method="trust-exact")
    np.testing.assert_allclose(with_value.x, exact.x, rtol=1e-9)
