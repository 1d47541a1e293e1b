"""The public API (../shared/API.md): grad, value_and_grad, vjp, jvp, jacobian, hessian, hvp,
source, emit, coverage (check_grads is in checking.py).

Each entry point builds (or finds in the cache) a generated function and wraps it in a small
callable that keeps the user's calling convention: the same positional and keyword arguments as
f, a tuple of results whenever `wrt` is a tuple, cotangents and tangents after the arguments.
Calls with positional arguments of types seen before take a __call__ generated for them
(_FastPath), a few type and shape tests away from the specialized function.
"""
import functools
import inspect
import itertools
import linecache
import os
import threading
import weakref

import numpy as np

from ..analysis.shapes import signature_of
from . import cache
from .verify import verify_call, verify_on
from ..backend.emit import import_lines, module_text as module_text_of
from ..errors import SrcadError
from ..frontend.parse import parse_function
from ..pipeline import build, disabled_passes, target_function
from ..rules.calls import mode_of_kind
from ..rules.registry import REGISTRY

_DERIVATIVES = weakref.WeakKeyDictionary()
_REGISTERING = threading.Lock()  # held while a Derivative is put into _DERIVATIVES (nothing else)
# held while generated code is bound into an Instance (Derivative.instance, specialize, keyed):
# one Instance per derivative and signature. Reentrant: binding a callee binds its callees.
_BINDING = threading.RLock()


def _check_wrt(wrt):
    if isinstance(wrt, bool) or not isinstance(wrt, (int, tuple)) or (
            isinstance(wrt, tuple) and not all(isinstance(w, int) and not isinstance(w, bool)
                                               for w in wrt)) or wrt == ():
        raise SrcadError(f"wrt must be an int or a non-empty tuple of ints (argument positions), "
                         f"got {wrt!r}")
    return wrt


def _callable(func):
    if not callable(func):
        raise SrcadError(f"srcad differentiates Python functions, got {func!r}")
    target = func.__func__ if inspect.ismethod(func) else target_function(func)
    if not inspect.isfunction(target):
        raise SrcadError(f"srcad differentiates Python functions it can read the source of; "
                         f"{func!r} is not one",
                         hint="wrap the call in a def (def f(x): return np.sin(x)) and "
                              "differentiate that; for functools.partial, a def that passes "
                              "the fixed arguments")
    return func


