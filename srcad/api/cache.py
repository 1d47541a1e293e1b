"""Compile generated modules from real files and cache them.

Builds are cached in memory by (the function's code, its globals and closure cells, options):
redefining a function or changing an option rebuilds, asking twice does not. The module source is
written to a file in a directory private to this user (files.py: SRCAD_CACHE_DIR, the per-user
cache directory or a private temporary one) and compiled from its text under that file's name, so
tracebacks, pdb and inspect.getsource show the generated lines; linecache holds the text, so the
file is never read back.

The generated function reads the user's globals and closure variables by name from its own
namespace; `Instance.sync` copies their current values in before each call, so a global weight
matrix that is reassigned between calls is always read fresh (no stale values, no wrong numbers).

Threads: the tables are read and written under _LOCK, and one thread builds what several ask for
at once (_once: the others wait for its result, and build it themselves if it raised).
"""
import collections
import operator
import threading
import types

import numpy as np

from .. import runtime
from ..analysis.values import free_value, guard_text
from . import diskcache
from ..backend.files import cache_dir, compile_module, module_stem, restore  # noqa: F401 (API)
from ..pipeline import attached, build, forget_fronts, Outline, target_function
from ..rules.calls import mode_of_kind
from ..rules.registry import REGISTRY

_BUILDS = collections.OrderedDict()
_MAX_BUILDS = 1024
_LOCK = threading.Lock()
_FLIGHTS = {}  # (table, key) -> (thread id, Event) of a build under way (_once)
_LOCAL = threading.local()  # .in_progress: the Instances this thread is binding (Instance)


def _in_progress():
    """{(func, kind, wrt): (namespace, function name)} of the Instances this thread is binding
    the callees of (a callee that calls back finds its caller here: mutual recursion). Per
    thread: another thread's half-bound Instance is not one to call."""
    table = getattr(_LOCAL, "in_progress", None)
    if table is None:
        table = _LOCAL.in_progress = {}
    return table


def _late(namespace, name):
    def call(*args, **kwargs):
        return namespace[name](*args, **kwargs)
    return call


class Compiled:
    """A built derivative compiled to a code object, ready to be instantiated per function."""

    def __init__(self, built, kind, wrt, disabled=frozenset()):
        self.built = built
        self.kind = kind
        self.wrt = wrt
        self.disabled = disabled  # the passes it was built without (its callees likewise)
        self.path, self.code, self.helpers = compile_module(
            built.source, module_stem(built.func, built.function_name))  # (helpers: defined
        # by the module's text, not compiled: bound to the runtime's when it runs)


class Stale(Exception):
    """A function a generated derivative calls was redefined since the derivative was bound
    (mod.helper = new, a notebook cell run again): every derivative is built again
    (api.Derivative catches it and rebuilds), never the old callee's derivative with the new
    callee's values."""


def forget_all():
    """Drop every build (after a callee was redefined: see Stale)."""
    with _LOCK:
        _BUILDS.clear()
        _OUTLINES.clear()
    forget_fronts()


def _key(func, mode, kind, wrt, signature, disabled=frozenset()):
    cells = tuple(id(c) for c in func.__closure__ or ())
    return (func.__code__, id(func.__globals__), cells, attached(func), mode, kind, wrt,
            signature, REGISTRY.version, disabled)


_OUTLINES = collections.OrderedDict()


def _once(table, key, func, make):
    """table[key]'s value, made by make() and kept (with func, whose ids the key holds) if it
    is not there. One thread makes it; others asking for it meanwhile wait for it (if make
    raises, each of them tries in turn, so each gets the error). Nothing is locked while make
    runs (it runs the user's function to probe shapes)."""
    flight_key = (id(table), key)
    me = threading.get_ident()
    while True:
        with _LOCK:
            entry = table.get(key)
            if entry is not None:
                table.move_to_end(key)
                return entry[1]
            flight = _FLIGHTS.get(flight_key)
            if flight is None or flight[0] == me:  # (the same thread again: make it)
                flight = _FLIGHTS[flight_key] = (me, threading.Event())
                break
        flight[1].wait()
    try:
        restore(target_function(func))  # a generated function's text, if linecache lost it
        result = make()
        with _LOCK:
            table[key] = (func, result)
            while len(table) > _MAX_BUILDS:
                table.popitem(last=False)
        return result
    finally:
        with _LOCK:
            if _FLIGHTS.get(flight_key) is flight:
                del _FLIGHTS[flight_key]
        flight[1].set()


