"""A helper redefined after a derivative was built (mod.helper = new, a notebook cell run
again): the generated code read the new helper's values but kept the old helper's derivative
for the shapes already seen. A redefined callee is noticed on the next call (cache.Stale) and
every derivative is built again."""
import importlib.util
import sys
import textwrap

import numpy as np
import pytest

import srcad

X = np.array([0.5, -1.0, 2.0])
V = np.array([0.3, 0.2, -0.1])


@pytest.fixture
def load(tmp_path):
    def load(name, text):
        path = tmp_path / f"{name}.py"
        path.write_text(textwrap.dedent(text))
        spec = importlib.util.spec_from_file_location(name, str(path))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    return load


def test_a_redefined_global_helper(load):
    caller = load("srcad_redef_caller", """
        import numpy as np

        def helper(x):
            return x * x * 2.0

        def f(x):
            return np.sum(helper(x))
    """)
    newer = load("srcad_redef_newer", """
        def helper(x):
            return x * x * 3.0
    """)
    gradient, product, tangent = srcad.grad(caller.f), srcad.hvp(caller.f), srcad.jvp(caller.f)
    for _ in range(2):  # (the second call takes the fast path)
        np.testing.assert_allclose(gradient(X), 4.0 * X)
        np.testing.assert_allclose(product(X, V), 4.0 * V)
        np.testing.assert_allclose(tangent(X, V), 4.0 * X @ V)
    caller.helper = newer.helper
    for _ in range(2):
        np.testing.assert_allclose(gradient(X), 6.0 * X)
        np.testing.assert_allclose(srcad.value_and_grad(caller.f)(X)[1], 6.0 * X)
        np.testing.assert_allclose(product(X, V), 6.0 * V)
        np.testing.assert_allclose(tangent(X, V), 6.0 * X @ V)


def test_a_redefined_helper_of_another_module(load):
    library = load("srcad_redef_library", """
        def helper(x):
            return x * x * 2.0
    """)
    sys.modules["srcad_redef_library"] = library
    caller = load("srcad_redef_caller2", """
        import numpy as np
        import srcad_redef_library as lib

        def f(x):
            return np.sum(lib.helper(x))
    """)
    newer = load("srcad_redef_newer2", """
        def helper(x):
            return x * x * 5.0
    """)
    gradient = srcad.grad(caller.f)
    for _ in range(2):
        np.testing.assert_allclose(gradient(X), 4.0 * X)
    library.helper = newer.helper
    for _ in range(2):
        np.testing.assert_allclose(gradient(X), 10.0 * X)


def test_a_helper_redefined_between_grad_and_the_first_call(load):
    """srcad.grad(f) keeps what the frontend made of f (parsed, helpers written in) for the
    first call's build; a helper redefined in between is noticed and f is read again."""
    caller = load("srcad_redef_before_call", """
        import numpy as np

        def helper(x):
            return x * x * 2.0

        def f(x):
            return np.sum(helper(x)) + np.sum(np.sin(x))
    """)
    newer = load("srcad_redef_before_call_new", """
        def helper(x):
            return x * x * x
    """)
    grad = srcad.grad(caller.f)
    caller.helper = newer.helper
    np.testing.assert_allclose(grad(X), 3 * X ** 2 + np.cos(X), rtol=1e-12)
    np.testing.assert_allclose(srcad.jvp(caller.f)(X, V), np.dot(3 * X ** 2 + np.cos(X), V),
                               rtol=1e-12)


def test_the_kept_frontend_gives_the_code_a_fresh_build_gives(load):
    """The specialized code built after srcad.grad(f)'s outline (from a copy of its frontend's
    work) is the code built without it, byte for byte."""
    text = """
        import numpy as np

        def helper(x):
            return np.tanh(x) * 2.0

        def f(x, w):
            s = 0.0
            for i in range(3):
                s = s + np.sum(helper(x * w[i]))
            return s
    """
    first = load("srcad_front_kept_a", text)
    second = load("srcad_front_kept_b", text)
    w = np.array([0.5, 1.0, 1.5])
    srcad.grad(first.f)(X, w)  # the outline, then the build from its kept frontend
    kept = srcad.source(first.f, mode="reverse", args=(X, w))
    fresh = srcad.source(second.f, mode="reverse", args=(X, w))
    assert kept.replace("srcad_front_kept_a", "M") == fresh.replace("srcad_front_kept_b", "M")
