"""Callee derivatives specialized to each call's arguments.

A helper that is not written into its caller (a closure, a recursive or long helper: see
frontend/inline.py for the ones that are) gets derivative functions of its own, called from
the caller's generated code (rules/calls.py). Built once for any arguments, they pay on every
call for not knowing shapes: `unbroadcast` of every adjoint, `matmul_adjoint_b(g, A, y)`
instead of `A.T @ g`, dtype casts. In code specialized to the caller's arguments, the names of
those functions are bound to a RecordDispatch instead, which specializes the helper's
derivative to the arguments of each call, as Derivative does for the function itself:

    k1_record = rhs_forward(y, k)                  RecordDispatch.forward: the record built
    ...                                            for (y, k)'s signature; its tape is
    t8 = rhs_backward(bk1, k1_record[1], y, k)     (backward built for that signature, tape)

The two halves of a callee's adjoint agree on their tape because they are cut from one joint
adjoint (reverse.split_half); a pair is therefore built together, from the same example
arguments and signature, and the forward half hands its own backward half on in the tape, so
the backward call runs the half that matches the record whatever the arguments look like then.

Forward mode's `y_pair = layer_tangent(dx, dW, x, W)` stays generic: its code for any
arguments differs from specialized code by little (a `rebroadcast` where a scalar meets an
array), and the dispatch cost more than that saved (an RK4 loop's jvp through a nested helper:
0.8-0.95 ms generic, 1.1-1.2 ms dispatched).

What stays generic, as it was: callees whose code for any arguments would gain nothing
(SHAPE_BLIND), or whose specializations come out generic (FRUITLESS), callees with *args or
**kwargs, calls past the caps (as
Derivative's: VALUES builds that differ only in by-value arguments, TOTAL in all), arguments
whose signature says nothing (dask, CuPy, objects: shapes.signature_of is None), builds where a
float's value decides a shape (sized_floats). Code for any arguments (srcad.source, srcad.emit,
a derivative differentiated again) binds the generic functions, never a dispatch: it has no
arguments to specialize to, and it is read as source.
"""
import inspect
import re
import threading
import weakref

from . import cache
from .dispatch import signature_key, types_of, TYPES_OF_FEW
from ..analysis.shapes import signature_of, values_left_out
from ..errors import SrcadError

_LOCK = threading.RLock()  # held while a dispatch binds a specialization (builds run unlocked)
_DISPATCHES = weakref.WeakKeyDictionary()  # callee -> {(wrt, disabled): dispatch}
CONTAINERS = (list, tuple, dict)
# the runtime helpers a derivative for any arguments calls because it does not know shapes
# (specialized code writes a sum over known axes, a plain product, nothing): a callee whose
# generic halves call none of them is not dispatched, since its specialization would be the
# same code plus the dispatch (a recursive flatten and an RNN's update step: 3-5 % slower, and
# ten builds for the flatten)
SHAPE_BLIND = re.compile(r"\b(unbroadcast|rebroadcast|unreduce|times_weights|dot_axes|"
                         r"tensordot_adjoint_[ab]|matmul_adjoint_[ab]|unsum|untranspose|"
                         r"tensordot_axes|inner_axes|expand_weights)\(")
# a callee whose first FRUITLESS specializations all came out as the code for any arguments (a
# float's value decides a shape, or srcad refused the shapes) is not specialized again: a
# recursive flatten over a list of (W, b) pairs built ten specializations, all generic, for
# 350-550 ms
FRUITLESS = 2
_SYNCING = threading.local()  # .active: the dispatches this thread is syncing


