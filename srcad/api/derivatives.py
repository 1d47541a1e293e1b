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
import threading
import weakref

import numpy as np

from ..analysis.shapes import signature_of, values_left_out, without_values
from . import cache, callees, compose, html
from .jit import check_jit, numba_compiled
from .dispatch import COTANGENT, FastPath, last_kwonly, signature_key, types_of, TYPES_OF_FEW
from .trees import check_real, complex_array
from .verify import verify_call, verify_on
from ..errors import SrcadError
from ..frontend.object_loops import classes_of, method_of_object
from ..pipeline import disabled_passes, target_function
from ..rules.registry import REGISTRY

_DERIVATIVES = weakref.WeakKeyDictionary()
# has_aux=True: f returns (value, aux); the code generated for these kinds returns (f's value,
# gradients) with aux's adjoint none
AUX_KINDS = {"grad_aux": "aux", "value_and_grad_aux": "aux", "vjp_aux": "vjp_aux"}
_REGISTERING = threading.Lock()  # held while a Derivative is put into _DERIVATIVES (nothing else)
# held while generated code is bound into an Instance (Derivative.instance, specialize, keyed):
# one Instance per derivative and signature. Reentrant: binding a callee binds its callees.
_BINDING = threading.RLock()
# Caps on a derivative's specializations (Derivative.specialized): at most VALUES builds for
# calls that differ only in the values of ints, bools, strings and None (a loop bound that
# takes many values) or in the items of lists, tuples and dicts, at most TOTAL in all. A call past a cap runs the generic build, correct
# for any arguments, and is not remembered under its own key: the tables stay bounded.
VALUES = 8
TOTAL = 64


def check_wrt(wrt):
    if isinstance(wrt, bool) or not isinstance(wrt, (int, tuple)) or (
            isinstance(wrt, tuple) and not all(isinstance(w, int) and not isinstance(w, bool)
                                               for w in wrt)) or wrt == ():
        raise SrcadError(f"wrt must be an int or a non-empty tuple of ints (argument positions), "
                         f"got {wrt!r}")
    return wrt