class Derivative:
    """A generated derivative of `func`, callable with the API's conventions."""

    def __init__(self, func, mode, kind, wrt, disabled=frozenset(), verify=False):
        self.func = func
        self.mode = mode
        self.kind = kind
        self.wrt = wrt
        self.disabled = disabled  # optimization passes switched off (pipeline.PASSES)
        self.verify = verify  # compare each new specialization with the unoptimized code
        self.verified = set()  # ids of the specialized functions verify_call has checked
        # the generic code (for arguments whose shapes are not specialized on) is built on
        # first use; the outline raises now what that build would raise
        self.outline = cache.outline(func, mode, kind, wrt)
        self._instance = None
        self.many = isinstance(wrt, tuple)
        self.single_tuple = self.many and len(wrt) == 1
        self.specialized = {}  # argument signature -> (function, sync, compiled)
        self.keys = {}  # argument types -> a function of the arguments (_key_of)
        self.by_key = {}  # (types, that function's value) -> an entry of self.specialized
        self.fast_path = _FastPath()  # this object's own __call__, for types seen (keyed)
        for attribute in functools.WRAPPER_ASSIGNMENTS:  # as functools.update_wrapper, but
            if hasattr(func, attribute):  # __wrapped__ is the generated function (a property)
                setattr(self, attribute, getattr(func, attribute))
        self.__dict__.update(func.__dict__)
        self.__name__ = self.outline.function_name
        self.__qualname__ = self.__name__

    @property
    def instance(self):
        """The generic derivative, bound to func's globals and closure (built on first use)."""
        if self._instance is None:
            comp = cache.compiled(self.func, self.mode, self.kind, self.wrt,
                                  disabled=self.disabled)
            with _BINDING:  # one Instance: hessian and hvp sync the one they differentiate
                if self._instance is None:
                    self._instance = cache.Instance(comp, self.func, _callee)
        return self._instance

    @property
    def compiled(self):
        return self.instance.compiled

    @property
    def generated(self):
        return self.instance.function

    @property
    def sync(self):
        return self.instance.sync

    @property
    def __wrapped__(self):
        return self.generated

    @property
    def source(self):
        return self.compiled.built.source

    def _pack(self, grads):
        return (grads,) if self.single_tuple else grads

    def specialize(self, args, kwargs):
        """The derivative specialized to these arguments' shapes (built on first use)."""
        signature = signature_of(args, kwargs) if "specialize" not in self.disabled else None
        entry = self.specialized.get(signature)
        if entry is None:
            _check_arguments(self.func, args, kwargs, self.wrt)
            if signature is None:
                generic, comp = self.instance, None
            else:
                mode, kind = _runs(self.mode, self.kind, self.wrt, args, self.disabled)
                comp = cache.compiled(self.func, mode, kind, self.wrt,
                                      example=(args, kwargs), signature=signature,
                                      disabled=self.disabled)
            with _BINDING:  # one entry per signature, whichever thread asks first
                entry = self.specialized.get(signature)
                if entry is None:
                    if comp is None:
                        entry = (generic.function, generic.sync, generic.compiled)
                    else:
                        instance = cache.Instance(comp, self.func, _callee)
                        entry = (instance.function, instance.sync, comp)
                    self.specialized[signature] = entry
        return entry

    def build_for(self, args, kwargs, disabled):
        """(function, sync, compiled) built for these arguments without the passes `disabled`
        (not remembered: verify mode's reference and bisection builds)."""
        signature = signature_of(args, kwargs) if "specialize" not in disabled else None
        if signature is None:
            comp = cache.compiled(self.func, self.mode, self.kind, self.wrt, disabled=disabled)
        else:
            mode, kind = _runs(self.mode, self.kind, self.wrt, args, disabled)
            comp = cache.compiled(self.func, mode, kind, self.wrt, example=(args, kwargs),
                                  signature=signature, disabled=disabled)
        instance = cache.Instance(comp, self.func, _callee)
        return instance.function, instance.sync, comp

    def invoke(self, entry, args, kwargs, extra):
        """Call an entry's function with f's arguments plus seeds or tangents (as run does)."""
        function, sync, comp = entry
        if sync is not None:
            sync()
        if extra and _COTANGENT in extra:  # a vjp's cotangent: its generated parameter
            extra = {_last_kwonly(function): extra[_COTANGENT]}
        try:
            return function(*args, **kwargs, **(extra or {}))
        except Exception as exc:
            cache.annotate_error(exc, comp)
            raise

    def forget(self):
        """Drop every specialization and the fast path: build again on the next call."""
        self.specialized, self.keys, self.by_key, self.verified = {}, {}, {}, set()
        self._instance = None
        self.fast_path = _FastPath()
        if type(self) is not Derivative:  # (its own class, made by the fast path)
            type(self).__call__ = Derivative.__call__

    def keyed(self, args, types):
        """specialize(args, {}), remembered under a key cheaper than the signature: the types
        of the arguments and what the signature reads of them (_key_of)."""
        key_of = self.keys.get(types)
        if key_of is None:
            key_of = self.keys[types] = _key_of(types)
        key = key_of(args)
        entry = self.specialize(args, {})
        with _BINDING:  # the fast path learns each key once, however many threads meet it
            new = (types, key) not in self.by_key
            entry = self.by_key.setdefault((types, key), entry)
        if new:  # (after run() has verified it)
            self.fast_path.add(self, types, key, entry)
        return entry

    def run(self, args, kwargs, extra):
        """Call the specialized derivative with f's arguments plus seeds or tangents."""
        if kwargs:
            entry = self.specialized.get(signature_of(args, kwargs))
            if entry is None:
                entry = self.specialize(args, kwargs)
        else:  # the usual call, so kept short: see keyed
            types = _TYPES.get(len(args), _types)(args)
            key_of = self.keys.get(types)
            entry = self.by_key.get((types, key_of(args))) if key_of is not None else None
            if entry is None:
                entry = self.keyed(args, types)
        function, sync, comp = entry
        if sync is not None:
            try:
                sync()
            except cache.Stale:  # a callee was redefined: build again
                _renew_all()
                return self.run(args, kwargs, extra)
        if self.verify and id(function) not in self.verified:
            self.verified.add(id(function))
            return verify_call(self, entry, args, kwargs, extra)
        if extra and _COTANGENT in extra:  # a vjp's cotangent: its generated parameter
            extra = {_last_kwonly(function): extra[_COTANGENT]}
        try:
            if extra:
                return function(*args, **kwargs, **extra)
            return function(*args, **kwargs) if kwargs else function(*args)
        except Exception as exc:
            cache.annotate_error(exc, comp)
            raise

    def __call__(self, /, *args, **kwargs):
        """The general call. Once called with positional arguments of new types, the derivative
        gets a faster __call__ of its own for them (_FastPath), which comes back here for
        anything else."""
        kind = self.kind
        if kind == "grad":
            grads = self.run(args, kwargs, None)
            return (grads,) if self.single_tuple else grads
        if kind == "value_and_grad":
            value, grads = self.run(args, kwargs, {})
            return value, self._pack(grads)
        if kind == "vjp":
            if not args:
                raise TypeError("vjp(*args, dy): the cotangent dy comes last")
            return self._pack(self.run(args[:-1], kwargs, {_COTANGENT: args[-1]}))
        if kind == "jvp":
            names = self.outline.tangent_names
            if len(args) < len(names):
                raise TypeError(f"jvp(*args, {', '.join(names)}): one tangent per wrt argument "
                                f"comes after the arguments")
            cut = len(args) - len(names)
            return self.run(args[:cut], kwargs, dict(zip(names, args[cut:])))
        raise AssertionError(kind)

    def __repr__(self):
        return f"<srcad {self.kind} of {self.func.__qualname__} wrt {self.wrt}>"


