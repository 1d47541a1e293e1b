"""The registry of derivative templates: which Python callables srcad knows how to differentiate.

A template is a plain Python function read as math. Its first parameter is the result, then the
operands in call order (defaults as in the real signature). `d[x]` means the derivative of x:
in a tangent template the tangent of x, in an adjoint template the adjoint of x.

    @adjoint(np.sin)                     @tangent(np.sin)
    def sin(y, x):                       def sin(y, x):
        d[x] = d[y] * np.cos(x)              d[y] = d[x] * np.cos(x)

An adjoint template's `d[x] = e` means "e is x's share of the adjoint": the compiler adds it to
x's adjoint, summing over broadcast axes when the op broadcasts (`broadcasts=True`). Templates are
never run; they are parsed once and instantiated into generated code with the names of the call.

Where an op's structure says what one of its templates is, it is declared and that template is
written here: @diagonal (an elementwise op: the adjoint is the tangent transposed), @linear and
@bilinear (the tangent is the op applied to tangents; the template given is the adjoint).
"""
import builtins
import hashlib
import importlib
import inspect
import linecache
import operator
import sys
import textwrap
import threading
import types

import gast
import numpy as np

from .. import runtime
from ..errors import SrcadError
from ..frontend.distributions import is_distribution
from ..frontend.resolve import canonical_name
from ..syntax.naming import walk_breadth
from ..syntax.nodes import call
from ..syntax.source import text_as_run


class _Derivative:
    """The `d` in templates: `d[x]` marks the derivative of x. Only ever read as source."""

    def __getitem__(self, item):
        raise RuntimeError("d[...] is template notation: templates are instantiated, never run")

    def __setitem__(self, item, value):
        raise RuntimeError("d[...] is template notation: templates are instantiated, never run")


d = _Derivative()


class Template:
    """One registered template function, parsed lazily (parsing ~300 templates at import is waste)."""

    def __init__(self, func, op, broadcasts=False, tuple_result=False):
        self.func = func
        self.op = op
        self.broadcasts = broadcasts
        self.tuple_result = tuple_result
        self.signature = inspect.signature(func)
        self._node = None
        self.lines = _file_lines(func)  # (its file's text as the function was defined)

    @property
    def node(self):
        if self._node is None:
            self._node = parse_template(self.func, self.lines)
        return self._node

    def bind(self, args, keywords):
        """Template parameter -> call-site node (or default value), as the real call would bind."""
        params = list(self.signature.parameters.values())[1:]
        bound = {}
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        var_pos = [p for p in params if p.kind == p.VAR_POSITIONAL]
        if len(args) > len(positional) and not var_pos:
            raise TypeError(f"too many positional arguments ({len(args)})")
        for param, arg in zip(positional, args):
            bound[param.name] = arg
        if var_pos:
            bound[var_pos[0].name] = list(args[len(positional):])
        names = {p.name for p in params}
        for key, value in keywords.items():
            if key not in names or key in bound:
                raise TypeError(f"unexpected keyword argument {key!r}")
            bound[key] = value
        for param in params:
            if param.name not in bound:
                if param.default is param.empty and param.kind != param.VAR_POSITIONAL:
                    raise TypeError(f"missing argument {param.name!r}")
                bound[param.name] = Default(param.default)
        return bound

    @property
    def operand_names(self):
        return [p.name for p in list(self.signature.parameters.values())[1:]]


def _file_lines(func):
    """The lines of the file that defines func, as it is when the template is registered (when
    its module runs: the text its code was compiled from), or None."""
    code = getattr(func, "__code__", None)
    if code is None or getattr(func, "__srcad_text__", None) is not None:
        return None
    return linecache.getlines(code.co_filename) or None


