"""Eager computations per gradient call on dask arrays: how many times dask runs a graph while
srcad's gradient builds the gradient's graph (0 is lazy: the primal is computed once, with the
gradient, when the user computes it). Run by benchmarks/run.py when dask is installed, or alone:

    .venv/bin/python benchmarks/dask_counts.py

For each workload of benchmarks/workloads.py that makes sense on dask arrays, the arrays are cut
into chunks along their first axis (up to 4), and the table gives: eager computations during the
gradient call (srcad.grad(f)(*dask arrays)), the tasks in the gradient's graph, the
computations to get the numbers (1: dask.compute), the time to build the graph and to compute
it (the local threaded scheduler), and the largest relative difference from the hand-written
NumPy gradient. dask's computations are counted by the scheduler every computation goes
through (np.asarray, float(), an `if` on a dask array, .compute()).
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
if ROOT not in sys.path:
    sys.path.insert(1, ROOT)

import numpy as np  # noqa: E402

import srcad  # noqa: E402
from workloads import fresh_functions, make_workloads  # noqa: E402

# workloads of arrays (floats and ints stay as they are); the others are scalar loops, and
# ode_rk4's 50 steps of 8-vectors make a graph of 27,000 tiny tasks (6 s to build): no dask work
WORKLOADS = ("helmholtz_n100", "mlp", "rnn_T10", "batchnorm", "gp_nll", "rosenbrock_n1000",
             "logreg", "pair_energy")


def _chunked(da, value):
    """value as a dask array of up to 4 chunks along its first axis (arrays of 2 entries or
    more; anything else as it is)."""
    if not isinstance(value, np.ndarray) or value.size < 2:
        return value
    rows = -(-value.shape[0] // 4)
    return da.from_array(value, chunks=(rows,) + value.shape[1:])


def _relative_error(got, want):
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    return max(float(np.max(np.abs(np.asarray(g) - w))) / max(float(np.max(np.abs(w))), 1e-300)
               for g, w in zip(got, want))


def measure():
    """One row per workload: (name, eager computes in the gradient call, graph tasks, computes
    to get the numbers, build ms, compute ms, relative error) or (name, error text)."""
    import dask
    import dask.array as da

    calls = []

    def counting(graph, keys, **kwargs):
        calls.append(keys)
        return dask.threaded.get(graph, keys, **kwargs)

    functions = fresh_functions()
    rows = []
    for w in make_workloads():
        if w.name not in WORKLOADS:
            continue
        grad = srcad.grad(functions[w.func_name], wrt=w.wrt, verify=False)
        args = tuple(_chunked(da, a) for a in w.args)
        grad(*args)  # (builds the code for any arguments, once: not counted)
        with dask.config.set(scheduler=counting):
            try:
                del calls[:]
                start = time.perf_counter()
                lazy = grad(*args)
                built = time.perf_counter() - start
                eager = len(calls)
                parts = lazy if isinstance(lazy, tuple) else (lazy,)
                graph = {}
                for part in parts:
                    if dask.is_dask_collection(part):
                        graph.update(dict(part.__dask_graph__()))
                del calls[:]
                start = time.perf_counter()
                (got,) = dask.compute(lazy)
                computed = time.perf_counter() - start
            except Exception as exc:  # noqa: BLE001 - a row that says what went wrong
                rows.append((w.name, f"{type(exc).__name__}: {str(exc).splitlines()[0][:60]}"))
                continue
        rows.append((w.name, eager, len(graph), len(calls), 1e3 * built, 1e3 * computed,
                     _relative_error(got, w.hand(*w.args))))
    return rows


def render(rows):
    headers = ("workload", "eager computes", "graph tasks", "computes to result", "build ms",
               "compute ms", "rel error")
    lines = []
    for row in rows:
        if len(row) == 2:
            lines.append((row[0], "error: " + row[1], "", "", "", "", ""))
        else:
            name, eager, tasks, computes, built, computed, error = row
            lines.append((name, str(eager), str(tasks), str(computes), f"{built:.1f}",
                          f"{computed:.1f}", f"{error:.1e}"))
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(headers)]
    out = ["  ".join(h.ljust(n) for h, n in zip(headers, widths)),
           "  ".join("-" * n for n in widths)]
    out += ["  ".join(c.rjust(n) if i else c.ljust(n) for i, (c, n) in
                      enumerate(zip(line, widths))) for line in lines]
    return "\n".join(out)


def report():
    """Print the table; a line saying it is skipped where dask is not installed."""
    try:
        import dask.array  # noqa: F401
    except ImportError:
        print("dask: not installed, compute counts skipped (pip install 'srcad[dask]')")
        return None
    rows = measure()
    print("Gradients on dask arrays (chunked along the first axis): eager computations per "
          "gradient call")
    print(render(rows))
    return rows


if __name__ == "__main__":
    report()
