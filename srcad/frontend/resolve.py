"""resolve: every free name the function reads is mapped to the object it denotes.

Templates are keyed by object, so spelling does not matter. Library references are rewritten to
one canonical spelling that the generated module imports itself:

    import numpy as jnp                        def f(x):
    from numpy import sin                  ->      return np.sin(x) * np.cos(x)
    def f(x): return sin(x) * jnp.cos(x)

Other free names (the user's globals and closure variables, e.g. a weight matrix `W`) keep their
names; the Scope records them so the generated function reads their current values.
"""
import builtins
import copy
import importlib
import sys
import threading
import types

import gast

from .. import runtime
from ..syntax.naming import walk
from ..syntax.nodes import attribute_chain, dotted_parts
from ..syntax.visitor import Transformer

# module -> how generated code spells it (and the import line that binds that spelling)
LIBRARY_MODULES = {
    "numpy": "np",
    "numpy.linalg": "np.linalg",
    "numpy.fft": "np.fft",
    "numpy.random": "np.random",
    "math": "math",
    "operator": "operator",
    "scipy.special": "scipy.special",
    "scipy.stats": "scipy.stats",
    "scipy.signal": "scipy.signal",
    "scipy.linalg": "scipy.linalg",
}
IMPORT_LINES = {"np": "import numpy as np", "math": "import math", "operator": "import operator",
                "scipy": "import scipy.special"}

_INDEX = {}
_INDEXED = set()  # the library modules whose callables are in _INDEX
_OPTIONAL = ("scipy.",)  # indexed once the user's program (or anyone) has imported them
_INDEX_LOCK = threading.Lock()


def _library_index():
    """id(callable) -> (callable, dotted public name), for the library modules srcad knows.
    A module srcad does not import itself (scipy's) joins the index once it is imported: a
    callable of it can be in a user's function only then, and importing scipy.stats for every
    program would cost about half a second."""
    new = [modname for modname in LIBRARY_MODULES if modname not in _INDEXED and not (
        modname.startswith(_OPTIONAL) and modname not in sys.modules)]
    if new:
        with _INDEX_LOCK:
            for modname in new:
                if modname not in _INDEXED:
                    _index_module(modname)
                    _INDEXED.add(modname)
    return _INDEX


def _index_module(modname):
    try:
        module = importlib.import_module(modname)
    except ImportError:
        return
    for attr in sorted(dir(module)):
        if attr.startswith("_"):
            continue
        obj = getattr(module, attr, None)
        if callable(obj) and not isinstance(obj, type):
            _INDEX.setdefault(id(obj), (obj, f"{modname}.{attr}"))


def canonical_name(obj):
    """'numpy.sin' for np.sin (and for `from numpy import sin`), None for non-library objects.
    A method of a library object is named after it: 'scipy.stats.norm.logpdf' for norm.logpdf
    (a bound method of the instance scipy.stats.norm, a new object at each access)."""
    if isinstance(obj, types.MethodType):
        owner = canonical_name(obj.__self__)
        name = getattr(obj, "__name__", None)
        if owner is not None and isinstance(name, str) and getattr(
                getattr(obj.__self__, name, None), "__func__", None) is obj.__func__:
            return f"{owner}.{name}"
        return None
    entry = _library_index().get(id(obj))
    if entry is not None and entry[0] is obj:
        return entry[1]
    return None


def library_module_name(obj):
    if isinstance(obj, types.ModuleType) and obj.__name__ in LIBRARY_MODULES:
        return obj.__name__
    return None


def spelled(dotted):
    """gast expression for a canonical dotted name: 'numpy.linalg.inv' -> np.linalg.inv,
    'scipy.stats.norm.logpdf' -> scipy.stats.norm.logpdf (after the longest library module)."""
    parts = dotted.split(".")
    depth = max(i for i in range(1, len(parts)) if ".".join(parts[:i]) in LIBRARY_MODULES)
    alias = LIBRARY_MODULES[".".join(parts[:depth])]
    return attribute_chain(alias.split(".") + parts[depth:])