def dispatchable(func):
    """Whether a callee's derivatives can be specialized per call: its parameters are plain
    (no *args, whose tuple parameter the derivative takes apart, nor **kwargs)."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return False
    return not any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)


def dispatch_for(func, wrt, disabled, generic, instance, caps):
    """The dispatch of func's reverse-mode derivative (its record and backward halves), made
    once per callee and options; None where specializing would not pay (SHAPE_BLIND).
    generic(kind) -> the Derivative for any arguments (with .target, .generated, .sync,
    .compiled); instance(comp, target) -> the cache.Instance of a specialization, its own
    callees bound as the API binds them; caps: (VALUES, TOTAL)."""
    key = (wrt, disabled)
    with _LOCK:
        table = _DISPATCHES.setdefault(func, {})
        if key in table:
            return table[key]
    pays = specializing_pays(generic(kind).compiled.built.function_text
                             for kind in RecordDispatch.KINDS)
    with _LOCK:
        if key not in table:
            table[key] = RecordDispatch(generic, wrt, disabled, instance, caps) if pays else None
        return table[key]


def specializing_pays(texts):
    """Whether a callee's halves, of these texts for any arguments, gain from specialization:
    one calls a SHAPE_BLIND helper."""
    return any(SHAPE_BLIND.search(text) for text in texts)


def forget_all():
    """Drop every specialization (a callee was redefined: cache.Stale)."""
    with _LOCK:
        _DISPATCHES.clear()


class _Dispatch:
    """Specializations of one callee's derivative, keyed by the arguments' signature."""
    KINDS = ()

    def __init__(self, generic, wrt, disabled, instance, caps):
        self.generic = generic  # kind -> the Derivative for any arguments
        self.wrt = wrt
        self.disabled = disabled
        self.instance = instance
        self.values, self.total = caps
        self.by_signature = {}  # signature -> entry (a tuple of functions)
        self.alike = {}  # values_left_out(signature) -> specializations (the VALUES cap)
        self.keys = {}  # argument types -> signature_key(types): a cheaper key
        self.fast = {}  # (types, key) -> entry
        self.syncs = []  # of the specializations bound, and of the generic code once used: run
        # before each call of the caller
        self.generic_functions = None  # the code for any arguments, once a call needed it
        self.bound = 0  # specializations bound
        self.fruitless = 0  # builds that gave the code for any arguments (see FRUITLESS)
        self.sync = self._sync  # (one bound method: the caller's syncs hold it once)

    def _sync(self):
        """Run before each call of the caller (its Instance's dependency sync): copy the
        current globals and closure values into every specialization bound so far. (A
        recursive callee's specializations sync this dispatch: once per round.)"""
        if getattr(_SYNCING, "active", None) is None:
            _SYNCING.active = set()
        if self in _SYNCING.active:
            return
        _SYNCING.active.add(self)
        try:
            for sync in self.syncs:
                sync()
        finally:
            _SYNCING.active.discard(self)

    def entry(self, args, kwargs):
        """The entry for these primal arguments: looked up by their types and shapes, built on
        first use. (Keywords are read in the order the call passes them: one call site passes
        them in one order, and a lifted nested function is passed the caller's values so.)"""
        if kwargs:
            args = (*args, *kwargs.values())
        types = TYPES_OF_FEW.get(len(args), types_of)(args)
        key_of = self.keys.get(types)
        if key_of is not None:
            found = self.fast.get((types, tuple(kwargs) if kwargs else None, key_of(args)))
            if found is not None:
                return found
        return self._entry(args, kwargs)

    @property
    def generic_used(self):
        return self.generic_functions is not None

    def _generic_entry(self):
        """The code for any arguments, looked up once (its syncs join this dispatch's)."""
        if self.generic_functions is None:
            with _LOCK:
                if self.generic_functions is None:
                    derivatives = [self.generic(kind) for kind in self.KINDS]
                    self.syncs += [d.sync for d in derivatives if d.sync is not None]
                    self.generic_functions = tuple(d.generated for d in derivatives)
        return self.generic_functions

    def _entry(self, key_args, kwargs):
        args = key_args[:len(key_args) - len(kwargs)] if kwargs else key_args
        signature = signature_of(args, kwargs)
        if signature is None:
            return self._generic_entry()
        entry = self.by_signature.get(signature)
        if entry is not None and any(isinstance(a, CONTAINERS) for a in key_args):
            return entry  # (calls with lists, tuples or dicts are keyed by their signature)
        alike = values_left_out(signature, len(args))
        with _LOCK:
            entry = self.by_signature.get(signature)
            if entry is None and (self.alike.get(alike, 0) >= self.values
                                  or len(self.by_signature) >= self.total):
                return self._generic_entry()  # (past the caps: not remembered)
            hopeless = self.fruitless >= FRUITLESS and not self.bound
        comps = None
        if entry is None and not hopeless:  # built with nothing locked: the probe runs it
            try:
                comps = self._compiled(signature, args, kwargs)
            except SrcadError:  # (refused for these shapes: the code for any, as before,
                comps = None  # which raises what it raises)
        with _LOCK:  # one entry per signature, whichever thread asks first
            entry = self.by_signature.get(signature)
            if entry is None:
                self.fruitless += comps is None and not hopeless
                entry = self._bind(comps) if comps is not None else self._generic_entry()
                self.by_signature[signature] = entry
                self.alike[alike] = self.alike.get(alike, 0) + 1
            if not any(isinstance(a, CONTAINERS) for a in key_args):
                types = types_of(key_args)  # (the fast key reads no container's items)
                key_of = self.keys.get(types)
                if key_of is None:
                    key_of = self.keys[types] = signature_key(types)
                self.fast[(types, tuple(kwargs) if kwargs else None, key_of(key_args))] = entry
            return entry

    def _compiled(self, signature, args, kwargs):
        """(compiled, function) for each of self.KINDS, built for this signature from these
        arguments; None where a float's value decides a shape (floats are keyed by type)."""
        comps = []
        for kind in self.KINDS:
            target = self.generic(kind).target
            comp = cache.compiled(target, "reverse", kind, self.wrt, example=(args, kwargs),
                                  signature=signature, disabled=self.disabled)
            if comp.built.sized_floats:
                return None
            comps.append((comp, target))
        return comps

    def _bind(self, comps):
        """The entry: the compiled functions bound (_LOCK held), their syncs kept."""
        self.bound += 1
        functions = []
        for comp, target in comps:
            instance = self.instance(comp, target)
            if instance.sync is not None:
                self.syncs.append(instance.sync)
            functions.append(instance.function)
        return tuple(functions)


class RecordDispatch(_Dispatch):
    """rhs_forward and rhs_backward of a reverse-mode caller: the record returns the backward
    half that matches it inside its tape."""
    KINDS = ("record", "backward")

    def forward(self, *args, **kwargs):
        record, backward = self.entry(args, kwargs)
        value, tape = record(*args, **kwargs)
        return value, (backward, tape)

    @staticmethod
    def backward(seed, tape, *args, **kwargs):
        backward, own = tape
        return backward(seed, own, *args, **kwargs)