_BY_VALUE = (int, bool, str, type(None))
_COTANGENT = object()  # run()'s key for a vjp's cotangent, named by the function that runs


def _types(args):
    return tuple(map(type, args))


# the same, faster for few arguments (type(x) in code is cheaper than map(type, ...))
_TYPES = {0: lambda a: (), 1: lambda a: (type(a[0]),), 2: lambda a: (type(a[0]), type(a[1])),
          3: lambda a: (type(a[0]), type(a[1]), type(a[2])),
          4: lambda a: (type(a[0]), type(a[1]), type(a[2]), type(a[3])),
          5: lambda a: (type(a[0]), type(a[1]), type(a[2]), type(a[3]), type(a[4])),
          6: lambda a: (type(a[0]), type(a[1]), type(a[2]), type(a[3]), type(a[4]), type(a[5]))}


def _key_of(types):
    """For positional arguments of these types: a function of them that, with the types, decides
    their signature (shapes.signature_of): the values of ints, bools, strings and None, the shapes
    and dtypes of arrays. Floats, numpy scalars and values that are not specialized count by type
    alone. (It may tell apart arguments of one signature, never the reverse.) It runs on every
    call, so it is a lambda written for these types: lambda a: (a[1], a[0].shape, a[0].dtype)."""
    parts = _key_parts(types, "a[{}]")
    if not parts:
        return _nothing
    return eval(f"lambda a: ({', '.join(parts)},)", {})  # noqa: S307 - text built above


def _key_parts(types, name):
    """The expressions _key_of reads, for arguments named name.format(position)."""
    parts = []
    for i, kind in enumerate(types):
        if kind in _BY_VALUE:
            parts.append(name.format(i))
        elif kind is np.ndarray:
            parts += [f"{name.format(i)}.shape", f"{name.format(i)}.dtype"]
    return parts


def _nothing(args):
    return None


