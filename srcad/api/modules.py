"""The module around a generated derivative (srcad.source, srcad.emit, Derivative.source): the
derivative, the derivatives of the user functions it calls (each once), the runtime helpers
they use, and what their code reads of the user's modules.

What the code reads of a user's module is decided name by name, from the names the generated
functions read as globals (symtable), not from everything the user's function mentions (a
helper whose derivative the code calls is not needed itself):

- a function defined in a module Python finds by its name (`model.py` on the path) gets
  `from model import W, helper`: the module's current values when the emitted module is
  imported, as the decorator path reads them at each call;
- a function defined where nothing can import it again (a notebook cell or the IPython prompt:
  module `__main__` with the source in `<ipython-input-...>` or `/tmp/ipykernel_.../123.py`; a
  script run as `python my-train.py`: importing it would run it again, and `my-train` is not a
  module name) has its globals written into the module by srcad.emit, as they are when it
  writes: numbers, strings, arrays and containers of them as literals (backend/literals.py),
  modules and importable functions as imports, the user's own plain functions as their source
  (and what they read, the same way). srcad.source writes a comment naming them instead
  (no values: the text stays the same for the same function);
- a default computed when the def ran (`def f(x, w=W)`, which the generated def writes as None)
  is set after the def (`f_grad.__defaults__ = (W,)`), as the decorator path does;
- anything else (an object of the user's classes, a closure variable, a random generator) is a
  SrcadError from srcad.emit that says which name, what it is and what to do. An emitted module
  never fails at import or computes with other values than srcad.grad.

Every user-derived string reaches the module escaped: names are identifiers (symtable read
them from code), values are written by repr, file names only inside comments (comment_text).
"""
import ast
import builtins
import keyword
import os
import symtable
import sys
import textwrap
import types

from . import cache
from .callees import dispatchable, specializing_pays
from ..backend.emit import comment_text, module_text as module_text_of
from ..backend.literals import literal, NotLiteral
from ..errors import SrcadError
from ..frontend.parse import function_source, parse_function
from ..rules.calls import mode_of_kind
from ..runtime import HELPERS

# names the generated module's imports bind (the helpers and functions are added), and to what
_HEADER_MODULES = {"np": "numpy", "math": "math", "scipy": "scipy", "operator": "operator"}


def builts_of(built, disabled=frozenset()):
    """The Built of the derivative, then those of the callees' derivatives it calls (each once,
    breadth first: the order of the module)."""
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
    return builts


def module_text(built, disabled=frozenset(), carry=False, specialized=False):
    """The whole module for reading (carry=False: srcad.source) or shipping (carry=True:
    srcad.emit, which raises SrcadError where the module could not run as srcad.grad does).
    specialized: built is code specialized to arguments, whose callees' derivatives that pay
    for it are specialized at each call at run time (callees.py): their code here, for any
    arguments, is marked so."""
    builts = builts_of(built, disabled)
    marked = _specialized_at_calls(builts) if specialized and not carry and (
        "callees" not in disabled) else set()
    texts = [f"# {_SPECIALIZED_AT_CALLS}\n{b.function_text}" if b.function_name in marked
             else b.function_text for b in builts]
    reserved = set(_HEADER_MODULES) | set(HELPERS) | {b.function_name for b in builts}
    plan = _Plan(reserved, carry)
    for b in builts:
        if carry and b.user_cells:
            _refuse_cells(b)
        plan.add_reads(b, _global_reads(b.function_text))
        plan.add_defaults(b)
    return module_text_of(texts + plan.functions, built.header, plan.lines(), plan.after)


_SPECIALIZED_AT_CALLS = ("At run time the code above calls this callee's derivative through a "
                         "dispatch\n# that builds it for each call's argument shapes; this is its "
                         "code for any\n# shapes (what disable=\"callees\" runs, and srcad.emit "
                         "writes).")


def _specialized_at_calls(builts):
    """The record and backward halves of callees that the derivative's specialized code calls
    through callees.RecordDispatch (dispatchable, and specializing them pays, as the dispatch
    decides), and theirs, from a specialized callee's code, in turn."""
    by_name = {b.function_name: b for b in builts}
    marked, todo = set(), [builts[0]]
    while todo:
        current = todo.pop()
        pairs = {}
        for name, (func, kind, _) in current.dependencies.items():
            if kind in ("record", "backward") and name in by_name:
                pairs.setdefault(func, []).append(by_name[name])
        for func, halves in pairs.items():
            if dispatchable(func) and specializing_pays(b.function_text for b in halves):
                for half in halves:
                    if half.function_name not in marked:
                        marked.add(half.function_name)
                        todo.append(half)
    return marked