def check_callable(func):
    if isinstance(func, Bound):  # (a transform of a bound method: of its function)
        return
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

    def __init__(self, func, mode, kind, wrt, disabled=frozenset(), verify=False, jit=None):
        self.func = func
        self.jit = jit  # "numba": each specialized function compiled by numba (jit.py)
        self.mode = mode
        self.kind = kind  # as the API calls it (grad_aux: grad(f, has_aux=True))
        self.built_kind = AUX_KINDS.get(kind, kind)  # the generated code's (pipeline.KINDS)
        self.wrt = wrt
        self.disabled = disabled  # optimization passes switched off (pipeline.PASSES)
        self.verify = verify  # compare each new specialization with the unoptimized code
        self.verified = set()  # ids of the specialized functions verify_call has checked
        # the generic code (for arguments whose shapes are not specialized on) is built on
        # first use; the outline raises now what that build would raise
        self.outline = cache.outline(self.target, mode, self.built_kind, wrt)
        self._instance = None
        self.many = isinstance(wrt, tuple)
        self.single_tuple = self.many and len(wrt) == 1
        self.specialized = {}  # argument signature -> (function, sync, compiled); the
        # signature leaves out the values the builds do not read (shapes.without_values)
        self.free = {}  # call_types -> the slots (positions, keyword names) whose values the
        # signatures of those calls leave out (_learn)
        self.alike = {}  # values_left_out(signature) -> how many specializations it has (caps)
        self.keys = {}  # argument types -> a function of the arguments (key_of)
        self.by_key = {}  # (types, that function's value) -> an entry of self.specialized
        self.fast_path = FastPath(Derivative, _renewed)  # its own __call__, for types seen (keyed)
        for attribute in functools.WRAPPER_ASSIGNMENTS:  # as functools.update_wrapper, but
            if hasattr(func, attribute):  # __wrapped__ is the generated function (a property)
                setattr(self, attribute, getattr(func, attribute))
        if not isinstance(func, Derivative):
            self.__dict__.update(func.__dict__)
        self.__name__ = self.outline.function_name
        self.__qualname__ = self.__name__

    @property
    def target(self):
        """The Python function differentiated: func, or for a srcad derivative, its generated
        code with the API's calling convention (compose.py), looked up anew after a rebuild."""
        inner = getattr(self.func, "__srcad_function__", None)
        return inner if inner is not None else self.func

    @property
    def __srcad_function__(self):
        """What srcad differentiates for this derivative, as a callee or as the function of
        another transform (srcad.grad(srcad.grad(f)))."""
        extra = ()
        if self.kind == "vjp":
            extra = (last_kwonly(self.generated),)
        elif self.kind == "jvp":
            extra = tuple(self.outline.tangent_names)
        return compose.composable(self, self.generated, extra, self.single_tuple)

    @property
    def instance(self):
        """The generic derivative, bound to func's globals and closure (built on first use)."""
        if self._instance is None:
            comp = cache.compiled(self.target, self.mode, self.built_kind, self.wrt,
                                  disabled=self.disabled)
            with _BINDING:  # one Instance: hessian and hvp sync the one they differentiate
                if self._instance is None:
                    self._instance = cache.Instance(comp, self.target, _callee)
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
        """The whole generated module (srcad.source's text), for any shapes."""
        return html.derivative_source(self)

    def _repr_html_(self):  # (Jupyter) the source beside the user's lines it comes from
        return html.derivative_html(self)

    def _pack(self, grads):
        return (grads,) if self.single_tuple else grads

    def specialize(self, args, kwargs):
        """The derivative specialized to these arguments' shapes (built on first use)."""
        return self._specialized(args, kwargs)[0]

    def _specialized(self, args, kwargs):
        """(entry, kept): the entry of self.specialized for these arguments, built on first use;
        kept is False for the generic code that a call past the caps (VALUES, TOTAL) runs,
        which is remembered under no key of its own (so that the tables stay bounded), and for
        the generic code called with lists, tuples or dicts (checked for complex values on
        every call: trees.check_real)."""
        signature = signature_of(args, kwargs) if "specialize" not in self.disabled else None
        if signature is None:  # (the code for any arguments: on every call, not only the first,
            check_real(self.target, args, kwargs)  # it cannot take complex arguments; calls
            # with lists, tuples or dicts, which may hold them, are not given a fast key)
            entry = self.specialized.get(None) or self._entry(None, args, kwargs)
            return entry, not any(isinstance(a, (list, tuple, dict)) for a in args)
        types = call_types(args, kwargs)
        fast = not any(isinstance(a, (list, tuple, dict)) for a in args)  # (the fast path keys
        # arrays and by-value arguments: the items of a list, tuple or dict need the signature)
        entry = self.specialized.get(without_values(signature, self.free.get(types), len(args)))
        if entry is not None:
            return entry, fast
        alike = values_left_out(signature, len(args))
        if self.alike.get(alike, 0) >= VALUES or len(self.specialized) >= TOTAL:
            check_real(self.target, args, kwargs)  # (past the caps: the code for any arguments)
            return self._entry(None, args, kwargs), False
        return self._entry(signature, args, kwargs), fast

    def _entry(self, signature, args, kwargs):
        """The entry for these arguments: built for their signature (None: the generic code),
        bound and kept in self.specialized under the signature without the values the build
        does not read."""
        _check_arguments(self.target, args, kwargs, self.wrt)
        if signature is None:  # (checked by _specialized, which asks for it)
            generic, comp = self.instance, None
        else:
            mode, kind = runs(self.mode, self.built_kind, self.wrt, args, self.disabled)
            comp = cache.compiled(self.target, mode, kind, self.wrt,
                                  example=(args, kwargs), signature=signature,
                                  disabled=self.disabled)
            if comp.built.sized_floats:  # a float's value may decide a shape, and floats are
                check_real(self.target, args, kwargs)  # keyed by type: the code for any
                generic, comp = self.instance, None  # shapes
        with _BINDING:  # one entry per signature, whichever thread asks first
            if comp is not None:
                free = self._learn(call_types(args, kwargs), comp.built.free_values)
                signature = without_values(signature, free, len(args))
            entry = self.specialized.get(signature)
            if entry is None:
                if comp is None:
                    entry = (generic.function, generic.sync, generic.compiled)
                else:
                    instance = _specialized_instance(comp, self.target) if (
                        self.jit is None) else cache.Instance(comp, self.target, _callee)
                    # (numba compiles the functions the code calls: the generic ones)
                    entry = (instance.function, instance.sync, comp)
                if self.jit == "numba":
                    entry = (numba_compiled(entry[0], self.__name__),) + entry[1:]
                self.specialized[signature] = entry
                if signature is not None:
                    alike = values_left_out(signature, len(args))
                    self.alike[alike] = self.alike.get(alike, 0) + 1
        return entry

    def _learn(self, types, built_free):
        """The slots whose values calls of these types leave out of their signatures, from now
        on: those the first build for them did not read. A later build that reads one (other
        shapes took another branch in the probe) narrows them for every later call (_BINDING
        held); the entries kept under the wider keys stay, correct, but are not found again."""
        known = self.free.get(types)
        if known is None:
            known = self.free[types] = frozenset(built_free)
        elif not known <= set(built_free):
            known = self.free[types] = known & frozenset(built_free)
            self._rekey(types)
        return known

    def _rekey(self, types):
        """Forget the fast keys of calls of these types (their free positions narrowed): the
        next such call is keyed anew (_BINDING held)."""
        self.keys.pop(types, None)
        self.by_key = {k: e for k, e in self.by_key.items() if k[0] != types}
        self.fast_path = FastPath(Derivative, _renewed)
        if type(self) is not Derivative:  # (its own class, made by the fast path)
            type(self).__call__ = Derivative.__call__
        for (kinds, key), entry in self.by_key.items():
            self.fast_path.add(self, kinds, key, entry, self.free.get(kinds, frozenset()))

    def build_for(self, args, kwargs, disabled):
        """(function, sync, compiled) built for these arguments without the passes `disabled`
        (not remembered: verify mode's reference and bisection builds)."""
        signature = signature_of(args, kwargs) if "specialize" not in disabled else None
        if signature is None:
            comp = cache.compiled(self.target, self.mode, self.built_kind, self.wrt, disabled=disabled)
        else:
            mode, kind = runs(self.mode, self.built_kind, self.wrt, args, disabled)
            comp = cache.compiled(self.target, mode, kind, self.wrt, example=(args, kwargs),
                                  signature=signature, disabled=disabled)
            instance = _specialized_instance(comp, self.target)
            return instance.function, instance.sync, comp
        instance = cache.Instance(comp, self.target, _callee)
        return instance.function, instance.sync, comp

    def invoke(self, entry, args, kwargs, extra):
        """Call an entry's function with f's arguments plus seeds or tangents (as run does)."""
        function, sync, comp = entry
        if sync is not None:
            sync()
        if extra and COTANGENT in extra:  # a vjp's cotangent: its generated parameter
            extra = {last_kwonly(function): extra[COTANGENT]}
        try:
            return function(*args, **kwargs, **(extra or {}))
        except Exception as exc:
            cache.annotate_error(exc, comp)
            raise

    def forget(self):
        """Drop every specialization and the fast path: build again on the next call."""
        self.specialized, self.keys, self.by_key, self.verified = {}, {}, {}, set()
        self.free, self.alike = {}, {}
        self._instance = None
        self.fast_path = FastPath(Derivative, _renewed)
        if type(self) is not Derivative:  # (its own class, made by the fast path)
            type(self).__call__ = Derivative.__call__

    def keyed(self, args, types):
        """specialize(args, {}), remembered under a key cheaper than the signature: the types
        of the arguments and what the signature reads of them (key_of). The generic code that
        a call past the caps runs is not remembered."""
        entry, kept = self._specialized(args, {})
        if not kept:
            return entry
        with _BINDING:  # the fast path learns each key once, however many threads meet it, and
            # with the free positions its keys were made with (_rekey may change them)
            free = self.free.get(types, frozenset())  # (learnt by the build, if one ran)
            key_of = self.keys.get(types)
            if key_of is None:
                key_of = self.keys[types] = signature_key(types, free)
            key = key_of(args)
            if (types, key) not in self.by_key:
                self.by_key[(types, key)] = entry
                self.fast_path.add(self, types, key, entry, free)
            return self.by_key[(types, key)]

    def run(self, args, kwargs, extra):
        """Call the specialized derivative with f's arguments plus seeds or tangents."""
        if kwargs:  # (specialize's lookup, written out)
            signature = signature_of(args, kwargs)
            free = self.free.get(call_types(args, kwargs)) if signature is not None else None
            entry = self.specialized.get(without_values(signature, free, len(args)))
            if entry is None or signature is None:  # (the code for any arguments: checked)
                entry = self.specialize(args, kwargs)
        else:  # the usual call, so kept short: see keyed
            types = TYPES_OF_FEW.get(len(args), types_of)(args)
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
        if extra and COTANGENT in extra:  # a vjp's cotangent: its generated parameter
            extra = {last_kwonly(function): extra[COTANGENT]}
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
            return self._pack(self.run(args[:-1], kwargs, {COTANGENT: args[-1]}))
        if kind == "grad_aux":
            value, grads = self.run(args, kwargs, {})
            return self._pack(grads), value[1]
        if kind == "value_and_grad_aux":
            value, grads = self.run(args, kwargs, {})
            return value, self._pack(grads)
        if kind == "vjp_aux":
            if not args:
                raise TypeError("vjp(*args, dy): the cotangent dy comes last")
            value, grads = self.run(args[:-1], kwargs, {COTANGENT: args[-1]})
            return self._pack(grads), value[1]
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

    def __reduce__(self):
        """Pickled by reference to the function and the options (the code is built again where
        it is loaded): multiprocessing and concurrent.futures can ship a derivative."""
        return derivative, (self.func, self.mode, self.kind, self.wrt, self.disabled,
                            self.verify, self.jit)


