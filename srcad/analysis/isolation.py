"""The state a build's own runs of the user's code may change, saved before and put back after.

A specialized build runs the function once on the call's arguments before the derivative runs
(the shape probe, shapes.py), and a callee's specialization runs the callee so in the middle of
its caller's derivative (api/callees.py). Their arguments are copies (shapes._private), but the
function also reaches state through its globals, closure cells and the objects it is passed: a
module-level `rng = np.random.default_rng(0)` it draws noise from, a list it appends to, a dict
that counts calls, `self.rng` and `self.history` of a model. Without this, the first call with
new shapes drew its noise twice: the value and gradient were those of the second draw (a
value_and_grad of 3.04 where f gave 5.50), the generator one draw further on afterwards, and a
callee drawing noise twice per specialization; every append ran twice.

Saved(roots) takes, from the values the code can reach:
    random generators         np.random.RandomState, Generator, BitGenerator; random.Random;
                              and the global states of np.random and random
    lists, dicts, sets        their items (put back in place: the same objects)
    the user's objects        their attributes (vars(obj)); those of classes from numpy and
                              other libraries are not looked into
    the user's functions      the globals their code names and their closure cells (helpers),
                              followed; the bindings of the globals their code rebinds
                              (`global n`) and of their closure cells (`nonlocal count`)
following containers, objects and functions a few levels down (DEPTH), and the first ITEMS
items of a container; containers of more than LARGE items are not copied, nor put back. Arrays
are not copied (a global array written in place by the function is not put back: the README
says so), nor are modules looked into or files undone. What the probe prints is dropped
(quiet), and only what its own thread prints.

Replayed is for several runs that must each see the state one call would: the sweeps of
srcad.jacobian and srcad.hessian, the evaluations of srcad.check_grads.
"""
import contextlib
import dis
import functools
import random
import sys
import threading
import types

import numpy as np

DEPTH = 3  # levels of containers, objects and functions followed from the roots
ITEMS = 1000  # items of a list, dict or set looked into (all are put back)
LARGE = 100_000  # lists, dicts and sets longer are not put back (a copy per build would cost)
_LIBRARIES = ("numpy", "scipy", "sklearn", "pandas", "jax", "torch", "dask", "cupy",
              "builtins", "srcad")


class Saved:
    """with Saved(roots): ... runs the block and puts back what it changed of the state the
    roots reach (see the module docstring)."""

    def __init__(self, roots):
        self.undo = []  # (put back, what was there)
        self.seen = set()
        self.undo.append((np.random.set_state, np.random.get_state()))
        self.undo.append((random.setstate, random.getstate()))
        for root in roots:
            self.take(root, 0)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.put_back()
        return False

    def put_back(self):
        """The state as it was when this was made (as often as asked: the saved copies stay)."""
        for put_back, state in reversed(self.undo):
            put_back(state)


    def take(self, value, depth):
        if id(value) in self.seen or value is None or isinstance(
                value, (int, float, complex, str, bytes, bool, np.ndarray, np.generic,
                        types.ModuleType, type)):
            return
        self.seen.add(id(value))
        if isinstance(value, np.random.RandomState):
            self.undo.append((value.set_state, value.get_state()))
        elif isinstance(value, np.random.Generator):
            self.take(value.bit_generator, depth)
        elif isinstance(value, np.random.BitGenerator):
            self.undo.append((_state_setter(value), value.state))
        elif isinstance(value, random.Random):
            self.undo.append((value.setstate, value.getstate()))
        elif type(value) in (list, dict, set) and len(value) > LARGE:
            return
        elif type(value) is list:
            self.undo.append((_list_setter(value), list(value)))
            self._inside(value[:ITEMS], depth)
        elif type(value) is dict:
            self.undo.append((_dict_setter(value), dict(value)))
            self._inside(list(value.values())[:ITEMS], depth)
        elif type(value) is set:
            self.undo.append((_dict_setter(value), set(value)))
        elif type(value) is tuple:
            self._inside(value[:ITEMS], depth)
        elif isinstance(value, types.FunctionType):
            if depth < DEPTH and not _library(value):
                self._bindings(value)
                self._inside(_reached_by(value), depth)
        elif hasattr(value, "__dict__") and not _library(type(value)) and type(
                value.__dict__) is dict:
            attributes = value.__dict__
            self.undo.append((_dict_setter(attributes), dict(attributes)))
            self._inside(list(attributes.values())[:ITEMS], depth)

    def _bindings(self, func):
        """The globals func's code rebinds (`global n; n += 1`) and its closure cells (`nonlocal
        count; count += 1`): their bindings, put back (a name the code binds anew is removed)."""
        stored = _rebound_globals(func.__code__)
        if stored:
            namespace = func.__globals__
            saved = {name: namespace.get(name, _ABSENT) for name in stored}
            self.undo.append((_bindings_setter(namespace), saved))
        for cell in func.__closure__ or ():
            if id(cell) not in self.seen:
                self.seen.add(id(cell))
                try:
                    self.undo.append((_cell_setter(cell), cell.cell_contents))
                except ValueError:  # (empty: nothing to put back)
                    pass

    def _inside(self, values, depth):
        if depth < DEPTH:
            for item in values:
                self.take(item, depth + 1)