def template_source(func, lines=None):
    """The source of a template function, as the code Python runs. Templates are parsed when
    first instantiated, not at import (for import speed), so the text is taken from the lines
    of its file as they were when it was registered (lines, _file_lines), else from the file as
    it is now; either is used only if it compiles to the function's code (syntax/source.py). A
    file changed on disk since it was imported (srcad upgraded in place under a running process,
    a module of the user's templates edited and not reloaded) would otherwise give the text at
    the function's old line: another function's, maybe another template, read as this one's
    derivative."""
    text = text_as_run(func, lines)
    if text is None:
        code = func.__code__
        raise SrcadError(f"srcad cannot read the template {func.__qualname__} "
                         f"({code.co_filename}:{code.co_firstlineno}): its file is not the code "
                         f"Python is running (it changed after it was imported)",
                         hint="start the Python process again (or reload the module that "
                              "defines the template)")
    return text


def parse_template(func, lines=None):
    """A template function's definition, without its decorators and docstring."""
    source = textwrap.dedent(template_source(func, lines))
    fdef = gast.parse(source).body[0]
    fdef.decorator_list = []
    if fdef.body and isinstance(fdef.body[0], gast.Expr) and isinstance(
            getattr(fdef.body[0], "value", None), gast.Constant):
        fdef.body = fdef.body[1:]
    return fdef


def _derivative_of_name(node):
    """Whether node is d[name] (the derivative of a parameter, in a template)."""
    return (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)
            and node.value.id == "d" and isinstance(node.slice, gast.Name))


class TransposedTemplate(Template):
    """The adjoint of a diagonal template (Registry.diagonal): its tangent with the derivative
    of the result and of the operand exchanged."""

    @property
    def node(self):
        if self._node is None:
            fdef = parse_template(self.func, self.lines)
            _check_diagonal(self.func, fdef)
            result, operand = [a.id for a in fdef.args.args[:2]]
            swap = {result: operand, operand: result}
            for node in walk_breadth(fdef):
                if _derivative_of_name(node):
                    node.slice.id = swap.get(node.slice.id, node.slice.id)
            self._node = fdef
        return self._node


class SaturatingTangent(Template):
    """The tangent of a diagonal template whose slope reaches exactly 0 where the op saturates
    (Registry.diagonal(..., saturates=True): np.tanh past |x| ~ 19): `d[y] = d[x] * e` as
    `d[y] = slope_mul(d[x], e)`. An operand that overflowed to inf upstream has an infinite
    tangent (np.expm1(a) at a = 800), and inf times the exact 0 was nan where the derivative is
    0; slope_mul keeps a zero slope zero against it (one dot product of the tangent when it is
    finite). The adjoint (TransposedTemplate) stays a plain product: an adjoint reaches a
    saturated op before the overflow, and a zero adjoint meets the infinite slope in
    safe_mul there."""

    @property
    def node(self):
        if self._node is None:
            fdef = parse_template(self.func, self.lines)
            _check_diagonal(self.func, fdef)
            value = fdef.body[0].value
            operand = fdef.args.args[1].id
            if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult)
                    and _derivative_of_name(value.left) and value.left.slice.id == operand):
                raise ValueError(f"@diagonal({self.func.__name__}, saturates=True) needs "
                                 f"`d[y] = d[x] * slope`")
            fdef.body[0].value = call(["slope_mul"], value.left, value.right)
            self._node = fdef
        return self._node


def _check_diagonal(func, fdef=None):
    """A diagonal template has a result and one operand and no defaults (checked from the
    signature when it is registered) and one statement, d[y] = e (checked from its parse, fdef,
    when it is first instantiated: templates are parsed lazily)."""
    params = list(inspect.signature(func).parameters.values())
    target = None
    if fdef is not None and len(fdef.body) == 1 and isinstance(fdef.body[0], gast.Assign):
        target = fdef.body[0].targets[0]
    if (len(params) != 2 or any(p.default is not p.empty or p.kind != p.POSITIONAL_OR_KEYWORD
                                for p in params)
            or (fdef is not None and not (
                _derivative_of_name(target) and target.slice.id == params[0].name))):
        raise ValueError(f"@diagonal({func.__name__}) needs `def {func.__name__}(y, x): d[y] = "
                         f"...` (one operand, one statement); write @adjoint and @tangent "
                         f"templates for other ops")