class Scope:
    """What the names in a function denote: locals, the user's globals, closure cells, builtins."""

    def __init__(self, func, local_names):
        self.func = func
        self.globals = func.__globals__
        self.cells = {}
        if func.__closure__:
            self.cells = dict(zip(func.__code__.co_freevars, func.__closure__))
        self.local_names = set(local_names)
        self.injected = {}
        self.user_globals = set()   # free names read from the function's module
        self.user_cells = set()     # free names read from closure cells
        self.aliases = {}  # a free name read under another one -> (its own name, a read)
        self.copies = {}  # a parameter named like a runtime helper -> the copy the body reads
        self.canonical = _library_roots()
        # free names and attribute paths of the user's read as library functions (act = np.tanh;
        # mylib.act): written as the library's, watched (Built.inlined) so another bound there
        # builds anew
        self.resolved = set()

    def copy(self):
        """A copy whose sets and dicts a later build may change without changing this one."""
        other = copy.copy(self)
        other.cells, other.local_names, other.injected, other.aliases, other.copies = (
            dict(self.cells), set(self.local_names), dict(self.injected), dict(self.aliases),
            dict(self.copies))
        other.user_globals, other.user_cells, other.canonical = (
            set(self.user_globals), set(self.user_cells), dict(self.canonical))
        other.resolved = set(self.resolved)
        return other

    def free_value(self, name):
        """(found, value) for a free name, in Python's order: closure, globals, builtins."""
        if name in self.injected:
            return True, self.injected[name]
        if name in self.cells:
            try:
                return True, self.cells[name].cell_contents
            except ValueError:
                return False, None
        if name in self.globals:
            return True, self.globals[name]
        if hasattr(builtins, name):
            return True, getattr(builtins, name)
        return False, None

    def lookup(self, node, unwrap=True):
        """The object a Name/Attribute chain denotes after resolution, or None if unknown/local.
        unwrap: a srcad derivative as the function it stands for (below)."""
        parts = dotted_parts(node)
        if parts is None or parts[0] in self.local_names:
            return None
        root = parts[0]
        if root in self.canonical and root not in self.user_globals and root not in self.user_cells:
            value = self.canonical[root]
        else:
            found, value = self.free_value(root)
            if not found:
                return None
        for attr in parts[1:]:
            try:
                value = getattr(value, attr)
            except AttributeError:
                return None
        # a srcad derivative (grad(f) called in a function differentiated): the function it
        # stands for, its generated code with the API's calling convention (api/compose.py)
        return (getattr(value, "__srcad_function__", None) if unwrap else None) or value


def alias_root(alias):
    return {"np": "numpy", "math": "math", "operator": "operator",
            "scipy": "scipy.special"}[alias.split(".")[0]]


def _root_module(alias):
    """The module object the first part of an alias names: np -> numpy, scipy -> scipy (with
    scipy.special imported)."""
    importlib.import_module(alias_root(alias))
    return importlib.import_module({"np": "numpy", "math": "math", "operator": "operator",
                                    "scipy": "scipy"}[alias.split(".")[0]])


_ROOTS = {}  # which optional library modules were imported -> _library_roots()


def _library_roots():
    """How generated code's library names resolve: np, math, operator -> their modules, and
    scipy -> scipy (with scipy.special imported) once the program has imported any of the
    scipy modules srcad knows (before, its code cannot name a callable of scipy's)."""
    optional = tuple(m for m in LIBRARY_MODULES if m.startswith(_OPTIONAL) and m in sys.modules)
    roots = _ROOTS.get(optional)
    if roots is None:
        roots = {}
        for alias in sorted(set(LIBRARY_MODULES.values())):
            if alias.startswith("scipy") and not optional:
                continue
            try:
                roots[alias.split(".")[0]] = _root_module(alias)
            except ImportError:
                continue
        roots = _ROOTS[optional] = roots
    return dict(roots)