def _refuse_cells(b):
    fdef, info = parse_function(b.func)
    raise info.error(fdef, f"{b.func.__qualname__} reads the closure variables "
                           f"{', '.join(b.user_cells)}, which an emitted module cannot see",
                     hint="define the function at module level, or pass those values in as "
                          "arguments")


# ---------------------------------------------------------------------------------------------
# what code reads

def _global_reads(text):
    """The names code reads as globals (in function bodies, or at the top: a default's
    expression), less those it binds at the top (its defs, its imports)."""
    table = symtable.symtable(text, "<srcad>", "exec")
    names, top = set(), set()
    for symbol in table.get_symbols():
        if symbol.is_assigned() or symbol.is_imported():
            top.add(symbol.get_name())
        elif symbol.is_referenced():
            names.add(symbol.get_name())
    pending = list(table.get_children())
    while pending:
        child = pending.pop()
        pending.extend(child.get_children())
        for symbol in child.get_symbols():
            if symbol.is_global() and (symbol.is_referenced() or symbol.is_assigned()):
                names.add(symbol.get_name())
    return names - top


def _found_by_name(name, module):
    """Whether a Python started anew would import `module` by `name`: a dotted identifier other
    than __main__ that the import system finds, as the same file, from here."""
    if not name or name == "__main__" or not all(
            part.isidentifier() and not keyword.iskeyword(part) for part in name.split(".")):
        return False
    parent, _, _ = name.rpartition(".")
    path = None
    if parent:
        path = getattr(sys.modules.get(parent), "__path__", None)
        if path is None:
            return False
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            spec = find(name, path)
        except Exception:  # noqa: BLE001 (a finder that fails on this name does not find it)
            continue
        if spec is None:
            continue
        origin, file = getattr(spec, "origin", None), getattr(module, "__file__", None)
        if file is None or origin is None:
            return origin in (None, "built-in", "frozen") and file is None
        return os.path.realpath(origin) == os.path.realpath(file)
    return False


def _module_of(func):
    """(module name, module object or None, importable) of func's globals."""
    name = func.__globals__.get("__name__")
    module = sys.modules.get(name) if isinstance(name, str) else None
    if module is not None and getattr(module, "__dict__", None) is not func.__globals__:
        module = None
    return name, module, module is not None and _found_by_name(name, module)


def _where(func):
    """'__main__ (<ipython-input-1-2ab>)': the module a function is in, for comments and
    messages."""
    name = func.__globals__.get("__name__", "?")
    filename = getattr(func.__code__, "co_filename", None)
    if name == "__main__" and filename:
        return f"__main__ ({os.path.basename(filename) or filename})"
    return str(name)


def _importable_object(value):
    """(module name, attribute) to import a function, class or other named object from, if its
    module is found by name and gives back this very object; else None."""
    module_name = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    if not isinstance(module_name, str) or not isinstance(qualname, str) or "." in qualname:
        return None
    module = sys.modules.get(module_name)
    if module is None or getattr(module, qualname, None) is not value:
        return None
    return (module_name, qualname) if _found_by_name(module_name, module) else None


# ---------------------------------------------------------------------------------------------
# the plan: how the module binds each name

