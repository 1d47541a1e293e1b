"""Where generated modules live: real files in the cache directory, so tracebacks, pdb and
inspect.getsource show generated lines. SRCAD_CACHE_DIR sets the directory (default: a srcad
folder in the system temp dir)."""
import hashlib
import os
import tempfile
import threading


def cache_dir():
    path = os.environ.get("SRCAD_CACHE_DIR") or os.path.join(
        tempfile.gettempdir(), f"srcad-cache-{os.getuid() if hasattr(os, 'getuid') else 0}")
    os.makedirs(path, exist_ok=True)
    return path


def write_module(source, stem):
    digest = hashlib.sha1(source.encode()).hexdigest()[:12]
    path = os.path.join(cache_dir(), f"{stem}_{digest}.py")
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(source)
        os.replace(tmp, path)
    return path
