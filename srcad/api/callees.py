"""Callee derivatives specialized to each call's arguments.

A helper that is not written into its caller (a closure, a recursive or long helper: see
frontend/inline.py for the ones that are) gets derivative functions of its own, called from
the caller's generated code (rules/calls.py). Built once for any arguments, they pay on every
call for not knowing shapes: `unbroadcast` of every adjoint, `matmul_adjoint_b(g, A, y)`
instead of `A.T @ g`, dtype casts. In code specialized to the caller's arguments, the names of
those functions are bound to a CalleeDispatch instead, which specializes the helper's
derivative to the arguments of each call, as Derivative does for the function itself:

    k1_record = rhs_forward(y, k)                  RecordDispatch.forward: the record built
    ...                                            for (y, k)'s signature; its tape is
    t8 = rhs_backward(bk1, k1_record[1], y, k)     (backward built for that signature, tape)

The two halves of a callee's adjoint agree on their tape because they are cut from one joint
adjoint (reverse.split_half); a pair is therefore built together, from the same example
arguments and signature, and the forward half hands its own backward half on in the tape, so
the backward call runs the half that matches the record whatever the arguments look like then.

Forward mode's `y_pair = layer_tangent(dx, dW, x, W)` is specialized the same way, where each
tangent is of its value's type, shape and dtype (TangentDispatch); other tangents (a zero of
another shape) run the code for any arguments.

What stays generic, as it was: callees with *args or **kwargs, calls past the caps (as
Derivative's: VALUES builds that differ only in by-value arguments, TOTAL in all), arguments
whose signature says nothing (dask, CuPy, objects: shapes.signature_of is None), builds where a
float's value decides a shape (sized_floats). Code for any arguments (srcad.source, srcad.emit,
a derivative differentiated again) binds the generic functions, never a dispatch: it has no
arguments to specialize to, and it is read as source.
"""
import inspect
import threading
import weakref

from . import cache
from .dispatch import signature_key, types_of, TYPES_OF_FEW
from ..analysis.shapes import signature_of, values_left_out
from ..errors import SrcadError

_LOCK = threading.RLock()  # held while a dispatch builds and binds a specialization
_DISPATCHES = weakref.WeakKeyDictionary()  # callee -> {(kind, wrt, disabled): dispatch}
CONTAINERS = (list, tuple, dict)
_SYNCING = threading.local()  # .active: the dispatches this thread is syncing


def dispatchable(func):
    """Whether a callee's derivatives can be specialized per call: its parameters are plain
    (no *args, whose tuple parameter the derivative takes apart, nor **kwargs)."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return False
    return not any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)


def dispatch_for(func, kind, wrt, disabled, generic, instance, caps):
    """The dispatch of func's derivative of this kind ("record" and "backward" share one),
    made once per callee, kind and options. generic(kind) -> the Derivative for any arguments
    (with .target, .generated, .sync); instance(comp, target) -> the cache.Instance of a
    specialization, its own callees bound as the API binds them; caps: (VALUES, TOTAL)."""
    family = "tangent" if kind == "tangent" else "record"
    key = (family, wrt, disabled)
    with _LOCK:
        table = _DISPATCHES.setdefault(func, {})
        found = table.get(key)
        if found is None:
            make = TangentDispatch if family == "tangent" else RecordDispatch
            found = table[key] = make(generic, wrt, disabled, instance, caps)
        return found


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
        self.syncs = []  # the syncs of the bound specializations (run before each call)
        self.generic_used = False
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
            if self.generic_used:
                for kind in self.KINDS:
                    sync = self.generic(kind).sync
                    if sync is not None:
                        sync()
        finally:
            _SYNCING.active.discard(self)

    def entry(self, args, kwargs):
        """The entry for these primal arguments: looked up by their types and shapes, built on
        first use."""
        if not kwargs:
            types = TYPES_OF_FEW.get(len(args), types_of)(args)
            key_of = self.keys.get(types)
            if key_of is not None:
                found = self.fast.get((types, key_of(args)))
                if found is not None:
                    return found
        return self._entry(args, kwargs)

    def _generic_entry(self):
        with _LOCK:
            self.generic_used = True
            return tuple(self.generic(kind).generated for kind in self.KINDS)

    def _entry(self, args, kwargs):
        signature = signature_of(args, kwargs)
        if signature is None:
            return self._generic_entry()
        with _LOCK:
            entry = self.by_signature.get(signature)
            if entry is None:
                alike = values_left_out(signature, len(args))
                if self.alike.get(alike, 0) >= self.values or (
                        len(self.by_signature) >= self.total):
                    return self._generic_entry()  # (past the caps: not remembered)
                try:
                    entry = self._build(signature, args, kwargs)
                except SrcadError:  # (refused for these shapes: the code for any, as before,
                    entry = self._generic_entry()  # which raises what it raises)
                self.by_signature[signature] = entry
                self.alike[alike] = self.alike.get(alike, 0) + 1
            if not kwargs and not any(isinstance(a, CONTAINERS) for a in args):
                types = types_of(args)  # (the fast key reads no container's items)
                key_of = self.keys.get(types)
                if key_of is None:
                    key_of = self.keys[types] = signature_key(types)
                self.fast[(types, key_of(args))] = entry
            return entry

    def _build(self, signature, args, kwargs):
        """The functions of self.KINDS built for this signature, from these arguments, bound;
        the generic ones where a float's value decides a shape."""
        comps = []
        for kind in self.KINDS:
            target = self.generic(kind).target
            comp = cache.compiled(target, "forward" if kind == "tangent" else "reverse", kind,
                                  self.wrt, example=(args, kwargs), signature=signature,
                                  disabled=self.disabled)
            if comp.built.sized_floats:  # (floats are keyed by type: the code for any shapes)
                return self._generic_entry()
            comps.append((comp, target))
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


class TangentDispatch(_Dispatch):
    """rhs_tangent of a forward-mode caller: the tangents first, then the arguments."""
    KINDS = ("tangent",)

    def tangent(self, *args, **kwargs):
        count = len(self.wrt)
        tangents, primals = args[:count], args[count:]
        if all(i < len(primals) for i in self.wrt) and _alike(
                tangents, [primals[i] for i in self.wrt]):
            (function,) = self.entry(primals, kwargs)
        else:
            (function,) = self._generic_entry()
        return function(*args, **kwargs)


def _alike(tangents, values):
    """Each tangent of its value's type, and of its shape and dtype where it is an array."""
    for tangent, value in zip(tangents, values):
        if type(tangent) is not type(value) or isinstance(value, CONTAINERS):
            return False
        if hasattr(value, "shape") and (tangent.shape != value.shape
                                        or tangent.dtype != value.dtype):
            return False
    return True
