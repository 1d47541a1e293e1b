"""The generator's state: symbolic shapes, the variables in scope, and their concrete values.

Shapes are tuples of dims. A dim is an int or a string of Python over the size parameters
("n", "m", "k", "n - 1", "n + m", ...), so that a program written with them runs for other sizes:
each program is checked on two calls whose sizes differ (srcad specializes its code per argument
signature; the second call must not reuse the first one's assumptions).

A Scope holds what the expression and statement families need: a seeded random.Random, the
variables in scope with their shapes (Var), the concrete sizes of every call, the namespaces the
program has built so far on each call (for thresholds picked from real values; None inside
loop bodies and helpers, where values are not known statically), and the tags of the constructs
used (for the refusal statistics).
"""
import re
from dataclasses import dataclass, field, replace

import numpy as np

Dim = object  # int | str


def dim_text(d):
    """A dim as code: 3, n, (n - 1)."""
    if isinstance(d, int):
        return str(d)
    return d if re.fullmatch(r"\w+", d) else f"({d})"


def shape_text(shape):
    """A shape as code for np.zeros(...)/reshape(...): n, (n, m), 3, (2, n)."""
    if len(shape) == 1:
        return dim_text(shape[0])
    return "(" + ", ".join(dim_text(d) for d in shape) + ")"


def dim_value(d, sizes):
    return d if isinstance(d, int) else int(eval(d, {}, dict(sizes)))  # noqa: S307


def concrete(shape, sizes):
    return tuple(dim_value(d, sizes) for d in shape)


