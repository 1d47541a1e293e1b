"""The compiler, pass by pass. Each pass is one module with one job:

    frontend/  parse -> aliases -> lift -> resolve -> statements -> fence -> desugar -> control -> anf -> [unroll]
               -> anf's versions -> mutation fence
    analysis/  activity -> (shape probe, [keep dtypes]) -> [invariance, singular points]
    modes/     forward | reverse
    optimize/  (forward: proportional tangents folded) -> simplify (constants, copies, dead
               code) -> [cancel factors -> sink broadcasts -> common factors -> simplify]
               -> sink signs -> in place -> [singular guards] -> [batch outer products]
               -> [strength reduction] -> [memory layout]
                                             (optimize/passes.py, run by optimize/manager.py)
    backend/   emit                                       ([...]: shape-specialized builds only)

`build(func, mode, wrt, kind)` runs them all and returns a Built (the generated module source
and what the runtime needs to know about it); `build(..., stage="anf")` stops after that stage
and returns the function's source at that point, for people reading what srcad does.
"""
import collections
import contextlib
import gc
import inspect
import os
import threading

import gast

from .analysis.activity import analyze
from .analysis.complexes import real_parts
from .analysis.invariance import inert_names
from .analysis.shapes import narrower_floats, probe
from .analysis.values import (attribute_reads, float_values_read, unread_values,
                              value_guards)
from .backend.emit import function_source, module_text
from .backend.files import write_module
from .errors import SrcadError
from .frontend.aliases import write_aliases
from .frontend.anf import anf, version
from .frontend.checkpoints import mark_checkpoints
from .frontend.control import lower_control
from .frontend.desugar import desugar
from .frontend.fence import check
from .frontend.keep_dtypes import keep_in_place_dtypes
from .frontend.lift import lift
from .frontend.mutation import (check_mutations, check_outside_iterators,
                               drop_number_update_checks)
from .frontend.parse import parse_function
from .frontend.resolve import assigned_names, LIBRARY_MODULES, resolve, Scope
from .frontend.slices import batch_slices
from .frontend.sizes import hoist_sizes
from .frontend.inline import inline_helpers
from .frontend.object_loops import methods_of_classes
from .frontend.starred import call_shape_parameters, check_spreads, spread_shapes
from .frontend.statements import Fresh, lower_statements
from .frontend.generators import list_generators, lower_generator
from .frontend.list_reads import absolute_list_reads
from .frontend.tries import check_tries, lift_tries
from .frontend.unroll import unroll_loops
from .modes.forward import Forward
from .modes.reverse import Reverse
from .modes.split import split_half
from .optimize.manager import Build, Facts, run_passes, unshared  # noqa: F401 (unshared:
# the check after every pass, for tests)
from .optimize.passes import PIPELINE, stages
from .optimize.singular import singular_names
from .rules.calls import CALLEE_KINDS, derivative_name
from .rules.registry import REGISTRY
from .runtime import HELPERS
from .syntax.naming import called_names, clone, Namer, Rename, walk
from .version import __version__

# The optimizations, in the order they run; each can be switched off by name (build's
# `disabled`, srcad.grad(f, disable=...), SRCAD_DISABLE=name,name or all). With all of them off
# the derivative is the plain template instantiation for any shapes: the reference that verify
# mode compares the optimized derivative with (api/verify.py). Each optimization is the module
# of its name in optimize/ unless a path says otherwise.
PASSES = (
    "specialize",      # code for the call's argument signature, not any shapes (analysis/shapes)
    "callees",         # callees' derivatives specialized to each call's arguments (api/callees)
    "float_gradient",  # the gradient wrt one float by forward mode (api/derivatives.runs)
    "unroll",          # short loops over ranges the signature fixes written out (frontend/unroll)
    "inline",          # small helpers of the caller's module written into it (frontend/inline)
    "slices",          # one elementwise function of adjacent slices: of their union (slices.py)
    "sizes",           # int arithmetic of sizes in a loop done once before it (frontend/sizes)
    "invariance",      # exactly-zero adjoints of shift-invariant values (analysis/invariance.py)
    "singular",        # strong-zero guards dropped where the output is inf or nan
    "guards",          # strong-zero guards dropped where no zero meets an inf (optimize/guards)
    "proportional",    # forward mode: tangents that scale another folded in
    "constants",       # numbers folded and propagated (optimize/simplify.py)
    "copies",          # copies propagated (optimize/simplify.py)
    "dead_code",       # unread pure statements dropped (optimize/simplify.py)
    "cancel",          # common factors of products and quotients cancelled (optimize/cancel.py)
    "broadcasts",      # spread adjoints left to numpy's broadcasting (optimize/broadcasts.py)
    "factor",          # common scalar factors of an adjoint's contributions (optimize/factor.py)
    "contract",        # sums of products of arrays as one np.einsum (optimize/contract.py)
    "diagonal",        # products with diagonal matrices as scalings (optimize/diagonal.py)
    "hoist",           # a loop's products of rows by one matrix made before it (hoist.py)
    "signs",           # negated contributions subtracted (optimize/signs.py)
    "inplace",         # accumulation in place into owned adjoint arrays (optimize/inplace.py)
    "tiles",           # zeros filled by slices that tile them made by one np.concatenate
    "turns",           # expressions of a loop's taped values made for all turns at once
    "outer",           # per-step outer products batched into matrix products (optimize/outer.py)
    "rank_one",        # outer products kept outer through matrix products (optimize/rank_one.py)
    "factorizations",  # one LU factorization per matrix for its solves, inverse, slogdet
    "strength",        # cheaper spellings of sums, means and dot products (optimize/strength.py)
    "layout",          # broadcast results with a short last axis made in Fortran order (layout.py)
)


