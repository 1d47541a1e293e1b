"""Spec rows: one or more per registered operation, checked in both modes.

A row names the op it covers, an expression that calls it, and how to draw each argument:

    Spec(np.sum, "np.sum(x, axis=1, keepdims=True)", x=Arr((3, 4)))
    Spec(operator.truediv, "x / y", x=Arr((1, 3)), y=Arr((4, 3), low=0.5, high=2.0))
    Spec(np.clip, "np.clip(x, -0.5, 0.5)", x=Arr((5,)))

The harness writes `def f(x, y): return <expr>` into a real module file (srcad reads source),
imports it, and runs srcad.check_grads: central differences in float64 for both modes and the
exact dot-product test <J v, w> == <v, J^T w> between them. Arguments marked const=True are
passed but not differentiated (ints, index arrays, masks, flags).
"""
import importlib.util
import itertools
import os
import tempfile

import numpy as np


class Arr:
    """How to draw one argument: shape None means a Python float; `values` fixes the value."""

    def __init__(self, shape=None, low=-2.0, high=2.0, const=False, values=None, dtype=float,
                 away_from=None):
        self.shape = shape
        self.low = low
        self.high = high
        self.const = const
        self.values = values
        self.dtype = dtype
        self.away_from = away_from  # keep draws at least 0.1 from these points (kinks)

    def draw(self, rng):
        if self.values is not None:
            return self.values
        if self.shape is None:
            value = float(rng.uniform(self.low, self.high))
        else:
            value = rng.uniform(self.low, self.high, self.shape).astype(self.dtype)
        if self.away_from is not None:
            for point in self.away_from:
                value = np.where(np.abs(np.asarray(value) - point) < 0.1,
                                 np.asarray(value) + 0.25, value)
            value = float(value) if self.shape is None else value
        return value


class Spec:
    """One checked call of one (or several aliased) registered ops."""

    def __init__(self, op, expr, order=1, modes=("forward", "reverse"), **args):
        self.ops = op if isinstance(op, (tuple, list)) else (op,)
        self.expr = expr
        self.args = args
        self.order = order
        self.modes = modes

    @property
    def id(self):
        shapes = ",".join(f"{k}{'' if a.shape is None else list(a.shape)}"
                          for k, a in self.args.items())
        return f"{self.expr} [{shapes}]"


_counter = itertools.count()
_DIR = tempfile.mkdtemp(prefix="srcad-specs-")


def make_function(spec, header="import math\nimport operator\n\nimport numpy as np\n"):
    """A real module function `f(<args>)` returning the spec's expression."""
    params = ", ".join(spec.args)
    text = f"{header}\n\ndef f({params}):\n    return {spec.expr}\n"
    name = f"spec_{next(_counter)}"
    path = os.path.join(_DIR, f"{name}.py")
    with open(path, "w") as handle:
        handle.write(text)
    loader_spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(loader_spec)
    loader_spec.loader.exec_module(module)
    return module.f


def run_spec(spec, seed=0):
    import srcad
    rng = np.random.default_rng(seed)
    func = make_function(spec)
    values = tuple(arg.draw(rng) for arg in spec.args.values())
    wrt = tuple(i for i, arg in enumerate(spec.args.values()) if not arg.const)
    report = srcad.check_grads(func, values, wrt=wrt, order=spec.order, modes=spec.modes)
    if "reverse" in spec.modes:
        check_gradient_of_weighted_sum(spec, func, values, wrt, rng)
    return report


def check_gradient_of_weighted_sum(spec, func, values, wrt, rng):
    """srcad.grad of sum(f(...) * w) against srcad.vjp of f with cotangent w (which check_grads
    has just checked): a gradient's code is its own (seeded with 1.0, shape-specialized, its
    adjoints known to be floats), and this runs it for every op. And the vjp specialized to
    the arguments' shapes (what calls run) against the generic vjp (no shape-specialized
    rewrites: what runs for other argument types), called directly."""
    import srcad
    out = func(*values)
    if not isinstance(out, (np.ndarray, float, np.floating)) or np.iscomplexobj(out):
        return  # tuples, ints, complex outputs: check_grads alone
    weight = rng.normal(size=np.shape(out))
    expr, newline, rest = spec.expr.partition("\n")  # (rows may append module code)
    weighted = make_function(Spec(spec.ops, f"np.sum(({expr}) * weight__){newline}{rest}",
                                  **spec.args, weight__=Arr(values=weight, const=True)))
    got = srcad.grad(weighted, wrt=wrt)(*values, weight)
    vjp = srcad.vjp(func, wrt=wrt)
    want = vjp(*values, weight)
    # the code for any shapes (no shape-specialized rewrites), called directly
    code = vjp.generated.__code__
    cotangent = code.co_varnames[code.co_argcount + code.co_kwonlyargcount - 1]
    generic = vjp.generated(*values, **{cotangent: weight})
    generic = (generic,) if len(wrt) == 1 else generic  # (the derivative object packs one)
    for position, g, v, u in zip(wrt, got, want, generic):
        g, v = np.asarray(g, dtype=float), np.asarray(v, dtype=float)
        u = np.asarray(u, dtype=float)
        scale = max(float(np.max(np.abs(v), initial=0.0)), 1.0)
        assert g.shape == v.shape and np.allclose(g, v, rtol=1e-9, atol=1e-12 * scale), (
            f"srcad.grad of sum(f * w) and srcad.vjp(f)(w) differ for argument {position}:\n"
            f"{g}\n{v}")
        assert u.shape == v.shape and np.allclose(u, v, rtol=1e-9, atol=1e-12 * scale), (
            f"the vjp specialized to these shapes and the generic one differ for argument "
            f"{position}:\n{v}\n{u}")


def all_specs():
    """Every SPECS list in tests/specs/spec_*.py."""
    here = os.path.dirname(__file__)
    specs = []
    for filename in sorted(os.listdir(here)):
        if filename.startswith("spec_") and filename.endswith(".py"):
            module = importlib.import_module(f"specs.{filename[:-3]}")
            specs.extend(module.SPECS)
    return specs
