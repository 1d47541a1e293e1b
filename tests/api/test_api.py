"""The public API contract (/work/shared/API.md): every entry point, every rule it states.

All numbers are float64 and are compared either with closed forms derived by hand or with
central finite differences (error O(h^2), h = 1e-6: about 1e-9 relative for these functions).
"""
import importlib
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import srcad
import srcad.api.cache
import srcad.pipeline

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tests/
REPO = os.path.dirname(HERE)


# ---------------------------------------------------------------------------------------------
# helpers

def central_jacobian(func, args, position, h=1e-6, kwargs=None):
    """J[out..., in...] of func's output wrt args[position] by central differences."""
    kwargs = kwargs or {}
    x = np.asarray(args[position], dtype=float)
    out_shape = np.shape(func(*args, **kwargs))
    jac = np.zeros(out_shape + x.shape)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = h
        plus, minus = list(args), list(args)
        plus[position] = x + step if x.shape else float(x + step)
        minus[position] = x - step if x.shape else float(x - step)
        diff = (np.asarray(func(*plus, **kwargs), float)
                - np.asarray(func(*minus, **kwargs), float)) / (2 * h)
        jac[(Ellipsis,) + index] = diff
    return jac


def fd_grad(func, args, position, kwargs=None):
    return central_jacobian(func, args, position, kwargs=kwargs)


def assert_close(got, want, tol=1e-7):
    got, want = np.asarray(got, float), np.asarray(want, float)
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    err = float(np.max(np.abs(got - want), initial=0.0))
    assert err <= tol * scale, f"max error {err:.3g} (scale {scale:.3g})\n{got}\n{want}"