class AppliedTangent(Template):
    """The tangent of a linear or bilinear op (Registry.linear, Registry.bilinear), written from
    its adjoint template `func`: the operands the adjoint differentiates (those it writes
    d[...] of) are the ones the op is linear in; the tangent applies the op to their tangents,
    with the call's other arguments (a bilinear op: once per operand, the others as they are,
    and the terms added). Arguments are passed in order, by position until one is left out
    (storage: out, dtype, casting, subok, copy, device) or named in `keywords`, by keyword
    after that:

        @linear(np.sum, keywords=("axis",))
        def sum_(y, a, axis=None, dtype=None, out=None, keepdims=False):
            d[a] = unreduce(d[y], a, axis, keepdims)

    has the tangent d[y] = np.sum(d[a], axis=axis, keepdims=keepdims). The ops of one
    declaration share it, spelled as the first op (an operator as its syntax: d[x] + d[y])."""

    def __init__(self, func, op, broadcasts, spelled_as, keywords, bilinear):
        super().__init__(func, op, broadcasts)
        self.spelled_as = spelled_as
        self.keywords = keywords
        self.bilinear = bilinear
        self._operands = None

    @property
    def operands(self):
        """The parameters the op is linear in: the ones its adjoint template writes, in order."""
        if self._operands is None:
            self.node  # (parsing the adjoint finds them)
        return self._operands

    @property
    def node(self):
        if self._node is None:
            fdef = parse_template(self.func, self.lines)
            params = list(self.signature.parameters.values())
            written = {node.slice.id for stmt in walk_breadth(fdef) if isinstance(stmt, gast.Assign)
                       for node in stmt.targets if _derivative_of_name(node)}
            operands = [p.name for p in params[1:] if p.name in written]
            if len(operands) < (2 if self.bilinear else 1):
                raise ValueError(f"@{'bilinear' if self.bilinear else 'linear'}"
                                 f"({self.func.__name__}): its adjoint template writes the "
                                 f"derivative of {len(operands)} operand(s)")
            if self.bilinear:
                replaced = [{name: f"d[{name}]"} for name in operands]
            else:
                replaced = [{name: f"d[{name}]" for name in operands}]
            terms = [applied(self.spelled_as, params[1:], given, _STORAGE, self.keywords)
                     for given in replaced]
            fdef.body = gast.parse(f"d[{params[0].name}] = {' + '.join(terms)}").body
            self._operands = operands
            self._node = fdef
        return self._node


# arguments that say how a result is stored, not which linear map an op applies: the tangent of
# a linear op is a new array in the tangents' dtype, so they are not passed to it
_STORAGE = frozenset({"out", "dtype", "casting", "subok", "copy", "device"})
_SYNTAX = {operator.add: "{} + {}", operator.sub: "{} - {}", operator.mul: "{} * {}",
           operator.matmul: "{} @ {}", operator.neg: "-{}", operator.getitem: "{}[{}]"}


def applied(op, params, given, leave_out=(), keywords=()):
    """Source text of a call of op with the arguments `params` (the inspect.Parameters after the
    result), each passed as its own name or as given[name]: by position until one is left out
    or named in `keywords`, by keyword after that. An operator is written as its syntax."""
    args = [given.get(p.name, p.name) for p in params]
    if op in _SYNTAX:
        return _SYNTAX[op].format(*args)
    pieces = []
    by_keyword = False
    for param, arg in zip(params, args):
        if param.name in leave_out:
            by_keyword = True
            continue
        by_keyword = by_keyword or param.kind == param.KEYWORD_ONLY or param.name in keywords
        pieces.append(f"{param.name}={arg}" if by_keyword else arg)
    return f"{call_spelling(op)}({', '.join(pieces)})"


def call_spelling(op):
    """How generated code calls op (np.sum, math.ldexp, a builtin's or a runtime helper's
    name: the op's own name, where its module has aliases for it), or None if it cannot."""
    name = canonical_name(op)
    short = getattr(op, "__name__", "")
    if name is not None:
        module = name.rpartition(".")[0]  # (np.concatenate, not its alias np.concat)
        if getattr(sys.modules.get(module), short, None) is op:
            name = f"{module}.{short}"
        return _spelling(name)
    if getattr(builtins, short, None) is op or runtime.HELPERS.get(short) is op:
        return short
    return None


