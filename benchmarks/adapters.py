"""Optional comparison frameworks: autograd (the `bench` extra), JAX eager and JAX jit (if jax is
installed), PyTorch eager (if torch is installed), tangent-ad (if `import tangent` works: the
PyPI package tangent-ad, a maintained fork of Google's Tangent), and srcad's own derivative
compiled by numba (srcad.grad(f, jit="numba"), if numba is installed). A framework that does not
import has no column; nothing else changes.

autograd and JAX take the *same* workload source text with `np` rebound to the framework's NumPy
wrapper (autograd.numpy, jax.numpy), so they differentiate exactly the functions srcad does.
tangent-ad, source to source like srcad, reads the same source text unchanged (plain NumPy) from
the temporary file the workloads are exec'd from.
PyTorch has no NumPy-compatible namespace: its workloads are written again in
benchmarks/torch_workloads.py, and a workload with none there has no torch column.
"""
import os
import time
import warnings

from workloads import fresh_functions


class Adapter:
    """name, and make(workload) -> a callable with the workload's calling convention that
    returns the gradient (a tuple when the workload's wrt is a tuple). compile_ms: workload name
    -> milliseconds of the first call, for the frameworks that compile on it (printed as a note
    and written to the JSON). compile_what: what compile_ms times, for the printed note."""

    def __init__(self, name, label, make, compile_ms=None,
                 compile_what="First call (trace and compile)"):
        self.name = name
        self.label = label
        self.make = make
        self.compile_ms = compile_ms
        self.compile_what = compile_what


def _static_positions(args):
    """Positions of the Python ints among args (step counts, loop bounds): static for jax.jit,
    whose traced values cannot be range() bounds."""
    return tuple(i for i, a in enumerate(args) if isinstance(a, int) and not isinstance(a, bool))


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


def _jax_jit():
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    namespace = fresh_functions()
    namespace["np"] = jnp
    compile_ms = {}

    def make(workload):
        """jax.jit(jax.grad(f)), the Python ints among the arguments static; the first call
        traces and compiles it (its time is printed and kept apart from the timed calls)."""
        g = jax.jit(jax.grad(namespace[workload.func_name], argnums=workload.wrt),
                    static_argnums=_static_positions(workload.args))

        def call(*args):
            return jax.block_until_ready(g(*args))
        return _compiled_by_first_call("jax.jit", workload, call, compile_ms)

    return Adapter("jax_jit", "jax.jit(jax.grad)", make, compile_ms)


def _torch():
    try:
        import torch
    except ImportError:
        return None
    import os

    import numpy as np

    import torch_workloads
    if os.environ.get("OMP_NUM_THREADS") == "1":
        torch.set_num_threads(1)  # as BLAS: one thread (environment.py)

    def make(workload):
        """The torch version of the workload (torch_workloads.py); NotImplementedError when
        there is none. Its arrays become float64 tensors once, here (torch.from_numpy shares
        their memory), the differentiated ones leaves with requires_grad: a torch user keeps
        parameters and data as tensors, so the timed call is the forward pass and
        torch.autograd.grad, not a conversion from NumPy. The call takes the workload's
        arguments for the harness's calling convention and computes on those tensors, which
        are the same values."""
        f = torch_workloads.FUNCTIONS.get(workload.func_name)
        if f is None:
            raise NotImplementedError(f"no torch version of {workload.func_name} "
                                      f"(benchmarks/torch_workloads.py)")
        many = isinstance(workload.wrt, tuple)
        wrt = workload.wrt if many else (workload.wrt,)
        tensors = []
        for i, a in enumerate(workload.args):
            if isinstance(a, np.ndarray) or (isinstance(a, float) and i in wrt):
                a = torch.from_numpy(np.asarray(a, dtype=np.float64))
                if i in wrt:
                    a.requires_grad_(True)
            tensors.append(a)
        params = [tensors[i] for i in wrt]

        def call(*args):
            grads = torch.autograd.grad(f(*tensors), params)
            return grads if many else grads[0]
        return call

    return Adapter("torch", "torch (eager, autograd.grad)", make)


