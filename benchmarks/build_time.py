"""Cold build time against function size: how long srcad takes to write a derivative.

    make bench-build                                   # sizes 10, 100, 1000 and the loop nests
    make bench-build FULL=1                            # also 10,000 statements (and bodies of
                                                       # 1,000 statements in the loop nests)
    .venv/bin/python benchmarks/build_time.py --clock cpu     # CPU time, not wall-clock
    .venv/bin/python benchmarks/build_time.py --sizes 200,400,800 --no-loops
    .venv/bin/python benchmarks/build_time.py --plot docs/build_time.png   # log-log plot

Three families of functions, written to a new file for every build (srcad reads source
through inspect), so that no cache entry can match:

    chain(N)                        loops(k, depth)
    def f(x):                       def f(x, n):
        t0 = x                          t0 = x
        t1 = np.sin(t0) + t0 * 0.5      for i0 in range(n):
        ...                                 for i1 in range(n):      (depth loops)
        tN = np.sin(tN-1) + ...                 t1 = np.sin(t0) + t0 * 0.5
        return np.sum(tN)                       ...  (k statements)
                                                t0 = tk
                                        return np.sum(t0)
    wide(N): N values live at once (a chain has one)
    def f(x):
        a0 = np.sin(x * 0.001)
        ...                             (N statements)
        s = a0
        s = s + a1
        ...                             (N - 1 statements)
        return np.sum(s)

For each function, four cold builds: grad (reverse mode) and jvp (forward mode), each
  generic       srcad.source(f, mode): the code for any shapes;
  specialized   srcad.grad(f)(x) (srcad.jvp(f)(x, dx)): the first call, which checks f and
                builds the code specialized to x's shape, minus the median of three warm calls
                (the derivative's own run time is not build time).
The disk cache is off (SRCAD_CACHE_DIR is unset before srcad is imported), verify mode too,
and srcad's in-memory caches are emptied before every build. Times are seconds of one build
each (builds at these sizes are long enough that one is representative), wall-clock, or with
--clock cpu this process's CPU time (steadier on a machine shared with other work). A build
that takes longer than --budget seconds stops that column: larger sizes are not measured
(shown as -).

See docs/performance.md, "Build time".
"""
import os
import sys

import environment  # noqa: E402 - one BLAS thread, before NumPy loads

environment.plain_builds()  # cold, plain builds

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import argparse  # noqa: E402
import gc  # noqa: E402
import importlib.util  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import srcad  # noqa: E402
import srcad.api.cache  # noqa: E402
import srcad.api.derivatives  # noqa: E402

SIZES = (10, 100, 1000)
FULL_SIZES = SIZES + (10000,)
LOOP_BODIES = (10, 100)
FULL_LOOP_BODIES = LOOP_BODIES + (1000,)
DEPTHS = (1, 2, 3)
COLUMNS = (("grad", "generic"), ("grad", "specialized"), ("jvp", "generic"),
           ("jvp", "specialized"))

_DIRECTORY = tempfile.mkdtemp(prefix="srcad-build-time-")
_COUNTER = itertools.count()


def chain_source(n):
    """def f(x) of n statements t{i} = np.sin(t{i-1}) + t{i-1} * 0.5, then np.sum(t{n})."""
    lines = ["import numpy as np", "", "", "def f(x):", "    t0 = x"]
    lines += [f"    t{i} = np.sin(t{i - 1}) + t{i - 1} * 0.5" for i in range(1, n + 1)]
    lines.append(f"    return np.sum(t{n})")
    return "\n".join(lines) + "\n"


def wide_source(n):
    """def f(x) of n values a{i} = np.sin(x * c_i), all live until they are summed."""
    lines = ["import numpy as np", "", "", "def f(x):"]
    lines += [f"    a{i} = np.sin(x * {0.001 * (i + 1)})" for i in range(n)]
    lines += ["    s = a0"] + [f"    s = s + a{i}" for i in range(1, n)] + ["    return np.sum(s)"]
    return "\n".join(lines) + "\n"


def loops_source(k, depth):
    """def f(x, n) with depth nested `for ... in range(n)` around k such statements."""
    lines = ["import numpy as np", "", "", "def f(x, n):", "    t0 = x"]
    indent = "    "
    for level in range(depth):
        lines.append(f"{indent}for i{level} in range(n):")
        indent += "    "
    lines += [f"{indent}t{i} = np.sin(t{i - 1}) + t{i - 1} * 0.5" for i in range(1, k + 1)]
    lines.append(f"{indent}t0 = t{k}")
    lines.append("    return np.sum(t0)")
    return "\n".join(lines) + "\n"


