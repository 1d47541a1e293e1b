"""Optional comparison frameworks: autograd (the `bench` extra), JAX (if installed), and
srcad's own derivative compiled by numba (srcad.grad(f, jit="numba"), if numba is installed).

Both take the *same* workload source text with `np` rebound to the framework's NumPy wrapper
(autograd.numpy, jax.numpy), so they differentiate exactly the functions srcad does. PyTorch has
no NumPy-compatible namespace, so it would need rewritten workloads; the suite only reports
whether it is installed.
"""
import importlib

from workloads import fresh_functions


class Adapter:
    """name, and make(workload) -> a callable with the workload's calling convention that
    returns the gradient (a tuple when the workload's wrt is a tuple)."""

    def __init__(self, name, label, make):
        self.name = name
        self.label = label
        self.make = make


def _autograd():
    try:
        import autograd
        import autograd.numpy as anp
    except ImportError:
        return None
    namespace = fresh_functions()
    namespace["np"] = anp  # the workload functions read np at call time

    def make(workload):
        f = namespace[workload.func_name]
        if isinstance(workload.wrt, int):
            return autograd.grad(f, workload.wrt)
        positions = workload.wrt

        def packed(params, *args):
            merged = list(args)
            for position, value in zip(positions, params):
                merged[position] = value
            return f(*merged)

        grad_packed = autograd.grad(packed, 0)

        def call(*args):
            return tuple(grad_packed(tuple(args[p] for p in positions), *args))
        return call

    return Adapter("autograd", "autograd", make)


def _jax():
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    namespace = fresh_functions()
    namespace["np"] = jnp

    def make(workload):
        g = jax.grad(namespace[workload.func_name], argnums=workload.wrt)

        def call(*args):
            return jax.block_until_ready(g(*args))
        return call

    return Adapter("jax", "jax (eager, no jit)", make)


def _srcad_numba():
    try:
        import numba  # noqa: F401  (only whether it is there)
    except ImportError:
        return None
    import time

    import srcad
    namespace = fresh_functions()
    compile_ms = {}

    def make(workload):
        """The gradient compiled by numba: the first call compiles it (its time is printed);
        a workload outside numba's subset raises SrcadError, which drops its column."""
        g = srcad.grad(namespace[workload.func_name], wrt=workload.wrt, jit="numba")
        started = time.perf_counter()
        g(*workload.args)
        compile_ms[workload.name] = (time.perf_counter() - started) * 1e3
        print(f"  note: numba compiled {workload.name}'s gradient in "
              f"{compile_ms[workload.name]:.0f} ms")
        return g

    return Adapter("numba", "srcad + numba (jit='numba')", make)


def available():
    """The adapters whose framework imports, and a dict framework -> status text."""
    adapters = []
    status = {}
    for name, factory in (("autograd", _autograd), ("jax", _jax), ("numba", _srcad_numba)):
        adapter = factory()
        if adapter is None:
            status[name] = "not installed"
        else:
            adapters.append(adapter)
            status[name] = "used"
    try:
        importlib.import_module("torch")
        status["torch"] = "installed, no adapter (workloads are NumPy code)"
    except ImportError:
        status["torch"] = "not installed"
    return adapters, status
