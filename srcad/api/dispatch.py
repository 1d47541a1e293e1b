"""Dispatch: how a derivative call finds the code specialized to its arguments, fast.

The general path (Derivative.__call__) computes the arguments' signature and looks it up;
after the first calls with given argument types, a derivative gets a __call__ written for
them (FastPath), which tests the types, reads the few attributes that decide the signature
(an array's shape and dtype, an int's value where the builds read it: analysis/values.py) and
calls the specialized function directly:

    def __call__(self, a0=_, /, *more, **kw):
        if not more and not kw:
            if a0 is not _ and type(a0) is T0_0:  # ndarray
                if (a0.shape, a0.dtype) == K0_0:
                    ...
                    return F0_0(a0)
        return Derivative.__call__(self, *[a for a in (a0,) if a is not _], *more, **kw)
"""
import itertools
import linecache
import threading

import numpy as np

from . import cache
from ..analysis.shapes import _BY_VALUE


COTANGENT = object()  # run()'s key for a vjp's cotangent, named by the function that runs


def types_of(args):
    return tuple(map(type, args))


# the same, faster for few arguments (type(x) in code is cheaper than map(type, ...))
TYPES_OF_FEW = {0: lambda a: (), 1: lambda a: (type(a[0]),),
                2: lambda a: (type(a[0]), type(a[1])),
                3: lambda a: (type(a[0]), type(a[1]), type(a[2])),
                4: lambda a: (type(a[0]), type(a[1]), type(a[2]), type(a[3])),
                5: lambda a: (type(a[0]), type(a[1]), type(a[2]), type(a[3]), type(a[4])),
                6: lambda a: (type(a[0]), type(a[1]), type(a[2]), type(a[3]), type(a[4]),
                              type(a[5]))}


def signature_key(types, free=()):
    """For positional arguments of these types: a function of them that, with the types, decides
    their signature (shapes.signature_of): the values of ints, bools, strings and None, the shapes
    and dtypes of arrays. Floats, numpy scalars and values that are not specialized count by type
    alone, and so do the by-value arguments at the positions in free (whose values the builds
    for these types do not read: shapes.without_values). (It may tell apart arguments of one
    signature, never the reverse.) It runs on every call, so it is a lambda written for these
    types: lambda a: (a[1], a[0].shape, a[0].dtype)."""
    parts = _key_parts(types, "a[{}]", free)
    if not parts:
        return _nothing
    return eval(f"lambda a: ({', '.join(parts)},)", {})  # noqa: S307 - text built above


def _key_parts(types, name, free=()):
    """The expressions signature_key reads, for arguments named name.format(position)."""
    parts = []
    for i, kind in enumerate(types):
        if kind in _BY_VALUE:
            if i not in free:
                parts.append(name.format(i))
        elif kind is np.ndarray:
            parts += [f"{name.format(i)}.shape", f"{name.format(i)}.dtype"]
    return parts


def _nothing(args):
    return None


