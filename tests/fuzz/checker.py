"""Run one program through every derivative srcad makes and compare each with an oracle.

Modes (each on the first call's arguments, then on the second call's, whose shapes differ, then
on the first call's again, which must give the same bits):

    grad            srcad.grad(f, wrt=i)            <g, v> against central differences of f
    grad_tuple      srcad.grad(f, wrt=(all))        the same, every argument at once
    value_and_grad  srcad.value_and_grad(f, wrt)    the value is f's own (type, shape, bits)
    vjp             srcad.vjp(f, wrt=(all))         <v, J^T w> against <w, central differences>
    jvp             srcad.jvp(f, wrt=(all))         J v against central differences (vector)
    dot             <J v, w> == <v, J^T w>          jvp against vjp, relative 1e-9 (of |J v| |w|
                                                    and |v| |J^T w|; 1e-12 |v| |w| absolute), no
                                                    step
    hvp             srcad.hvp(f, wrt=i)             H v against central differences of grad
    hvp_reverse     srcad.vjp(srcad.grad(f))        the same, reverse over reverse: srcad
                                                    differentiating its own generated gradient
    jacobian_forward, jacobian_reverse
                    srcad.jacobian(f, wrt, mode)    J v against central differences (one sweep
                                                    on a stack of basis vectors, which verify
                                                    mode compares with a sweep per vector);
                                                    float arrays in and out only
    float32         grad (or vjp) of float32 arguments: float32 gradients (where f's output is
                    float32), close to the float64 gradient at the same point
    unoptimized     one of the above with disable="all" (every optimization pass off)

grad, value_and_grad and hvp need a scalar output; vector programs run vjp, jvp and dot. Every
derivative is built with verify=True (srcad's verify mode: each new specialization is compared
with the unoptimized derivative on its first call) where srcad has it, and SRCAD_VERIFY=1 is set
while it runs. Around every call: the arguments (and cotangents, tangents) must be unchanged, bit
for bit, and the appends and counts the program makes must happen as often as in one call of f.
Gradients must have their argument's shape and a float dtype (a float or a 0-d array for a
Python float); tuples exactly where wrt is a tuple.

A srcad.SrcadError while building or calling a derivative is a refusal of that mode (counted by
reason), any other exception a crash. Everything else that differs is a failure of one kind:

    wrong           differs from central differences (confirmed: see oracle.py)
    dot             forward and reverse mode disagree
    verify          srcad's verify mode raised (optimized != unoptimized)
    crash           an exception other than SrcadError
    value           value_and_grad's value is not f's
    mutation        a derivative call changed an argument
    side_effects    a derivative call ran the program's appends / counts another number of times
    structure       wrong type, shape or dtype of a result, or None
    float32         the float32 gradient is far from the float64 one
    cache           the first call's arguments again gave other numbers
"""
import contextlib
import inspect
import os
import re
import traceback
from dataclasses import dataclass, field

import numpy as np

import srcad
from srcad.optimize import contract, layout, strength

from .oracle import Differences, check_contraction, check_vector, flat, norm
from .program import CALLS, load

MODES = ("grad", "grad_tuple", "value_and_grad", "vjp", "jvp", "hvp", "hvp_reverse",
         "jacobian_forward", "jacobian_reverse", "float32", "unoptimized")
SCALAR_ONLY = {"grad", "grad_tuple", "value_and_grad", "hvp", "hvp_reverse"}
VerifyError = getattr(getattr(srcad, "errors", None), "VerifyError", None)


def _float_array(value):
    return (isinstance(value, np.ndarray) and value.dtype.kind == "f") or isinstance(
        value, (float, np.floating))


def _hvp_reverse(f, wrt, **options):
    """H v by reverse mode over the generated gradient (srcad.vjp of srcad.grad)."""
    return srcad.vjp(srcad.grad(f, wrt=wrt, **options), wrt=wrt, **options)


def _supports(name):
    try:
        return name in inspect.signature(srcad.grad).parameters
    except (TypeError, ValueError):
        return False


HAS_DISABLE = _supports("disable")
HAS_VERIFY = _supports("verify")


