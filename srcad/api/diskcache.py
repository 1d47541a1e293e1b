"""Builds kept on disk, when SRCAD_CACHE_DIR is set: a second process asking for the same
derivative reads the generated module back instead of running the compiler.

The key is a hash of everything the generated code depends on: srcad's own source (compiler and
templates), the function's source text and place, the options, the argument signature of a
specialized build, and what each name the function reads denotes (a library function, a user
function, a module, a value). A build that lifted nested functions or calls helpers that are
not importable by module and name is kept in memory only.

What is read back is executed, so it is read with care (docs/ARCHITECTURE.md, "Caching"):
SRCAD_CACHE_DIR and its builds/ folder must be private to this user (files.build_dir; else
builds are cached in memory only, with one warning); an entry is read only from a regular file
of this user's that no one else can write, and used only if it is well formed: a dict of the
fields of a Built with their types, a source that compiles and defines the function it names,
dependencies that name functions of modules already imported (nothing is imported by name). An
entry that is not is ignored, rebuilt and overwritten. Entries are written atomically (a new
file created exclusively, then renamed), and a cache that cannot be written to is left alone.
"""
import functools
import hashlib
import inspect
import json
import os
import stat
import sys
import threading
import types
import warnings

from .. import templates
from ..backend.files import build_dir, compile_module, module_stem, write_atomically
from ..analysis.values import guards_hold
from ..frontend.inline import is_users_module
from ..frontend.resolve import canonical_name
from ..pipeline import Built
from ..rules.calls import CALLEE_KINDS
from ..rules.registry import REGISTRY

_MAX_BYTES = 16 * 2 ** 20  # an entry larger than this is not read
_UNWRITABLE = set()  # build folders a write to failed in (warned once; not written to again)
_LOCK = threading.Lock()


def enabled():
    """Whether builds are kept on disk: SRCAD_CACHE_DIR is set and private to this user."""
    return build_dir() is not None


@functools.lru_cache(maxsize=1)
def _fingerprint():
    """A hash of srcad's compiler and templates: a new srcad never reads an old build."""
    digest = hashlib.sha256()
    package = os.path.dirname(os.path.abspath(sys.modules[__name__.split(".")[0]].__file__))
    for root in (package, os.path.dirname(os.path.abspath(templates.__file__))):
        for folder, subfolders, files in os.walk(root):
            subfolders.sort()
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    with open(path, "rb") as handle:
                        digest.update(os.path.relpath(path, root).encode() + handle.read())
    return digest.hexdigest()


def _denotes(value):
    if isinstance(value, types.ModuleType):
        return f"module {value.__name__}"
    name = canonical_name(value) if callable(value) else None
    if name is not None:
        return f"library {name}"
    if isinstance(value, types.FunctionType):
        return f"function {value.__module__}.{value.__qualname__}"
    return "value"


def key(func, mode, kind, wrt, signature):
    """The disk key of a build, or None if this function cannot be cached on disk."""
    if getattr(func, "__srcad_bindings__", None) or hasattr(func, "__srcad_call_shape__") or (
            hasattr(func, "__srcad_classes__")):
        return None  # (a callee specialized to the functions, classes or call shape a call
        # passes it: memory only)
    try:
        text = inspect.getsource(func.__code__)  # (a functools.wraps wrapper's own text)
        filename = inspect.getsourcefile(func.__code__)
    except (OSError, TypeError):
        return None
    code = func.__code__
    cells = dict(zip(code.co_freevars, func.__closure__ or ()))
    names = []
    for name in sorted(set(code.co_names) | set(code.co_freevars)):
        if name in cells:
            try:
                value = cells[name].cell_contents
            except ValueError:
                continue
        elif name in func.__globals__:
            value = func.__globals__[name]
        else:
            continue
        names.append((name, _denotes(value)))
    payload = json.dumps([_fingerprint(), REGISTRY.user_templates_fingerprint(), text,
                          filename, code.co_firstlineno, mode, kind,
                          repr(wrt), repr(signature), names, _module_helpers(func)])
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def _module_helpers(func, depth=3):
    """The source of each function that func reads by a global name (and those that these
    read, to the depth frontend/inline.py writes helpers in), from func's module or from
    another of the user's (from mylib import rhs; mylib.rhs, and what rhs reads of mylib): a
    build may hold their code written in."""
    texts, seen, todo = [], {func}, [(func, 0)]
    while todo:
        current, level = todo.pop()
        if level >= depth:
            continue
        names = sorted(current.__code__.co_names)
        reached = [(name, current.__globals__.get(name)) for name in names]
        reached += [(f"{name}.{attribute}", getattr(module, attribute, None))  # (mylib.rhs:
                    for name, module in list(reached) if isinstance(module, types.ModuleType)
                    and is_users_module(module)  # an attribute name of the code, of a module
                    for attribute in names]  # of the user's)
        for name, value in reached:
            if isinstance(value, types.FunctionType) and value not in seen:
                seen.add(value)
                try:
                    texts.append((name, inspect.getsource(value.__code__)))
                except (OSError, TypeError):
                    texts.append((name, None))
                if value.__globals__ is func.__globals__ or is_users_module(
                        inspect.getmodule(value)):
                    todo.append((value, level + 1))
    return sorted(texts, key=str)


def _path(digest):
    folder = build_dir()
    if folder is None or not isinstance(digest, str) or not digest.isalnum():
        return None
    return os.path.join(folder, f"{digest}.json")