class FastPath:
    """A derivative's own __call__, written for the arguments it has been called with.

    Derivative.__call__ finds the specialized function through several dicts and small
    functions; that costs about a microsecond, as much as the whole gradient of a small scalar
    function. So each time a call with positional arguments has been specialized, the
    derivative gets a __call__ of its own (on a subclass of Derivative made for this one object:
    special methods are looked up on the type) that tests the arguments' types, then what
    signature_key reads of them against each key seen so far, and calls that key's function.
    For grad of f(x, k), wrt=0, called with (0.5, 10) and then (0.5, 20) (`source` holds the text):

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

    def __init__(self, general, renewed):
        self.general = general  # the class whose __call__ is the general path (Derivative)
        self.renewed = renewed  # rebuild everything and take the general path (cache.Stale)
        self.inline = {}  # types -> [(key, entry of Derivative.specialized)], in the code
        self.free = {}  # types -> the positions whose values their keys leave out (keyed)
        self.more = {}  # types -> {key (one part: itself): entry}, looked up by the code
        self.source = self.filename = None

    def add(self, derivative, types, key, entry, free=frozenset()):
        """Note a new entry of derivative.by_key, (types, key) -> entry (Derivative.keyed); free:
        the positions whose values keys of these types leave out (signature_key's)."""
        with _ADDING:  # one thread at a time: each install sees all that was added before it
            if self.free.get(types, free) != free:  # (keys made another way: not for this code)
                return
            inline = self.inline.get(types)
            if inline is None:
                if len(self.inline) >= self.LIMIT:
                    return
                self.free[types] = free
                self.more[types] = {}
                self.inline[types] = [(key, entry)]
            elif len(inline) < self.INLINE:
                inline.append((key, entry))
            else:
                if _keywords(derivative, entry[0]) != _keywords(derivative, inline[0][1][0]):
                    return  # (the dict's code passes the first entry's keywords: general path)
                self.more[types][key[0] if key is not None and len(key) == 1 else key] = entry
                return
            self.install(derivative)

    def install(self, derivative):
        """Generate __call__ for what self holds and give it to derivative."""
        kind = derivative.kind
        (_, (function, _, _)), *_ = next(iter(self.inline.values()))
        extra = _keywords(derivative, function)  # (as many for every entry; a vjp's cotangent
        # is named in each specialized function: _block)
        grads = "(grads,)" if derivative.single_tuple else "grads"
        if kind in ("value_and_grad", "value_and_grad_aux"):
            finish = ["value, grads = CALL", f"return value, {grads}"]
        elif kind in ("grad_aux", "vjp_aux"):  # f returned (value, aux)
            finish = ["value, grads = CALL", f"return {grads}, value[1]"]
        elif derivative.single_tuple and kind != "jvp":
            finish = ["return (CALL,)"]
        else:
            finish = ["return CALL"]
        params = [f"a{i}" for i in range(max(map(len, self.inline)) + len(extra))]
        namespace = {"Derivative": self.general, "cache": cache, "_": _NOT_GIVEN,
                     "_renewed": self.renewed}
        lines = [f"def __call__(self, {''.join(p + '=_, ' for p in params)}/, *more, **kw):",
                 "    if not more and not kw:"]
        for n, (types, inline) in enumerate(self.inline.items()):
            block = self._block(n, types, inline, params, extra, finish, namespace,
                                derivative)
            lines += ["        " + line for line in block]
        given = f"*[a for a in ({', '.join(params)}{',' * (len(params) == 1)}) if a is not _], "
        lines.append(f"    return Derivative.__call__(self, {given if params else ''}*more, **kw)")
        self.source = "\n".join(lines) + "\n"
        self.filename = self.filename or f"<srcad call {next(_CALLS)} of {derivative.__name__}>"
        linecache.cache[self.filename] = (len(self.source), None, self.source.splitlines(True),
                                          self.filename)  # for tracebacks
        exec(compile(self.source, self.filename, "exec"), namespace)  # noqa: S102 - built above
        own, general = type(derivative), self.general
        if own is general:  # the first time: a class of its own
            own = type("Derivative", (general,), {"__doc__": general.__doc__,
                                                  "__module__": general.__module__})
            derivative.__class__ = own
        own.__call__ = namespace["__call__"]

    def _block(self, n, types, inline, params, extra, finish, namespace, derivative):
        """The lines of __call__ for arguments of these types (the n-th tuple of types)."""
        count = len(types) + len(extra)  # arguments, then extras
        test = [f"{params[count]} is _"] if count < len(params) else []  # no more than that
        test += [f"{params[count - 1]} is not _"] if extra else []  # the last extra given
        test += [f"type(a{i}) is T{n}_{i}" for i in range(len(types))]
        namespace.update({f"T{n}_{i}": kind for i, kind in enumerate(types)})
        names = ", ".join(repr(kind.__name__)[1:-1] for kind in types)  # escaped: a comment
        lines = [f"if {' and '.join(test) or 'True'}:  # {names}"]
        parts = _key_parts(types, "a{}", self.free[types])
        if len(inline) > 1:  # several keys: read each attribute once
            lines += [f"    k{p} = {part}" for p, part in enumerate(parts) if "." in part]
            parts = [f"k{p}" if "." in part else part for p, part in enumerate(parts)]
        def call_of(function):  # (unrolled builds version the cotangent's name apart)
            return ", ".join(params[:len(types)] + [
                f"{name}={params[len(types) + i]}"
                for i, name in enumerate(_keywords(derivative, function))])
        call = call_of(inline[0][1][0])
        given = ", ".join(params[:count])  # (the arguments as the general path takes them)
        for j, (key, (function, sync, comp)) in enumerate(inline):
            namespace.update({f"F{n}_{j}": function, f"S{n}_{j}": sync, f"C{n}_{j}": comp})
            same = []
            for p, (part, value) in enumerate(zip(parts, key or ())):
                namespace[f"V{n}_{j}_{p}"] = value
                same.append(f"{part} {'is' if isinstance(value, np.dtype) else '=='} V{n}_{j}_{p}")
            body = _call_lines([f"S{n}_{j}()"] if sync is not None else [],
                               f"F{n}_{j}({call_of(function)})", f"C{n}_{j}", finish, given)
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


class _NotGiven:
    def __repr__(self):
        return "<not given>"


_NOT_GIVEN = _NotGiven()  # the default of __call__'s parameters (_FastPath)
_ADDING = threading.Lock()  # held by _FastPath.add
_CALLS = itertools.count()  # numbers the file names of _FastPath's __call__s (tracebacks)




def _keywords(derivative, function):
    """The keywords the seeds go in by: a vjp's cotangent (named in each function), a jvp's
    tangents, none for the other kinds."""
    if derivative.kind in ("vjp", "vjp_aux"):
        return [last_kwonly(function)]
    if derivative.kind == "jvp":
        return list(derivative.outline.tangent_names)
    return []


def last_kwonly(function):
    return function.__code__.co_varnames[function.__code__.co_argcount
                                         + function.__code__.co_kwonlyargcount - 1]