class _FastPath:
    """A derivative's own __call__, written for the arguments it has been called with.

    Derivative.__call__ finds the specialized function through several dicts and small
    functions; that costs about a microsecond, as much as the whole gradient of a small scalar
    function. So each time a call with positional arguments has been specialized, the
    derivative gets a __call__ of its own (on a subclass of Derivative made for this one object:
    special methods are looked up on the type) that tests the arguments' types, then what
    _key_of reads of them against each key seen so far, and calls that key's function. For grad
    of f(x, k), wrt=0, called with (0.5, 10) and then (0.5, 20) (`source` holds the text):

        def __call__(self, a0=_, a1=_, /, *more, **kw):
            if not more and not kw:
                if type(a0) is T0_0 and type(a1) is T0_1:  # float, int
                    if a1 == V0_0_0:  # 10
                        try:
                            return F0_0(a0, a1)
                        except Exception as exc:
                            cache.annotate_error(exc, C0_0)
                            raise
                    if a1 == V0_1_0:  # 20
                        ...
            return Derivative.__call__(self, *[a for a in (a0, a1) if a is not _], *more, **kw)

    The arguments are positional-only parameters (no tuple to build and unpack; `_` marks one
    not given). Arrays are tested by `a.shape == (3, 4) and a.dtype is D` (an equal dtype that
    is another object takes the general path: correct, slower). An entry with a sync (it reads
    the user's globals or cells) calls it first. Cotangents and tangents go in by keyword, as
    Derivative.run passes them, and results are packed as Derivative.__call__ packs them. The
    first INLINE keys of a tuple of types are written into the code; later ones join a dict
    that the code looks up (no new code). Anything else (keywords, other arities, types or keys)
    takes Derivative.__call__, which builds what is missing and calls add."""

    LIMIT = 8  # tuples of types with code (the first seen); others take the general path
    INLINE = 4  # keys of one tuple of types written into the code; more go in a dict

    def __init__(self):
        self.inline = {}  # types -> [(key, entry of Derivative.specialized)], in the code
        self.more = {}  # types -> {key (one part: itself): entry}, looked up by the code
        self.source = self.filename = None

    def add(self, derivative, types, key, entry):
        """Note a new entry of derivative.by_key, (types, key) -> entry (Derivative.keyed)."""
        with _ADDING:  # one thread at a time: each install sees all that was added before it
            inline = self.inline.get(types)
            if inline is None:
                if len(self.inline) >= self.LIMIT:
                    return
                self.more[types] = {}
                self.inline[types] = [(key, entry)]
            elif len(inline) < self.INLINE:
                inline.append((key, entry))
            else:
                self.more[types][key[0] if key is not None and len(key) == 1 else key] = entry
                return
            self.install(derivative)

    def install(self, derivative):
        """Generate __call__ for what self holds and give it to derivative."""
        kind = derivative.kind
        if kind == "vjp":  # the cotangent's keyword: the same in every specialized function
            (_, (function, _, _)), *_ = next(iter(self.inline.values()))
            extra = [_last_kwonly(function)]
        elif kind == "jvp":
            extra = list(derivative.outline.tangent_names)
        else:
            extra = []
        if kind == "value_and_grad":
            packed = "value, (grads,)" if derivative.single_tuple else "value, grads"
            finish = ["value, grads = CALL", f"return {packed}"]
        elif derivative.single_tuple and kind != "jvp":
            finish = ["return (CALL,)"]
        else:
            finish = ["return CALL"]
        params = [f"a{i}" for i in range(max(map(len, self.inline)) + len(extra))]
        namespace = {"Derivative": Derivative, "cache": cache, "_": _NOT_GIVEN,
                     "_renewed": _renewed}
        lines = [f"def __call__(self, {''.join(p + '=_, ' for p in params)}/, *more, **kw):",
                 "    if not more and not kw:"]
        for n, (types, inline) in enumerate(self.inline.items()):
            block = self._block(n, types, inline, params, extra, finish, namespace)
            lines += ["        " + line for line in block]
        given = f"*[a for a in ({', '.join(params)}{',' * (len(params) == 1)}) if a is not _], "
        lines.append(f"    return Derivative.__call__(self, {given if params else ''}*more, **kw)")
        self.source = "\n".join(lines) + "\n"
        self.filename = self.filename or f"<srcad call {next(_CALLS)} of {derivative.__name__}>"
        linecache.cache[self.filename] = (len(self.source), None, self.source.splitlines(True),
                                          self.filename)  # for tracebacks
        exec(compile(self.source, self.filename, "exec"), namespace)  # noqa: S102 - built above
        own = type(derivative)
        if own is Derivative:  # the first time: a class of its own
            own = type("Derivative", (Derivative,), {"__doc__": Derivative.__doc__,
                                                     "__module__": __name__})
            derivative.__class__ = own
        own.__call__ = namespace["__call__"]

    def _block(self, n, types, inline, params, extra, finish, namespace):
        """The lines of __call__ for arguments of these types (the n-th tuple of types)."""
        count = len(types) + len(extra)  # arguments, then extras
        test = [f"{params[count]} is _"] if count < len(params) else []  # no more than that
        test += [f"{params[count - 1]} is not _"] if extra else []  # the last extra given
        test += [f"type(a{i}) is T{n}_{i}" for i in range(len(types))]
        namespace.update({f"T{n}_{i}": kind for i, kind in enumerate(types)})
        names = ", ".join(repr(kind.__name__)[1:-1] for kind in types)  # escaped: a comment
        lines = [f"if {' and '.join(test) or 'True'}:  # {names}"]
        parts = _key_parts(types, "a{}")
        if len(inline) > 1:  # several keys: read each attribute once
            lines += [f"    k{p} = {part}" for p, part in enumerate(parts) if "." in part]
            parts = [f"k{p}" if "." in part else part for p, part in enumerate(parts)]
        call = ", ".join(params[:len(types)] + [f"{name}={params[len(types) + i]}"
                                                for i, name in enumerate(extra)])
        given = ", ".join(params[:count])  # (the arguments as the general path takes them)
        for j, (key, (function, sync, comp)) in enumerate(inline):
            namespace.update({f"F{n}_{j}": function, f"S{n}_{j}": sync, f"C{n}_{j}": comp})
            same = []
            for p, (part, value) in enumerate(zip(parts, key or ())):
                namespace[f"V{n}_{j}_{p}"] = value
                same.append(f"{part} {'is' if isinstance(value, np.dtype) else '=='} V{n}_{j}_{p}")
            body = _call_lines([f"S{n}_{j}()"] if sync is not None else [],
                               f"F{n}_{j}({call})", f"C{n}_{j}", finish, given)
            if same:
                shown = ", ".join(map(repr, key))
                shown = shown if len(shown) <= 60 else shown[:57] + "..."
                body = [f"if {' and '.join(same)}:  # {shown}"] + ["    " + line for line in body]
            lines += ["    " + line for line in body]
        if len(inline) == self.INLINE:  # later keys: the dict
            namespace[f"K{n}"] = self.more[types]
            key = parts[0] if len(parts) == 1 else f"({', '.join(parts)})"
            body = [f"entry = K{n}.get({key})", "if entry is not None:",
                    "    fn, sync, comp = entry"]
            body += ["    " + line for line in _call_lines(
                ["if sync is not None:", "    sync()"], f"fn({call})", "comp", finish, given)]
            lines += ["    " + line for line in body]
        return lines