def _read(path):
    """The JSON value in the file at path if it is a regular file of this user's that no one
    else can write to (not followed if it is a symbolic link), else None."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError:
        return None
    try:
        with os.fdopen(descriptor, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_BYTES:
                return None
            if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o022):
                return None
            raw = handle.read(_MAX_BYTES + 1)
        return json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, RecursionError):  # (UnicodeDecodeError is a ValueError)
        return None


def _is_name(value):
    return isinstance(value, str) and value.isidentifier()


def _names(value):
    return isinstance(value, list) and all(_is_name(v) for v in value)


def _paths(value):
    """A list of names and dotted paths of names (Built.inlined: mylib.rhs)."""
    return isinstance(value, list) and all(
        isinstance(v, str) and all(_is_name(part) for part in v.split(".")) for v in value)


def _guards(value):
    """Built.guards as store writes them: [dotted path, how, text]."""
    return isinstance(value, list) and all(
        isinstance(g, list) and len(g) == 3 and _paths([g[0]]) and g[1] in (
            "value", "number", "type") and isinstance(g[2], str) for g in value)


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


# the fields of a Built as store writes them, and the test each must pass
_FIELDS = {"source": lambda v: isinstance(v, str), "function_name": _is_name,
           "user_globals": _names, "user_cells": _names, "wrt_names": _names,
           "tangent_names": _names, "filename": lambda v: isinstance(v, str), "lineno": _is_int,
           "function_text": lambda v: isinstance(v, str), "header": lambda v: isinstance(v, str),
           "free_values": lambda v: isinstance(v, list) and all(
               _is_name(s) or (_is_int(s) and s >= 0) for s in v),
           "sized_floats": lambda v: isinstance(v, list) and all(
               _is_name(s) or (_is_int(s) and s >= 0) for s in v),
           "inlined": _paths, "called": _paths, "guards": _guards}


def _function(module, qualname):
    """The Python function module.qualname, looked up in a module already imported (None if
    there is none: nothing is imported)."""
    target = sys.modules.get(module) if isinstance(module, str) else None
    if target is None or not isinstance(qualname, str):
        return None
    for part in qualname.split("."):
        if not part.isidentifier():
            return None
        try:
            target = getattr(target, part)
        except Exception:  # noqa: BLE001 - a module's __getattr__ may raise anything
            return None
    return target if isinstance(target, types.FunctionType) else None


def _dependencies(entries):
    """{name: (function, kind, wrt)} from store's list, or None if an entry is not valid."""
    if not isinstance(entries, list):
        return None
    dependencies = {}
    for entry in entries:
        if not isinstance(entry, list) or len(entry) != 5:
            return None
        name, module, qualname, kind, wrt = entry
        target = _function(module, qualname)
        if (not _is_name(name) or target is None or kind not in CALLEE_KINDS
                or not isinstance(wrt, list) or not all(_is_int(w) for w in wrt)):
            return None
        dependencies[name] = (target, kind, tuple(wrt))
    return dependencies


def _defines(code, function_name):
    """Whether the module compiled to code defines the function function_name."""
    return any(isinstance(const, types.CodeType) and const.co_name == function_name
               for const in code.co_consts)


def load(digest, func):
    """The Built kept under digest, or None (nothing kept, or an entry that is not valid)."""
    path = _path(digest)
    data = _read(path) if path is not None else None
    if not isinstance(data, dict) or not all(
            name in data and valid(data[name]) for name, valid in _FIELDS.items()):
        return None
    if not set(data["user_cells"]) <= set(func.__code__.co_freevars):
        return None
    if not guards_hold(func, data["guards"]):  # (specialized to other free values than these)
        return None
    dependencies = _dependencies(data.get("dependencies"))
    if dependencies is None:
        return None
    try:
        _, code, _ = compile_module(data["source"], module_stem(func, data["function_name"]))
    except (SyntaxError, ValueError, OverflowError, MemoryError, RecursionError):
        return None
    if not _defines(code, data["function_name"]):
        return None
    return Built(data["source"], data["function_name"], func, data["user_globals"],
                 data["user_cells"], data["wrt_names"], data["tangent_names"], data["filename"],
                 data["lineno"], dependencies, data["function_text"], data["header"],
                 free_values=data["free_values"], sized_floats=data["sized_floats"],
                 inlined=data["inlined"], called=data["called"], guards=data["guards"])


def store(digest, built):
    """Keep built on disk if everything it refers to can be found again by name (in modules
    that are imported when it is read back)."""
    if built.lifted:
        return
    dependencies = []
    for name, (func, kind, wrt) in built.dependencies.items():
        module, qualname = getattr(func, "__module__", None), getattr(func, "__qualname__", None)
        if _function(module, qualname) is not func:
            return
        dependencies.append([name, module, qualname, kind, list(wrt)])
    data = {k: getattr(built, k) for k in built.FIELDS}
    data["dependencies"] = dependencies
    path = _path(digest)
    if path is None:
        return
    folder = os.path.dirname(path)
    with _LOCK:
        if folder in _UNWRITABLE:
            return
    try:
        text = json.dumps(data)
    except (TypeError, ValueError):
        return
    if write_atomically(folder, os.path.basename(path), text) is None:
        with _LOCK:
            if folder in _UNWRITABLE:
                return
            _UNWRITABLE.add(folder)
        warnings.warn(f"srcad cannot write builds to {folder}; builds made from now on are "
                      f"cached in memory only", RuntimeWarning, stacklevel=2)
