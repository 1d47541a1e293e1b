"""The pass manager: every optimization declared once, run in order over the generated code.

A pass is declared by what it is called (its stage, for srcad.source(f, stage=...)), the
PASSES name that switches it off, the builds it runs for (mode, shape-specialized or not,
kinds), the facts it reads and the facts it leaves valid when it changes the code. Every pass
is called the same way, run(code, facts) -> code. Facts computes each fact about the code the
first time a pass asks for it and keeps it until a pass changes the code without declaring
that it keeps it; facts of the build (the probe's dtypes, the names of adjoints) never change.

    Pass("signs", needs=("derived", "binds"), modes=("reverse",), run=...)

    run_passes(code, Build("reverse", "grad", specialized=True), facts, stop="factor")
      proportional (forward mode only: skipped)
      simplify = constants, copies, dead_code   (binds counted once: constants keeps them)
      cancel, broadcasts, factor                 -> stops here: the code of stage "factor"

After each pass the code is checked for nodes in two places (unshared) and fingerprinted, so
that a pass that changed nothing leaves every fact valid. A pass that found nothing to rewrite
may say so (facts.unchanged()): the census after it is skipped, its facts stay; with
SRCAD_VERIFY set (the tests and the fuzzer set it) the census is taken anyway and a pass that
said so and changed the code is an internal error.
"""
import os

import gast

from ..analysis.defuse import (bound_once_at_top, mutated_names, parameters,
                               reads_and_writes)
from ..analysis.shapes import float_chars
from ..syntax.naming import called_names, name_counts, shared_nodes, stored_roots
from ..syntax.nodes import dotted_parts


class Build:
    """What decides which passes run: the mode, the kind, whether the code is specialized to
    probed shapes, the passes switched off, and the singular-point facts (singular.py)."""

    def __init__(self, mode, kind, specialized, disabled=frozenset(), singular=None):
        self.mode = mode
        self.kind = kind
        self.specialized = bool(specialized)
        self.disabled = frozenset(disabled)
        self.singular = singular or {}


class Pass:
    """One optimization. switch: its PASSES name (None: cannot be switched off); modes: the
    modes it runs in; specialized: shape-specialized builds only; kinds: only these kinds
    (None: all); when(build): a further condition; needs: the facts it reads; keeps: the code
    facts still valid after it changed the code; calls: the pass rewrites only around calls
    of these functions (dotted names), and is not run on code that calls none of them."""

    def __init__(self, name, run, switch=None, modes=("reverse", "forward"), specialized=False,
                 kinds=None, when=None, needs=(), keeps=(), calls=()):
        self.name, self.run, self.switch = name, run, switch
        self.modes, self.specialized, self.kinds, self.when = modes, specialized, kinds, when
        self.needs, self.keeps = frozenset(needs), frozenset(keeps)
        self.calls = frozenset(calls)
        unknown = (self.needs | self.keeps) - set(CODE_FACTS) - STATIC_FACTS
        assert not unknown, f"pass {name}: unknown facts {sorted(unknown)}"

    def runs(self, build):
        return (build.mode in self.modes and (build.specialized or not self.specialized)
                and (self.kinds is None or build.kind in self.kinds)
                and (self.switch is None or self.switch not in build.disabled)
                and (self.when is None or self.when(build)))


class Group:
    """Passes run one after the other as one stage (simplify: constants, copies, dead code)."""

    calls = frozenset()  # (run whatever the code calls)

    def __init__(self, name, passes, modes=("reverse", "forward"), specialized=False):
        self.name, self.passes = name, passes
        self.modes, self.specialized = modes, specialized

    def runs(self, build):
        return build.mode in self.modes and (build.specialized or not self.specialized)