def _call_lines(sync, call, comp, finish, given):
    """Lines that run a specialized function: the sync lines, the call, the packing of its
    result (finish, with CALL for the call), the note on errors; a redefined callee (the sync
    raises cache.Stale) sends the arguments (given) back to the general path, to build anew."""
    lines = ["try:"] + ["    " + line for line in sync] + [
        "    " + line.replace("CALL", call) for line in finish]
    return lines + ["except cache.Stale:", f"    return _renewed(self, {given})",
                    "except Exception as exc:", f"    cache.annotate_error(exc, {comp})",
                    "    raise"]


def _renewed(derivative, *args):
    """derivative(*args) after every derivative was dropped (a callee was redefined)."""
    _renew_all()
    return Derivative.__call__(derivative, *args)


def _renew_all():
    """A callee was redefined (cache.Stale): every build and specialization is dropped and
    made again when next needed."""
    with _BINDING:
        cache.forget_all()
        for per_func in list(_DERIVATIVES.values()):
            for found in list(per_func.values()):
                if isinstance(found, Derivative):
                    found.forget()


class _NotGiven:
    def __repr__(self):
        return "<not given>"


_NOT_GIVEN = _NotGiven()  # the default of __call__'s parameters (_FastPath)
_ADDING = threading.Lock()  # held by _FastPath.add
_CALLS = itertools.count()  # numbers the file names of _FastPath's __call__s (tracebacks)


def _check_arguments(func, args, kwargs, wrt):
    """Refuse arguments srcad does not differentiate correctly: subclasses of ndarray
    (np.matrix, masked arrays: their operators mean other things), and complex numbers among
    the arguments it differentiates (no convention is implemented for them; complex values
    elsewhere are refused where the shape probe sees them reach the derivative: pipeline.py),
    also inside dicts, lists and tuples of parameters."""
    positions = set(wrt) if isinstance(wrt, tuple) else {wrt}
    positions = {p % len(args) for p in positions if -len(args) <= p < len(args)}

    def problem(value, differentiated, depth=0):
        if isinstance(value, np.ndarray) and type(value) is not np.ndarray:
            return f"an instance of {type(value).__module__}.{type(value).__qualname__} (a " \
                   f"subclass of numpy.ndarray, whose operations mean other things)"
        if differentiated and (isinstance(value, (complex, np.complexfloating)) or (
                type(value) is np.ndarray and value.dtype.kind == "c")):
            return "a complex number or array"
        if depth < 4 and isinstance(value, (list, tuple)):
            return next(filter(None, (problem(v, differentiated, depth + 1) for v in value)),
                        None)
        if depth < 4 and isinstance(value, dict):
            return next(filter(None, (problem(v, differentiated, depth + 1)
                                      for v in value.values())), None)
        return None
    for where, value, differentiated in [(f"argument {i}", a, i in positions)
                                         for i, a in enumerate(args)] + [
            (f"argument {k}=", v, False) for k, v in kwargs.items()]:
        found = problem(value, differentiated)
        if found is not None:
            raise SrcadError(f"srcad does not differentiate {getattr(func, '__qualname__', func)}"
                             f" at these arguments: {where} is {found}",
                             hint="pass float arrays (np.asarray(x, dtype=float)); for complex "
                                  "values, pass the real and imaginary parts as two arrays")