def call_types(args, kwargs):
    """What the slots whose values a call's signature leaves out are learnt for
    (Derivative.free): the types of the positional arguments, and the keywords (in the order
    given: another order learns apart) with theirs."""
    if not kwargs:
        return types_of(args)
    return types_of(args), tuple(kwargs), types_of(kwargs.values())


def _renewed(derivative, *args):
    """derivative(*args) after every derivative was dropped (a callee was redefined)."""
    _renew_all()
    return Derivative.__call__(derivative, *args)


def _renew_all():
    """A callee was redefined (cache.Stale): every build and specialization is dropped and
    made again when next needed."""
    with _BINDING:
        cache.forget_all()
        callees.forget_all()
        for per_func in list(_DERIVATIVES.values()):
            for found in list(per_func.values()):
                if isinstance(found, Derivative):
                    found.forget()


def _check_arguments(func, args, kwargs, wrt):
    """Refuse arguments srcad does not differentiate correctly: subclasses of ndarray
    (np.matrix, masked arrays: their operators mean other things), and complex numbers among
    the arguments it differentiates (complex values inside f are checked where the shape probe
    sees them: analysis/complexes.py, and trees.check_real for the code for any arguments), also
    inside dicts, lists and tuples of parameters."""
    positions = set(wrt) if isinstance(wrt, tuple) else {wrt}
    positions = {p % len(args) for p in positions if -len(args) <= p < len(args)}

    def problem(value, differentiated, depth=0):
        if isinstance(value, np.ndarray) and type(value) is not np.ndarray:
            return f"an instance of {type(value).__module__}.{type(value).__qualname__} (a " \
                   f"subclass of numpy.ndarray, whose operations mean other things)"
        if differentiated and (isinstance(value, (complex, np.complexfloating)) or
                               complex_array(value)):
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