# facts about the code, each computed from it (and the facts before it in this table)
CODE_FACTS = {
    "counts": lambda code, facts: name_counts(code),  # (binds, loads): one walk for both
    "binds": lambda code, facts: facts.counts[0],  # name -> times bound (naming.bound_counts)
    "loads": lambda code, facts: facts.counts[1],  # name -> times read
    "params": lambda code, facts: parameters(code),  # the parameters' names
    # name bound only by one top-level `name = value` -> that statement, in order
    "top_once": lambda code, facts: bound_once_at_top(code, facts.binds),
    # name -> float dtype character or None, probe's and template temporaries' (shapes.py)
    "float_of": lambda code, facts: float_chars(code, facts.probed, facts.binds),
    "reads_writes": lambda code, facts: reads_and_writes(code),  # (loads, stores) per name
    "calls": lambda code, facts: called_names(code),  # the dotted names of functions called
    "stored": lambda code, facts: {n.id for n in stored_roots(code)},  # names stored into
    # names whose arrays change after they are made (stored into, or sharing with one)
    "mutated": lambda code, facts: mutated_names(code, getattr(facts, "shares", None),
                                                 facts.stored),
}
ALWAYS_KEPT = frozenset({"params"})  # no pass changes the function's parameters
# facts of the build, given to Facts: names of adjoints/tangents/temporaries (derived), of
# values surely floats (inexact), arrays, float64 values; the probe's float dtype of a name
# (probed) and shapes (shape_of(name), the dict shapes); names that may share storage
# (shares); new names (fresh, fresh_name) and the shapes of names a pass makes (new_shapes);
# the tangents; whether adjoints are all floats (seeded); singular-point facts (singular);
# whether the code returns f's values, which must be f's to the bit (returns_values); whether it
# is a callee's derivative, whose parameters are its caller's values, not the user's arguments
# (callee: they may be inf or nan where the arguments are finite)
STATIC_FACTS = frozenset({
    "derived", "inexact", "arrays", "float64", "probed", "shape_of", "shapes", "shares",
    "fresh", "fresh_name", "new_shapes", "tangents", "seeded", "singular", "returns_values",
    "callee"})


class Facts:
    """Facts about the code the passes rewrite, each computed once per version of the code
    (CODE_FACTS), and facts of the build (STATIC_FACTS, given). A pass reads only the facts
    it declared (facts.binds, facts.shape_of, ...)."""

    def __init__(self, static):
        assert set(static) <= STATIC_FACTS, sorted(set(static) - STATIC_FACTS)
        self._static = dict(static)
        self._known = {}
        self._code = None
        self._allowed = None  # the facts the running pass declared (None: any)
        self._unchanged = False  # the running pass said it changed nothing (unchanged())

    def __getattr__(self, fact):
        if fact.startswith("_"):
            raise AttributeError(fact)
        if self._allowed is not None and fact not in self._allowed:
            raise AssertionError(f"srcad internal error: a pass read the fact {fact!r} it did "
                                 f"not declare (manager.Pass needs)")
        if fact in self._static:
            return self._static[fact]
        if fact not in self._known:
            if fact not in CODE_FACTS:
                raise AttributeError(fact)
            allowed, self._allowed = self._allowed, None  # (a fact may read any other)
            try:
                self._known[fact] = CODE_FACTS[fact](self._code, self)
            finally:
                self._allowed = allowed
        return self._known[fact]

    def about(self, code):
        """Facts of this code from now on: all of them recomputed when asked."""
        self._code, self._known = code, {}
        return self

    def counted(self, counted):
        """counted: facts of the code as it is now (census counts them on the way), kept unless
        they are known already (the same)."""
        for fact, value in counted.items():
            self._known.setdefault(fact, value)

    def unchanged(self):
        """Said by a pass that changed nothing: it found nothing to rewrite before it touched a
        node (run_passes then skips the census after it; see the module docstring)."""
        self._unchanged = True

    def changed(self, code, keeps):
        """The code was changed (into code): only the facts in keeps stay."""
        self._code = code
        self._known = {k: v for k, v in self._known.items() if k in keeps or k in ALWAYS_KEPT}


def facts_for(code, **static):
    """Facts of code with these facts of the build (to run one pass by itself)."""
    return Facts(static).about(code)


def fingerprint(code, after):
    """What the code is made of, to see whether a pass changed it: its nodes (their identities,
    in walk order, with how many children each has) and the names of Name nodes (the one field
    passes rewrite in place; any other change makes or drops nodes). Checks on the way that no
    node is in two places: the passes rewrite nodes in place, so a shared one would be
    rewritten for two statements by a rewrite meant for one, silently (a number folded twice
    was 0.25 for 0.5). A shared node is an internal error."""
    return census(code, after)[0]