def _runs(mode, kind, wrt, args, disabled=frozenset()):
    """(mode, kind) of the code that runs for these example arguments. The gradient with respect
    to one argument that is a float is one forward sweep with its tangent seeded to 1 (forward
    mode's kind "grad"): no stack, no second pass over loops."""
    if (mode == "reverse" and kind == "grad" and type(wrt) is int and 0 <= wrt < len(args)
            and type(args[wrt]) is float and "float_gradient" not in disabled):
        return "forward", "grad"
    return mode, kind


def _last_kwonly(function):
    return function.__code__.co_varnames[function.__code__.co_argcount
                                         + function.__code__.co_kwonlyargcount - 1]


class BoundDerivative:
    """The derivative of a bound method: the function's derivative with self passed first."""

    def __init__(self, method, inner):
        self.method = method
        self.inner = inner
        self.__name__ = inner.__name__

    @property
    def generated(self):
        return self.inner.generated

    @property
    def sync(self):
        return self.inner.sync

    @property
    def source(self):
        return self.inner.source

    def __call__(self, *args, **kwargs):
        return self.inner(self.method.__self__, *args, **kwargs)


def derivative(func, mode, kind, wrt, disable=None, verify=None):
    """The (cached) Derivative of func for these options. disable: optimization passes to switch
    off (pipeline.disabled_passes); verify: compare each new specialization with the unoptimized
    derivative on its first call (verify.py). None: from SRCAD_DISABLE and SRCAD_VERIFY."""
    _callable(func)
    _check_wrt(wrt)
    disabled, verify = disabled_passes(disable), verify_on(verify)
    if inspect.ismethod(func):
        shifted = tuple(w + 1 for w in wrt) if isinstance(wrt, tuple) else wrt + 1
        return BoundDerivative(func, derivative(func.__func__, mode, kind, shifted, disabled,
                                                verify))
    key = (mode, kind, wrt, REGISTRY.version, disabled, verify)  # (a new template makes old
    # derivatives stale)
    try:
        per_func = _DERIVATIVES.get(func)
    except TypeError:  # not weak-referenceable
        per_func = None
    if per_func is not None and key in per_func:
        return per_func[key]
    result = Derivative(func, mode, kind, wrt, disabled, verify)
    try:
        with _REGISTERING:  # two threads asking at once get the same Derivative
            result = _DERIVATIVES.setdefault(func, {}).setdefault(key, result)
    except TypeError:
        pass
    return result


def _callee(func, mode, kind, wrt, disabled):
    """The derivative of a callee, for cache.Instance to bind into generated code."""
    return derivative(func, mode, kind, wrt, disable=disabled)


def _decorator_or_call(kind, mode, func, wrt, disable, verify):
    if func is None:
        return lambda f: derivative(f, mode, kind, wrt, disable, verify)
    if isinstance(func, (int, tuple)) and not callable(func):  # @srcad.grad((0, 1))
        return lambda f: derivative(f, mode, kind, func, disable, verify)
    return derivative(func, mode, kind, wrt, disable, verify)


# Every entry point takes disable= (optimization passes to switch off: names of
# pipeline.PASSES, "all", or None for SRCAD_DISABLE's) and verify= (check each new
# specialization against the unoptimized derivative on its first call; None: SRCAD_VERIFY).

def grad(func=None, wrt=0, *, disable=None, verify=None):
    """Reverse-mode gradient of a scalar function: grad(f)(*args) -> df/dx (a tuple if wrt is)."""
    return _decorator_or_call("grad", "reverse", func, wrt, disable, verify)


