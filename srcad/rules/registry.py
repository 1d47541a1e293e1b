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
"""
import hashlib
import inspect
import sys
import textwrap
import threading

import gast

from .. import runtime
from ..frontend.resolve import canonical_name


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

    @property
    def node(self):
        if self._node is None:
            self._node = parse_template(self.func)
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


def parse_template(func):
    """A template function's definition, without its decorators and docstring."""
    source = textwrap.dedent(inspect.getsource(func))
    fdef = gast.parse(source).body[0]
    fdef.decorator_list = []
    if fdef.body and isinstance(fdef.body[0], gast.Expr) and isinstance(
            getattr(fdef.body[0], "value", None), gast.Constant):
        fdef.body = fdef.body[1:]
    return fdef


class TransposedTemplate(Template):
    """The adjoint of a diagonal template (Registry.diagonal): its tangent with the derivative
    of the result and of the operand exchanged."""

    @property
    def node(self):
        if self._node is None:
            fdef = parse_template(self.func)
            _check_diagonal(self.func, fdef)
            result, operand = [a.id for a in fdef.args.args[:2]]
            swap = {result: operand, operand: result}
            for node in gast.walk(fdef):
                if (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)
                        and node.value.id == "d" and isinstance(node.slice, gast.Name)):
                    node.slice.id = swap.get(node.slice.id, node.slice.id)
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
                isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name)
                and target.value.id == "d" and isinstance(target.slice, gast.Name)
                and target.slice.id == params[0].name))):
        raise ValueError(f"@diagonal({func.__name__}) needs `def {func.__name__}(y, x): d[y] = "
                         f"...` (one operand, one statement); write @adjoint and @tangent "
                         f"templates for other ops")


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
        self.names = {}
        self._helpers_seen = 0  # how many of runtime.LINEAR_TANGENTS have their template
        self._lock = threading.Lock()

    @property
    def version(self):
        self.sync_helpers()
        return self._version

    def sync_helpers(self):
        """Write the tangent templates of runtime helpers declared linear since the last look
        (runtime.helper(tangent="linear") records them; runtime imports nothing of srcad)."""
        if self._helpers_seen < len(runtime.LINEAR_TANGENTS):
            with self._lock:
                while self._helpers_seen < len(runtime.LINEAR_TANGENTS):
                    self.linear_tangent(runtime.LINEAR_TANGENTS[self._helpers_seen])
                    self._helpers_seen += 1

    def _key(self, op):
        return id(op)

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

    def diagonal(self, *ops, name=None):
        """Register one template as both derivatives of each op in `ops`, an elementwise function
        of one operand. It is written as the tangent, `d[y] = <an expression in d[x]>`; the
        Jacobian of such a function is diagonal, so it is its own transpose, and the adjoint is
        the same expression with d[y] for d[x] (`d[x] = <that expression in d[y]>`):

            @diagonal(np.sin)
            def sin(y, x):
                d[y] = d[x] * np.cos(x)       # adjoint: d[x] = d[y] * np.cos(x)
        """
        def register(func):
            _check_diagonal(func)
            for op in ops:
                self._remember(op, name)
                self.tangents[self._key(op)] = Template(func, op)
                self.adjoints[self._key(op)] = TransposedTemplate(func, op)
            return func
        return register

    def non_differentiable(self, *ops, name=None):
        """Declare ops whose result does not depend differentiably on their inputs (floor, argmax,
        comparisons, shape queries): they take part in code, their results are constants."""
        for op in ops:
            self._remember(op, name)
            self.nondifferentiable[self._key(op)] = op

    def user_templates_fingerprint(self):
        """A hash of the source of templates registered outside srcad (for the disk cache)."""
        if getattr(self, "_fingerprint", (None,))[0] != self.version:
            digest = hashlib.sha256()
            for table in (self.adjoints, self.tangents):
                for template in table.values():
                    module = getattr(template.func, "__module__", "") or ""
                    if not module.startswith("srcad."):
                        try:
                            text = getattr(template.func, "__srcad_text__", None)
                            digest.update((text or inspect.getsource(template.func)).encode())
                        except (OSError, TypeError):
                            digest.update(repr(template.func).encode())
            self._fingerprint = (self.version, digest.hexdigest())
        return self._fingerprint[1]

    def linear_tangent(self, helper):
        """Register `d[out] = helper(d[first], rest...)` as the tangent template of helper."""
        params = list(inspect.signature(helper).parameters.values())
        first, rest = params[0].name, params[1:]
        out = "out_"
        while out in {p.name for p in params}:
            out += "_"
        text = (f"def {helper.__name__}_tangent({out}, {str(inspect.signature(helper))[1:-1]}):\n"
                f"    d[{out}] = {helper.__name__}(d[{first}]"
                + "".join(f", {p.name}" if p.kind != p.KEYWORD_ONLY else f", {p.name}={p.name}"
                          for p in rest) + ")\n")
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

    def is_nondifferentiable(self, op):
        self.sync_helpers()
        return self._key(op) in self.nondifferentiable

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


def _spelling(name):
    """How user code spells a dotted public name: numpy.linalg.inv -> np.linalg.inv."""
    if name.startswith("numpy."):
        return "np." + name[len("numpy."):]
    return name


_INTEGRATE = ("write the integrator as a loop of your own (a Runge-Kutta step in a for loop, "
              "see examples/ode_rk4.py): srcad differentiates it, and adaptive steps are not "
              "differentiated by a template")
INSTEAD = {  # library functions whose refusal says what to write instead
    "scipy.integrate.odeint": _INTEGRATE, "scipy.integrate.solve_ivp": _INTEGRATE,
    "scipy.integrate.quad": "write the quadrature as a sum over fixed nodes (np.polynomial."
                            "legendre.leggauss gives them): srcad differentiates the sum",
}


def require_template(kind, op, info, node):
    """The adjoint or tangent template of `op`, or a SrcadError at the call."""
    template = REGISTRY.adjoint_of(op) if kind == "adjoint" else REGISTRY.tangent_of(op)
    if template is None:
        name = REGISTRY.name_of(op)
        mode = "reverse" if kind == "adjoint" else "forward"
        raise info.error(node, f"srcad has no {kind} template for {name}, so it cannot "
                               f"differentiate this call in {mode} mode",
                         hint=INSTEAD.get(name) or
                         f"register one with @srcad.{kind}({_spelling(name)}) (see "
                         f"docs/templates.md), or compute this value outside the "
                         f"differentiated function and pass it in as a constant")
    return template