def outline(func, mode, kind, wrt):
    """The Outline of the generic derivative (pipeline.Outline), raising what its build would
    raise, without building it in full when it is not at hand: most calls run code specialized
    to their arguments, so the generic build is often never needed (it is built on first use)."""
    key = _key(func, mode, kind, wrt, None)
    with _LOCK:
        entry = _BUILDS.get(key)
        if entry is None:
            entry = _OUTLINES.get(key)
            if entry is not None:
                return entry[1]
        else:
            return Outline.of(entry[1].built)
    if diskcache.enabled():  # a warm disk cache has it for the price of reading it
        return Outline.of(compiled(func, mode, kind, wrt).built)
    return _once(_OUTLINES, key, func, lambda: build(func, mode, wrt, kind, stage="outline"))


def compiled(func, mode, kind, wrt, example=None, signature=None, disabled=frozenset()):
    """The compiled derivative (cached). With example=(args, kwargs) and their signature: the
    build specialized to the shapes those arguments give (see shapes.py). disabled: the
    optimization passes not to run (pipeline.PASSES)."""
    key = _key(func, mode, kind, wrt, signature, disabled)
    with _LOCK:
        entry = _BUILDS.get(key)
        if entry is not None:
            _BUILDS.move_to_end(key)
            return entry[1]

    def make():
        digest = diskcache.key(func, mode, kind, wrt, (signature, sorted(disabled))) if (
            diskcache.enabled()) else None
        built = diskcache.load(digest, func) if digest else None
        if built is None:
            built = build(func, mode, wrt, kind, example=example, disabled=disabled)
            if digest:
                diskcache.store(digest, built)
        return Compiled(built, kind, wrt, disabled)
    return _once(_BUILDS, key, func, make)


def _own_defaults(function, func):
    """The generated function's defaults are func's values (resolve wrote the ones that are not
    numbers or strings as None): its last positional parameters and keyword-only ones are
    func's."""
    defaults = getattr(func, "__defaults__", None)
    if defaults and len(function.__defaults__ or ()) == len(defaults):
        function.__defaults__ = defaults
    kw = getattr(func, "__kwdefaults__", None)
    if kw and function.__kwdefaults__:
        function.__kwdefaults__ = {**function.__kwdefaults__, **{
            k: v for k, v in kw.items() if k in function.__kwdefaults__}}