class Default:
    """A parameter the call left out: the template sees its default value as a constant."""

    def __init__(self, value):
        self.value = value


class Registry:
    """Templates keyed by the callable object they differentiate (not by its spelling)."""

    def __init__(self):
        self._version = 0  # bumped by every registration: cached builds made before are stale
        self.adjoints = {}
        self.tangents = {}
        self.nondifferentiable = {}
        self.linear_calls = {}  # how generated code calls a linear or bilinear op -> its tangent
        self.names = {}
        self._helpers_seen = 0  # how many of runtime.LINEAR_TANGENTS have their template
        self._waiting = []  # [(module name, load)]: templates of libraries not imported yet
        self._lock = threading.RLock()

    @property
    def version(self):
        self.sync_helpers()
        return self._version

    def when_imported(self, module, load):
        """Call load() (which registers templates) at the first look at the registry after
        `module` is imported, by the user or anyone. srcad's templates for an optional library
        (scipy.stats) so cost that library's import only in programs that import it: a
        program that calls scipy.stats.norm.logpdf has imported scipy.stats before calling
        anything that looks the callable up here."""
        with self._lock:
            self._waiting.append((module, load))

    def load_waiting(self, everything=False):
        """Register the waiting templates whose module is imported (everything=True: import
        each module that is installed; for listings of what srcad covers)."""
        with self._lock:
            waiting, self._waiting = self._waiting, []
            for module, load in waiting:
                if everything and module not in sys.modules:
                    try:
                        importlib.import_module(module)
                    except ImportError:
                        continue
                if module in sys.modules:
                    load()
                else:
                    self._waiting.append((module, load))

    def sync_helpers(self):
        """Write the tangent templates of runtime helpers declared linear since the last look
        (runtime.helper(tangent="linear") records them; runtime imports nothing of srcad), after
        registering the templates of libraries imported since (when_imported)."""
        if self._waiting and any(module in sys.modules for module, _ in self._waiting):
            self.load_waiting()
        if self._helpers_seen < len(runtime.LINEAR_TANGENTS):
            with self._lock:
                while self._helpers_seen < len(runtime.LINEAR_TANGENTS):
                    self.linear_tangent(runtime.LINEAR_TANGENTS[self._helpers_seen])
                    self._helpers_seen += 1

    def _key(self, op):
        # a bound method is a new object at each access (scipy.stats.norm.logpdf): keyed by its
        # object and function, so each distribution's method has its own templates (the
        # registered op keeps its __self__ alive, so the id stays that object's)
        if isinstance(op, types.MethodType):
            return id(op.__self__), id(op.__func__)
        return id(op)

    def forget(self, *ops):
        """Drop every template and declaration of ops (a notebook redefining its rules, a test
        cleaning up); derivatives built before are stale, as after a registration."""
        with self._lock:
            for op in ops:
                key = self._key(op)
                for table in (self.adjoints, self.tangents, self.nondifferentiable, self.names):
                    table.pop(key, None)
            self._version += 1

    def _remember(self, op, name):
        self._version += 1
        self.names.setdefault(self._key(op), (op, name or public_name(op)))

    def adjoint(self, *ops, broadcasts=False, tuple_result=False, name=None):
        """Register the decorated function as the adjoint template of each op in `ops`.

        tuple_result=True: the op returns a tuple (slogdet, eigh, svd, split); in the template
        d[y] is then the sequence of the items' adjoints (zeros for items the code never used).
        """
        def register(func):
            for op in ops:
                self._remember(op, name)
                self.adjoints[self._key(op)] = Template(func, op, broadcasts, tuple_result)
            return func
        return register

    def tangent(self, *ops, broadcasts=False, name=None):
        """Register the decorated function as the tangent template of each op in `ops`."""
        def register(func):
            for op in ops:
                self._remember(op, name)
                self.tangents[self._key(op)] = Template(func, op, broadcasts)
            return func
        return register

    def diagonal(self, *ops, name=None, saturates=False):
        """Register one template as both derivatives of each op in `ops`, an elementwise function
        of one operand. It is written as the tangent, `d[y] = <an expression in d[x]>`; the
        Jacobian of such a function is diagonal, so it is its own transpose, and the adjoint is
        the same expression with d[y] for d[x] (`d[x] = <that expression in d[y]>`):

            @diagonal(np.sin)
            def sin(y, x):
                d[y] = d[x] * np.cos(x)       # adjoint: d[x] = d[y] * np.cos(x)

        saturates=True: the slope reaches exactly 0 at a finite value (np.tanh); the tangent
        multiplies through slope_mul (SaturatingTangent)."""
        def register(func):
            _check_diagonal(func)
            for op in ops:
                self._remember(op, name)
                self.tangents[self._key(op)] = (SaturatingTangent if saturates else Template)(
                    func, op)
                self.adjoints[self._key(op)] = TransposedTemplate(func, op)
            return func
        return register

    def linear(self, *ops, keywords=(), broadcasts=False, tuple_result=False, name=None):
        """Register the decorated function as the adjoint template of each op in `ops`, an op
        linear in the operands whose derivatives the adjoint writes, and write its tangent: the
        op applied to their tangents, the other arguments as the call passed them (see
        AppliedTangent for how; `keywords` are passed by keyword, and those after them). The
        adjoint, the transpose of that linear map, is the template written out:

            @linear(np.transpose)                 # tangent: d[y] = np.transpose(d[a], axes)
            def transpose(y, a, axes=None):
                d[a] = untranspose(d[y], axes)
        """
        return self._declare(ops, keywords, broadcasts, tuple_result, name, bilinear=False)

    def bilinear(self, *ops, keywords=(), broadcasts=False, name=None):
        """Like linear, for an op linear in each of its operands separately (a product): the
        tangent adds up the op applied with one operand at a time replaced by its tangent, and
        the adjoint template writes each operand's transpose:

            @bilinear(np.inner)           # tangent: d[c] = np.inner(d[a], b) + np.inner(a, d[b])
            def inner(c, a, b):
                d[a] = tensordot_adjoint_a(d[c], a, b, inner_axes(a, b))
                d[b] = tensordot_adjoint_b(d[c], a, b, inner_axes(a, b))
        """
        return self._declare(ops, keywords, broadcasts, False, name, bilinear=True)

    def _declare(self, ops, keywords, broadcasts, tuple_result, name, bilinear):
        def register(func):
            params = inspect.signature(func).parameters.values()
            if ((ops[0] not in _SYNTAX and call_spelling(ops[0]) is None)
                    or set(keywords) - {p.name for p in params}
                    or any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)):
                raise ValueError(f"@{'bilinear' if bilinear else 'linear'}({func.__name__}) "
                                 f"needs an op generated code can call (numpy, math, a builtin "
                                 f"or a runtime helper), named parameters, and keywords among "
                                 f"them; write @adjoint and @tangent templates otherwise")
            for op in ops:
                self._remember(op, name)
                self.adjoints[self._key(op)] = Template(func, op, broadcasts, tuple_result)
                tangent = AppliedTangent(func, op, broadcasts, ops[0], tuple(keywords),
                                         bilinear)
                self.tangents[self._key(op)] = tangent
                if op not in _SYNTAX and call_spelling(op) is not None:
                    self.linear_calls[call_spelling(op)] = tangent
            return func
        return register

    def same_as(self, op, other):
        """Register op with the templates of `other`, which computes the same function under
        another name (np.linalg.outer and np.outer)."""
        self._remember(op, None)
        self.adjoints[self._key(op)] = self.adjoints[self._key(other)]
        self.tangents[self._key(op)] = tangent = self.tangents[self._key(other)]
        if isinstance(tangent, AppliedTangent) and call_spelling(op) is not None:
            self.linear_calls[call_spelling(op)] = tangent

    def non_differentiable(self, *ops, name=None):
        """Declare ops whose result does not depend differentiably on their inputs (floor, argmax,
        comparisons, shape queries): they take part in code, their results are constants. Also
        a decorator: @srcad.non_differentiable on a helper of the user's makes its results
        constants (derivative zero in every mode; its code runs as written)."""
        for op in ops:
            self._remember(op, name)
            self.nondifferentiable[self._key(op)] = op
        return ops[0] if len(ops) == 1 else None

    def user_templates_fingerprint(self):
        """A hash of the source of templates registered outside srcad (for the disk cache)."""
        if getattr(self, "_fingerprint", (None,))[0] != self.version:
            digest = hashlib.sha256()
            for table in (self.adjoints, self.tangents):
                for template in table.values():
                    module = getattr(template.func, "__module__", "") or ""
                    if not module.startswith("srcad."):
                        try:
                            text = getattr(template.func, "__srcad_text__", None) or (
                                template_source(template.func, template.lines))
                            digest.update(text.encode())
                        except (OSError, TypeError, SrcadError):
                            digest.update(repr(template.func).encode())
            self._fingerprint = (self.version, digest.hexdigest())
        return self._fingerprint[1]

    def linear_tangent(self, helper):
        """Register `d[out] = helper(d[first], rest...)` as the tangent template of helper."""
        params = list(inspect.signature(helper).parameters.values())
        first = params[0].name
        out = "out_"
        while out in {p.name for p in params}:
            out += "_"
        text = (f"def {helper.__name__}_tangent({out}, {str(inspect.signature(helper))[1:-1]}):\n"
                f"    d[{out}] = {applied(helper, params, {first: f'd[{first}]'})}\n")
        namespace = {"__name__": helper.__module__}
        exec(text, namespace)
        func = namespace[f"{helper.__name__}_tangent"]
        func.__srcad_text__ = text  # its source, for the disk cache's fingerprint
        template = Template(func, helper)
        template._node = gast.parse(text).body[0]
        self._remember(helper, None)
        self.tangents[self._key(helper)] = template

    def adjoint_of(self, op):
        self.sync_helpers()
        return self.adjoints.get(self._key(op))

    def tangent_of(self, op):
        self.sync_helpers()
        return self.tangents.get(self._key(op))

    def linear_call(self, spelling):
        """The AppliedTangent of the linear or bilinear op that generated code calls as
        `spelling` ("np.sum"), or None: it says which operands the op is linear in."""
        return self.linear_calls.get(spelling)

    def is_nondifferentiable(self, op):
        self.sync_helpers()
        return self._key(op) in self.nondifferentiable or (  # (a try statement's function:
            isinstance(op, types.FunctionType) and op.__dict__.get("__srcad_try__", False))  # tries.py)

    def knows(self, op):
        self.sync_helpers()
        key = self._key(op)
        return key in self.adjoints or key in self.tangents or key in self.nondifferentiable

    def name_of(self, op):
        self.sync_helpers()
        entry = self.names.get(self._key(op))
        return entry[1] if entry else public_name(op)

    def coverage(self):
        """One dict per differentiable callable: name, forward, reverse (sorted by name)."""
        self.load_waiting(everything=True)
        self.sync_helpers()
        helpers = {id(f) for f in runtime.HELPERS.values()}
        rows = []
        for key, (op, name) in self.names.items():
            if key in self.nondifferentiable or key in helpers or "." not in name:
                continue  # internal: runtime helpers, assignment, tuple displays
            rows.append({"name": name, "forward": key in self.tangents,
                         "reverse": key in self.adjoints})
        return sorted(rows, key=lambda row: row["name"])


