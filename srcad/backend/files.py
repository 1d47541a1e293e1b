"""Where generated modules live: files in a directory private to this user, so tracebacks, pdb and
inspect.getsource show generated lines, and their text in linecache, so nothing srcad runs is
read back from a place someone else could have written to.

The directory is the first of these that is usable:
1. SRCAD_CACHE_DIR, when it is set (it then also holds the on-disk build cache, diskcache.py);
2. the per-user cache directory, $XDG_CACHE_HOME/srcad or ~/.cache/srcad;
3. a private temporary directory of this process (tempfile.mkdtemp), removed at exit.
Usable means: a real directory (not a symbolic link), owned by this user, with no permissions
for group and others (srcad creates the ones it makes with mode 0700), that this user can write
to. A directory that exists but fails the test is refused (once, with a warning), never
repaired. When none is usable, generated modules live in memory only, compiled under a pseudo
file name (`<srcad ...>`) whose lines linecache serves.

Every generated module's text is put into linecache under the name its code is compiled with,
with no modification time (mtime None: linecache.checkcache leaves the entry alone), so
inspect.getsource of a generated function, which srcad.hvp and srcad.hessian differentiate,
returns the text srcad generated even if the file is changed afterwards.
"""
import atexit
import collections
import hashlib
import io
import linecache
import os
import re
import shutil
import stat
import tempfile
import threading
import warnings

from .. import runtime
from .emit import helper_source

_POSIX = hasattr(os, "getuid")
_LOCK = threading.RLock()
_REFUSED = {}  # directory -> why it is not used (decided once per process)
_PROCESS = None  # (pid, path) of this process's private temporary directory
_ENTRIES = {}  # pseudo or real file name -> the linecache entry of the module compiled under it
_CODES = collections.OrderedDict()  # (file name, source) -> (code, helpers): compile_module memo
_MAX_CODES = 256
_STEM = re.compile(r"[^A-Za-z0-9_]")
_MAX_STEM = 80


def private_problem(path):
    """Why the directory at path is not one this user alone can write to, or None if it is."""
    try:
        info = os.lstat(path)
    except OSError as exc:
        return f"cannot be examined ({exc.strerror or exc})"
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(info.st_mode):
        return "is not a directory"
    if _POSIX:
        if info.st_uid != os.getuid():
            return f"belongs to another user (uid {info.st_uid}; srcad runs as {os.getuid()})"
        if info.st_mode & 0o077:
            return (f"has permissions for other users (mode {stat.S_IMODE(info.st_mode):o}; "
                    f"srcad needs 700)")
    if not os.access(path, os.W_OK | os.X_OK):
        return "is not writable"
    return None


def _refuse(path, label, reason, advice):
    _REFUSED[path] = reason
    if advice:
        warnings.warn(f"srcad does not use {label} {path}: it {reason}. {advice}", RuntimeWarning,
                      stacklevel=5)


def _private(path, label, warn=None, warn_missing=None):
    """path (absolute) if it is, or is now created as, a directory private to this user; else
    None, remembering why (label names it). warn: the advice of the warning given when a
    directory that exists is refused; warn_missing: when it cannot be created (None: refused
    without a warning)."""
    path = os.path.abspath(path)
    if path in _REFUSED:
        return None
    if not os.path.lexists(path):
        try:
            parent = os.path.dirname(path)
            if parent and not os.path.isdir(parent):
                os.makedirs(parent, exist_ok=True)
            try:
                os.mkdir(path, 0o700)
            except FileExistsError:
                pass  # made by another thread or process meanwhile: examined below
        except OSError as exc:
            _refuse(path, label, f"cannot be created ({exc.strerror or exc})", warn_missing)
            return None
    problem = private_problem(path)
    if problem is not None:
        _refuse(path, label, problem, warn)
        return None
    return path


def _configured():
    """SRCAD_CACHE_DIR if it is set and private to this user (else None, warned once)."""
    configured = os.environ.get("SRCAD_CACHE_DIR")
    if not configured:
        return None
    advice = ("Builds are cached in memory only; point SRCAD_CACHE_DIR at a directory of your "
              "own with mode 700 (or a path srcad can create) to keep them on disk.")
    return _private(configured, "SRCAD_CACHE_DIR", warn=advice, warn_missing=advice)


def _user_dir():
    """$XDG_CACHE_HOME/srcad or ~/.cache/srcad (None when there is no home to put it in)."""
    base = os.environ.get("XDG_CACHE_HOME")
    if not base or not os.path.isabs(base):
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "srcad")


def _process_dir():
    """This process's private temporary directory (made on first use, removed at exit)."""
    global _PROCESS
    if _PROCESS is not None and _PROCESS[0] == os.getpid():
        if private_problem(_PROCESS[1]) is None:
            return _PROCESS[1]
    try:
        path = tempfile.mkdtemp(prefix="srcad-")  # mode 0700, a new name: no one else's
    except OSError:
        return None
    if private_problem(path) is not None:
        return None
    if _PROCESS is None:
        atexit.register(_remove_process_dir)
    _PROCESS = (os.getpid(), path)
    return path


def _remove_process_dir():
    if _PROCESS is not None and _PROCESS[0] == os.getpid() and private_problem(
            _PROCESS[1]) is None:
        shutil.rmtree(_PROCESS[1], ignore_errors=True)