class Instance:
    """The generated function bound to one user function's globals and closure. callee(func,
    mode, kind, wrt, disabled) gives the derivative of a callee (with .generated and .sync):
    the API's, so that each callee's derivative is made once (cache sits below the API)."""

    def __init__(self, comp, func, callee, specialize=None):
        built = comp.built
        self.compiled = comp
        namespace = {"__name__": f"srcad_generated.{built.function_name}",
                     "__file__": comp.path}
        exec(comp.code, namespace)
        for helper in runtime.HELPERS:  # the runtime's own objects, so templates find them
            if helper in namespace or helper in comp.helpers:
                namespace[helper] = runtime.HELPERS[helper]
        namespace.update(built.lifted)  # nested functions of func, lifted to functions
        self.namespace = namespace
        self.function = namespace[built.function_name]
        _own_defaults(self.function, func)
        key = (func, comp.kind, comp.wrt)
        if specialize is not None:  # (code specialized to its arguments: no callee binds it)
            dependency_syncs = self._bind_dependencies(comp, namespace, key, callee, specialize)
        else:
            in_progress = _in_progress()
            in_progress[key] = namespace, built.function_name
            try:
                dependency_syncs = self._bind_dependencies(comp, namespace, key, callee)
            finally:
                in_progress.pop(key, None)
        inlined = tuple(_inlined_watches(func, built.inlined))  # (helpers written in: the
        # same ones)
        self.function.__srcad_sync__ = self._make_sync(func, built, namespace, dependency_syncs,
                                                       self._watched(func, built) + inlined)
        self.sync = self.function.__srcad_sync__
        if self.sync is not None:  # bound now too, so the generated code can be read by srcad
            self.sync()

    @staticmethod
    def _bind_dependencies(comp, namespace, own_key, callee, specialize=None):
        """Bind the derivative functions of callees (generated once each, cached). In code
        specialized to its arguments, specialize(func, kind, wrt, disabled) gives (function,
        sync) for a callee's derivative specialized to each call's arguments (api/callees.py),
        or None where it stays generic (recursion included: another call, other shapes)."""
        built = comp.built
        syncs = []
        for dep_name, key in built.dependencies.items():
            dep_func, dep_kind, wrt = key
            found = specialize(dep_func, dep_kind, wrt, comp.disabled) if (
                specialize is not None) else None
            if found is not None:
                namespace[dep_name], sync = found
                if all(sync is not s for s in syncs):  # (a record's and backward's: one)
                    syncs.append(sync)
                continue
            if key == own_key and specialize is None:
                namespace[dep_name] = namespace[built.function_name]
                continue
            other = _in_progress().get(key)
            if other is not None:  # mutual recursion: look the function up when called
                other, other_name = other
                namespace[dep_name] = _late(other, other_name)
                continue
            mode = mode_of_kind(dep_kind)
            dep = callee(dep_func, mode, dep_kind, wrt, comp.disabled)
            namespace[dep_name] = dep.generated
            if dep.sync is not None:
                syncs.append(dep.sync)
        return syncs

    @staticmethod
    def _watched(func, built):
        """(name, path, callee) for each callee whose derivative is bound here, as the generated
        code reaches it from a global or closure variable: the value itself (path ()), an
        attribute of a module it holds (mod.helper), the function of a bound method it holds
        (step = model.apply; mod.shuffle) and that method's object, the __call__ of its
        object's class (a callable object), or along a path the code calls (Built.called:
        model.predict, mylib.model.predict), the function there or the function of the method
        there and that method's object: a redefinition, or another object bound there (of
        another class), is seen at the next call."""
        callees = {id(key[0]): key[0] for key in built.dependencies.values()}
        if not callees:
            return ()
        cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
        called = {}  # name -> the attribute paths the code calls from it
        for path in built.called:
            root, *rest = path.split(".")
            called.setdefault(root, []).append(tuple(rest))
        out = []
        for name in list(built.user_globals) + list(built.user_cells):
            try:
                value = cells[name].cell_contents if name in cells else func.__globals__[name]
            except (KeyError, ValueError):
                continue
            module = isinstance(value, types.ModuleType)
            reached = [step for rest in called.get(name, ()) for step in (rest, rest + (
                "__func__",))]
            for callee in callees.values():
                paths = ((callee.__name__,), (callee.__name__, "__func__")) if module else (
                    (), ("__func__",), (_CLASS_CALL,))
                for path in paths + tuple(reached):
                    if _is_callee(_followed(value, path), path, callee):
                        out.append((name, path, callee))
                        if path[-1:] == ("__func__",):  # (the bound method's object, which
                            held = path[:-1] + ("__self__",)  # the code holds as a constant:
                            out.append((name, held, _followed(value, held)))  # the same one)
                        break
        return tuple(out)

    @staticmethod
    def _make_sync(func, built, namespace, dependency_syncs=(), watched=()):
        upstream = getattr(func, "__srcad_sync__", None)
        user_globals = func.__globals__
        cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
        # (the helpers written in are watched, not bound: the code does not call them, and a
        # name the generated code reads may be a runtime helper's: a helper of the user's
        # called logistic, written in, must not hide the runtime's logistic)
        global_names = tuple(built.user_globals)
        cell_items = tuple((name, cells[name]) for name in built.user_cells)
        bound = set(global_names) | set(built.user_cells)
        guards = tuple((root, tuple(rest), how, text) for path, how, text in built.guards
                       for root, *rest in [path.split(".")])
        checked = [None] * len(guards)  # (per guard: the value it last held, and its shape)
        # func's defaults, which the generated function took (_own_defaults) and the probe ran
        # with where a call leaves them out: others bound since (f.__defaults__ = ...) build anew;
        # and the code of func and of each function watched, which a reload may replace in the
        # same function object (IPython's autoreload sets __code__): another code builds anew.
        # (Checked where there is a sync: code that reads nothing of the user's runs without
        # one, a call of its own, and does not see f's code or defaults replaced in place.)
        defaults = getattr(func, "__defaults__", None), getattr(func, "__kwdefaults__", None)
        code = getattr(func, "__code__", None)
        watched = tuple((name, path, callee, getattr(callee, "__code__", None))
                        for name, path, callee in watched)
        if upstream is None and not global_names and not cell_items and not dependency_syncs and (
                not watched) and not guards:
            return None

        def sync():
            if upstream is not None:
                upstream()
            for dependency in dependency_syncs:
                dependency()
            for name in global_names:
                if name in user_globals:
                    namespace[name] = user_globals[name]
            for name, cell in cell_items:
                namespace[name] = cell.cell_contents
            for name, path, callee, callee_code in watched:  # (a few identity tests)
                value = namespace.get(name) if name in bound else free_value(
                    name, cells, user_globals)
                found = _followed(value, path)
                if not _is_callee(found, path, callee) or getattr(
                        found, "__code__", None) is not callee_code:
                    shown = "".join(f".{p}" for p in path if p is not _CLASS_CALL)
                    raise Stale(f"{name}{shown} is no longer "
                                f"{getattr(callee, '__qualname__', 'the object it was')}")
            if getattr(func, "__defaults__", None) is not defaults[0] or getattr(
                    func, "__kwdefaults__", None) is not defaults[1] or getattr(
                    func, "__code__", None) is not code:
                raise Stale(f"{func.__qualname__}'s code or defaults are no longer those it "
                            f"was built with")
            for i, (name, path, how, text) in enumerate(guards):
                value = namespace.get(name) if name in bound else free_value(
                    name, cells, user_globals)
                if path:
                    value = _followed(value, path)
                last = checked[i]  # (the same objects as at the last call: as good as then)
                if last is not None and last[0] is value and (last[1] is None or (
                        value.shape == last[1] and value.dtype is last[2] if type(
                            value) is np.ndarray else _same(value, last))):
                    continue
                if guard_text(value, how) != text:
                    raise Stale(f"{name}{''.join(f'.{p}' for p in path)} is no longer what "
                                f"the code was specialized to ({text})")
                checked[i] = _held(value)
        return sync


