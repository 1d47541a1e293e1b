"""Random differentiable NumPy programs, deterministic per seed.

generate(seed) returns a Program: a module with `def f(...)` (and the helpers it calls), its
parameters, the sizes of two calls (the second with other shapes, for shape-polymorphic code),
and the seed of its argument values. It

1. picks the sizes of the two calls (n, m, and a loop count k: 2-8, or 20-40 for loops srcad
   keeps as loops) and f's parameters (Python floats, 0-d arrays, arrays of shapes (n,), (m, n),
   (1, n), (n, 1), (3,), ..., some positive; the size parameters; sometimes a list or a dict
   whose appends and counts a derivative must repeat exactly as f does);
2. adds statement groups from stmts.FAMILIES one at a time, running the instrumented program so
   far (guards.py) on both calls after each: a group that raises, leaves the safe region of a
   kink or gives non-finite values is dropped and another one tried, so every program runs;
3. ends with a return: a scalar (most programs: every mode applies), an array, or a tuple;
4. runs the whole module once more on both calls: output finite and of the promised kind, the
   arguments unchanged, the same result twice.
It raises Discard when it cannot make a valid program from this seed (rare; try the next seed).
"""
import random

import numpy as np

from . import stmts
from .guards import GuardViolation, instrumented_code, namespace
from .program import NEW_VALUES, Param, Program
from .scope import Scope, Var

SHAPES_1D = [("n",), ("m",), ("n",), (3,)]
SHAPES_2D = [("m", "n"), ("n", "m"), (1, "n"), ("n", 1), ("m", 1), (2, 3), ("n", "n")]
VECTOR_NAMES = ["x", "y", "z", "u"]
MATRIX_NAMES = ["A", "B", "W"]
SCALAR_NAMES = ["s", "r"]


class Discard(Exception):
    """No valid program from this seed."""


def choose_sizes(rng):
    """The sizes of the two calls: n, m and k differ between them (n != m within a call)."""
    long_loop = rng.random() < 0.3
    n1 = rng.randint(3, 5)
    m1 = rng.choice([v for v in range(2, 5) if v != n1])
    n2 = rng.choice([v for v in range(3, 7) if v != n1])
    m2 = rng.choice([v for v in range(2, 6) if v not in (m1, n2)])
    if long_loop:
        k1 = rng.randint(20, 40)
        k2 = rng.choice([v for v in range(20, 41) if v != k1])
    else:
        k1 = rng.randint(2, 6)
        k2 = rng.choice([v for v in range(2, 9) if v != k1])
    return ({"n": n1, "m": m1, "k": k1}, {"n": n2, "m": m2, "k": k2}), long_loop


def choose_params(rng):
    params = []
    count = rng.choice([1, 2, 2, 3, 3, 4])
    vectors, matrices, scalars = list(VECTOR_NAMES), list(MATRIX_NAMES), list(SCALAR_NAMES)
    for _ in range(count):
        kind = rng.choices(["vector", "matrix", "float", "zero_d"], weights=[5, 3, 1.5, 0.7])[0]
        positive = rng.random() < 0.2
        if kind == "vector" and vectors:
            params.append(Param(vectors.pop(0), "array", rng.choice(SHAPES_1D), positive))
        elif kind == "matrix" and matrices:
            params.append(Param(matrices.pop(0), "array", rng.choice(SHAPES_2D), positive))
        elif scalars:
            name = scalars.pop(0)
            params.append(Param(name, "float" if kind == "float" else "array", (), positive))
    if not any(p.shape for p in params):  # at least one array
        params.insert(0, Param("x", "array", ("n",)))
    if rng.random() < 0.2 and any(p.shape == ("n",) for p in params):
        params.append(Param("keep", "mask", ("n",)))  # (read by stmts.argument_mask only)
    return params


def _run(source, args_by_call, names, want_output=False):
    """Run the instrumented source on each call's arguments: the namespaces (or outputs)."""
    code = instrumented_code(source)
    out = []
    for args in args_by_call:
        ns = namespace()
        ns.update(zip(names, args))
        with np.errstate(all="raise", under="ignore"):
            exec(code, ns)  # noqa: S102 - generated code
        out.append(ns)
    return out