def disabled_passes(disable):
    """The frozenset of pass names `disable` switches off: None (SRCAD_DISABLE's, or none),
    "all", a comma-separated string or a collection of names."""
    if disable is None:
        disable = os.environ.get("SRCAD_DISABLE", "")
    if isinstance(disable, str):
        disable = [part.strip() for part in disable.split(",") if part.strip()]
    names = set(disable)
    if "all" in names:
        return frozenset(PASSES)
    unknown = names - set(PASSES)
    if unknown:
        raise SrcadError(f"unknown optimization pass {', '.join(sorted(unknown))}: srcad's passes "
                         f"are {', '.join(PASSES)} (or all)")
    return frozenset(names)


# the optimizations improve() runs, in order, each a stage of its own (optimize/passes.py:
# proportional in forward mode; simplify is constants, copies and dead_code; resimplify:
# simplify again after cancel, broadcasts and factor). derivative: as the templates wrote it
IMPROVE_STAGES = stages()
STAGES = ("parse", "slices", "inline", "resolve", "check", "desugar", "unroll", "anf",
          "sizes", "invariance", "activity", "derivative", *IMPROVE_STAGES, "optimize", "emit")
KINDS = {"reverse": ("grad", "value_and_grad", "aux", "vjp", "vjp_aux", "adjoint", "record",
                     "backward"),
         "forward": ("jvp", "tangent", "grad")}
# the kinds that return f's value (or a callee's, to its caller): their values are f's, bit for
# bit (a pass may change how a derivative is summed, not how a value is)
VALUE_KINDS = ("value_and_grad", "aux", "vjp_aux", "record", "tangent")
# adjoint / tangent: the derivatives of callees, called from other generated code (see calls.py)
# forward grad: the gradient of a function of one float, its tangent seeded with 1.0 (forward.py)


class Built:
    """A generated derivative: its module source and the facts needed to call it."""

    FIELDS = ("source", "function_name", "user_globals", "user_cells", "wrt_names",
              "tangent_names", "filename", "lineno", "function_text", "header", "free_values",
              "sized_floats", "inlined", "called", "guards")

    def __init__(self, source, function_name, func, user_globals, user_cells, wrt_names,
                 tangent_names, filename, lineno, dependencies=(), function_text="", header="",
                 lifted=(), free_values=(), sized_floats=(), inlined=(), called=(),
                 guards=()):
        self.source = source
        self.header = header
        self.dependencies = dict(dependencies)  # name -> (callee, kind, wrt) (calls.py)
        self.function_text = function_text
        self.function_name = function_name
        self.func = func
        self.user_globals = sorted(user_globals)
        self.user_cells = sorted(user_cells)
        self.lifted = dict(lifted)  # nested functions, lifted (lift.py)
        self.wrt_names = wrt_names
        self.tangent_names = tangent_names
        self.filename = filename
        self.lineno = lineno
        # the example's int and bool arguments (positions, keyword names) whose values the
        # build did not read: it is correct for any values of them (analysis/values.py)
        self.free_values = sorted(free_values, key=str)
        # the example's float arguments whose values may decide a shape, an index or a loop's
        # length (analysis/values.py): the signature keys floats by type, so the API runs the
        # code for any shapes where there are some
        self.sized_floats = sorted(sized_floats, key=str)
        # the global names (or dotted paths) of the helpers written into the code
        # (frontend/inline.py) and of the library functions read under a name of the user's
        # (act = np.tanh; frontend/resolve.py): a call finds them the same objects, or builds
        # anew (api/cache.py)
        self.inlined = sorted(inlined)
        # the dotted paths from a global or closure name of the functions the code calls
        # (model.predict, mylib.model.predict): a callee's derivative bound here is watched
        # along them (another method there, another object's class: built anew, api/cache.py)
        self.called = sorted(called)
        # what code specialized to its arguments assumed of the free values it read: [path,
        # how, text] (analysis/values.py value_guards), checked at every call
        self.guards = [list(guard) for guard in guards]