def value_and_grad(func=None, wrt=0, *, disable=None, verify=None):
    """vg(*args) -> (f(*args), gradient), in one reverse sweep."""
    return _decorator_or_call("value_and_grad", "reverse", func, wrt, disable, verify)


def vjp(func=None, wrt=0, *, disable=None, verify=None):
    """vjp(*args, dy) -> dy^T J (any output shape; a tuple of cotangents for tuple outputs)."""
    return _decorator_or_call("vjp", "reverse", func, wrt, disable, verify)


def jvp(func=None, wrt=0, *, disable=None, verify=None):
    """jvp(*args, dx0, dx1, ...) -> J dx, the output tangent (forward mode)."""
    return _decorator_or_call("jvp", "forward", func, wrt, disable, verify)


def _basis(shape, dtype=float):
    size = int(np.prod(shape, dtype=int))
    for i in range(size):
        e = np.zeros(size, dtype=dtype)
        e[i] = 1.0
        yield e.reshape(shape) if shape != () else e.reshape(())


def _as_float_array(value):
    return np.asarray(value, dtype=np.result_type(np.asarray(value).dtype, np.float64)
                      if not np.issubdtype(np.asarray(value).dtype, np.floating)
                      else np.asarray(value).dtype)


def jacobian(func, wrt=0, mode="reverse", *, disable=None, verify=None):
    """jac(*args) -> J with shape out.shape + x.shape (a tuple of them if wrt is a tuple)."""
    if mode not in ("reverse", "forward"):
        raise SrcadError(f"mode must be 'reverse' or 'forward', got {mode!r}")
    positions = wrt if isinstance(wrt, tuple) else (wrt,)
    inner = derivative(func, mode, "vjp" if mode == "reverse" else "jvp", tuple(positions),
                       disable, verify)

    def jac(*args, **kwargs):
        if mode == "reverse":
            out = np.shape(func(*args, **kwargs))
            rows = [inner(*args, e, **kwargs) for e in _basis(out)]
            blocks = []
            for k, position in enumerate(positions):
                shape = np.shape(args[position])
                stacked = np.array([np.asarray(r[k], dtype=float).reshape(shape) for r in rows])
                blocks.append(stacked.reshape(out + shape))
        else:
            blocks = []
            for k, position in enumerate(positions):
                shape = np.shape(args[position])
                cols = []
                for e in _basis(shape):
                    tangents = [e if j == k else np.zeros(np.shape(args[p]))
                                for j, p in enumerate(positions)]
                    cols.append(np.asarray(inner(*args, *tangents, **kwargs), dtype=float))
                out = cols[0].shape if cols else ()
                stacked = np.stack(cols, axis=-1) if cols else np.zeros(out + (0,))
                blocks.append(stacked.reshape(out + shape))
        return tuple(blocks) if isinstance(wrt, tuple) else blocks[0]

    jac.__name__ = f"{getattr(func, '__name__', 'f')}_jacobian"
    return jac


def hessian(func, wrt=0, *, disable=None, verify=None):
    """hess(*args) -> the Hessian of a scalar f, by forward mode over the generated gradient."""
    if isinstance(wrt, tuple):
        raise SrcadError("srcad.hessian takes one argument position (wrt=int)",
                         hint="build the blocks with srcad.jacobian(srcad.grad(f, wrt=i), "
                              "wrt=j, mode='forward')")
    gradient = derivative(func, "reverse", "grad", wrt, disable, verify)

    def hess(*args, **kwargs):
        generated = _synced(gradient)
        return jacobian(generated, wrt=wrt, mode="forward", disable=disable,
                        verify=verify)(*args, **kwargs)

    hess.__name__ = f"{getattr(func, '__name__', 'f')}_hessian"
    return hess


def hvp(func, wrt=0, *, disable=None, verify=None):
    """hvp(*args, v) -> H v without forming H (forward mode over the generated gradient)."""
    gradient = derivative(func, "reverse", "grad", wrt, disable, verify)

    def product(*args, **kwargs):
        generated = _synced(gradient)
        return derivative(generated, "forward", "jvp", wrt, disable, verify)(*args, **kwargs)

    product.__name__ = f"{getattr(func, '__name__', 'f')}_hvp"
    return product


def _synced(gradient):
    """The generated gradient that hessian and hvp differentiate, its globals synced (built
    again if a callee was redefined)."""
    if gradient.sync is not None:
        try:
            gradient.sync()
        except cache.Stale:
            _renew_all()
            if gradient.sync is not None:
                gradient.sync()
    return gradient.generated