def fresh_function(source):
    """The function f of source, from a new file (new code object and globals: no cache hit)."""
    path = os.path.join(_DIRECTORY, f"build_time_{next(_COUNTER)}.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(source)
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.f


def clear_caches():
    for table in (getattr(srcad.api.cache, "_BUILDS", None),
                  getattr(srcad.api.derivatives, "_DERIVATIVES", None)):
        if table is not None:
            table.clear()


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
_CLOCK = ["wall"]


def build_seconds(source, args, mode, build):
    """One cold build's seconds (see the module docstring)."""
    func = fresh_function(source)
    clear_caches()
    gc.collect()
    now = CLOCKS[_CLOCK[0]]
    if build == "generic":
        start = now()
        srcad.source(func, mode="reverse" if mode == "grad" else "forward")
        return now() - start
    x = args[0]
    extra = (np.ones_like(x),) if mode == "jvp" else ()
    start = now()
    derivative = (srcad.grad if mode == "grad" else srcad.jvp)(func)
    derivative(*args, *extra)
    first = now() - start
    warm = []
    for _ in range(3):
        start = now()
        derivative(*args, *extra)
        warm.append(now() - start)
    return max(first - statistics.median(warm), 0.0)


def measure(rows, budget, log):
    """rows: [(label, size, source, args)] in increasing size per family; returns
    {label: {column: seconds or None}}."""
    results = {}
    stopped = set()
    for label, family, source, args in rows:
        results[label] = {}
        for column in COLUMNS:
            key = (family, column)
            if key in stopped:
                results[label][column] = None
                continue
            seconds = build_seconds(source, args, *column)
            results[label][column] = seconds
            log(f"  {label:>22}  {column[0]:>4} {column[1]:<11} {seconds:9.3f} s")
            if seconds > budget:
                stopped.add(key)
    return results


def table(title, results):
    header = f"| {title} | " + " | ".join(f"{m} {b}" for m, b in COLUMNS) + " |"
    lines = [header, "|" + "---|" * (len(COLUMNS) + 1)]
    for label, row in results.items():
        cells = ["-" if row[c] is None else f"{row[c]:.3f} s" for c in COLUMNS]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(chain, sizes, path):
    """A log-log plot of chain build time against size (skipped without matplotlib)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    figure, axes = plt.subplots(figsize=(6, 4))
    for column in COLUMNS:
        points = [(n, chain[f"chain N={n}"][column]) for n in sizes
                  if chain[f"chain N={n}"][column] is not None]
        if points:
            axes.loglog(*zip(*points), marker="o", label=" ".join(column))
    axes.set_xlabel("statements")
    axes.set_ylabel("cold build (s)")
    axes.set_title("srcad build time")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true",
                        help="also 10,000 statements (and loop bodies of 1,000)")
    parser.add_argument("--sizes", help="chain sizes, comma-separated (default 10,100,1000)")
    parser.add_argument("--bodies", help="loop body sizes, comma-separated (default 10,100)")
    parser.add_argument("--no-loops", action="store_true", help="no loop nests")
    parser.add_argument("--no-wide", action="store_true", help="no wide functions")
    parser.add_argument("--budget", type=float, default=60.0,
                        help="seconds: a column stops after a build slower than this")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="wall-clock time (default) or this process's CPU time")
    parser.add_argument("--plot", metavar="PATH",
                        help="write a log-log plot there (needs matplotlib; else skipped)")
    parser.add_argument("--json", metavar="PATH", help="write the numbers there")
    parser.add_argument("--quiet", action="store_true", help="only the tables")
    options = parser.parse_args(argv)
    _CLOCK[0] = options.clock
    sizes = (tuple(int(s) for s in options.sizes.split(",")) if options.sizes
             else FULL_SIZES if options.full else SIZES)
    bodies = (tuple(int(s) for s in options.bodies.split(",")) if options.bodies
              else FULL_LOOP_BODIES if options.full else LOOP_BODIES)
    log = (lambda text: None) if options.quiet else (lambda text: print(text, flush=True))
    x = np.linspace(0.1, 1.0, 5)
    try:
        srcad.grad(lambda v: np.sum(np.sin(v)))(x)  # (templates loaded: not part of a build)
        log(f"chains ({options.clock} clock):")
        chain = measure([(f"chain N={n}", "chain", chain_source(n), (x,)) for n in sizes],
                        options.budget, log)
        print(table("function", chain))
        wide = {}
        if not options.no_wide:
            log("wide:")
            wide = measure([(f"wide N={n}", "wide", wide_source(n), (x,)) for n in sizes],
                           options.budget, log)
            print()
            print(table("many values live", wide))
        nests = {}
        if not options.no_loops:
            log("loops:")
            rows = [(f"{depth} loop(s), body {k}", f"loops{depth}", loops_source(k, depth),
                     (x, 3)) for depth in DEPTHS for k in bodies]
            nests = measure(rows, options.budget, log)
            print()
            print(table("loops (range(3) each)", nests))
        if options.plot:
            if plot(chain, sizes, options.plot):
                print(f"\nplot: {options.plot}")
        if options.json:
            with open(options.json, "w", encoding="utf-8") as handle:
                json.dump({label: {" ".join(c): row[c] for c in COLUMNS}
                           for label, row in {**chain, **wide, **nests}.items()}, handle,
                          indent=1)
    finally:
        shutil.rmtree(_DIRECTORY, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