def _finite(ns, names):
    for name in names:
        value = ns.get(name)
        if isinstance(value, (float, np.floating, np.ndarray)) and not isinstance(value, bool):
            array = np.asarray(value)
            if array.dtype.kind == "f" and (not np.all(np.isfinite(array))
                                            or np.max(np.abs(array), initial=0) > 1e6):
                return False
    return True


class _Builder:
    """The state of one generation: the scope, the lines of f so far, the calls' arguments."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.seed = seed
        self.sizes, long_loop = choose_sizes(self.rng)
        self.data = choose_params(self.rng)
        self.side = []
        if self.rng.random() < 0.08:
            self.side.append(Param("log", "list"))
        if self.rng.random() < 0.04:
            self.side.append(Param("counter", "dict"))
        self.sizes_params = [Param(d, "int", dim=d) for d in ("n", "m", "k")]
        self.value_seed = self.rng.randrange(2 ** 31)
        full = Program("", tuple(self.data + self.sizes_params + self.side), self.sizes,
                       self.value_seed)
        self.names = [p.name for p in full.params]
        self.args = [full.arguments(0), full.arguments(1)]
        self.scope = Scope(self.rng, list(self.sizes), params=frozenset(self.names),
                           side_effects=tuple(p.name for p in self.side),
                           has_k=self.rng.random() < 0.5, long_loop=long_loop)
        for p in self.data:
            if p.kind != "mask":  # (a mask is no operand of arithmetic: argument_mask reads it)
                self.scope.add(Var(p.name, p.shape, py=p.kind == "float",
                                   positive=p.positive))
        self.scope.values = _run("", self.args, self.names)
        self.lines = []

    def helpers_text(self):
        return "\n\n\n".join(h.text for h in self.scope.helpers)

    def try_group(self, family):
        """Add one statement group from family if the program still runs well with it."""
        scope = self.scope
        saved = (None, {k: Var(**vars(v)) for k, v in scope.vars.items()},
                 len(scope.helpers), set(scope.tags))
        try:
            group = family(scope)
        except (IndexError, ValueError, KeyError, TypeError, AttributeError):
            group = None  # a family that found nothing to work on
        if group:
            text = self.helpers_text() + "\n" + "\n".join(self.lines + group)
            try:
                namespaces = _run(text, self.args, self.names)
                if all(_finite(ns, scope.vars) for ns in namespaces):
                    self.lines += group
                    scope.values = namespaces
                    return True
            except (GuardViolation, ArithmeticError, ValueError, IndexError, TypeError,
                    FloatingPointError, KeyError, NameError, AttributeError, RecursionError,
                    UnboundLocalError, ZeroDivisionError):
                pass
        scope.vars = saved[1]
        del scope.helpers[saved[2]:]
        scope.tags.clear()
        scope.tags.update(saved[3])
        return False

    def return_line(self, output):
        """f's return: a scalar made of the variables nothing reads yet (so that every
        computation matters) and the latest ones, an array, or a tuple of both."""
        scope = self.scope
        defined = [v for v in scope.vars.values() if v.name not in scope.params]
        unread = [v for v in defined if _count(self.lines, v.name) <= 1]
        chosen = (unread[-3:] + [v for v in defined[-2:] if v not in unread[-3:]])[:4]
        if not chosen:
            chosen = self.rng.sample(list(scope.vars.values()), 1)
        parts = []
        for v in chosen:
            if not v.shape:
                parts.append(v.name)
            else:
                parts.append(self.rng.choice([f"np.sum({v.name})", f"np.mean({v.name} ** 2)",
                                              f"np.sum(np.sin({v.name}))", f"{v.name}.sum()"]))
        scalar = " + ".join(parts) if self.rng.random() < 0.75 else \
            " * ".join(parts[:2]) + "".join(" + " + p for p in parts[2:])
        if output == "scalar":
            return f"return {scalar}"
        arrays = [v for v in reversed(chosen) if v.shape] or \
            [v for v in reversed(list(scope.vars.values())) if v.shape]
        array = f"{arrays[0].name} * ({scalar})"
        if output == "array":
            return f"return {array}"
        return f"return {scalar}, {array}"

    def module(self, body_lines, return_line):
        params = [p for p in self.data] + [p for p in self.sizes_params
                                           if _uses(body_lines + [return_line], p.name)]
        params += self.side
        signature = ", ".join(p.name for p in params)
        helpers = "\n\n\n".join(h.text for h in self.scope.helpers if not h.nested)
        nested = [line for h in self.scope.helpers if h.nested for line in h.text.split("\n")]
        text = "import numpy as np\n\n\n" + (helpers + "\n\n\n" if helpers else "")
        text += f"def f({signature}):\n" + "\n".join(stmts.indent(nested + body_lines
                                                                  + [return_line]))
        if "srcad." in text:  # (a loop marked srcad.checkpoint)
            text = "import srcad\n" + text
        if "scipy.linalg." in text:  # (stmts.linalg's scipy forms)
            text = "import scipy.linalg\n" + text
        return text + "\n", tuple(params)


def _count(lines, name):
    import re
    pattern = re.compile(rf"(?<![\w.]){name}(?!\w)")
    return sum(len(pattern.findall(line)) for line in lines)


def _uses(lines, name):
    import re
    pattern = re.compile(rf"(?<![\w.\"']){name}(?![\w\"'])")
    return any(pattern.search(line) for line in lines)


def generate(seed, max_groups=None):
    """A valid random program from this seed (see the module docstring); raises Discard."""
    b = _Builder(seed)
    rng = b.rng
    groups = max_groups or rng.randint(2, 8)
    for _ in range(groups):
        for _attempt in range(4):
            family = b.scope.weighted(stmts.FAMILIES)
            if b.try_group(family):
                break
    output = rng.choices(["scalar", "array", "tuple"], weights=[72, 18, 10])[0]
    ret = b.return_line(output)
    lines = list(b.lines)
    if output == "scalar" and rng.random() < 0.08:
        final = ret[len("return "):]
        for _attempt in range(3):
            early = stmts.early_return(b.scope, final if len(final) < 60 else "0.0")
            if early and _valid(b, lines + early, ret, output):
                lines += early
                break
    source, params = b.module(lines, ret)
    program = Program(source, params, b.sizes, b.value_seed, output,
                      frozenset(b.scope.tags), seed=seed)
    problem = validate(program)
    if problem:
        raise Discard(problem)
    return program


def _valid(b, lines, ret, output):
    source, params = b.module(lines, ret)
    return validate(Program(source, params, b.sizes, b.value_seed, output)) is None


def validate(program):
    """None if the program runs well on every call (see the module docstring), else why not."""
    names = [p.name for p in program.params]
    calls = list(range(len(program.sizes))) + [NEW_VALUES]
    try:
        outputs = []
        for call in calls:
            args = program.arguments(call)
            before = _copy(args)
            ns = namespace()
            with np.errstate(all="raise", under="ignore"):
                exec(instrumented_code(program.source), ns)  # noqa: S102
                out = ns["f"](*args)
                again = ns["f"](*program.arguments(call))
            if not _same_args(before, args):
                return "f changes its arguments"
            if not _same(out, again):
                return "f is not deterministic"
            if not _kind_ok(out, program.output):
                return f"f returns {type(out).__name__}, not a {program.output}"
            outputs.append(out)
    except GuardViolation as exc:
        return f"near a non-differentiable point: {exc}"
    except Exception as exc:  # noqa: BLE001 - any failure of the primal discards the program
        return f"f raises {type(exc).__name__}: {exc}"
    return None


def _flat(value):
    if isinstance(value, tuple):
        return np.concatenate([_flat(v) for v in value]) if value else np.zeros(0)
    return np.ravel(np.asarray(value, dtype=float))


def _kind_ok(out, output):
    parts = out if isinstance(out, tuple) else (out,)
    for part in parts:
        if isinstance(part, (bool, int, str)) or part is None:
            return False
        array = np.asarray(part)
        if array.dtype.kind != "f" or not np.all(np.isfinite(array)) or \
                np.max(np.abs(array), initial=0) > 1e6:
            return False
    if output == "scalar":
        return not isinstance(out, tuple) and np.size(out) == 1
    if output == "array":
        return isinstance(out, np.ndarray) and out.ndim >= 1
    return isinstance(out, tuple)


def _copy(args):
    return [a.copy() if isinstance(a, (np.ndarray, list, dict)) else a for a in args]


def _same_args(before, after):
    for a, b in zip(before, after):
        if isinstance(a, np.ndarray):
            if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
                return False
        elif isinstance(a, float) and (type(a) is not type(b) or a != b):
            return False
    return True


def _same(a, b):
    return np.array_equal(_flat(a), _flat(b))
