"""A generated program and what is needed to run it: its module source, its parameters, the
sizes of each call and the seed of its argument values.

srcad reads a function's source with inspect, so each program is written to a real .py file
(a new file per load, in a temporary directory that lives as long as the process) and
imported from there. Argument values are drawn from the program's value seed and the call's
sizes, so a program is fully described by (source, params, sizes, value_seed, rounding).
"""
import atexit
import hashlib
import importlib.util
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field, replace

import numpy as np

from .scope import concrete

# the call with the first call's shapes and other values: a derivative specialized to shapes
# must not keep anything its first call's values decided (np.mean(x[x > 0]): the mask's size)
NEW_VALUES = 5
CALLS = (0, 1, NEW_VALUES)  # the calls a program is checked on, in order


@dataclass(frozen=True)
class Param:
    """A parameter of f. kind: "float" (a Python float), "array" (shape: symbolic dims; shape ()
    is a 0-d array), "int" (a size: dim names the size it carries), "list" (a list the program
    appends to), "dict" (a dict with a call counter) or "mask" (a bool array of its shape, at
    least one True; other calls' values keep another count of True: a shape the values
    decide)."""
    name: str
    kind: str
    shape: tuple = ()
    positive: bool = False
    dim: str = None

    @property
    def differentiable(self):
        return self.kind in ("float", "array")


@dataclass
class Program:
    source: str  # the module: imports, helpers, def f
    params: tuple  # Param
    sizes: tuple  # one dict per call: {"n": 3, "m": 2, "k": 4}
    value_seed: int
    output: str = "scalar"  # "scalar", "array" or "tuple"
    tags: frozenset = field(default_factory=frozenset)
    rounding: int = None  # argument values rounded to this many decimals (the shrinker's)
    seed: int = None  # the generator seed it came from

    def with_(self, **changes):
        return replace(self, **changes)

    @property
    def wrt(self):
        """Positions of the differentiable parameters."""
        return tuple(i for i, p in enumerate(self.params) if p.differentiable)

    def arguments(self, call=0, dtype=np.float64):
        """Fresh argument values for call `call` (new lists and dicts every time); call
        NEW_VALUES: the first call's sizes, other values."""
        sizes = self.sizes[0 if call == NEW_VALUES else call]
        rng = np.random.default_rng([self.value_seed, call])
        out = []
        for p in self.params:
            if p.kind == "int":
                out.append(int(sizes[p.dim]))
                continue
            if p.kind == "list":
                out.append([])
                continue
            if p.kind == "dict":
                out.append({"calls": 0})
                continue
            if p.kind == "mask":
                out.append(_mask(rng, concrete(p.shape, sizes), call))
                continue
            shape = concrete(p.shape, sizes) if p.kind == "array" else ()
            low, high = (0.5, 2.0) if p.positive else (-1.5, 1.5)
            values = rng.uniform(low, high, size=shape)
            if self.rounding is not None:
                values = np.round(values, self.rounding)
                if p.positive:
                    values = np.maximum(values, 0.5)
            if p.kind == "float":
                out.append(float(values))
            else:
                out.append(np.asarray(values, dtype=dtype))
        return tuple(out)


def _mask(rng, shape, call):
    """A bool array with at least one True entry, and (the call with other values) another
    count of them than the first call's, which the same random stream gives."""
    keep = rng.random(shape) < 0.6
    keep.flat[0] = True
    if call == NEW_VALUES:
        keep = ~keep
        keep.flat[-1] = True
    return keep


_DIRECTORY = None
_LOADED = []
_COUNT = 0


def directory():
    """The temporary directory the programs' modules are written to (removed at exit)."""
    global _DIRECTORY
    if _DIRECTORY is None:
        _DIRECTORY = tempfile.mkdtemp(prefix="srcad-fuzz-")
        atexit.register(shutil.rmtree, _DIRECTORY, True)
    return _DIRECTORY


def load(source):
    """Write source to a new module file and import it; returns the module. Every call makes a
    new module (new function objects): srcad keeps per-function state (its derivatives, verify
    mode's record of what it checked), and each check must start from nothing."""
    global _COUNT
    _COUNT += 1
    name = f"fz_{hashlib.sha1(source.encode()).hexdigest()[:12]}_{os.getpid()}_{_COUNT}"
    path = os.path.join(directory(), f"{name}.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    _LOADED.append(name)
    while len(_LOADED) > 200:  # modules of programs checked long ago
        sys.modules.pop(_LOADED.pop(0), None)
    return module


def literal(value):
    """Python source that rebuilds an argument value exactly."""
    if isinstance(value, np.ndarray):
        dtype = "" if value.dtype == np.float64 else f", dtype=np.{value.dtype.name}"
        return f"np.array({value.tolist()!r}{dtype})"
    return repr(value)


def arguments_text(program, call, dtype=np.float64):
    """`x = np.array([...])` lines for one call's arguments, and the tuple of their names."""
    args = program.arguments(call, dtype)
    lines = [f"{p.name} = {literal(a)}" for p, a in zip(program.params, args)]
    return lines, "(" + ", ".join(p.name for p in program.params) + ("," if len(args) == 1 else "") \
        + ")"