class Outline:
    """What callers of a derivative need to know before it is built in full: its function's
    name and the names of its tangent parameters (forward mode). build(..., stage="outline")
    returns it after the passes that can refuse a function (the rest only rewrites code)."""

    def __init__(self, function_name, tangent_names):
        self.function_name = function_name
        self.tangent_names = list(tangent_names)

    @classmethod
    def of(cls, built):
        return cls(built.function_name, built.tangent_names)


def attached(func):
    """What srcad's callers attach to a function they build for, which its builds depend on: a
    call's shape (calls.with_call_shape), the functions a call passes (with_function_arguments),
    the classes of the objects a loop reads (object_loops)."""
    return (repr(getattr(func, "__srcad_call_shape__", None)),
            tuple(sorted((k, id(v)) for k, v in getattr(func, "__srcad_bindings__", {}).items())),
            tuple(sorted((k, id(v)) for k, v in getattr(func, "__srcad_classes__", {}).items())))


def target_function(func):
    """The Python function srcad reads for func: func itself if it is one (a functools.wraps
    wrapper is differentiated with what it computes, not as the function it wraps), else what
    it wraps (a srcad derivative: its generated function)."""
    return func if inspect.isfunction(func) else inspect.unwrap(func)


def parameter_names(fdef):
    args = fdef.args
    return [a.id for a in args.posonlyargs + args.args]


def wrt_names(fdef, wrt, info, kind=None):
    names = parameter_names(fdef)
    if kind in CALLEE_KINDS:  # callee derivatives: *args (one tuple) and keyword-only
        names = names + [a.id for a in [fdef.args.vararg] if a is not None] + [  # parameters
            a.id for a in fdef.args.kwonlyargs]  # count too (calls.positional_params)
    positions = wrt if isinstance(wrt, tuple) else (wrt,)
    out = []
    for position in positions:
        if not isinstance(position, int) or isinstance(position, bool):
            raise SrcadError(f"wrt must be an int or a tuple of ints (argument positions), "
                             f"got {position!r}")
        if not -len(names) <= position < len(names):
            raise info.error(None, f"wrt={position} is out of range: {info.lines[0].strip()} "
                                   f"takes {len(names)} positional parameters",
                             hint="pass the position of a named positional parameter")
        out.append(names[position])
    return out


def improve(derivative, mode, kind, builder, namer, shapes, kinds, floats, singular=None,
            disabled=frozenset(), stop=None):
    """The passes after the derivative is written (optimize/passes.py's PIPELINE, run by
    optimize/manager.py): in forward mode fold proportional tangents; optimize (constants,
    copies, dead code); in reverse mode sink signs and in place; and where the probe knows
    shapes, cancel factors, sink broadcasts, common factors (then optimize again), drop
    singular guards (singular: singular.singular_names, gradients only), batch outer products
    and reduce strength. What they may assume comes from the probe (floats: names bound to
    floats; kinds: which are arrays) and from the seed: a gradient's adjoints are all floats (a
    vjp's seed may be an int). Each pass's result is checked for nodes in two places
    (unshared). stop: the stage (IMPROVE_STAGES) to stop after, for srcad.source(f, stage=...)."""
    inexact = set(floats)
    # derivative names bound once to a number (a seed: bout = 1.0, dx = 1.0) are propagated
    derived = set(namer.adjoints.values()) | set(namer.tangents.values()) | getattr(
        builder, "temporaries", set())
    seeded = mode == "reverse" and kind in ("grad", "value_and_grad")
    if seeded:
        inexact |= set(namer.adjoints.values())
    arrays = {v for v, k in kinds.items() if k == "array"}
    float64 = {v for v, char in floats.items() if char == "d"}
    if mode == "reverse":  # an adjoint is shaped like its value (one of an array is an array)
        arrays |= {namer.adjoints[v] for v in arrays if v in namer.adjoints}
        float64 |= {namer.adjoints[v] for v in float64 if v in namer.adjoints} if (
            seeded and not narrower_floats(floats)) else set()  # (seeded with the weak 1.0)
    adjoint_of = {adjoint: var for var, adjoint in namer.adjoints.items()}

    def probed(name):  # the float dtype the probe saw (an adjoint's: its value's)
        return floats.get(name) or floats.get(adjoint_of.get(name)) or None
    facts = Facts(dict(
        derived=derived, inexact=inexact, arrays=arrays, float64=float64, probed=probed,
        shape_of=builder.shape_of_name if shapes and mode == "reverse" else None,
        shapes=shapes, shares=getattr(builder, "shares", None), fresh=namer.fresh,
        fresh_name=namer.fresh_name, new_shapes=getattr(builder, "local_shapes", None),
        tangents=set(namer.tangents.values()), seeded=seeded, singular=singular or {},
        returns_values=kind in VALUE_KINDS, callee=kind in CALLEE_KINDS))
    build = Build(mode, kind, shapes, disabled, singular)
    return run_passes(derivative, PIPELINE, build, facts, stop)