def public_name(op):
    """The dotted public name of a callable: numpy.sin, numpy.linalg.inv, math.exp, operator.add."""
    name = canonical_name(op)
    owner = getattr(op, "__self__", None)  # (a ufunc's method: numpy.add.reduce)
    if name is None and isinstance(owner, np.ufunc) and canonical_name(owner) is not None:
        return f"{canonical_name(owner)}.{op.__name__}"
    if name is None:
        module = getattr(op, "__module__", None) or "?"
        qualname = getattr(op, '__qualname__', getattr(op, '__name__', repr(op)))
        public = ".".join(part for part in module.split(".") if not part.startswith("_"))
        if public != module and getattr(sys.modules.get(public), qualname, None) is op:
            module = public  # scipy.integrate._odepack_py.odeint is scipy.integrate.odeint
        name = f"{module}.{qualname}"
    return name


REGISTRY = Registry()
adjoint = REGISTRY.adjoint
tangent = REGISTRY.tangent
non_differentiable = REGISTRY.non_differentiable
diagonal = REGISTRY.diagonal
linear = REGISTRY.linear
bilinear = REGISTRY.bilinear


def by_name(declare, module):
    """declare (adjoint, tangent, bilinear, ...) of module's callables by name: by_name(adjoint,
    scipy.special)("expit") is @adjoint(scipy.special.expit). With module None (an optional
    library that is not installed) the decorator registers nothing."""
    def of(name, **options):
        if module is None:
            return lambda func: func
        return declare(getattr(module, name), **options)
    return of