_KIND_OF_MODE = {"reverse": "grad", "forward": "jvp"}


def _built(func, mode, wrt, kind, args, kwargs, disabled=frozenset()):
    """The Built module: generic, or specialized to the shapes of example arguments."""
    kind = kind or _KIND_OF_MODE.get(mode, "grad")
    if args is None or "specialize" in disabled:
        _needs_args(mode, kind)
        return cache.compiled(func, mode, kind, wrt, disabled=disabled).built
    mode, kind = _runs(mode, kind, wrt, tuple(args), disabled)
    kwargs = kwargs or {}
    signature = signature_of(tuple(args), kwargs)
    if signature is None:
        raise SrcadError("srcad specializes to arrays, numbers, strings and None; these example "
                         "arguments hold something else", hint="leave args out for code that "
                                                               "takes any shapes")
    return cache.compiled(func, mode, kind, wrt, example=(tuple(args), kwargs),
                          signature=signature, disabled=disabled).built


def _needs_args(mode, kind):
    if mode == "forward" and kind == "grad":
        raise SrcadError("the forward-mode gradient is built for a function of one float: pass "
                         "example arguments (args=...)",
                         hint="srcad.source(f, args=(0.5, ...)) shows the code srcad.grad runs")


def _user_module(built):
    module = built.func.__module__
    if module == "__main__":  # a script: its globals come from its file, imported by name
        module = os.path.splitext(os.path.basename(built.filename))[0]
    return module


def module_text(built, disabled=frozenset()):
    """The whole module for reading and shipping: the derivative, the derivatives of the user
    functions it calls (each once), the runtime helpers they use, and imports of the user
    globals they read. (The decorator path compiles the derivative alone and binds the callees'
    derivatives, compiled once each, by name.)"""
    builts, seen, queue = [], set(), [built]
    while queue:
        current = queue.pop(0)
        if current.function_name in seen:
            continue
        seen.add(current.function_name)
        builts.append(current)
        for func, kind, wrt in current.dependencies.values():
            mode = mode_of_kind(kind)
            queue.append(cache.compiled(func, mode, kind, wrt, disabled=disabled).built)
    imports = {}
    for b in builts:
        if b.user_globals:
            imports.setdefault(_user_module(b), set()).update(b.user_globals)
    lines = import_lines(imports)  # (a module's name is not always an identifier: escaped)
    return module_text_of([b.function_text for b in builts], built.header, lines)


def source(func, mode="reverse", wrt=0, kind=None, stage=None, args=None, kwargs=None, *,
           disable=None):
    """The generated Python source (or, with stage=..., the function after that pass).
    With example args (and kwargs): the code specialized to their shapes, as calls run it (for
    the gradient with respect to one float, that is forward mode: see Derivative.specialize).
    disable: optimization passes to leave out ("all": the unoptimized derivative)."""
    _callable(func)
    _check_wrt(wrt)
    disabled = disabled_passes(disable)
    if stage is not None and stage != "emit":
        kind = kind or _KIND_OF_MODE.get(mode)
        if args is None or "specialize" in disabled:
            _needs_args(mode, kind)
            example = None
        else:
            mode, kind = _runs(mode, kind, wrt, tuple(args), disabled)
            example = (tuple(args), kwargs or {})
        return build(func, mode, wrt, kind, stage=stage, example=example, disabled=disabled)
    return module_text(_built(func, mode, wrt, kind, args, kwargs, disabled), disabled)


def emit(func, path, mode="reverse", wrt=0, kind=None, args=None, kwargs=None, *,
         disable=None):
    """Write the generated module to `path`: a file that needs only numpy. Returns the path.
    With example args (and kwargs): the code specialized to their shapes (it then assumes them)."""
    _callable(func)
    _check_wrt(wrt)
    disabled = disabled_passes(disable)
    built = _built(func, mode, wrt, kind, args, kwargs, disabled)
    if built.user_cells:
        fdef, info = parse_function(func)
        raise info.error(fdef, f"{func.__qualname__} reads the closure variables "
                               f"{', '.join(built.user_cells)}, which an emitted module cannot "
                               f"see", hint="define the function at module level, or pass those "
                                            "values in as arguments")
    text = module_text(built, disabled)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


def coverage():
    """One dict per differentiable callable: {'name': 'numpy.sin', 'forward': bool, 'reverse': bool}."""
    return REGISTRY.coverage()