class _Plan:
    def __init__(self, reserved, carry):
        self.reserved = reserved
        self.carry = carry
        self.bound = {}        # name -> (value, how it is bound: text for messages)
        self.froms = {}        # module -> {name: attribute}
        self.imports = {}      # alias -> module name
        self.values = {}       # where -> [lines]
        self.functions = []    # sources of carried user functions
        self.notes = {}        # where -> names (srcad.source: what emit would write)
        self.after = []        # lines after the functions (defaults)
        self.conflicts = []    # srcad.source: comments on names bound twice
        self.carried = set()   # ids of functions whose source is carried (each once)
        self.labels = {}       # id of a globals dict -> where (named after its first function)

    def where(self, func):
        """The module of func's globals, named once (a lifted function's file is srcad's)."""
        key = id(func.__globals__)
        if key not in self.labels:
            self.labels[key] = _where(func)
        return self.labels[key]

    # -- reads --------------------------------------------------------------------------------

    def add_reads(self, b, names):
        func = b.func
        lifted = getattr(b, "lifted", {}) or {}
        module_name, module, importable = _module_of(func)
        for name in sorted(names):
            if name in self.reserved:
                if _shadowed(name, func.__globals__):
                    self.problem(b, name, f"{func.__qualname__} reads {name} from "
                                          f"{self.where(func)}, and the generated module has "
                                          f"a {name} of its own",
                                 f"rename {name} in {self.where(func)}")
                continue
            if name in lifted:
                self.bind_value(name, lifted[name], func, reader=b)
                continue
            if name not in func.__globals__:
                if hasattr(builtins, name):
                    continue
                if importable:  # (a global defined after the def: the module binds it later)
                    self.bind_from(name, module_name, name, None)
                    continue
                self.problem(b, name, f"{b.func.__qualname__} reads {name}, which is not "
                                      f"defined in {self.where(func)}",
                             "define it before emitting, or pass it in as an argument")
                continue
            value = func.__globals__[name]
            if importable:
                self.bind_from(name, module_name, name, value)
            else:
                self.bind_value(name, value, func, reader=b)

    def bind_from(self, name, module_name, attribute, value):
        if self.check_free(name, value, f"{module_name}.{attribute}"):
            self.froms.setdefault(module_name, {})[name] = attribute

    def check_free(self, name, value, how):
        """Whether name is still to bind (False: bound to this value already). A name bound
        to two values (W of two modules) is refused: one module binds one W."""
        if name in self.bound:
            if self.bound[name][0] is value:
                return False
            if not self.carry:  # (srcad.source: say so, and show the code)
                self.conflicts.append("# " + comment_text(
                    f"two values named {name}: {self.bound[name][1]} and {how}; srcad.emit "
                    f"refuses this module"))
                return False
            raise SrcadError(f"the generated module would need two values named {name}: "
                             f"{self.bound[name][1]} and {how}",
                             hint="rename one of them, so that each function reads its own "
                                  "name")
        self.bound[name] = (value, how)
        return True

    def bind_value(self, name, value, func, reader):
        """Bind name, read by a function of the non-importable module of func, to value."""
        where = self.where(func)
        if isinstance(value, types.ModuleType):
            if _found_by_name(value.__name__, value):
                if self.check_free(name, value, f"module {value.__name__}"):
                    self.imports[name] = value.__name__
                return
            return self.problem(reader, name, f"{name} is the module {value.__name__}, which "
                                              f"Python does not find by that name",
                                "put it where Python finds it (a package or the module path)")
        found = _importable_object(value) if not isinstance(value, (int, float, str)) else None
        if found is not None:
            return self.bind_from(name, found[0], found[1], value)
        if isinstance(value, types.FunctionType):
            return self.bind_function(name, value, reader, where)
        if not self.carry:
            if self.check_free(name, value, f"{where}.{name}"):
                self.notes.setdefault(where, []).append(name)
            return
        try:
            text = literal(value)
        except NotLiteral as exc:
            return self.problem(reader, name, f"{reader.func.__qualname__} reads {name} from "
                                              f"{where}, which is {exc}",
                                "srcad writes the globals of a notebook or script into the "
                                "emitted module only if they are numbers, strings, arrays of "
                                "numbers, or lists, tuples and dicts of them: pass it in as an "
                                "argument, or define it in a module file that the emitted "
                                "module can import")
        if self.check_free(name, value, f"{where}.{name}"):
            self.values.setdefault(where, []).append(f"{name} = {text}")

    def bind_function(self, name, function, reader, where):
        """A user function of a notebook or script the code calls (or passes on): its source,
        and what it reads, the same way."""
        if not self.carry:
            if self.check_free(name, function, f"{where}.{name}"):
                self.notes.setdefault(where, []).append(name)
            return
        text = getattr(function, "__srcad_lifted_text__", None)
        if function.__closure__:
            return self.problem(reader, name, f"{reader.func.__qualname__} calls {name}, a "
                                              f"closure (it reads variables of the function "
                                              f"that made it), from {where}",
                                "define it at module level, with those values as arguments")
        if text is None:
            try:
                parse_function(function)  # (the source is the code that runs)
                text, _ = function_source(function)
            except SrcadError as exc:
                raise SrcadError(f"{reader.func.__qualname__} calls {name} from {where}, whose "
                                 f"source srcad cannot write into the emitted module: {exc}",
                                 hint="define it in a module file that the emitted module can "
                                      "import") from None
        tree = ast.parse(text)
        node = tree.body[0] if len(tree.body) == 1 else None
        plain = isinstance(node, ast.FunctionDef) and not node.decorator_list and (
            node.name == name)
        if not plain:
            return self.problem(reader, name, f"{reader.func.__qualname__} calls {name} from "
                                              f"{where}, which is not a plain def named {name} "
                                              f"(a lambda, a decorated or renamed function)",
                                f"write it as `def {name}(...)` without decorators, or define "
                                f"it in a module file that the emitted module can import")
        if not self.check_free(name, function, f"{where}.{name}"):
            return
        if id(function) in self.carried:
            return
        self.carried.add(id(function))
        self.functions.append(textwrap.dedent(text))
        inner = _Reader(function)
        self.add_reads(inner, _global_reads(text) - {name})

    def problem(self, reader, name, message, hint):
        if self.carry:
            raise SrcadError(message, hint=hint)
        self.notes.setdefault(self.where(reader.func), []).append(name)

    # -- defaults -----------------------------------------------------------------------------

    def add_defaults(self, b):
        """Defaults Python computed when the def ran, which the generated def writes as None
        (resolve._defaults_as_values), set after the def."""
        func = b.func
        values = getattr(func, "__defaults__", None) or ()
        kw_values = getattr(func, "__kwdefaults__", None) or {}
        if not values and not kw_values:
            return
        fdef = next((node for node in ast.parse(b.function_text).body
                     if isinstance(node, ast.FunctionDef)), None)
        if fdef is None:
            return
        written = fdef.args.defaults
        positional = None
        if len(written) == len(values) and any(
                _written_none(node) and value is not None for node, value in zip(written,
                                                                                 values)):
            positional = [ast.unparse(node) if not _written_none(node) or value is None
                          else self.default(b, value) for node, value in zip(written, values)]
        keywords = {}
        for arg, node in zip(fdef.args.kwonlyargs, fdef.args.kw_defaults):
            if node is not None and _written_none(node) and kw_values.get(arg.arg) is not None:
                keywords[arg.arg] = self.default(b, kw_values[arg.arg])
        name = b.function_name
        if positional is not None:
            items = ", ".join(positional) + ("," if len(positional) == 1 else "")
            self.after.append(f"{name}.__defaults__ = ({items})")
        if keywords:
            items = ", ".join(f"{k!r}: {v}" for k, v in keywords.items())
            self.after.append(f"{name}.__kwdefaults__ = {{**{name}.__kwdefaults__, {items}}}")

    def default(self, b, value):
        """Source for a default's value: the module's global holding it (imported), or its
        literal."""
        module_name, module, importable = _module_of(b.func)
        if importable:
            for key, held in vars(module).items():
                if held is value and key.isidentifier() and not key.startswith("__"):
                    self.bind_from(key, module_name, key, value)
                    return key
        try:
            return literal(value)
        except NotLiteral as exc:
            if not self.carry:
                return "None  # (a default srcad.emit cannot write)"
            raise SrcadError(f"a default of {b.func.__qualname__} is {exc}, which srcad cannot "
                             f"write into the emitted module",
                             hint="make it a module global of an importable module, a number "
                                  "or an array, or pass it as an argument") from None

    # -- the text -----------------------------------------------------------------------------

    def lines(self):
        out = []
        for module, names in sorted(self.froms.items()):
            plain = sorted(n for n, attribute in names.items() if n == attribute)
            if plain:
                out.append(f"from {module} import {', '.join(plain)}")
            out += [f"from {module} import {attribute} as {n}"
                    for n, attribute in sorted(names.items()) if n != attribute]
        for alias, module in sorted(self.imports.items()):
            if alias in ("np",) and module == "numpy":
                continue
            out.append(f"import {module}" if alias == module else f"import {module} as {alias}")
        for where, lines in sorted(self.values.items()):
            out.append(f"# the values of globals of {comment_text(where)} when srcad.emit wrote "
                       f"this module")
            out += lines
        for where, names in sorted(self.notes.items()):
            out.append(f"# reads {', '.join(sorted(set(names)))} from {comment_text(where)}: "
                       f"srcad.emit writes their values here")
        return out + self.conflicts


class _Reader:
    """A carried user function seen as a reader of globals (what add_reads needs of a Built)."""

    def __init__(self, function):
        self.func = function
        self.user_globals = ()
        self.lifted = {}


def _shadowed(name, user_globals):
    """Whether the user's global `name` is something else than what the generated module
    binds to that name (a runtime helper, numpy as np)."""
    if name not in user_globals:
        return False
    value = user_globals[name]
    if name in HELPERS:
        return value is not HELPERS[name]
    if name in _HEADER_MODULES:
        return getattr(value, "__name__", None) != _HEADER_MODULES[name]
    return False


def _written_none(node):
    return isinstance(node, ast.Constant) and node.value is None