_CLASS_CALL = object()  # (a step of a watched path: the __call__ of the value's class)


def _inlined_watches(func, inlined):
    """(name, path, helper) for each helper written into func's derivative, as func reaches it
    from a closure variable or a global (a closure variable first, as Python looks names up):
    the name itself (rhs) or a dotted path from a module it holds (mylib.rhs)."""
    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    for entry in inlined:
        root, *path = entry.split(".")
        if root in cells or root in func.__globals__:
            yield root, tuple(path), _followed(free_value(root, cells, func.__globals__),
                                               tuple(path))


_FLAT = (int, float, bool, complex, str, type(None))  # (values that do not change in place)


def _held(value):
    """What a guarded value is made of, to tell at a later call whether it is the same (_same):
    the object; for an array, its shape and dtype (changed in place, they change); for a list
    or dict, its keys and its items, each a number, a string or an array (whose shape and dtype
    are kept too). None (looked at in full every time): a list or dict holding anything else,
    or over 64 items."""
    kind = type(value)
    if kind is np.ndarray:
        return value, value.shape, value.dtype
    if kind is not dict and kind is not list:
        return value, None, None
    items = tuple(value.values()) if kind is dict else tuple(value)
    if len(items) > 64 or not all(type(item) in _FLAT or type(item) is np.ndarray
                                  for item in items):
        return None
    return value, tuple(value) if kind is dict else (), items, tuple(
        (item.shape, item.dtype) for item in items if type(item) is np.ndarray)


def _same(value, last):
    """Whether a list or dict, the object last (_held) was made of, is as it was then (an
    array's shape and dtype, the sync compares itself)."""
    kind = type(value)
    items = last[2]
    return len(value) == len(items) and all(map(operator.is_, value.values() if (
        kind is dict) else value, items)) and (kind is list or tuple(value) == last[1]) and (
        not last[3] or tuple((item.shape, item.dtype) for item in items
                             if type(item) is np.ndarray) == last[3])


def _is_callee(found, path, callee):
    """Whether found, at the end of a watched path, is still the callee: itself; or, for a
    method (found through an object or a bound method: the path's last step), a function of the
    same code and closure cells, since the callee bound is a copy of the method that knows its
    object (rules/calls.py). (A function of a module or a global must be the callee itself: a
    factory's closures share their code and differ in their cells.)"""
    if found is callee:
        return True
    return bool(path) and path[-1] in ("__func__", _CLASS_CALL) and isinstance(
        found, types.FunctionType) and found.__code__ is callee.__code__ and (
        found.__closure__ == callee.__closure__)


def _followed(value, path):
    """The value at the end of a watched path from value (None where a step is missing)."""
    for step in path:
        if step is _CLASS_CALL:
            if isinstance(value, (types.FunctionType, types.ModuleType, type)):
                return None
            value = getattr(type(value), "__call__", None)
        else:
            value = getattr(value, step, None)
    return value


def annotate_error(exc, comp):
    """Add a note naming the user statement whose derivative was running when exc was raised."""
    tb = exc.__traceback__
    lineno = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == comp.path:
            lineno = tb.tb_lineno
        tb = tb.tb_next
    if lineno is None or not hasattr(exc, "add_note"):
        return
    lines = comp.built.source.splitlines()
    for index in range(min(lineno, len(lines)) - 1, -1, -1):
        text = lines[index].strip()
        if text.startswith("# grad of:") or text.startswith("# tangent of:"):
            exc.add_note(f"srcad: raised in generated code for {text[2:]}")
            return
        if text.startswith("def "):
            break
    exc.add_note(f"srcad: raised in generated code ({comp.path}:{lineno})")