def runs(mode, kind, wrt, args, disabled=frozenset()):
    """(mode, kind) of the code that runs for these example arguments. The gradient with respect
    to one argument that is a float is one forward sweep with its tangent seeded to 1 (forward
    mode's kind "grad"): no stack, no second pass over loops."""
    if (mode == "reverse" and kind == "grad" and type(wrt) is int and 0 <= wrt < len(args)
            and type(args[wrt]) is float and "float_gradient" not in disabled):
        return "forward", "grad"
    return mode, kind


class Bound:
    """A transform of a bound method (a derivative, a Jacobian, a Hessian): the transform of its
    function, called with self first. make(function) makes it; for an object of the user's
    classes the function is a copy that knows self's class (and the classes of self's
    attributes that are the user's objects: object_loops.method_of_object), so that
    self.predict(x) is differentiated as that class's method; classes: what it assumed, checked
    before every call (an object given another class, or an attribute another object, gets the
    transform for what it holds now). Transforms of it (srcad.grad(srcad.grad(m.loss)),
    srcad.jacobian(srcad.grad(m.loss))) are bound too: of make's result."""

    def __init__(self, method, make):
        self.method = method
        self.make = make  # function -> the transform (self its first argument)
        function, self.classes = method_of_object(method)
        self.inner = make(function)
        self.__name__ = getattr(self.inner, "__name__", "derivative")

    def __reduce__(self):  # (the bound object pickled with it, the transform by its recipe)
        return type(self), (self.method, self.make)

    def _current(self):
        """inner, or the transform for the classes the object has now, if they changed."""
        if self.classes is not None and classes_of(self.method.__self__) != self.classes:
            function, classes = method_of_object(self.method)
            self.inner = self.make(function)  # (then the classes: a thread that reads them in
            self.classes = classes  # between builds it again, never runs the old one)
        return self.inner

    def __call__(self, *args, **kwargs):
        return self._current()(self.method.__self__, *args, **kwargs)