class _Resolver(Transformer):
    def __init__(self, scope, info):
        self.scope = scope
        self.info = info

    def visit_Attribute(self, node):
        parts = dotted_parts(node)
        if parts is None or parts[0] in self.scope.local_names:
            return self.generic_visit(node)
        found, root = self.scope.free_value(parts[0])
        if not found:  # a global defined later (after a decorator ran): read when called
            self.scope.user_globals.add(parts[0])
            return node
        # walk the chain down to the longest prefix that is a library module
        value = root
        module_depth = 1 if library_module_name(root) else 0
        for i, attr in enumerate(parts[1:], start=2):
            value = getattr(value, attr, None)
            if library_module_name(value):
                module_depth = i
        if module_depth:
            module = root
            for attr in parts[1:module_depth]:
                module = getattr(module, attr)
            alias = LIBRARY_MODULES[module.__name__].split(".")
            return gast.copy_location(attribute_chain(alias + parts[module_depth:]), node)
        name = canonical_name(root) if not isinstance(root, (int, float, complex)) else None
        if name is not None:  # an attribute of a library object: norm.logpdf (from scipy.stats)
            self._note_resolved(parts[0], root)
            return gast.copy_location(attribute_chain(dotted_parts(spelled(name)) + parts[1:]),
                                      node)
        self._note_user(parts[0])
        if not isinstance(value, (int, float, complex)) and canonical_name(value) is not None:
            self.scope.resolved.add(".".join(parts))  # (mylib.act, a library function)
        return node

    def visit_Name(self, node):
        if not isinstance(node.ctx, gast.Load) or node.id in self.scope.local_names:
            return node
        found, value = self.scope.free_value(node.id)
        if not found:  # a global defined later (after a decorator ran): read when called
            self.scope.user_globals.add(node.id)
            return node
        if node.id in runtime.HELPERS and runtime.HELPERS[node.id] is value:
            return node  # a runtime helper (in generated code being differentiated again)
        name = canonical_name(value) if not isinstance(value, (int, float, complex)) else None
        if name is not None:
            self._note_resolved(node.id, value)
            return gast.copy_location(spelled(name), node)
        modname = library_module_name(value)
        if modname is not None:
            return gast.copy_location(attribute_chain(LIBRARY_MODULES[modname].split(".")), node)
        if node.id in self.scope.cells or (node.id in self.scope.globals):
            self._note_user(node.id)
        return node

    def _note_resolved(self, name, value):
        """A free name of the user's (not a builtin) read as a library function or object
        (value), watched unless it is the object's own name: from numpy import tanh is an
        import, act = np.tanh a choice the user may make again (a watch costs each call of the
        derivative a sync, about 0.8 us)."""
        if name not in self.scope.injected and name != getattr(value, "__name__", None) and (
                name in self.scope.cells or name in self.scope.globals):
            self.scope.resolved.add(name)

    def _note_user(self, name):
        if name in self.scope.injected:
            return
        if name in self.scope.cells:
            self.scope.user_cells.add(name)
        elif name in self.scope.globals:
            self.scope.user_globals.add(name)


def assigned_names(fdef):
    """Parameters and every name the function binds (Python's definition of a local)."""
    names = set()
    args = fdef.args
    for arg in args.posonlyargs + args.args + args.kwonlyargs:
        names.add(arg.id)
    for special in (args.vararg, args.kwarg):
        if special is not None:
            names.add(special.id)
    for node in walk(fdef):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            names.add(node.id)
        elif isinstance(node, (gast.FunctionDef, gast.ClassDef)) and node is not fdef:
            names.add(node.name)
    return names


def resolve(fdef, func, info, injected=None):
    """Rewrite library references to canonical spelling; return the function's Scope.
    injected: names bound to functions srcad made (nested functions, lifted)."""
    scope = Scope(func, assigned_names(fdef))
    scope.injected = dict(injected or {})
    fdef.body = [_Resolver(scope, info).visit(stmt) for stmt in fdef.body]
    _defaults_as_values(fdef, func)
    return scope


_LITERALS = (int, float, complex, str, bytes, bool, type(None))


def _defaults_as_values(fdef, func):
    """The defaults of fdef as the values Python computed when it ran the def (def f(x,
    eps=EPS) has eps=0.001: EPS is read once, there): a number, string or None is written
    as itself; anything else (an array, a function) as None in the generated def, whose
    defaults the runtime sets to func's own (cache.Instance)."""
    def value_node(value):
        if isinstance(value, _LITERALS) and type(value) in _LITERALS:
            return gast.Constant(value=value, kind=None)
        return gast.Constant(value=None, kind=None)
    args = fdef.args
    values = getattr(func, "__defaults__", None) or ()
    if len(values) == len(args.defaults):
        args.defaults = [d if isinstance(d, gast.Constant) else value_node(v)
                         for d, v in zip(args.defaults, values)]
    kw_values = getattr(func, "__kwdefaults__", None) or {}
    args.kw_defaults = [d if d is None or isinstance(d, gast.Constant) or a.id not in kw_values
                        else value_node(kw_values[a.id])
                        for a, d in zip(args.kwonlyargs, args.kw_defaults)]


__all__ = ["resolve", "Scope", "canonical_name", "spelled", "dotted_parts"]