@dataclass
class Failure:
    kind: str
    mode: str
    call: int
    detail: str

    @property
    def key(self):
        """What the shrinker keeps constant: the kind (with the guilty pass of a verify
        failure, the exception type of a crash) and the mode."""
        kind = self.kind
        if kind == "verify":
            found = re.search(r"first pass that changes it: (\w+)", self.detail)
            kind = "verify:" + (found.group(1) if found else "unoptimized-raised" if
                                "unoptimized derivative raised" in self.detail else "?")
        elif kind == "crash":
            kind = f"crash:{self.detail.split(':')[0]}"
        return (kind, self.mode)

    def __str__(self):
        calls = {0: "first call", 1: "second call (other shapes)", 2: "first call again",
                 3: "float32 call", 5: "the first call's shapes, other values"}
        return f"{self.kind} in {self.mode} ({calls.get(self.call, self.call)}): {self.detail}"


@dataclass
class Outcome:
    failures: list = field(default_factory=list)
    refusals: list = field(default_factory=list)  # (mode, reason)
    unsure: int = 0  # comparisons the oracle could not decide (kinks, branch flips)
    checked: int = 0  # comparisons made
    noise: list = field(default_factory=list)  # (mode, text): VerifyErrors on correct results

    @property
    def refused(self):
        return bool(self.refusals)


class _Refused(Exception):
    def __init__(self, mode, reason):
        super().__init__(reason)
        self.mode, self.reason = mode, reason


def refusal_reason(exc, names=()):
    """The first line of a SrcadError without the file:line:col before it, the program's names
    (and srcad's versions of them, x_1), quoted code and numbers replaced, so that refusals
    group by reason."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    text = re.sub(r"^.*?\.py:\d+(:\d+)?:\s*", "", text)
    text = re.sub(r"`[^`]*`|'[^']*'|\"[^\"]*\"", "'...'", text)
    text = re.sub(r"\b\d+(\.\d+)?\b", "N", text)
    text = re.sub(r"\bfz_\w+\b|\bhelper\d+\b|\b[a-z]\d+\b", "NAME", text)
    for name in sorted(set(names) - {"a", "i", "in", "is", "or", "and", "not"}, key=len,
                       reverse=True):
        text = re.sub(rf"\b{re.escape(name)}(_\d+)?\b", "NAME", text)
    text = re.sub(r"NAME(, NAME)+", "NAME", text)
    return text[:140]


def _crash_text(exc):
    tb = traceback.extract_tb(exc.__traceback__)
    where = ""
    for frame in reversed(tb):
        if "srcad" in frame.filename or frame.filename.startswith("<"):
            where = f" at {os.path.basename(frame.filename)}:{frame.lineno}"
            break
    return f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"\
        f"{where}"[:300]


def _variables(source):
    """The names a program binds: parameters, assigned names, loop targets, helpers."""
    import ast
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
    return names


@contextlib.contextmanager
def verify_environment(**more):
    """SRCAD_VERIFY=1 (and the variables in `more`) while programs are checked, and the sizes
    under which optimize/contract.py leaves a sum of products and optimize/strength.py a sum,
    max or min over a short axis as written lowered to 0, and the shortest first axis and fewest
    items of optimize/layout.py's Fortran-ordered results lowered to 1 (the programs' arrays, 2 to
    8 long, would never reach them: their rewrites would go unchecked); restored afterwards."""
    wanted = {"SRCAD_VERIFY": "1", **more}
    before = {name: os.environ.get(name) for name in wanted}
    os.environ.update(wanted)
    min_size, contract.MIN_SIZE = contract.MIN_SIZE, 0
    min_out, strength.SHORT_MIN_OUT = strength.SHORT_MIN_OUT, 0
    extremum_out, strength.SHORT_EXTREMUM_MIN_OUT = strength.SHORT_EXTREMUM_MIN_OUT, 0
    long_first, layout.LONG_FIRST = layout.LONG_FIRST, 1
    min_items, layout.MIN_ITEMS = layout.MIN_ITEMS, 1
    try:
        yield
    finally:
        contract.MIN_SIZE = min_size
        strength.SHORT_MIN_OUT = min_out
        strength.SHORT_EXTREMUM_MIN_OUT = extremum_out
        layout.LONG_FIRST, layout.MIN_ITEMS = long_first, min_items
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _snapshot(values):
    out = []
    for v in values:
        if isinstance(v, np.ndarray):
            out.append(("array", v.dtype, v.shape, v.tobytes()))
        elif isinstance(v, (tuple, list)) and not isinstance(v, list):
            out.append(("tuple", _snapshot(v)))
        elif isinstance(v, list):
            out.append(("list", len(v)))
        elif isinstance(v, dict):
            out.append(("dict", dict(v)))
        else:
            out.append(("value", type(v), v))
    return out


def _counts(args):
    return [len(a) if isinstance(a, list) else dict(a) if isinstance(a, dict) else None
            for a in args]


def _random_like(value, rng, dtype=np.float64):
    if isinstance(value, tuple):
        return tuple(_random_like(v, rng, dtype) for v in value)
    if isinstance(value, np.ndarray):
        return rng.standard_normal(value.shape).astype(dtype)
    if isinstance(value, np.generic):
        return np.float64(rng.standard_normal()).astype(value.dtype) if \
            value.dtype.kind == "f" else float(rng.standard_normal())
    return float(rng.standard_normal())


def _structure(result, arg, what):
    """A sentence on what is wrong with a gradient's type or shape for this argument, or None."""
    if result is None:
        return f"{what} is None"
    if isinstance(arg, float) and not isinstance(arg, np.generic):
        if isinstance(result, float) or (isinstance(result, (np.ndarray, np.generic))
                                         and np.shape(result) == ()):
            return None if np.asarray(result).dtype.kind == "f" else \
                f"{what} has dtype {np.asarray(result).dtype}"
        return f"{what} is {type(result).__name__} of shape {np.shape(result)} for a Python float"
    if isinstance(arg, np.ndarray):
        if not isinstance(result, (np.ndarray, np.generic)) and not (
                arg.ndim == 0 and isinstance(result, float)):
            return f"{what} is a {type(result).__name__}, not an array"
        if np.shape(result) != arg.shape:
            return f"{what} has shape {np.shape(result)}, the argument {arg.shape}"
        if np.asarray(result).dtype.kind != "f":
            return f"{what} has dtype {np.asarray(result).dtype}"
    return None