def _spelling(name):
    """How user code spells a dotted public name: numpy.linalg.inv -> np.linalg.inv."""
    if name.startswith("numpy."):
        return "np." + name[len("numpy."):]
    return name


_INTEGRATE = ("write the integrator as a loop of your own (a Runge-Kutta step in a for loop, "
              "see examples/ode_rk4.py): srcad differentiates it, and adaptive steps are not "
              "differentiated by a template")
_FFT = ("srcad differentiates np.fft.fft, ifft, rfft, irfft, fft2, ifft2, fftn and ifftn: write "
        "rfftn as rfft along the last axis, then fftn along the others (irfftn: ifftn, then "
        "irfft); hfft(a, n) is irfft(np.conj(a), n) scaled by n")
INSTEAD = {  # library functions whose refusal says what to write instead
    "scipy.integrate.odeint": _INTEGRATE, "scipy.integrate.solve_ivp": _INTEGRATE,
    "scipy.integrate.quad": "write the quadrature as a sum over fixed nodes (np.polynomial."
                            "legendre.leggauss gives them): srcad differentiates the sum",
    "builtins.set": "a set of differentiated values has no derivative (a set keeps no order "
                    "and merges equal values): keep the values in a list or a tuple",
    **{f"numpy.fft.{name}": _FFT for name in ("rfft2", "irfft2", "rfftn", "irfftn", "hfft",
                                              "ihfft")},
    **{f"numpy.{ufunc}.{method}": f"write np.{function}(x, axis=0), which is what it computes"
       for ufunc, method, function in (
           ("add", "reduce", "sum"), ("multiply", "reduce", "prod"), ("maximum", "reduce", "max"),
           ("minimum", "reduce", "min"), ("add", "accumulate", "cumsum"),
           ("multiply", "accumulate", "cumprod"))},
    **{f"numpy.{ufunc}.outer": f"broadcast instead: np.{ufunc}(a[:, None], b) for vectors"
       for ufunc in ("add", "subtract", "multiply", "divide", "power", "maximum", "minimum")},
}


def require_template(kind, op, info, node):
    """The adjoint or tangent template of `op`, or a SrcadError at the call."""
    template = REGISTRY.adjoint_of(op) if kind == "adjoint" else REGISTRY.tangent_of(op)
    if template is None:
        name = REGISTRY.name_of(op)
        mode = "reverse" if kind == "adjoint" else "forward"
        if is_distribution(op):
            raise info.error(node, f"srcad does not differentiate a frozen distribution "
                                   f"({name}(...)) that is passed on or kept",
                             hint=f"name it in the function and call its methods there "
                                  f"(rv = {_spelling(name)}(m, s); rv.logpdf(x)), or call "
                                  f"{_spelling(name)}.logpdf(x, m, s) with the parameters")
        raise info.error(node, f"srcad has no {kind} template for {name}, so it cannot "
                               f"differentiate this call in {mode} mode",
                         hint=INSTEAD.get(name) or
                         f"register one with @srcad.{kind}({_spelling(name)}) (see "
                         f"docs/templates.md), or compute this value outside the "
                         f"differentiated function and pass it in as a constant")
    return template