class BoundDerivative(Bound):
    """The derivative of a bound method (Bound): the function's derivative with self first."""

    @property
    def generated(self):
        return self._current().generated

    @property
    def sync(self):
        return self._current().sync

    @property
    def source(self):
        return self._current().source

    def __repr__(self):
        return f"<srcad {self.inner.kind} of {self.method.__qualname__} (bound) wrt " \
               f"{self.inner.wrt}>"

    def _repr_html_(self):
        return self._current()._repr_html_()


class Of:
    """make for a Bound: function -> maker(the inner transform of function, or function), with
    self's position added to the argument positions (picklable, unlike a lambda)."""

    def __init__(self, maker, args, kwargs, inner=None):
        self.maker, self.args, self.kwargs, self.inner = maker, args, kwargs, inner

    def __call__(self, function):
        target = function if self.inner is None else self.inner(function)
        return self.maker(target, *self.args, **self.kwargs)


def shifted(wrt):
    """Argument positions with self's in front."""
    return tuple(w + 1 for w in wrt) if isinstance(wrt, tuple) else wrt + 1


def bound(func, maker, wrt, *args, **kwargs):
    """maker(func, wrt, *args, **kwargs) for func a bound method or a transform of one (a
    Bound): a Bound of maker applied to the function (or to the transform of it), positions
    shifted past self; None for anything else."""
    if inspect.ismethod(func):
        return Bound(func, Of(maker, (shifted(wrt),) + args, kwargs))
    if isinstance(func, Bound):
        return Bound(func.method, Of(maker, (shifted(wrt),) + args, kwargs, func.make))
    return None


def derivative(func, mode, kind, wrt, disable=None, verify=None, jit=None):
    """The (cached) Derivative of func for these options. disable: optimization passes to switch
    off (pipeline.disabled_passes); verify: compare each new specialization with the unoptimized
    derivative on its first call (verify.py). None: from SRCAD_DISABLE and SRCAD_VERIFY."""
    check_callable(func)
    check_wrt(wrt)
    check_jit(jit)
    disabled, verify = disabled_passes(disable), verify_on(verify)
    if jit == "numba":  # (numba's ufuncs take no order=, and its np.array no list of arrays:
        disabled = disabled | {"layout", "turns"}  # the layout and turns passes are NumPy's)
    if inspect.ismethod(func) or isinstance(func, Bound):  # (self first, its positions after)
        options = (mode, kind, shifted(wrt), disabled, verify, jit)
        if inspect.ismethod(func):
            return BoundDerivative(func, Of(derivative, options, {}))
        return BoundDerivative(func.method, Of(derivative, options, {}, func.make))
    key = (mode, kind, wrt, REGISTRY.version, disabled, verify, jit)  # (a new template makes old
    # derivatives stale)
    try:
        per_func = _DERIVATIVES.get(func)
    except TypeError:  # not weak-referenceable
        per_func = None
    if per_func is not None and key in per_func:
        return per_func[key]
    result = Derivative(func, mode, kind, wrt, disabled, verify, jit)
    try:
        with _REGISTERING:  # two threads asking at once get the same Derivative
            result = _DERIVATIVES.setdefault(func, {}).setdefault(key, result)
    except TypeError:
        pass
    return result


