"""jit: a specialized derivative compiled by numba (srcad.grad(f, jit="numba")).

The code srcad generates for given argument shapes is plain NumPy, often scalar loops
(the logistic map, an RK4 step on floats): numba compiles it as it is. Each specialized
function is compiled with the functions it calls (runtime helpers, callees' derivatives), each
given a namespace of its own where those are compiled too. numba compiles on the first call,
for the argument types of that call; code outside numba's subset (dicts, isinstance, objects)
raises a SrcadError then, naming the derivative and what numba said. numba is optional and
imported only here, when asked for.
"""
import dis
import types

from ..errors import SrcadError

JITS = (None, "numba")


def check_jit(jit):
    if jit not in JITS:
        raise SrcadError(f"jit must be None or 'numba', got {jit!r}")
    if jit == "numba":
        _numba()
    return jit


def _numba():
    try:
        import numba
    except ImportError:
        raise SrcadError("jit='numba' needs numba, which is not installed",
                         hint="pip install numba (or srcad[numba]), or leave jit out: the "
                              "generated NumPy code runs as it is") from None
    return numba


def _globals_read(code):
    """The global names code reads (co_names also holds attribute names: `x.real` must not
    reach a function named real of the module)."""
    return sorted({ins.argval for ins in dis.get_instructions(code)
                   if ins.opname == "LOAD_GLOBAL"})


def numba_compiled(function, name):
    """function (a generated derivative) compiled by numba with what it calls; the first call
    compiles it for its arguments' types, or raises a SrcadError saying why numba cannot."""
    numba = _numba()
    done = {}

    def compiled(fn, path):
        if fn in path:
            raise SrcadError(f"jit='numba' compiles derivatives without recursion; "
                             f"{name} calls {fn.__name__} recursively",
                             hint="leave jit out for this function")
        if fn not in done:
            namespace = dict(fn.__globals__)
            for global_name in _globals_read(fn.__code__):
                value = namespace.get(global_name)
                if isinstance(value, types.FunctionType):
                    namespace[global_name] = compiled(value, path | {fn})
            copy = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__,
                                      fn.__closure__)
            done[fn] = numba.njit(copy)
        return done[fn]

    fast = compiled(function, frozenset())

    def call(*args, **kwargs):
        try:
            return fast(*args, **kwargs)
        except numba.core.errors.NumbaError as exc:  # (typing, unsupported bytecode, ...)
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise SrcadError(f"numba cannot compile {name} for these arguments: {first}",
                             hint="leave jit out (the NumPy code runs as it is), or write the "
                                  "function with scalars, arrays and loops numba knows") from None
    call.__name__ = function.__name__
    call.__wrapped__ = function
    return call