def build(func, mode="reverse", wrt=0, kind=None, stage=None, example=None,
          disabled=frozenset()):
    """Generate the derivative module. example=(args, kwargs): specialize it to the shapes these
    arguments give every value (see shapes.py); None: code for any shapes. disabled: the names
    of PASSES not to run."""
    try:
        with _collector_paused():
            return _build(func, mode, wrt, kind, stage, example, disabled)
    except RecursionError:  # (frontend/deep.py cuts deep expressions and refuses deep blocks:
        # this is the backstop; the shape probe's own errors never reach here)
        name = getattr(func, "__qualname__", repr(func))
        raise SrcadError(f"srcad ran out of Python's recursion limit compiling {name}: "
                         f"something in it is nested too deeply for srcad's compiler",
                         hint="assign parts of deeply nested expressions to variables, or "
                              "split the function") from None


# A build makes a few hundred thousand AST nodes (for a 1,000-line function) that live until it
# ends. Python's cyclic collector would walk them again and again: a young collection every
# 700 new containers and, as they pile up into the old generation, full collections over
# everything the process holds, finding nothing to free. The compiler makes no reference
# cycles per statement (a closure that calls itself is one: recursion is written as methods or
# module functions, so that reference counting frees what a pass drops the moment it drops
# it; tests/regressions/test_no_reference_cycles_per_statement.py), so the collector is paused
# while any build runs: the first build to start pauses it, the last to end resumes it (if it
# was running before and nobody resumed it meanwhile). The few cycles a build makes (the shape
# probe's records) are collected after it. A 1,000-statement build left ~600,000 objects in
# cycles and spent ~0.6 s of its 3.4 s collecting; with the cycles gone and the collector's
# young threshold raised, ~0.07 s; paused, none (3,000 statements: 0.6 s of 9 s, then none).
_COLLECTIONS = threading.Lock()
_BUILDING = [0, False]  # builds running, whether the collector ran before the first


@contextlib.contextmanager
def _collector_paused():
    with _COLLECTIONS:
        if _BUILDING[0] == 0:
            _BUILDING[1] = gc.isenabled()
            gc.disable()
        _BUILDING[0] += 1
    try:
        yield
    finally:
        with _COLLECTIONS:
            _BUILDING[0] -= 1
            if _BUILDING[0] == 0 and _BUILDING[1]:
                gc.enable()


class Front:
    """What the frontend makes of a function (its stages up to ANF), which no argument's shape
    or value changes: the first call's specialized build takes a copy of what srcad.grad(f)'s
    outline made, instead of parsing, inlining, resolving and lowering f again."""

    def __init__(self, fdef, info, scope, inlined, names, namer, called, read=None):
        self.fdef, self.info, self.scope = fdef, info, scope
        self.inlined, self.names, self.namer = inlined, names, namer
        self.called = called  # (Built.called)
        self.read = self.values_read() if read is None else read

    def values_read(self):
        """The objects the free names the frontend resolved (and the helpers it wrote in)
        denote now: another value there (a helper defined again) means building anew."""
        out = {}
        for name in sorted(self.scope.user_globals | self.scope.user_cells | self.inlined):
            try:
                out[name] = self.scope.free_value(name)[1]
            except ValueError:  # (a closure cell emptied since: never the same again)
                out[name] = object()
        return out

    def current(self):
        now = self.values_read()
        return now.keys() == self.read.keys() and all(
            now[name] is value for name, value in self.read.items())

    def copy(self):
        """A copy later stages may change (the tree, the scope's sets, the namer's names)."""
        return Front(clone(self.fdef), self.info, self.scope.copy(), set(self.inlined),
                     list(self.names), self.namer.copy(), self.called, self.read)