def _callee(func, mode, kind, wrt, disabled):
    """The derivative of a callee, for cache.Instance to bind into generated code."""
    return derivative(func, mode, kind, wrt, disable=disabled)


def _specialized_callee(func, kind, wrt, disabled):
    """In code specialized to its arguments: (function, sync) for a callee's derivative that
    specializes itself to each call's arguments (callees.py), None where it stays generic."""
    if kind not in ("record", "backward") or not callees.dispatchable(func):
        return None  # (forward mode's tangent functions stay generic: see callees.py)
    found = callees.dispatch_for(
        func, wrt, disabled, lambda k: derivative(func, "reverse", k, wrt, disable=disabled),
        _specialized_instance, (VALUES, TOTAL))
    if found is None:  # (specializing it would not pay)
        return None
    return (found.forward if kind == "record" else found.backward), found.sync


def _specialized_instance(comp, target):
    """A build specialized to its arguments, bound: its callees specialize per call too
    (unless "callees" is switched off)."""
    return cache.Instance(comp, target, _callee, specialize=None if (
        "callees" in comp.disabled) else _specialized_callee)


def _decorator_or_call(kind, mode, func, wrt, disable, verify, jit=None):
    if func is None:
        return lambda f: derivative(f, mode, kind, wrt, disable, verify, jit)
    if isinstance(func, (int, tuple)) and not callable(func):  # @srcad.grad((0, 1))
        return lambda f: derivative(f, mode, kind, func, disable, verify, jit)
    return derivative(func, mode, kind, wrt, disable, verify, jit)


# Every entry point takes disable= (optimization passes to switch off: names of
# pipeline.PASSES, "all", or None for SRCAD_DISABLE's) and verify= (check each new
# specialization against the unoptimized derivative on its first call; None: SRCAD_VERIFY).
# The transforms that run one generated function take jit= too: "numba" compiles each
# specialized function with numba (jit.py), None runs the NumPy code as it is.

def grad(func=None, wrt=0, *, has_aux=False, disable=None, verify=None, jit=None):
    """Reverse-mode gradient of a scalar function: grad(f)(*args) -> df/dx (a tuple if wrt is).
    has_aux=True: f returns (value, aux); grad(f)(*args) -> (df/dx, aux), aux not
    differentiated."""
    return _decorator_or_call("grad_aux" if has_aux else "grad", "reverse", func, wrt, disable,
                              verify, jit)


def value_and_grad(func=None, wrt=0, *, has_aux=False, disable=None, verify=None, jit=None):
    """vg(*args) -> (f(*args), gradient), in one reverse sweep. has_aux=True: f returns
    (value, aux), and vg(*args) -> ((value, aux), gradient of value)."""
    return _decorator_or_call("value_and_grad_aux" if has_aux else "value_and_grad", "reverse",
                              func, wrt, disable, verify, jit)


def vjp(func=None, wrt=0, *, has_aux=False, disable=None, verify=None, jit=None):
    """vjp(*args, dy) -> dy^T J (any output shape; a tuple of cotangents for tuple outputs).
    has_aux=True: f returns (out, aux), dy is out's cotangent, and vjp(*args, dy) ->
    (dy^T J, aux)."""
    return _decorator_or_call("vjp_aux" if has_aux else "vjp", "reverse", func, wrt, disable,
                              verify, jit)


def jvp(func=None, wrt=0, *, disable=None, verify=None, jit=None):
    """jvp(*args, dx0, dx1, ...) -> J dx, the output tangent (forward mode)."""
    return _decorator_or_call("jvp", "forward", func, wrt, disable, verify, jit)


# grad(f)(x) written inside a function srcad differentiates: the derivative is made where that
# function is built, from the values the names denote then (frontend/statements.py), and called
# as a derivative bound to a name is
for _entry in (grad, value_and_grad, vjp, jvp):
    _entry.__srcad_constructor__ = True