def cache_dir():
    """The directory generated modules are written to (see the module's docstring), checked
    now; None when no directory is usable: generated modules then live in memory only."""
    with _LOCK:
        path = _configured()
        if path is not None:
            return path
        user = _user_dir()
        if user is not None:
            path = _private(user, "the cache directory",
                            warn="Generated modules go to a private temporary directory.")
            if path is not None:
                return path
        return _process_dir()


def build_dir():
    """SRCAD_CACHE_DIR/builds, the on-disk build cache, when SRCAD_CACHE_DIR is set and both
    are private to this user; else None (builds are then cached in memory only)."""
    with _LOCK:
        root = _configured()
        if root is None:
            return None
        advice = "Builds are cached in memory only."
        return _private(os.path.join(root, "builds"), "the build folder", warn=advice,
                        warn_missing=advice)


def write_atomically(folder, name, text):
    """Write text to folder/name through a new file only this user can read (created
    exclusively, mode 0600) renamed over it; the path, or None if it could not be written."""
    path = os.path.join(folder, name)
    if os.path.dirname(os.path.abspath(path)) != os.path.abspath(folder):
        return None  # (a name with a separator in it: never outside the folder)
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=folder)
    except OSError:
        return None
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except (OSError, UnicodeError, ValueError):
        try:
            os.unlink(temporary)
        except OSError:
            pass
        return None
    return path


def safe_stem(stem):
    """stem with [A-Za-z0-9_] only, at most _MAX_STEM characters (a module's name, a qualname:
    never a path)."""
    return _STEM.sub("_", stem.replace("<", "").replace(">", ""))[:_MAX_STEM] or "module"


def module_stem(func, function_name):
    """The stem of the file name of the module generated for func (cache.Compiled)."""
    module, qualname = getattr(func, "__module__", None), getattr(func, "__qualname__", "")
    return f"{module}.{qualname}_{function_name}"


def write_module(source, stem):
    """Write a generated module to the cache directory and put its text into linecache; returns
    the file name to compile it with: the file's path, or `<srcad NAME>` when it lives in memory
    only (no usable directory, or the file could not be written)."""
    digest = hashlib.sha1(source.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    name = f"{safe_stem(stem)}_{digest}.py"
    folder = cache_dir()
    path = None
    if folder is not None:
        path = os.path.join(folder, name)
        try:  # the name is the text's hash: a file of ours under it holds this text
            info = os.lstat(path)
            written = stat.S_ISREG(info.st_mode) and (not _POSIX or info.st_uid == os.getuid())
        except OSError:
            written = False
        if not written:
            path = write_atomically(folder, name, source)
    if path is None:
        path = f"<srcad {name}>"
    remember(path, source)
    return path


def remember(path, source):
    """Put source into linecache under path, with no modification time: checkcache keeps it,
    and getlines never reads the file (see restore for caches that were cleared)."""
    lines = io.StringIO(source, newline=None).readlines()  # as the tokenizer counts lines
    entry = (len(source), None, lines, path)
    with _LOCK:
        _ENTRIES[path] = entry
    linecache.cache[path] = entry


def restore(func):
    """Put the text of the generated module func was compiled from back into linecache, if
    something cleared linecache since (so its source is never read back from the file)."""
    code = getattr(func, "__code__", None)
    path = getattr(code, "co_filename", None)
    entry = _ENTRIES.get(path) if isinstance(path, str) else None
    if entry is not None and linecache.cache.get(path) is not entry:
        linecache.cache[path] = entry


def compile_module(source, stem):
    """(file name, code object, helpers) of a generated module: written and remembered
    (write_module), compiled from its text, once for a given text and file name (diskcache.load
    checks a module read from disk by compiling it; cache.Compiled then gets the same code).
    The runtime helpers whose definitions the module holds, as emit writes them, are not
    compiled (runnable_text): helpers names them, and whoever runs the code binds them to the
    runtime's own functions, which the module's would be replaced by anyway."""
    path = write_module(source, stem)
    key = (path, source)
    with _LOCK:
        known = _CODES.get(key)
        if known is not None:
            _CODES.move_to_end(key)
            return (path,) + known
    text, helpers = runnable_text(source)
    known = compile(text, path, "exec"), helpers
    with _LOCK:
        _CODES[key] = known
        while len(_CODES) > _MAX_CODES:
            _CODES.popitem(last=False)
    return (path,) + known


_DEF = re.compile(r"^def (\w+)\(", re.MULTILINE)


def runnable_text(source):
    """(text, helpers): source with the definition of each runtime helper it holds, written as
    emit.helper_source writes it, replaced by as many empty lines (the lines after it keep
    their numbers: tracebacks and linecache, which holds source, agree), and the names of those
    helpers. Compiling a module's helpers took most of the compile of a small one (gp_nll's
    gradient: 3.1 ms of text, 0.6 ms without them), for functions never called: the runtime's
    own are bound in their place. A definition that differs from the helper's text (a module
    read from disk, written by another version of srcad) is compiled as it is."""
    helpers = []
    for name in dict.fromkeys(_DEF.findall(source)):
        if name not in runtime.HELPERS:
            continue
        text = helper_source(name).rstrip()
        at = source.find("\n" + text + "\n")
        if at < 0:
            continue
        source = source[:at + 1] + "\n" * text.count("\n") + source[at + 1 + len(text):]
        helpers.append(name)
    return source, tuple(helpers)