class Checker:
    """Checks one program (see the module docstring). modes: which to run (default: all that
    apply); calls: which calls (0: first, 1: other shapes); unoptimized: the mode to repeat
    with every optimization off (None: one chosen from the program's seed)."""

    def __init__(self, program, modes=None, calls=CALLS, unoptimized=None, verify=True):
        self.program = program
        scalar = program.output == "scalar"
        self.modes = [m for m in (modes or MODES) if scalar or m not in SCALAR_ONLY]
        self.calls = calls
        self.verify = verify
        seed = program.seed or program.value_seed
        base = [m for m in ("grad", "grad_tuple", "vjp", "jvp", "value_and_grad", "hvp")
                if scalar or m not in SCALAR_ONLY]
        self.unoptimized = unoptimized or base[seed % len(base)]
        self.outcome = Outcome()
        self.wrt = program.wrt
        self.single = self.wrt[seed % len(self.wrt)] if self.wrt else None
        self._fd = {}
        self._results = {}
        self._made = {}
        self.names = _variables(program.source)

    # -- plumbing ---------------------------------------------------------------------------
    def options(self, unoptimized=False, verify=None):
        opts = {}
        if unoptimized:
            opts["disable"] = "all"
            if HAS_VERIFY:
                opts["verify"] = False
        elif HAS_VERIFY:
            opts["verify"] = self.verify if verify is None else verify
        return opts

    def make(self, maker, mode, unoptimized=False, verify=None, **kwargs):
        """srcad.<maker>(f, **kwargs) with the options; SrcadError -> a refusal."""
        if unoptimized and not HAS_DISABLE:
            return None
        try:
            derivative = maker(self.f, **kwargs, **self.options(unoptimized, verify))
        except srcad.SrcadError as exc:
            raise _Refused(mode, refusal_reason(exc, self.names)) from exc
        self._made[id(derivative)] = (maker, kwargs, unoptimized, derivative)
        return derivative

    def without_verify(self, derivative):
        """The same derivative with verify mode off (to go on checking after a VerifyError)."""
        maker, kwargs, unoptimized, _ = self._made.get(id(derivative), (None,) * 4)
        if maker is None or not HAS_VERIFY:
            return None
        options = dict(self.options(unoptimized), verify=False)
        return maker(self.f, **kwargs, **options)

    def fail(self, kind, mode, call, detail):
        self.outcome.failures.append(Failure(kind, mode, call, detail))

    def args(self, call, dtype=np.float64):
        return self.program.arguments(call, dtype)

    def invoke(self, derivative, mode, call, args, extra=()):
        """Call a derivative; check arguments and side effects around it. None after a failure
        (recorded). After a VerifyError the call is repeated with verify off, so that the
        other checks still see the numbers."""
        everything = list(args) + list(extra)
        before = _snapshot(everything)
        try:
            with np.errstate(all="ignore"):
                result = derivative(*args, *extra)
        except srcad.SrcadError as exc:
            raise _Refused(mode, refusal_reason(exc, self.names)) from exc
        except Exception as exc:  # noqa: BLE001 - every other exception is a finding
            if VerifyError is None or not isinstance(exc, VerifyError):
                self.fail("crash", mode, call, _crash_text(exc))
                return None
            kind = self.verify_kind(str(exc))
            if kind == "noise":
                self.outcome.noise.append((mode, " ".join(str(exc).split())[:300]))
            else:
                self.fail(kind, mode, call, " ".join(str(exc).split())[:400])
            plain = self.without_verify(derivative)
            if plain is None:
                return None
            args = self.args(0 if call in (2, 3) else call, np.float32 if call == 3 else
                             np.float64) if call != 4 else args  # (2: the first call's
            # arguments again; 3: in float32)
            everything = list(args) + list(extra)
            before = _snapshot(everything)
            try:
                with np.errstate(all="ignore"):
                    result = plain(*args, *extra)
            except Exception as again:  # noqa: BLE001
                if not isinstance(again, srcad.SrcadError):
                    self.fail("crash", mode, call, _crash_text(again))
                return None
        after = _snapshot(everything)
        for position, (a, b) in enumerate(zip(before, after)):
            if a[0] in ("list", "dict"):
                continue
            if a != b:
                name = (self.program.params[position].name if position < len(args)
                        else f"the {'cotangent' if mode == 'vjp' else 'tangent'}")
                self.fail("mutation", mode, call, f"the call changed {name}")
                return None
        counts = _counts(args)
        if counts != self.expected_counts[call]:
            self.fail("side_effects", mode, call,
                      f"after the derivative call the list/dict arguments hold {counts}, "
                      f"after f {self.expected_counts[call]}")
            return None
        return result

    def verify_kind(self, text):
        """How to count a VerifyError: "mutation" when verify mode saw an array argument
        change; "noise" when the argument it names is a list or dict the program appends to or
        counts in (the program's own side effect, which verify mode mistakes for a change of
        the argument: not a wrong derivative; the count is checked separately, on the call
        repeated without verify mode); "verify" otherwise."""
        if "changed its arguments" not in text:
            return "verify"
        found = re.search(r"argument (\d+)", text)
        if found and int(found.group(1)) < len(self.program.params) and \
                self.program.params[int(found.group(1))].kind in ("list", "dict"):
            return "noise"
        return "mutation"

    def differences(self, call, positions, of=None):
        key = (call, positions, id(of))
        if key not in self._fd:
            function = of or self.primal
            direction = {p: self.direction[call][p] for p in positions}
            self._fd[key] = Differences(function, lambda: self.args(call), direction)
        return self._fd[key]

    def primal(self, args):
        return self.f(*args)

    def judge(self, result, mode, call, what):
        self.outcome.checked += 1
        if result == "unsure":
            self.outcome.unsure += 1
        elif result == "wrong":
            self.fail("wrong", mode, call, what)

    # -- the run ----------------------------------------------------------------------------
    def run(self):
        try:
            self.f = load(self.program.source).f
        except Exception as exc:  # noqa: BLE001
            self.fail("crash", "load", 0, _crash_text(exc))
            return self.outcome
        self.output, self.expected_counts, self.direction, self.cotangent = {}, {}, {}, {}
        calls = set(self.calls) | ({0} if "float32" in self.modes else set())
        for call in sorted(calls):
            args = self.args(call)
            with np.errstate(all="ignore"):
                self.output[call] = self.f(*args)
            self.expected_counts[call] = _counts(args)
            rng = np.random.default_rng([self.program.value_seed, 7, call])
            self.direction[call] = {p: _random_like(args[p], rng) for p in self.wrt}
            self.cotangent[call] = _random_like(self.output[call], rng)
        self.expected_counts[2] = self.expected_counts.get(0)
        if not self.wrt:
            return self.outcome
        with verify_environment():
            for mode in self.modes:
                try:
                    if mode == "unoptimized":
                        if HAS_DISABLE:
                            getattr(self, "mode_" + self.unoptimized)(unoptimized=True)
                    else:
                        getattr(self, "mode_" + mode)()
                except _Refused as refused:
                    label = refused.mode
                    self.outcome.refusals.append((label, refused.reason))
            if "vjp" in self.modes and "jvp" in self.modes:
                self.dot_test()
        return self.outcome

    def label(self, mode, unoptimized):
        return f"{mode}[disable=all]" if unoptimized else mode

    def each_call(self, derivative, mode, extra_of, check):
        """Run derivative on each call (and the first call again): check(result, call)."""
        first = None
        for call in self.calls:
            result = self.invoke(derivative, mode, call, self.args(call), extra_of(call))
            if result is None:
                return
            if call == self.calls[0]:
                first = result
            check(result, call)
        if len(self.calls) > 1 and first is not None:
            call0 = self.calls[0]
            again = self.invoke(derivative, mode, 2, self.args(call0), extra_of(call0))
            if again is not None and not np.array_equal(flat(first), flat(again),
                                                        equal_nan=True):
                self.fail("cache", mode, 2, f"the first call gave {_short(first)}, the same "
                                            f"arguments after the second call {_short(again)}")

    def check_gradients(self, grads, positions, mode, call):
        """Structure, then <g, v> against differences along v (restricted to positions)."""
        args = self.args(call)
        for g, p in zip(grads, positions):
            problem = _structure(g, args[p], f"the gradient of {self.program.params[p].name}")
            if problem:
                self.fail("structure", mode, call, problem)
                return
        d = self.differences(call, positions)
        v = [self.direction[call][p] for p in positions]
        got = sum(float(np.sum(np.asarray(g, dtype=float) * np.asarray(u))) for g, u in
                  zip(grads, v))
        extra = float(np.sqrt(sum(norm(g) ** 2 for g in grads))) * float(
            np.sqrt(sum(norm(u) ** 2 for u in v)))
        floor = 1e-9 * (1.0 + norm(self.output[call]))
        self.judge(check_contraction(got, d, np.ones(1), extra, floor), mode, call,
                   f"<gradient, v> = {got!r}, central differences give "
                   f"{float(d.richardson.sum())!r} (h=1e-4 Richardson) and "
                   f"{float(d.plain.sum())!r} (h=1e-6)")

    def mode_grad(self, unoptimized=False):
        mode = self.label("grad", unoptimized)
        d = self.make(srcad.grad, mode, unoptimized, wrt=self.single)
        if d is None:
            return
        self.each_call(d, mode, lambda call: (), lambda g, call: self._one_grad(g, mode, call))

    def _one_grad(self, g, mode, call):
        if isinstance(g, tuple):
            self.fail("structure", mode, call, "wrt=int gave a tuple")
            return
        self.check_gradients((g,), (self.single,), mode, call)

    def mode_grad_tuple(self, unoptimized=False):
        mode = self.label("grad_tuple", unoptimized)
        d = self.make(srcad.grad, mode, unoptimized, wrt=self.wrt)
        if d is None:
            return
        self.each_call(d, mode, lambda call: (), lambda g, call: self._tuple_grads(g, mode, call))

    def _tuple_grads(self, grads, mode, call):
        if not isinstance(grads, tuple) or len(grads) != len(self.wrt):
            self.fail("structure", mode, call, f"wrt={self.wrt} gave {type(grads).__name__} "
                                               f"{_short(grads)}, not a tuple of {len(self.wrt)}")
            return
        self.check_gradients(grads, self.wrt, mode, call)

    def mode_value_and_grad(self, unoptimized=False):
        mode = self.label("value_and_grad", unoptimized)
        seed = self.program.seed or 0
        wrt = self.wrt if seed % 2 else self.single
        d = self.make(srcad.value_and_grad, mode, unoptimized, wrt=wrt)
        if d is None:
            return

        def check(result, call):
            if not isinstance(result, tuple) or len(result) != 2:
                self.fail("structure", mode, call, f"gave {_short(result)}, not (value, grad)")
                return
            value, grads = result
            want = self.output[call]
            if type(value) is not type(want) or np.shape(value) != np.shape(want) or \
                    getattr(value, "dtype", None) != getattr(want, "dtype", None):
                self.fail("value", mode, call, f"value is {type(value).__name__} "
                          f"{_short(value)}, f returns {type(want).__name__} {_short(want)}")
                return
            if not np.array_equal(flat(value), flat(want), equal_nan=True):  # (every bit:
                self.fail("value", mode, call, f"value {value!r}, f returns {want!r}")  # the
                return  # README's promise; a pass may round a derivative, never a value)
            if isinstance(wrt, tuple):
                self._tuple_grads(grads, mode, call)
            else:
                self._one_grad(grads, mode, call)
        self.each_call(d, mode, lambda call: (), check)

    def mode_vjp(self, unoptimized=False):
        mode = self.label("vjp", unoptimized)
        d = self.make(srcad.vjp, mode, unoptimized, wrt=self.wrt)
        if d is None:
            return

        def check(grads, call):
            if not isinstance(grads, tuple) or len(grads) != len(self.wrt):
                self.fail("structure", mode, call, f"gave {_short(grads)}, not a tuple of "
                                                   f"{len(self.wrt)}")
                return
            args = self.args(call)
            for g, p in zip(grads, self.wrt):
                problem = _structure(g, args[p], f"the vjp of {self.program.params[p].name}")
                if problem:
                    self.fail("structure", mode, call, problem)
                    return
            if not unoptimized:
                self._results[("vjp", call)] = grads
            w = self.cotangent[call]
            v = [self.direction[call][p] for p in self.wrt]
            got = sum(float(np.sum(np.asarray(g, dtype=float) * np.asarray(u)))
                      for g, u in zip(grads, v))
            extra = norm(grads) * norm(v)
            differences = self.differences(call, self.wrt)
            floor = 1e-9 * (1.0 + norm(self.output[call]) * norm(w))
            self.judge(check_contraction(got, differences, flat(w), extra, floor), mode, call,
                       f"<v, J^T w> = {got!r}, central differences give <w, J v> = "
                       f"{float(np.dot(flat(w), differences.richardson))!r}")
        self.each_call(d, mode, lambda call: (self.cotangent[call],), check)

    def mode_jvp(self, unoptimized=False):
        mode = self.label("jvp", unoptimized)
        d = self.make(srcad.jvp, mode, unoptimized, wrt=self.wrt)
        if d is None:
            return

        def check(tangent, call):
            want = self.output[call]
            if isinstance(want, tuple) != isinstance(tangent, tuple) or (
                    isinstance(want, tuple) and len(want) != len(tangent)):
                self.fail("structure", mode, call, f"the tangent {_short(tangent)} does not "
                                                   f"match the output {_short(want)}")
                return
            for t, o in zip(tangent if isinstance(tangent, tuple) else (tangent,),
                            want if isinstance(want, tuple) else (want,)):
                if t is None or np.shape(t) != np.shape(o):
                    self.fail("structure", mode, call, f"a tangent has shape {np.shape(t)}, "
                                                       f"its output {np.shape(o)}")
                    return
            if not unoptimized:
                self._results[("jvp", call)] = tangent
            differences = self.differences(call, self.wrt)
            floor = 1e-9 * (1.0 + norm(want))
            self.judge(check_vector(tangent, differences, floor), mode, call,
                       f"J v = {_short(tangent)}, central differences give "
                       f"{_short(differences.richardson)}")
        tangents = lambda call: tuple(self.direction[call][p] for p in self.wrt)  # noqa: E731
        self.each_call(d, mode, tangents, check)

    def dot_test(self):
        for call in self.calls:
            jv, jtw = self._results.get(("jvp", call)), self._results.get(("vjp", call))
            if jv is None or jtw is None:
                continue
            w = self.cotangent[call]
            v = [self.direction[call][p] for p in self.wrt]
            lhs = float(np.dot(flat(jv), flat(w)))
            rhs = sum(float(np.sum(np.asarray(g, dtype=float) * np.asarray(u)))
                      for g, u in zip(jtw, v))
            scale = max(norm(jv) * norm(w), norm(jtw) * norm(v))
            floor = 1e-12 * norm(v) * norm(w)  # rounding where the exact answer is 0
            self.outcome.checked += 1
            if abs(lhs - rhs) > 1e-9 * scale + floor + 1e-300:
                self.fail("dot", "vjp/jvp", call,
                          f"<J v, w> = {lhs!r} (jvp) but <v, J^T w> = {rhs!r} (vjp)")

    def mode_jacobian_forward(self, unoptimized=False):
        self.mode_jacobian(unoptimized, "forward")

    def mode_jacobian_reverse(self, unoptimized=False):
        self.mode_jacobian(unoptimized, "reverse")

    def mode_jacobian(self, unoptimized, direction):
        if any(p.kind in ("list", "dict") for p in self.program.params) or not all(
                _float_array(self.output[call]) and all(
                    _float_array(self.args(call)[p]) for p in self.wrt) for call in self.calls):
            return  # (trees, and programs whose side effects each sweep repeats)
        mode = self.label(f"jacobian_{direction}", unoptimized)
        d = self.make(lambda f, **options: srcad.jacobian(f, mode=direction, **options), mode,
                      unoptimized, wrt=self.wrt)
        if d is None:
            return

        def check(blocks, call):
            args = self.args(call)
            jv = sum(np.tensordot(np.asarray(b, dtype=float), np.asarray(
                self.direction[call][p], dtype=float), axes=np.ndim(args[p]))
                     for b, p in zip(blocks, self.wrt))
            floor = 1e-9 * (1.0 + norm(self.output[call]))
            differences = self.differences(call, self.wrt)
            self.judge(check_vector(jv, differences, floor), mode, call,
                       f"J v = {_short(jv)}, central differences give "
                       f"{_short(differences.richardson)}")
        self.each_call(d, mode, lambda call: (), check)

    def mode_hvp_reverse(self, unoptimized=False):
        self.mode_hvp(unoptimized, _hvp_reverse, "hvp_reverse")

    def mode_hvp(self, unoptimized=False, maker=None, name="hvp"):
        mode = self.label(name, unoptimized)
        product = self.make(maker or srcad.hvp, mode, unoptimized, wrt=self.single)
        gradient = self.make(srcad.grad, mode, unoptimized, wrt=self.single)
        if product is None:
            return
        position = self.single

        def gradient_of(args):
            return gradient(*args)

        def check(hv, call):
            args = self.args(call)
            problem = _structure(hv, args[position], "H v")
            if problem:
                self.fail("structure", mode, call, problem)
                return
            try:
                with np.errstate(all="ignore"):
                    differences = self.differences(call, (position,), of=gradient_of)
            except srcad.SrcadError as exc:
                raise _Refused(mode, refusal_reason(exc, self.names)) from exc
            except Exception as exc:  # noqa: BLE001 - the gradient crashed: reported by grad
                self.fail("crash", mode, call, "the gradient: " + _crash_text(exc))
                return
            floor = 1e-8 * (1.0 + norm(gradient_of(self.args(call))))
            self.judge(check_vector(hv, differences, floor), mode, call,
                       f"H v = {_short(hv)}, central differences of the gradient give "
                       f"{_short(differences.richardson)}")
        self.each_call(product, mode, lambda call: (self.direction[call][position],), check)

    def mode_float32(self, unoptimized=False):
        """Gradients of float32 arguments: float32 (where f's output is float32), and near the
        float64 gradient at the same point: within 5 % and within 100 times how much the
        float64 gradient, or the float32 one, moves when the arguments move by float32
        rounding (so that programs whose gradient float32 cannot resolve are not reported)."""
        if not any(isinstance(a, np.ndarray) for a in self.args(0)):
            return
        scalar = self.program.output == "scalar"
        mode = "float32"
        maker = srcad.grad if scalar else srcad.vjp
        # verify mode off: it compares with float64 code at float64 tolerance; float32 results
        # are compared here, at float32 tolerance
        d = self.make(maker, mode, False, verify=False, wrt=self.wrt)

        def at32():
            return self.args(0, np.float32)

        def at64(scale=None):  # the float32 point in float64 (fresh lists), maybe moved
            out = []
            for k, a in enumerate(at32()):
                if isinstance(a, np.ndarray) and a.dtype.kind == "f":  # (not a bool mask)
                    a = np.asarray(a, dtype=np.float64)
                    if scale is not None and k in scale:
                        a = a * scale[k]
                elif isinstance(a, float) and scale is not None and k in scale:
                    a = a * float(scale[k])
                out.append(a)
            return out
        with np.errstate(all="ignore"):
            out32, out64 = self.f(*at32()), self.f(*at64())
        extra, extra64 = (), ()
        if not scalar:
            rng = np.random.default_rng([self.program.value_seed, 32])
            w64 = _random_like(out64, rng)
            extra, extra64 = (_cast(w64, out32),), (w64,)
        self.expected_counts[3] = self.expected_counts[4] = self.expected_counts[0]
        g32 = self.invoke(d, mode, 3, at32(), extra)
        if g32 is None:
            return
        if not isinstance(g32, tuple) or len(g32) != len(self.wrt):
            self.fail("structure", mode, 3, f"gave {_short(g32)}, not a tuple of {len(self.wrt)}")
            return
        args32 = at32()
        single = all(np.asarray(o).dtype == np.float32 for o in
                     (out32 if isinstance(out32, tuple) else (out32,)))
        for g, p in zip(g32, self.wrt):
            arg = args32[p]
            problem = _structure(g, arg, f"the gradient of {self.program.params[p].name}")
            if problem is None and isinstance(arg, np.ndarray) and single and \
                    np.asarray(g).dtype != np.float32:
                problem = (f"the gradient of float32 {self.program.params[p].name} is "
                           f"{np.asarray(g).dtype} (f's output is float32)")
            if problem:
                self.fail("structure", mode, 3, problem)
                return
        g64 = self.invoke(d, mode, 4, at64(), extra64)
        if g64 is None:
            return
        rng = np.random.default_rng([self.program.value_seed, 33])
        scale = {p: 1.0 + 1.2e-7 * rng.choice([-1.0, 1.0], size=np.shape(args32[p]))
                 for p in self.wrt}
        moved = self.invoke(d, mode, 4, at64(scale), extra64)
        if moved is None:
            return
        moved32 = self.invoke(d, mode, 3, [np.asarray(a * scale[k], dtype=np.float32)
                                            if k in scale and isinstance(a, np.ndarray) else a
                                            for k, a in enumerate(at32())], extra)
        if moved32 is None:
            return
        sensitivity = norm(flat(out32) - flat(out64)) / max(norm(out64), 1e-30)
        self.outcome.checked += 1
        noise = norm(flat(moved) - flat(g64))
        if sensitivity > 1e-4 or noise > 1e-3 * norm(g64):
            self.outcome.unsure += 1  # float32 cannot resolve this program's gradient
            return
        # float32's own rounding: how much the float32 gradient moves with its arguments moved
        # by float32 rounding (terms that cancel leave residues of float32's size: a gradient
        # that is 0 in float64 is 1e-4 in float32 where the terms are 1e3, seed 137538)
        # (capped by the output's size: a float32 gradient that is garbage, moving a lot with
        # its arguments, is not excused by its own moves)
        noise32 = min(100.0 * norm(flat(moved32) - flat(g32)), 1e-3 * max(norm(out64), 1.0))
        err, size = norm(flat(g32) - flat(g64)), norm(g64)
        if err > max(0.05 * size, 100.0 * noise, noise32) + 1e-4:
            self.fail("float32", mode, 3, f"float32 gradient {_short(g32)}, float64 gradient at "
                                          f"the same point {_short(g64)}")


def _cast(value, like):
    if isinstance(value, tuple):
        return tuple(_cast(v, lk) for v, lk in zip(value, like))
    if isinstance(like, np.ndarray):
        return np.asarray(value, dtype=like.dtype)
    if isinstance(like, np.generic):
        return like.dtype.type(value)
    return float(value)


def _short(value, limit=160):
    text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def check(program, **options):
    """Outcome of checking program (see Checker)."""
    return Checker(program, **options).run()


__all__ = ["Checker", "Failure", "Outcome", "MODES", "check", "refusal_reason"]
