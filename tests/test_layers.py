"""srcad's layers, checked on the source: a module imports only from its own layer or lower ones,
imports at the top of the module (no import hidden in a function to dodge a cycle), and the
modules import each other without cycles. docs/ARCHITECTURE.md draws the same layers."""
import ast
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# lowest first; a module may import from its own layer and every layer before it
LAYERS = [
    ("base", ["srcad.version", "srcad.errors", "srcad.runtime"]),
    ("syntax", ["srcad.syntax"]),
    ("backend", ["srcad.backend"]),
    ("frontend", ["srcad.frontend"]),
    ("rules", ["srcad.rules"]),
    ("templates", ["srcad.templates"]),
    ("analysis", ["srcad.analysis"]),
    ("optimize", ["srcad.optimize"]),
    ("modes", ["srcad.modes"]),
    ("pipeline", ["srcad.pipeline"]),
    ("api", ["srcad.api"]),
    ("tools", ["srcad.checking", "srcad.cli"]),
    ("package", ["srcad", "srcad.__main__"]),
]


def layer_of(module):
    best = None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > best[1]:
                    best = (index, len(prefix))
    return None if best is None else best[0]


def modules():
    """(dotted module name, path) of every module of srcad and of its templates."""
    found = []
    for folder, package in (("srcad", "srcad"), ("templates", "srcad.templates")):
        base = os.path.join(ROOT, folder)
        for dirpath, dirnames, names in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(names):
                if name.endswith(".py"):
                    rel = os.path.relpath(os.path.join(dirpath, name), base)[:-3].split(os.sep)
                    if rel[-1] == "__init__":
                        rel = rel[:-1]
                    found.append((".".join([package] + rel), os.path.join(dirpath, name)))
    return found


def imports(module, path):
    """(imported srcad module, line, at top level) for each import of srcad in the module."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    is_package = path.endswith("__init__.py")
    top = set(id(node) for node in tree.body)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = module.split(".") if is_package else module.split(".")[:-1]
                parts = parts[:len(parts) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base != "srcad" and not base.startswith("srcad."):
                continue
            for alias in node.names:  # `from pkg import module` imports the module
                candidate = f"{base}.{alias.name}"
                target = candidate if _exists(candidate) else base
                out.append((target, node.lineno, id(node) in top))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "srcad" or alias.name.startswith("srcad."):
                    out.append((alias.name, node.lineno, id(node) in top))
    return out


_NAMES = None


def _exists(module):
    global _NAMES
    if _NAMES is None:
        _NAMES = {name for name, _ in modules()}
    return module in _NAMES


def test_every_module_has_a_layer():
    assert [m for m, _ in modules() if layer_of(m) is None] == []


def test_no_module_imports_from_a_higher_layer():
    wrong = []
    for module, path in modules():
        mine = layer_of(module)
        for target, line, _ in imports(module, path):
            theirs = layer_of(target)
            if theirs is not None and theirs > mine:
                wrong.append(f"{os.path.relpath(path, ROOT)}:{line}: {module} "
                             f"({LAYERS[mine][0]}) imports {target} ({LAYERS[theirs][0]})")
    assert wrong == [], "\n".join(wrong)


def test_srcad_is_imported_at_the_top_of_modules_only():
    hidden = [f"{os.path.relpath(path, ROOT)}:{line}: {target}"
              for module, path in modules() for target, line, top in imports(module, path)
              if not top]
    assert hidden == [], "imports inside functions (dodging a cycle?):\n" + "\n".join(hidden)


def test_there_are_no_import_cycles():
    graph = {module: {t for t, _, _ in imports(module, path) if t != module and _exists(t)}
             for module, path in modules()}
    # a package's __init__ importing its own modules is not a cycle of design
    for module in graph:
        graph[module] = {t for t in graph[module] if not t.startswith(module + ".")}
    state, stack, cycles = {}, [], []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert cycles == [], "\n".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize("module", ["srcad.syntax.nodes", "srcad.runtime", "srcad.rules.registry",
                                    "srcad.api.cache", "srcad.checking"])
def test_a_module_imports_first_in_a_fresh_interpreter(module):
    """Importing any module first (not srcad) works: no cycle that only import order hides."""
    done = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