class Replayed:
    """Several runs of the user's code that must each see the state one call would (the rows
    of a Jacobian, each one sweep of the derivative code): before every run but the first, the
    state the roots reach is put back as it was before the first; at the end it is left as the
    first run left it, as after one call.

        with Replayed(roots) as replay:
            for e in basis:
                replay.next_run()
                rows.append(vjp(*args, e))
    """

    def __init__(self, roots):
        self.roots = list(roots)
        self.before = Saved(self.roots)
        self.after_first = None
        self.runs = 0

    def __enter__(self):
        return self

    def next_run(self):
        if self.runs == 1:
            self.after_first = Saved(self.roots)
        if self.runs:
            self.before.put_back()
        self.runs += 1

    def call(self, function, *args, **kwargs):
        self.next_run()
        return function(*args, **kwargs)

    def wrap(self, function):
        """function, each of whose calls is a run."""
        return lambda *args, **kwargs: self.call(function, *args, **kwargs)

    def __exit__(self, *exc):
        if self.after_first is not None:
            self.after_first.put_back()
        return False


@contextlib.contextmanager
def quiet():
    """What this thread prints in the block goes nowhere (the probe's run: the call itself
    prints it). sys.stdout is the process's, so while any thread is quiet it is one _Quieted
    stream that drops the writes of the quiet threads and passes the others' on."""
    me = threading.get_ident()
    with _QUIET_LOCK:
        if not _QUIET:
            _QUIET["stream"] = sys.stdout
            sys.stdout = _Quieted(_QUIET["stream"])
        _QUIET[me] = _QUIET.get(me, 0) + 1
    try:
        yield
    finally:
        with _QUIET_LOCK:
            _QUIET[me] -= 1
            if not _QUIET[me]:
                del _QUIET[me]
            if list(_QUIET) == ["stream"]:
                stream = _QUIET.pop("stream")
                if isinstance(sys.stdout, _Quieted):  # (unless someone else replaced it since)
                    sys.stdout = stream


_QUIET_LOCK = threading.Lock()
_QUIET = {}  # "stream": sys.stdout before the first quiet block; thread id -> blocks open


class _Quieted:
    """sys.stdout while a thread is quiet: its writes dropped, the other threads' passed on."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        if threading.get_ident() in _QUIET:
            return len(text)
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def roots_of(func, args=(), kwargs=None):
    """What a call of func reaches: its arguments and what its code names (_reached_by); for a
    srcad derivative or a functools.partial, what the function they call names."""
    for _ in range(8):
        inner = getattr(func, "func", None)
        if isinstance(func, types.FunctionType) or inner is None:
            break
        func = inner
    return [*args, *(kwargs or {}).values(), *_reached_by(func)]


def _reached_by(func):
    """The values of the globals func's code names (its own and its nested functions') and of
    its closure cells."""
    code = getattr(func, "__code__", None)
    if code is None:
        return []
    names, stack = set(), [code]
    while stack:
        inner = stack.pop()
        names.update(inner.co_names)
        stack.extend(c for c in inner.co_consts if isinstance(c, types.CodeType))
    found = [func.__globals__[n] for n in sorted(names) if n in func.__globals__]
    for cell in func.__closure__ or ():
        try:
            found.append(cell.cell_contents)
        except ValueError:  # (empty)
            pass
    return found


_ABSENT = object()  # (a global the code binds that did not exist before)
_REBINDING = ("STORE_GLOBAL", "DELETE_GLOBAL")


@functools.lru_cache(maxsize=4096)
def _rebound_globals(code):
    """The global names code (and the code nested in it) binds or deletes (read once per code
    object: a Jacobian takes a snapshot at every call)."""
    names, stack = set(), [code]
    while stack:
        inner = stack.pop()
        names.update(ins.argval for ins in dis.get_instructions(inner)
                     if ins.opname in _REBINDING)
        stack.extend(c for c in inner.co_consts if isinstance(c, types.CodeType))
    return tuple(sorted(names))


def _bindings_setter(namespace):
    def put_back(saved):
        for name, value in saved.items():
            if value is _ABSENT:
                namespace.pop(name, None)
            else:
                namespace[name] = value
    return put_back


def _cell_setter(cell):
    def put_back(value):
        cell.cell_contents = value
    return put_back


def _library(obj):
    return (getattr(obj, "__module__", None) or "").split(".")[0] in _LIBRARIES


def _state_setter(bit_generator):
    def put_back(state):
        bit_generator.state = state
    return put_back


def _list_setter(items):
    def put_back(saved):
        items[:] = saved
    return put_back


def _dict_setter(container):
    def put_back(saved):
        container.clear()
        container.update(saved)
    return put_back