def census(code, after):
    """(fingerprint(code, after), the facts counted on the way): all in one walk. The manager
    fingerprints the code after every pass, and the passes ask for the facts counts
    (naming.name_counts: binds and loads), stored (the names stored into: the ids of
    naming.stored_roots) and calls (naming.called_names) of most versions of the code: counted
    on the way, they cost no walk of their own. The walk is naming.walk's (so the counts'
    dicts are in the order name_counts gives)."""
    parts, ids = [], []
    bound, loads, roots, calls = {}, {}, [], []
    append, ast, name = parts.append, gast.AST, gast.Name
    load, store, param = gast.Load, gast.Store, gast.Param
    subscript, call = gast.Subscript, gast.Call
    stack = [code]
    pop, push, keep = stack.pop, stack.append, ids.append
    while stack:
        n = pop()
        key = id(n)
        append(key)
        keep(key)  # (whether a node is in two places: seen at the end, from all the ids)
        kind = type(n)
        if kind is name:
            append(n.id)
            ctx = type(n.ctx)
            if ctx is load:
                loads[n.id] = loads.get(n.id, 0) + 1
            elif ctx is store or ctx is param:
                bound[n.id] = bound.get(n.id, 0) + 1
            continue
        if kind is subscript and type(n.ctx) is store and type(n.value) is name:
            roots.append(n.value.id)  # (y[i] = v binds y: counted after the names, as
            # name_counts does)
        elif kind is call:
            calls.append(n.func)
        size = len(stack)
        for field in n._fields:
            value = getattr(n, field, None)
            if type(value) is list:
                for item in value:  # (a loop: faster than extend of a generator here)
                    if isinstance(item, ast):
                        push(item)
                append(len(stack))  # (which list field each child is in)
            elif isinstance(value, ast):
                push(value)
        append(len(stack) - size)
    if len(set(ids)) != len(ids):  # (rare: contexts and operators may be shared, harmlessly)
        shared = shared_nodes(code)
        if shared:
            raise AssertionError(f"srcad internal error: after {after}, {len(shared)} nodes of "
                                 f"the generated code are in two places, e.g. "
                                 f"{gast.dump(shared[0])[:80]}; the pass must clone what it "
                                 f"copies")
    for var in roots:
        bound[var] = bound.get(var, 0) + 1
    called = set()
    for func in calls:
        dotted = dotted_parts(func)
        if dotted is not None:
            called.add(".".join(dotted))
    return parts, {"counts": (bound, loads), "stored": set(roots), "calls": called}


def unshared(code, after):
    """code, if no node of it is in two places (see fingerprint); else an internal error."""
    fingerprint(code, after)
    return code


def verify_requested():
    """Whether SRCAD_VERIFY is set on: the derivatives check themselves (api/verify.py) and the
    passes are held to what they say (run_passes)."""
    return os.environ.get("SRCAD_VERIFY", "").lower() not in ("", "0", "false", "no", "off")


def run_passes(code, passes, build, facts, stop=None):
    """Run the passes (Pass and Group entries, in order) that run for this build over code;
    stop: the stage to stop after (a pass's or a group's name). Returns the code. The code is
    checked and fingerprinted after each entry (a group as a whole) that did not say it changed
    nothing (Facts.unchanged; a group: none of its passes did); within a group a pass keeps
    only the facts it declares."""
    facts.about(code)
    before, counted = census(code, "the derivative pass")
    facts.counted(counted)
    holding = verify_requested()

    def one(entry, checked):
        """Run entry if it runs for this build; returns whether it said it changed nothing."""
        nonlocal code, before
        if entry.runs(build) and (not entry.calls or not entry.calls.isdisjoint(facts.calls)):
            facts._allowed, facts._unchanged = entry.needs, False
            try:
                code = entry.run(code, facts)
            finally:
                facts._allowed = None
            if facts._unchanged:
                if holding and checked:  # (a group's members: held as the group, below)
                    _held_to_its_word(code, before, entry.name)
                return True
            now, counted = census(code, entry.name) if checked else (None, None)
            if now is None or now != before:
                facts.changed(code, entry.keeps)
                before = now if now is not None else before
            if counted is not None:
                facts.counted(counted)
            return False
        return True

    for entry in passes:
        if not isinstance(entry, Group):
            one(entry, True)
            if entry.name == stop:
                return code
            continue
        if entry.runs(build):
            untouched = True
            for member in entry.passes:
                untouched = one(member, False) and untouched
                if member.name == stop:
                    return unshared(code, member.name)
            if untouched and holding:
                _held_to_its_word(code, before, entry.name)
            elif not untouched:
                now, counted = census(code, entry.name)
                if now != before:
                    facts.changed(code, ())  # (the members dropped what they did not keep)
                    before = now
                facts.counted(counted)
        if entry.name == stop:
            return code
    return code


def _held_to_its_word(code, before, name):
    """A pass (or every pass of a group) said it changed nothing: an internal error if the code
    is not what it was (SRCAD_VERIFY)."""
    if census(code, name)[0] != before:
        raise AssertionError(f"srcad internal error: {name} said it changed nothing "
                             f"(facts.unchanged()) and changed the code")