_FRONTS = collections.OrderedDict()  # (func, kind, wrt, registry version, inline?) -> Front
_FRONTS_KEPT = 8  # (a function's outline and first build come one after the other)
_FRONTS_LOCK = threading.Lock()
_EARLY = ("parse", "slices", "inline", "resolve", "check", "desugar")  # stages _front returns the text of


def _front(func, kind, wrt, stage, disabled):
    """The Front of func (a copy of the one kept, when a build made it before), or the source
    at an early stage."""
    if stage in _EARLY:
        return _frontend(func, kind, wrt, stage, disabled)
    key = (func, kind, wrt, REGISTRY.version, "inline" in disabled, "slices" in disabled,
           attached(func))
    with _FRONTS_LOCK:
        kept = _FRONTS.get(key)
        if kept is not None:
            _FRONTS.move_to_end(key)
    if kept is None or not kept.current():
        kept = _frontend(func, kind, wrt, stage, disabled)
        with _FRONTS_LOCK:
            _FRONTS[key] = kept
            while len(_FRONTS) > _FRONTS_KEPT:
                _FRONTS.popitem(last=False)
    return kept.copy()


def forget_fronts():
    with _FRONTS_LOCK:
        _FRONTS.clear()


def _frontend(func, kind, wrt, stage, disabled):
    fdef, info = parse_function(func)
    if stage == "parse":
        return function_source(fdef)
    if hasattr(func, "__srcad_call_shape__"):  # def h(x, *args, **kw) built for one call's
        fdef = call_shape_parameters(fdef, func, info)  # shape (calls.with_call_shape)
    if kind in CALLEE_KINDS and inspect.isgeneratorfunction(func):  # (a helper that yields:
        fdef = lower_generator(fdef, info)  # it returns the list of what it yields)
    fdef = write_aliases(fdef)  # (act = np.tanh; act(x): np.tanh(x))
    tries = lift_tries(fdef, info)  # (each try: a nested function, lifted next)
    lifted = lift(fdef, func, info, assigned_names(fdef), write_module)
    for ident in tries:  # (its results are constants: check_tries, once activity is known)
        lifted[ident].__srcad_try__ = True
    if "slices" not in disabled:  # (i = sigmoid(g[:H]); f = sigmoid(g[H:2 * H]): one call)
        fdef = batch_slices(fdef, func, REGISTRY.knows)
    if stage == "slices":
        return function_source(fdef)
    inlined = set()
    if "inline" not in disabled:
        # small helpers of the module, and the nested functions lifted above (not a try's):
        # their derivatives built with the caller's, specialized; resolved next
        helpers = Scope(func, assigned_names(fdef))
        helpers.injected = {ident: function for ident, function in lifted.items()
                            if not getattr(function, "__srcad_try__", False)}
        fdef = inline_helpers(fdef, func, helpers, REGISTRY.knows, inlined)
    if stage == "inline":
        return function_source(fdef)
    scope = resolve(fdef, func, info, lifted)
    inlined |= scope.resolved  # (act = np.tanh, read as np.tanh: watched as a helper written in)
    for param, value in getattr(func, "__srcad_bindings__", {}).items():  # functions a call
        scope.local_names.discard(param)  # passes this callee (calls.with_function_arguments)
        scope.injected[param] = value
    if not hasattr(func, "__srcad_sync__"):  # (srcad's own code takes no outside items)
        check_outside_iterators(fdef, scope, info)  # (next(batches): once per run)
    if stage == "resolve":
        return function_source(fdef)
    free = scope.user_globals | scope.user_cells  # (what the code calls through a free name's
    called = sorted(path for path in called_names(fdef)  # attributes, before methods are
                    if "." in path and path.split(".")[0] in free)  # functions: Built.called)
    if hasattr(func, "__srcad_classes__"):  # a method of an object read from a list: its
        fdef = methods_of_classes(fdef, func, scope)  # self's class is known (object_loops)
    fdef = mark_checkpoints(fdef, scope, info)  # (for t in srcad.checkpoint(...): a mark)
    fdef = lower_statements(fdef, scope)  # (comprehensions as loops: new local names)
    fdef = list_generators(fdef, scope, info)  # (h(...) of a generator h: list(h(...)))
    scope.local_names |= {n.id for n in walk(fdef) if isinstance(n, gast.Name)
                          and isinstance(n.ctx, gast.Store)}
    fdef = _rename_helper_names(fdef, scope)  # (a local called logistic or masked)
    fdef = absolute_list_reads(fdef)  # (xs.append(step(xs[-1])): xs[len(xs) - 1])
    fdef = spread_shapes(fdef, scope)  # (rs.randn(*x.shape): left as written)
    check(fdef, info)
    if stage == "check":
        return function_source(fdef)
    names = wrt_names(fdef, wrt, info, kind)
    taken = {n.id for n in walk(fdef) if isinstance(n, gast.Name)}
    namer = Namer(taken | set(HELPERS) | {a.split(".")[0] for a in LIBRARY_MODULES.values()}
                  | {"__srcad_comment__", "slice"})
    fdef = desugar(fdef, scope.local_names, namer.fresh, scope)
    fdef = lower_control(fdef, namer.fresh, info)
    if stage == "desugar":
        return function_source(fdef)
    fdef = anf(fdef, namer.fresh, namer.fresh_name)
    return Front(fdef, info, scope, inlined, names, namer, called)