def broadcast(a, b):
    """The symbolic broadcast of two shapes, or None when they do not broadcast (as symbols:
    n and m are different dims even if some call gives them the same size)."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return tuple(reversed(out))


def reduced(shape, axis, keepdims):
    """The shape of a reduction (axis None: all axes)."""
    if axis is None:
        return tuple(1 for _ in shape) if keepdims else ()
    axis = axis % len(shape)
    if keepdims:
        return shape[:axis] + (1,) + shape[axis + 1:]
    return shape[:axis] + shape[axis + 1:]


def minus(d, k):
    """The dim d - k as a symbol."""
    if isinstance(d, int):
        return d - k
    return f"{d} - {k}"


@dataclass
class Var:
    """A variable of the program: its name and shape, and what can be done to it.

    py: a Python float (no methods, no indexing); owned: an array the program made itself (so
    writing into it, in place or through a view, does not change an argument); positive: known
    to be > 0 by construction (a positive argument, an exp, 1 + x * x)."""
    name: str
    shape: tuple
    py: bool = False
    owned: bool = False
    positive: bool = False

    @property
    def ndim(self):
        return len(self.shape)


@dataclass
class Expr:
    """A generated expression: its text, shape, and the same facts as Var. atomic: a name, a
    non-negative number, a call, a subscript or an attribute (needs no parentheses as an
    operand)."""
    text: str
    shape: tuple
    owned: bool = True
    positive: bool = False
    py: bool = False
    atomic: bool = False

    def atom(self):
        """The text as an operand: parenthesized unless atomic."""
        return self.text if self.atomic else f"({self.text})"


@dataclass
class Scope:
    """See the module docstring."""
    rng: object  # random.Random
    sizes: list  # one dict of sizes per call: {"n": 3, "m": 2, "k": 25}
    vars: dict = field(default_factory=dict)
    values: list = None  # per call: the namespace after the statements so far (or None)
    tags: set = field(default_factory=set)
    ints: dict = field(default_factory=dict)  # int names in scope -> the dim they equal (or None)
    helpers: list = field(default_factory=list)  # Helper objects defined so far (helpers.py)
    names: dict = field(default_factory=dict)  # prefix -> counter (shared with child scopes)
    in_loop: bool = False
    depth_budget: int = 3
    side_effects: tuple = ()  # names of the list / dict parameters that count calls
    params: frozenset = frozenset()  # f's parameter names (reassigning them is tagged)
    sizes_known: bool = True  # the size parameters n, m, k are in scope by name (not in helpers)
    has_k: bool = False  # f has a loop-count parameter k
    long_loop: bool = False  # k is 20-40 (srcad keeps such loops) rather than 2-8 (unrolled)
    helper_depth: int = 0  # 0 in f, 1 in a helper f calls, ...

    # -- names -------------------------------------------------------------------------------
    def fresh(self, prefix="t"):
        count = self.names.get(prefix, 0) + 1
        self.names[prefix] = count
        return f"{prefix}{count}"

    # -- randomness --------------------------------------------------------------------------
    def chance(self, p):
        return self.rng.random() < p

    def pick(self, items):
        items = list(items)
        return items[self.rng.randrange(len(items))] if items else None

    def weighted(self, pairs):
        pairs = [(x, w) for x, w in pairs if w > 0]
        total = sum(w for _, w in pairs)
        r = self.rng.random() * total
        for x, w in pairs:
            r -= w
            if r <= 0:
                return x
        return pairs[-1][0]

    def constant(self, low=-2.0, high=2.0, nonzero=True):
        """A short float literal (may be negative: the caller parenthesizes)."""
        while True:
            value = round(self.rng.uniform(low, high), self.rng.choice((1, 1, 2)))
            if not nonzero or abs(value) >= 0.1:
                return value

    # -- sizes -------------------------------------------------------------------------------
    def min_size(self, d):
        """The smallest value dim d takes over the calls."""
        return min(dim_value(d, s) for s in self.sizes)

    def dim_code(self, d):
        """d as code: the size parameters are in scope by name."""
        return dim_text(d)

    # -- variables ---------------------------------------------------------------------------
    def shapes(self, min_ndim=0, max_ndim=3):
        """The shapes of the variables in scope (and ())."""
        out = {()}
        for v in self.vars.values():
            if min_ndim <= v.ndim <= max_ndim:
                out.add(v.shape)
        return sorted((s for s in out if min_ndim <= len(s) <= max_ndim), key=repr)

    def of_shape(self, shape, arrays_only=False):
        return [v for v in self.vars.values() if v.shape == shape and not (arrays_only and v.py)]

    def arrays(self, min_ndim=1):
        return [v for v in self.vars.values() if v.ndim >= min_ndim]

    def add(self, var):
        self.vars[var.name] = var
        return var

    def child(self, **changes):
        """A copy for a nested block: its own variable dict (names assigned inside a loop body or
        a branch are added to the parent by the statement family that owns the block)."""
        return replace(self, vars=dict(self.vars), ints=dict(self.ints), **changes)

    # -- concrete values ---------------------------------------------------------------------
    def evaluate(self, text):
        """The value of an expression on every call, or None where it cannot be known here."""
        if self.values is None or self.in_loop:
            return None
        from .guards import GuardViolation, instrumented_code
        out = []
        try:
            code = instrumented_code(f"_fz_value = {text}")
        except SyntaxError:
            return None
        for namespace in self.values:
            local = dict(namespace)
            try:
                with np.errstate(all="ignore"):
                    exec(code, local)  # noqa: S102 - generated code
            except (GuardViolation, Exception):
                return None
            out.append(np.asarray(local["_fz_value"], dtype=float))
        return out

    def threshold(self, text):
        """A number c such that `text > c` is true on some entries or calls and false on others
        where possible, far (relative to the values) from every value text takes. A random
        constant where the values are not known."""
        values = self.evaluate(text)
        if not values:
            return self.constant(-1.0, 1.0, nonzero=False)
        flat = np.sort(np.concatenate([v.ravel() for v in values]))
        if flat.size == 0 or not np.all(np.isfinite(flat)):
            return self.constant(-1.0, 1.0, nonzero=False)
        if flat.size == 1 or self.chance(0.15):
            # everything on one side: a constant clearly away from the values
            offset = (0.3 + self.rng.random()) * (1.0 + abs(flat[0]))
            return round(float(flat[0] + (offset if self.chance(0.5) else -offset)), 2)
        gaps = np.diff(flat)
        middle = [i for i in range(len(gaps)) if 0 < i + 1 < len(flat)]
        best = max(middle, key=lambda i: gaps[i] - 0.05 * abs(i - len(gaps) / 2))
        return round(float((flat[best] + flat[best + 1]) / 2), 3)