@pytest.fixture
def make_module(tmp_path, monkeypatch):
    """Write Python source to a fresh module file and import it (a new module name each time)."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    counter = [0]
    created = []

    def make(source, name=None):
        counter[0] += 1
        name = name or f"srcad_api_case_{os.getpid()}_{id(tmp_path)}_{counter[0]}"
        path = tmp_path / f"{name}.py"
        path.write_text(textwrap.dedent(source))
        importlib.invalidate_caches()
        module = importlib.import_module(name)
        created.append(name)
        return module

    yield make
    for name in created:
        sys.modules.pop(name, None)


# ---------------------------------------------------------------------------------------------
# functions under test (module level, so srcad can read their source)

def worked_example(x1, x2):
    return np.log(x1) + x1 * x2 - np.sin(x2)


def three_args(a, b, c):
    return np.sum(a * np.sin(b) + c ** 2 * b)


def bowl(x):
    return np.sum(x ** 2)


@srcad.grad
def bowl_grad(x):
    return np.sum(x ** 2) * 3.0


@srcad.grad(wrt=(0, 1))
def product_grad(a, b):
    return np.sum(a * b)


def elementwise(x):
    return np.sin(x) * x


def two_outputs(x, y):
    return x * y, np.sin(x)


def to_matrix(X, A):
    return np.tanh(X @ A)


def logsumexp_plus_cubes(x):
    return np.log(np.sum(np.exp(x))) + np.sum(x ** 3)


def with_defaults(x, scale=2.0, *, power=2):
    return np.sum((x * scale) ** power)


def with_constants(x, n, label, flag, A):
    y = A @ x
    return np.sum(np.where(flag, y, -y) ** n)


def scalar_square(x):
    return x * x


def broadcast_sum(x, y, b, c):
    return np.sum(np.tanh(x * y + b) * c)


WEIGHTS = np.array([1.0, 2.0, 3.0])


def weighted(x):
    return np.sum(WEIGHTS * x ** 2)


def make_closure(a):
    def inner(x):
        return np.sum(a * x ** 2)
    return inner


def make_rebindable_closure():
    a = np.array([1.0, 1.0])

    def inner(x):
        return np.sum(a * x)

    def rebind(value):
        nonlocal a
        a = value
    return inner, rebind


# ---------------------------------------------------------------------------------------------
# the seeds' worked example

def test_worked_example_gradient():
    g1, g2 = srcad.grad(worked_example, wrt=(0, 1))(2.0, 5.0)
    assert abs(g1 - 5.5) <= 1e-12
    assert abs(g2 - (2.0 - np.cos(5.0))) <= 1e-12
    assert abs(g2 - 1.71634) < 1e-5


def test_worked_example_value_and_forward_mode():
    value, (g1, g2) = srcad.value_and_grad(worked_example, wrt=(0, 1))(2.0, 5.0)
    assert abs(value - (np.log(2.0) + 10.0 - np.sin(5.0))) <= 1e-12
    assert abs(value - 11.652) < 1e-3
    assert abs(srcad.jvp(worked_example, wrt=0)(2.0, 5.0, 1.0) - 5.5) <= 1e-12
    assert abs(srcad.jvp(worked_example, wrt=1)(2.0, 5.0, 1.0) - (2.0 - np.cos(5.0))) <= 1e-12


# ---------------------------------------------------------------------------------------------
# grad: int and tuple wrt

def test_grad_int_wrt_gives_a_single_array(rng):
    a, b, c = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
    for position in range(3):
        got = srcad.grad(three_args, wrt=position)(a, b, c)
        assert isinstance(got, np.ndarray) and got.shape == (3,)
        assert_close(got, fd_grad(three_args, (a, b, c), position))
    assert_close(srcad.grad(three_args)(a, b, c), fd_grad(three_args, (a, b, c), 0))


def test_grad_tuple_wrt_gives_a_tuple_in_wrt_order(rng):
    a, b, c = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
    got = srcad.grad(three_args, wrt=(2, 0))(a, b, c)
    assert isinstance(got, tuple) and len(got) == 2
    assert_close(got[0], 2 * c * b)
    assert_close(got[1], np.sin(b))


def test_grad_one_element_tuple_wrt_still_gives_a_tuple(rng):
    x = rng.normal(size=4)
    got = srcad.grad(bowl, wrt=(0,))(x)
    assert isinstance(got, tuple) and len(got) == 1
    assert_close(got[0], 2 * x)
    value, grads = srcad.value_and_grad(bowl, wrt=(0,))(x)
    assert isinstance(grads, tuple) and len(grads) == 1
    assert_close(grads[0], 2 * x)
    back = srcad.vjp(scalar_square, wrt=(0,))(x, np.ones(4))
    assert isinstance(back, tuple) and len(back) == 1
    assert_close(back[0], 2 * x)


def test_negative_wrt_counts_from_the_end(rng):
    a, b, c = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
    assert_close(srcad.grad(three_args, wrt=-1)(a, b, c), 2 * c * b)


# ---------------------------------------------------------------------------------------------
# decorator forms

def test_decorator_without_arguments():
    x = np.array([1.0, -2.0, 0.5])
    assert_close(bowl_grad(x), 6.0 * x)


def test_decorator_with_wrt_tuple():
    a, b = np.array([1.0, 2.0]), np.array([3.0, -4.0])
    got = product_grad(a, b)
    assert isinstance(got, tuple) and len(got) == 2
    assert_close(got[0], b)
    assert_close(got[1], a)


# ---------------------------------------------------------------------------------------------
# value_and_grad

def test_value_and_grad(rng):
    a, b, c = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
    value, grad = srcad.value_and_grad(three_args, wrt=1)(a, b, c)
    assert abs(value - three_args(a, b, c)) <= 1e-12
    assert_close(grad, a * np.cos(b) + c ** 2)


# ---------------------------------------------------------------------------------------------
# vjp

def test_vjp_of_a_non_scalar_output(rng):
    x, dy = rng.normal(size=5), rng.normal(size=5)
    got = srcad.vjp(elementwise)(x, dy)
    assert_close(got, dy @ central_jacobian(elementwise, (x,), 0))
    assert_close(got, dy * (np.cos(x) * x + np.sin(x)), tol=1e-12)


def test_vjp_of_a_matrix_output(rng):
    X, A, dY = rng.normal(size=(2, 3)), rng.normal(size=(3, 4)), rng.normal(size=(2, 4))
    got = srcad.vjp(to_matrix, wrt=(0, 1))(X, A, dY)
    assert isinstance(got, tuple) and got[0].shape == X.shape and got[1].shape == A.shape
    for k in range(2):
        jac = central_jacobian(to_matrix, (X, A), k)
        assert_close(got[k], np.tensordot(dY, jac, axes=2))


def test_vjp_of_tuple_outputs_takes_a_tuple_of_cotangents(rng):
    x, y = rng.normal(size=3), rng.normal(size=3)
    d1, d2 = rng.normal(size=3), rng.normal(size=3)
    bx, by = srcad.vjp(two_outputs, wrt=(0, 1))(x, y, (d1, d2))
    assert_close(bx, d1 * y + d2 * np.cos(x), tol=1e-12)
    assert_close(by, d1 * x, tol=1e-12)
    single = srcad.vjp(two_outputs, wrt=1)(x, y, (d1, d2))
    assert_close(single, d1 * x, tol=1e-12)


# ---------------------------------------------------------------------------------------------
# jvp

def test_jvp_tangents_follow_the_arguments(rng):
    a, b, c = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
    da, dc = rng.normal(size=3), rng.normal(size=3)
    got = srcad.jvp(three_args, wrt=(0, 2))(a, b, c, da, dc)
    h = 1e-6
    want = (three_args(a + h * da, b, c + h * dc) - three_args(a - h * da, b, c - h * dc)) / (2 * h)
    assert abs(got - want) <= 1e-7 * max(1.0, abs(want))
    exact = np.sum(da * np.sin(b) + 2 * c * dc * b)
    assert abs(got - exact) <= 1e-12 * max(1.0, abs(exact))


def test_jvp_of_tuple_outputs(rng):
    x, y, dx = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
    out = srcad.jvp(two_outputs, wrt=0)(x, y, dx)
    assert isinstance(out, tuple) and len(out) == 2
    assert_close(out[0], dx * y, tol=1e-12)
    assert_close(out[1], dx * np.cos(x), tol=1e-12)


# ---------------------------------------------------------------------------------------------
# jacobian, hessian, hvp

@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_jacobian_shape_and_values(mode, rng):
    X, A = rng.normal(size=(2, 3)), rng.normal(size=(3, 4))
    jac = srcad.jacobian(to_matrix, wrt=0, mode=mode)(X, A)
    assert jac.shape == (2, 4) + (2, 3)
    assert_close(jac, central_jacobian(to_matrix, (X, A), 0))
    both = srcad.jacobian(to_matrix, wrt=(0, 1), mode=mode)(X, A)
    assert isinstance(both, tuple) and both[1].shape == (2, 4, 3, 4)
    assert_close(both[0], jac, tol=1e-12)
    assert_close(both[1], central_jacobian(to_matrix, (X, A), 1))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_jacobian_of_a_vector_function(mode, rng):
    x = rng.normal(size=4)
    jac = srcad.jacobian(elementwise, mode=mode)(x)
    assert_close(jac, np.diag(np.cos(x) * x + np.sin(x)), tol=1e-12)


def hand_hessian(x):
    p = np.exp(x) / np.sum(np.exp(x))
    return np.diag(p) - np.outer(p, p) + np.diag(6.0 * x)


def test_hessian_against_the_hand_derived_one(rng):
    x = rng.normal(size=4)
    hess = srcad.hessian(logsumexp_plus_cubes)(x)
    assert hess.shape == (4, 4)
    assert_close(hess, hand_hessian(x), tol=1e-12)


def test_hvp_against_the_hand_derived_hessian(rng):
    x, v = rng.normal(size=4), rng.normal(size=4)
    got = srcad.hvp(logsumexp_plus_cubes)(x, v)
    assert_close(got, hand_hessian(x) @ v, tol=1e-12)


def test_check_grads_accepts_correct_derivatives(rng):
    report = srcad.check_grads(three_args, (rng.normal(size=3), rng.normal(size=3),
                                            rng.normal(size=3)), wrt=(0, 1, 2))
    lhs, rhs = report["dot_product"]
    assert abs(lhs - rhs) <= 1e-10 * max(1.0, abs(lhs))


# ---------------------------------------------------------------------------------------------
# arguments: keywords, defaults, constants

def test_keyword_arguments_and_defaults_pass_through(rng):
    x = rng.normal(size=3)
    df = srcad.grad(with_defaults)
    assert_close(df(x), 2 * x * 2.0 ** 2, tol=1e-12)                      # scale=2, power=2
    assert_close(df(x, 3.0), 2 * x * 3.0 ** 2, tol=1e-12)                 # positional scale
    assert_close(df(x, scale=0.5, power=3), 3 * x ** 2 * 0.5 ** 3, tol=1e-12)
    assert_close(df(x=x, power=3), 3 * x ** 2 * 2.0 ** 3, tol=1e-12)      # everything by name
    gx, gs = srcad.grad(with_defaults, wrt=(0, 1))(x, scale=3.0)
    assert_close(gs, 2 * 3.0 * np.sum(x ** 2), tol=1e-12)
    assert_close(srcad.grad(with_defaults, wrt=1)(x), 2 * 2.0 * np.sum(x ** 2), tol=1e-12)
    value, _ = srcad.value_and_grad(with_defaults)(x, power=4)
    assert abs(value - with_defaults(x, power=4)) <= 1e-12


def test_keyword_arguments_reach_vjp_jvp_and_jacobian(rng):
    x, d = rng.normal(size=3), rng.normal(size=3)
    exact = 3 * x ** 2 * 0.5 ** 3
    assert_close(srcad.vjp(with_defaults)(x, 1.0, scale=0.5, power=3), exact, tol=1e-12)
    assert abs(srcad.jvp(with_defaults)(x, d, scale=0.5, power=3) - exact @ d) <= 1e-12
    assert_close(srcad.jacobian(with_defaults, mode="forward")(x, scale=0.5, power=3), exact,
                 tol=1e-12)
    assert_close(srcad.jacobian(with_defaults)(x, scale=0.5, power=3), exact, tol=1e-12)


@pytest.mark.parametrize("flag", [True, False])
def test_non_differentiated_arguments(flag, rng):
    x, A = rng.normal(size=3), rng.normal(size=(4, 3))
    args = (x, 3, "a label", flag, A)
    got = srcad.grad(with_constants)(*args)
    y = A @ x
    s = 1.0 if flag else -1.0
    assert_close(got, A.T @ (3 * (s * y) ** 2 * s), tol=1e-12)
    assert_close(got, fd_grad(with_constants, args, 0))
    # the constant array may itself be differentiated when asked for
    gA = srcad.grad(with_constants, wrt=4)(*args)
    assert gA.shape == A.shape
    assert_close(gA, fd_grad(with_constants, args, 4))


def test_gradient_of_a_python_float_is_a_float_or_0d():
    for df in (srcad.grad(scalar_square), lambda x: srcad.value_and_grad(scalar_square)(x)[1]):
        g = df(3.0)
        assert isinstance(g, float) or (isinstance(g, np.ndarray) and g.shape == ()), type(g)
        assert g == 6.0
    g = srcad.grad(broadcast_sum, wrt=2)(np.ones((2, 1)), np.ones((1, 3)), 0.5, 2.0)
    assert isinstance(g, float) or (isinstance(g, np.ndarray) and g.shape == ()), type(g)


def test_gradient_shapes_equal_argument_shapes(rng):
    args = (rng.normal(size=(4, 1)), rng.normal(size=(1, 3)), 0.25, rng.normal(size=(3,)))
    grads = srcad.grad(broadcast_sum, wrt=(0, 1, 2, 3))(*args)
    for k, (g, arg) in enumerate(zip(grads, args)):
        assert np.shape(g) == np.shape(arg), (k, np.shape(g), np.shape(arg))
        assert np.issubdtype(np.asarray(g).dtype, np.floating)
        assert_close(g, fd_grad(broadcast_sum, args, k))


def test_gradient_of_an_integer_array_has_a_float_dtype():
    g = srcad.grad(bowl)(np.arange(3))
    assert np.issubdtype(g.dtype, np.floating) and g.shape == (3,)
    assert_close(g, [0.0, 2.0, 4.0], tol=0)


# ---------------------------------------------------------------------------------------------
# generated source: deterministic

def test_source_is_byte_identical_on_repeated_builds():
    first = srcad.pipeline.build(broadcast_sum, "reverse", (0, 1, 2), "grad").source
    second = srcad.pipeline.build(broadcast_sum, "reverse", (0, 1, 2), "grad").source
    assert first == second
    assert srcad.source(broadcast_sum, wrt=(0, 1, 2)) == first
    fwd = srcad.pipeline.build(broadcast_sum, "forward", (0, 1), "jvp").source
    assert fwd == srcad.pipeline.build(broadcast_sum, "forward", (0, 1), "jvp").source


def test_source_is_byte_identical_across_processes():
    """Different hash seeds change set and dict-of-set orders: the source must not depend on
    them."""
    script = ("import sys, srcad, golden_functions as g\n"
              "sys.stdout.write(srcad.source(g.batchnorm) + srcad.source(g.mlp_layer_loss, "
              "wrt=(0, 1, 2)) + srcad.source(g.softmax_like, mode='forward'))\n")
    outputs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        done = subprocess.run([sys.executable, "-c", script], cwd=HERE, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    import golden_functions as g
    assert outputs[0].startswith(srcad.source(g.batchnorm))


# ---------------------------------------------------------------------------------------------
# caching

class _Calls(list):
    pass


@pytest.fixture
def count_builds(monkeypatch):
    """Count compiler runs (the cache calls pipeline.build; it may hold its own reference)."""
    calls = _Calls()
    calls.specialized = []  # builds specialized to the shapes of a call's arguments
    calls.outlines = []  # partial builds: up to the passes that can refuse a function
    original = srcad.pipeline.build

    def counting(*args, **kwargs):
        (calls.outlines if kwargs.get("stage") == "outline" else calls
         if kwargs.get("example") is None else calls.specialized).append(args)
        return original(*args, **kwargs)
    monkeypatch.setattr(srcad.pipeline, "build", counting)
    if getattr(srcad.api.cache, "build", None) is original:
        monkeypatch.setattr(srcad.api.cache, "build", counting)
    return calls


def test_building_twice_costs_one_build(make_module, count_builds, monkeypatch):
    monkeypatch.setenv("SRCAD_VERIFY", "0")  # (verify mode builds the reference code too)
    module = make_module("""
        import numpy as np
        def f(x):
            return np.sum(np.cos(x) * x)
    """)
    x = np.array([0.1, 0.2])
    first = srcad.grad(module.f)
    # checked (what cannot be differentiated is refused now), not built: calls specialize
    assert (len(count_builds.outlines), len(count_builds)) == (1, 0)
    assert srcad.grad(module.f) is first
    srcad.grad(module.f)(x)
    assert len(count_builds.specialized) == 1  # the first call specializes to x's shape
    srcad.grad(module.f)(x + 1.0)
    assert len(count_builds.specialized) == 1  # same shapes: no new build
    srcad.grad(module.f)(np.ones(5))
    assert len(count_builds.specialized) == 2  # new shapes: one more
    assert len(count_builds) == 0
    srcad.source(module.f)  # the generic code, built on first use, once
    first.source
    assert (len(count_builds.outlines), len(count_builds)) == (1, 1)
    srcad.value_and_grad(module.f)  # another kind: a separate derivative
    assert len(count_builds.outlines) == 2
    srcad.value_and_grad(module.f)
    srcad.grad(module.f, wrt=0)
    assert len(count_builds.outlines) == 2
    srcad.grad(module.f, wrt=(0,))  # a different wrt is a different derivative
    assert (len(count_builds.outlines), len(count_builds)) == (3, 1)


def test_redefining_a_function_rebuilds(make_module, count_builds, monkeypatch):
    monkeypatch.setenv("SRCAD_VERIFY", "0")  # (verify mode builds the reference code too)
    module = make_module("""
        import numpy as np
        def f(x):
            return np.sum(x ** 2)
    """, name=f"srcad_api_redefine_{os.getpid()}")
    x = np.array([1.0, 2.0])
    assert_close(srcad.grad(module.f)(x), 2 * x, tol=0)
    path = module.__file__
    with open(path, "w") as handle:
        handle.write("import numpy as np\n\n\n"
                     "def f(x):\n"
                     "    return np.sum(np.sin(x) * 10.0)  # redefined\n")
    importlib.reload(module)
    assert_close(srcad.grad(module.f)(x), 10.0 * np.cos(x), tol=1e-12)
    assert "np.cos" in srcad.source(module.f)
    assert len(count_builds.outlines) == 2 and len(count_builds.specialized) == 2
    assert len(count_builds) == 1  # the generic code, for the source of the second f


def test_generated_code_is_compiled_from_a_file_in_the_cache_dir(make_module, tmp_path,
                                                                 monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(cache))
    module = make_module("""
        import numpy as np
        def f(x):
            return np.sum(np.exp(x))
    """)
    df = srcad.grad(module.f)
    filename = df.__wrapped__.__code__.co_filename
    assert os.path.dirname(filename) == str(cache)
    with open(filename) as handle:
        assert handle.read() == srcad.source(module.f)


def test_a_configured_cache_dir_saves_the_build_in_a_new_process(tmp_path):
    module = tmp_path / "disk_cached_case.py"
    module.write_text("import numpy as np\n\n\ndef f(x):\n    return np.sum(np.tanh(x))\n")
    script = textwrap.dedent("""
        import numpy as np, srcad, srcad.api.cache, srcad.pipeline, disk_cached_case as m
        calls = []
        original = srcad.pipeline.build
        def counting(*args, **kwargs):
            calls.append(1)
            return original(*args, **kwargs)
        srcad.pipeline.build = counting
        srcad.api.cache.build = counting
        srcad.grad(m.f)(np.ones(2))
        print(len(calls))
    """)
    env = dict(os.environ, SRCAD_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1")
    counts = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        counts.append(int(done.stdout.split()[-1]))
    assert counts[0] > 0 and counts[1] == 0  # (generic + shape-specialized) builds, then none


# ---------------------------------------------------------------------------------------------
# user globals and closures are read live

def test_user_globals_are_read_live():
    global WEIGHTS
    x = np.array([1.0, -1.0, 2.0])
    df = srcad.grad(weighted)
    saved = WEIGHTS
    try:
        assert_close(df(x), 2 * WEIGHTS * x, tol=0)
        WEIGHTS = np.array([-5.0, 0.5, 7.0])
        assert_close(df(x), 2 * np.array([-5.0, 0.5, 7.0]) * x, tol=0)
        assert_close(srcad.grad(weighted)(x), 2 * np.array([-5.0, 0.5, 7.0]) * x, tol=0)
        assert_close(srcad.hvp(weighted)(x, np.ones(3)), 2 * WEIGHTS, tol=0)
    finally:
        WEIGHTS = saved
    assert_close(df(x), 2 * saved * x, tol=0)


def test_closures_over_local_variables(rng):
    a1, a2, x = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
    f1, f2 = make_closure(a1), make_closure(a2)
    assert_close(srcad.grad(f1)(x), 2 * a1 * x, tol=1e-12)
    assert_close(srcad.grad(f2)(x), 2 * a2 * x, tol=1e-12)
    assert_close(srcad.hessian(f2)(x), np.diag(2 * a2), tol=1e-12)


def test_closure_cells_are_read_live():
    inner, rebind = make_rebindable_closure()
    df = srcad.grad(inner)
    x = np.array([3.0, 4.0])
    assert_close(df(x), [1.0, 1.0], tol=0)
    rebind(np.array([2.0, -3.0]))
    assert_close(df(x), [2.0, -3.0], tol=0)


# ---------------------------------------------------------------------------------------------
# source(stage=...) and other callables

def test_source_at_every_stage_is_text():
    for stage in srcad.pipeline.STAGES[:-1]:
        text = srcad.source(worked_example, stage=stage)
        assert isinstance(text, str) and "def " in text, stage
    assert "t1 = np.log(x1)" in srcad.source(worked_example, stage="anf")


def test_source_at_the_emit_stage_is_the_module():
    assert srcad.source(worked_example, stage="emit") == srcad.source(worked_example)


class Model:
    def __init__(self, scale):
        self.scale = scale

    def loss(self, x):
        return np.sum(x ** 2) * 3.0

    @staticmethod
    def static_loss(x):
        return np.sum(x ** 2)


def test_static_method():
    x = np.array([1.0, 2.0])
    assert_close(srcad.grad(Model.static_loss)(x), 2 * x, tol=0)


def test_bound_method_takes_the_same_arguments():
    x = np.array([1.0, 2.0])
    assert_close(srcad.grad(Model(2.0).loss)(x), 6 * x, tol=0)