def _rename_helper_names(fdef, scope):
    """fdef with each local variable named like a runtime helper (logistic, masked, triangle)
    renamed fresh (logistic_1): the derivative calls the helpers by their names, and a local
    of the same name hid the helper (the generated code called the local's array). A parameter
    named so keeps its name in the signature (it is one of the derivative's keywords) and the
    body reads a copy of it (logistic_1 = logistic). A free name so named that is not the
    helper (a function of the user's module called logistic) is read under a fresh name for
    the build (scope.aliases; its own name again in the code written, _own_names). A call of
    `logistic` in the derivative is then the helper's, and where the user's name hides it,
    refused (_own_names, _hidden_by_parameters)."""
    params = set(parameter_names(fdef)) | {a.id for a in fdef.args.kwonlyargs}
    clashing = sorted((scope.local_names & HELPERS.keys()) - params)
    hiding = sorted(params & HELPERS.keys())
    free = sorted(name for name in (scope.user_globals | scope.user_cells) & HELPERS.keys()
                  if scope.free_value(name)[1] is not HELPERS[name])
    if not clashing and not hiding and not free:
        return fdef
    fresh = Fresh(fdef)
    fresh.taken |= set(HELPERS)
    mapping = {old: fresh(old) for old in clashing + hiding + free}
    scope.local_names = (scope.local_names - set(clashing)) | {
        mapping[n] for n in clashing + hiding}
    for name in free:  # (with the user's first read of it, for an error there)
        scope.injected[mapping[name]] = scope.free_value(name)[1]
        scope.aliases[mapping[name]] = name, next(
            (n for n in walk(fdef) if isinstance(n, gast.Name) and n.id == name), None)
    scope.copies.update((p, mapping[p]) for p in hiding)
    renamer = Rename(mapping)
    copies = [gast.copy_location(gast.Assign(
        targets=[gast.Name(id=mapping[p], ctx=gast.Store(), annotation=None, type_comment=None)],
        value=gast.Name(id=p, ctx=gast.Load(), annotation=None, type_comment=None),
        type_comment=None), fdef) for p in hiding]
    fdef.body = copies + [renamer.visit(stmt) for stmt in fdef.body]
    return fdef


def _hidden_by_parameters(derivative, scope, info, before=None):
    """Refuse a derivative that calls a runtime helper a parameter of f is named after: in
    the generated function the name is the parameter, and the call would call the argument
    (a function passed as `logistic` computing np.logaddexp's slopes: a wrong number). As the
    templates wrote it, the body calls the parameter by its copy, so a call by the name is the
    helper's; after the passes, which may have read the copy as the parameter again, a call
    more than `before` (these counts then) is one a pass wrote. Returns the counts of calls by
    the name or the copy."""
    if not scope.copies:
        return None
    params = {a.id: a for a in derivative.args.args + derivative.args.kwonlyargs
              if isinstance(a, gast.Name) and a.id in scope.copies}
    counts = dict.fromkeys(params, 0)
    names = {copy: p for p, copy in scope.copies.items()}
    for node in walk(derivative):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
            name = node.func.id
            if name in params and before is None:
                raise _hiding_error(info, params[name], name, "parameter")
            if name in params or name in names:
                counts[names.get(name, name)] += 1
    for name, count in counts.items():
        if before is not None and count > before.get(name, 0):
            raise _hiding_error(info, params[name], name, "parameter")
    return counts


