"""Builds kept on disk, when SRCAD_CACHE_DIR is set: a second process asking for the same
derivative reads the generated module back instead of running the compiler.

The key is a hash of everything the generated code depends on: srcad's own source (compiler and
templates), the function's source text and place, the options, the argument signature of a
specialized build, and what each name the function reads denotes (a library function, a user
function, a module, a value). A build that lifted nested functions or calls helpers that are
not importable by module and name is kept in memory only.
"""
import functools
import hashlib
import importlib
import inspect
import json
import os
import types

from .files import cache_dir
from .registry import REGISTRY
from .resolve import canonical_name


def enabled():
    return bool(os.environ.get("SRCAD_CACHE_DIR"))


@functools.lru_cache(maxsize=1)
def _fingerprint():
    """A hash of srcad's compiler and templates: a new srcad never reads an old build."""
    digest = hashlib.sha256()
    here = os.path.dirname(os.path.abspath(__file__))
    from . import templates
    for folder in (here, os.path.dirname(os.path.abspath(templates.__file__))):
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                with open(os.path.join(folder, name), "rb") as handle:
                    digest.update(name.encode() + handle.read())
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
    try:
        text = inspect.getsource(func)
        filename = inspect.getsourcefile(func)
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
                          repr(wrt), repr(signature), names])
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def _path(digest):
    folder = os.path.join(cache_dir(), "builds")
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, f"{digest}.json")


def load(digest, func):
    """The Built kept under digest, or None."""
    from .pipeline import Built
    try:
        with open(_path(digest), encoding="utf-8") as handle:
            data = json.load(handle)
        dependencies = {}
        for name, module, qualname, kind, wrt in data.pop("dependencies"):
            target = importlib.import_module(module)
            for part in qualname.split("."):
                target = getattr(target, part)
            dependencies[name] = (target, kind, tuple(wrt))
    except (OSError, ValueError, KeyError, ImportError, AttributeError):
        return None
    fields = {k: data[k] for k in Built.FIELDS}
    built = Built(fields.pop("source"), fields.pop("function_name"), func,
                  fields.pop("user_globals"), fields.pop("user_cells"), fields.pop("wrt_names"),
                  fields.pop("tangent_names"), fields.pop("filename"), fields.pop("lineno"),
                  dependencies, fields.pop("function_text"), fields.pop("header"))
    return built


def store(digest, built):
    """Keep built on disk if everything it refers to can be found again by name."""
    if built.lifted:
        return
    dependencies = []
    for name, (func, kind, wrt) in built.dependencies.items():
        if "<locals>" in func.__qualname__ or func.__module__ in (None, "__main__"):
            return
        dependencies.append([name, func.__module__, func.__qualname__, kind, list(wrt)])
    data = {k: getattr(built, k) for k in built.FIELDS}
    data["dependencies"] = dependencies
    path = _path(digest)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    os.replace(tmp, path)