def _tangent_ad():
    try:
        import tangent
    except ImportError:
        return None
    namespace = fresh_functions()  # np is NumPy: tangent-ad differentiates NumPy code itself
    compile_ms = {}

    def build(func, wrt):
        """tangent.grad(func, wrt=wrt) built from scratch: tangent's in-memory cache emptied and
        its on-disk cache of generated source (on by default, in ~/.cache/tangent-ad) off for
        the call, so that a build is a build and the user's cache is neither read nor written.
        Its generated code can raise SyntaxWarning when compiled ('is' with a literal):
        silenced, it is not the benchmark's to report."""
        tangent.clear_cache()
        saved = os.environ.get("TANGENT_DISK_CACHE")
        os.environ["TANGENT_DISK_CACHE"] = "0"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SyntaxWarning)
                return tangent.grad(func, wrt=wrt)
        finally:
            if saved is None:
                del os.environ["TANGENT_DISK_CACHE"]
            else:
                os.environ["TANGENT_DISK_CACHE"] = saved

    # tangent's first build in a process also loads what it builds with (~0.1 s): done once
    # here on a function of another namespace, so a workload's build time is that of building
    # one function in a running process, as srcad's cold builds are.
    try:
        build(fresh_functions()["rosenbrock"], (0,))
    except Exception:  # noqa: BLE001 - the workloads' own builds will report any failure
        pass

    def make(workload):
        """tangent.grad(f, wrt=...) of the workload's function (wrt always a tuple for
        tangent; with one position its gradient is that argument's, as srcad's with an int
        wrt). tangent builds the gradient (parse, differentiate, optimize, compile the
        generated source) in tangent.grad itself, not at the first call: that is timed here,
        once, apart from the timed calls, and printed. A function tangent cannot
        differentiate raises here or at the first call, which drops its column."""
        wrt = workload.wrt if isinstance(workload.wrt, tuple) else (workload.wrt,)
        started = time.perf_counter()
        g = build(namespace[workload.func_name], wrt)
        compile_ms[workload.name] = (time.perf_counter() - started) * 1e3
        print(f"  note: tangent-ad built {workload.name}'s gradient in "
              f"{compile_ms[workload.name]:.0f} ms")
        return g

    return Adapter("tangent_ad", "tangent-ad (tangent.grad)", make, compile_ms,
                   compile_what="Build (parse, differentiate, compile)")


def _srcad_numba():
    try:
        import numba  # noqa: F401  (only whether it is there)
    except ImportError:
        return None

    import srcad
    namespace = fresh_functions()
    compile_ms = {}

    def make(workload):
        """The gradient compiled by numba: the first call compiles it (its time is printed);
        a workload outside numba's subset raises SrcadError, which drops its column."""
        g = srcad.grad(namespace[workload.func_name], wrt=workload.wrt, jit="numba")
        return _compiled_by_first_call("numba", workload, g, compile_ms)

    return Adapter("numba", "srcad + numba (jit='numba')", make, compile_ms)


def _compiled_by_first_call(compiler, workload, call, compile_ms):
    """call, after a first call on the workload's arguments that compiles it: its time goes to
    compile_ms (printed, and kept apart from the timed calls)."""
    started = time.perf_counter()
    call(*workload.args)
    compile_ms[workload.name] = (time.perf_counter() - started) * 1e3
    print(f"  note: {compiler} compiled {workload.name}'s gradient in "
          f"{compile_ms[workload.name]:.0f} ms")
    return call


def available():
    """The adapters whose framework imports, and a dict framework -> status text."""
    adapters = []
    status = {}
    for name, factory in (("autograd", _autograd), ("jax", _jax), ("jax_jit", _jax_jit),
                          ("torch", _torch), ("tangent_ad", _tangent_ad),
                          ("numba", _srcad_numba)):
        adapter = factory()
        if adapter is None:
            status[name] = "not installed"
        else:
            adapters.append(adapter)
            status[name] = "used"
    return adapters, status