def _own_names(derivative, scope, info):
    """The derivative with each free name the build read under an alias (scope.aliases)
    under its own name again, where the derivative reads no runtime helper of that name; else
    a SrcadError at the user's first read of it: the generated code would call the user's
    function for the helper (both are bound by that name where it runs)."""
    if not scope.aliases:
        return derivative
    own = {name: alias for alias, (name, _) in scope.aliases.items()}
    for node in walk(derivative):
        if isinstance(node, gast.Name) and node.id in own:
            alias = own[node.id]
            raise _hiding_error(info, scope.aliases[alias][1], node.id,
                                "name of the function's module")
    return Rename({alias: own for alias, (own, _) in scope.aliases.items()}).visit(derivative)


def _hiding_error(info, node, name, what):
    return info.error(node, f"`{name}`, a {what}, has the name of one of srcad's runtime "
                      f"helpers, which this derivative calls: in the generated code `{name}` "
                      f"would be yours, not the helper", hint=f"rename it (for example "
                      f"`{name}_`, or import it under another name)")


def _build(func, mode, wrt, kind, stage, example, disabled):
    if mode not in KINDS:
        raise SrcadError(f"mode must be 'reverse' or 'forward', got {mode!r}")
    kind = kind or KINDS[mode][0]
    if kind not in KINDS[mode]:
        raise SrcadError(f"kind {kind!r} does not exist in {mode} mode; {mode} mode makes "
                         f"{', '.join(repr(k) for k in KINDS[mode])}")
    if stage is not None and stage not in STAGES and stage != "outline":  # (outline: internal)
        raise SrcadError(f"stage must be one of {', '.join(STAGES)}, got {stage!r}")
    func = target_function(func)
    front = _front(func, kind, wrt, stage, disabled)
    if isinstance(front, str):  # (a stage before anf's end: its source)
        return front
    fdef, info, scope, inlined, names, namer = (
        front.fdef, front.info, front.scope, front.inlined, front.names, front.namer)
    unrolled_by = set()  # the int parameters whose values decided an unrolled loop's turns
    if example is not None and "unroll" not in disabled:  # short loops over the signature's
        unroll_loops(fdef, *example, read=unrolled_by)  # ranges written out (the code is keyed
        # by that signature), then versioned like the rest
    if stage == "unroll":
        return function_source(fdef)
    fdef = version(fdef, parameter_names(fdef) + [a.id for a in fdef.args.kwonlyargs],
                   namer.fresh)
    if stage == "anf":
        return function_source(fdef)
    if "sizes" not in disabled:  # (t13 = 2 * H in a loop: bound once, before it)
        fdef = hoist_sizes(fdef)
    if stage == "sizes":
        return function_source(fdef)
    shares = check_mutations(fdef, scope, info, parameter_names(fdef) + [
        a.id for a in fdef.args.kwonlyargs])
    scope.local_names |= {n.id for n in walk(fdef) if isinstance(n, gast.Name)
                          and isinstance(n.ctx, gast.Store)}
    forward = mode == "forward"  # (a store's tangent: see analyze's stores_useful)
    activity = analyze(fdef.body, names, scope, stores_useful=forward)
    check_tries(fdef, scope, activity, info)
    check_spreads(fdef, activity, info)
    shapes, kinds, floats, numpy_scalars = probe(fdef, func, scope, *example) if (
        example is not None) else ({}, {}, {}, set())
    if shapes and keep_in_place_dtypes(fdef, kinds, floats, namer.fresh):
        activity = analyze(fdef.body, names, scope, stores_useful=forward)  # (new temporaries,
        shapes, kinds, floats, numpy_scalars = probe(fdef, func, scope, *example)  # (and the
        # casts' dtypes)
    if kinds:  # (a number's += makes a new one: no storage to share)
        drop_number_update_checks(fdef.body, kinds)
    free_values = unread_values(fdef, *example, names, kinds, floats, read=unrolled_by) if (
        example is not None) else ()  # (the probe's facts are final here)
    free = {name: scope.free_value(name) for name in scope.user_globals | scope.user_cells
            if name not in scope.local_names}
    found_free = {name: value for name, (found, value) in free.items() if found}
    sized_floats = float_values_read(fdef, *example, shapes=shapes, free=found_free) if (
        example is not None) else ()
    guards = value_guards(fdef, kinds, floats, found_free, attribute_reads(
        fdef, found_free)) if example is not None else ()  # (what the code assumed of them)
    real_values = real_parts(fdef, scope, activity, floats, bool(shapes), info, names) if (
        stage != "outline") else set()  # (complex values: where they may go, and the real
    # ones whose adjoints take the real part; the outline, which checks f, builds for any)
    inert = inert_names(fdef, shapes, floats) if (  # values the output does not depend on:
        mode == "reverse" and shapes and "invariance" not in disabled) else set()  # constants
    activity.useful -= inert
    if stage == "invariance":
        return function_source(fdef) + f"# not differentiated: {', '.join(sorted(inert))}\n"
    singular = singular_names(fdef, shapes, kinds, floats, numpy_scalars) if (
        mode == "reverse" and kind in ("grad", "value_and_grad")
        and "singular" not in disabled) else {}
    if stage == "activity":
        active = sorted(v for v in activity.varied if activity(v))
        return function_source(fdef) + f"# active: {', '.join(active)}\n"
    primal_name = fdef.name
    wanted = derivative_name(func, kind, tuple(wrt) if isinstance(wrt, tuple) else (wrt,)) if (
        kind in CALLEE_KINDS) else f"{primal_name}_{kind}"
    fdef.name = namer.fresh(wanted) if wanted in namer.taken else wanted  # (not a helper's)
    builder = (Reverse if mode == "reverse" else Forward)(fdef, scope, info, namer, activity,
                                                          names, kind, shapes, kinds,
                                                          floats)
    builder.shares = shares  # names that may share storage (views): mutation.py
    builder.real_parts = real_values  # (analysis/complexes.py)
    builder.strong_zeros = stage != "outline"  # (the outline's code is not run: no products
    # to make strong, modes/strong_zeros.py)
    derivative = builder.build()
    calls = _hidden_by_parameters(derivative, scope, info)
    if stage == "derivative":
        return function_source(derivative)
    if stage == "outline":  # what a caller needs before the rest (and every error is raised)
        return Outline(derivative.name, [namer.tangent(n) for n in names] if (
            mode == "forward") else [])
    derivative = improve(derivative, mode, kind, builder, namer, shapes, kinds, floats,
                         singular, disabled, stop=stage if stage in IMPROVE_STAGES else None)
    _hidden_by_parameters(derivative, scope, info, before=calls)
    if stage in IMPROVE_STAGES:
        return function_source(derivative)
    if kind in ("record", "backward"):  # one half of the callee's adjoint (calls.py)
        derivative = split_half(derivative, kind, namer)
    derivative = _own_names(derivative, scope, info)
    if stage == "optimize":
        return function_source(derivative)
    shortname = info.filename.replace("\\", "/").rsplit("/", 1)[-1]
    what = {"grad": "gradient", "value_and_grad": "value and gradient",
            "aux": "value (with its auxiliary output) and gradient",
            "vjp_aux": "value (with its auxiliary output) and vector-Jacobian product",
            "vjp": "vector-Jacobian product", "jvp": "Jacobian-vector product",
            "adjoint": "adjoint (seed first)", "tangent": "value and tangent (tangents first)",
            "record": "value and tape for the adjoint",
            "backward": "adjoint from the tape (seed and tape first)"}[kind]
    derivative.body.insert(0, gast.Expr(value=gast.Constant(
        value=f"{what[0].upper()}{what[1:]} of {primal_name} ({shortname}:{info.first_line}) with "
              f"respect to {', '.join(names)}.", kind=None)))
    header = (f"Generated by srcad {__version__}: {mode} mode ({kind}) of {primal_name}, "
              f"with respect to {', '.join(names)}.\n\nSource: {shortname}:{info.first_line}. "
              f"Regenerate it rather than edit it.")
    tangents = [namer.tangent(n) for n in names] if mode == "forward" else []
    text = function_source(derivative)
    source = module_text([text], header)
    return Built(source, derivative.name, func, scope.user_globals, scope.user_cells, names,
                 tangents, info.filename, info.first_line, builder.dependencies.entries, text,
                 header, scope.injected, free_values, sized_floats, inlined, front.called,
                 guards)
