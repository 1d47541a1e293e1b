"""A step counter that changes every call: the cost of int arguments to a derivative.

    make bench-ints                                     # the table below, ~20 s
    .venv/bin/python benchmarks/int_args.py --calls 50

The function is a training loss whose learning rate decays with the step:

    def loss(w, x, y, step):
        lr = 0.1 * 0.99 ** step
        p = np.tanh(x @ w)
        return lr * np.sum((p - y) ** 2) + 1e-3 * np.sum(w * w) / (step + 1.0)

and srcad.grad(loss) is called with step = 0, 1, 2, ... (w: 16 floats, x: 64 x 16). Rows:
  before      the step's value in the signature (as before analysis/values.py, with no cap on
              specializations): every call builds; per call, the median of --calls calls
  after       the step keyed by its type: cold is the first call (the one build); warm, the
              median per call over --calls calls with a new step each
  same step   warm calls with one step (the fast path's floor, for comparison)
  loop bound  an int that is a loop bound (its value stays in the key), 10 turns: per call
              past the cap of VALUES specializations, where the generic build runs, and in a
              derivative that has a specialization for it (the loop written out)
Verify mode and the disk cache are off; wall-clock, one thread. See docs/performance.md, "Int
arguments".
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
import statistics  # noqa: E402
import time  # noqa: E402
import types  # noqa: E402
from unittest import mock  # noqa: E402

import numpy as np  # noqa: E402

import srcad  # noqa: E402
import srcad.analysis.values  # noqa: E402
import srcad.api.cache  # noqa: E402
import srcad.api.derivatives  # noqa: E402


def loss(w, x, y, step):
    lr = 0.1 * 0.99 ** step
    p = np.tanh(x @ w)
    return lr * np.sum((p - y) ** 2) + 1e-3 * np.sum(w * w) / (step + 1.0)


def unrolled(w, x, n):
    s = 0.0
    for i in range(n):
        s = s + np.sum(np.tanh(x @ w) * i)
    return s


def fresh(function):
    """A new function object (a derivative and builds of its own: nothing cached applies)."""
    srcad.api.cache.forget_all()
    return types.FunctionType(function.__code__, function.__globals__, function.__name__)


def per_call(call, values):
    """The median seconds of call(v) over the values, one call each."""
    times = []
    for v in values:
        start = time.perf_counter()
        call(v)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(calls):
    rng = np.random.default_rng(0)
    w, x, y = rng.normal(size=16), rng.normal(size=(64, 16)), rng.normal(size=64)
    rows = []
    with mock.patch.object(srcad.analysis.values, "_WEAK_INTS", False), \
            mock.patch.object(srcad.api.derivatives, "VALUES", 10 ** 9), \
            mock.patch.object(srcad.api.derivatives, "TOTAL", 10 ** 9):
        before = srcad.grad(fresh(loss))  # (every value read: as before; no cap)
        rows.append(("before (value in key)", None, per_call(lambda s: before(w, x, y, s),
                                                             range(calls))))
    after = srcad.grad(fresh(loss))
    start = time.perf_counter()
    after(w, x, y, 0)
    cold = time.perf_counter() - start
    rows.append(("after (keyed by type)", cold, per_call(lambda s: after(w, x, y, s),
                                                         range(1, calls + 1))))
    rows.append(("same step", None, per_call(lambda s: after(w, x, y, 7), range(calls))))
    past = srcad.api.derivatives.VALUES + 2
    bound = srcad.grad(fresh(unrolled))
    for n in range(srcad.api.derivatives.VALUES):  # (the cap is reached)
        bound(w, x, n)
    bound(w, x, past)  # (builds the generic code, once)
    rows.append((f"loop bound {past}, past the cap", None,
                 per_call(lambda s: bound(w, x, past), range(calls))))
    alone = srcad.grad(fresh(unrolled))
    alone(w, x, past)
    rows.append((f"loop bound {past}, specialized", None,
                 per_call(lambda s: alone(w, x, past), range(calls))))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=30, help="calls per warm row")
    options = parser.parse_args()
    print(f"{'':32s} {'cold ms':>9s} {'per call':>12s}")
    for name, cold, warm in measure(options.calls):
        shown = f"{cold * 1e3:9.1f}" if cold is not None else f"{'':9s}"
        print(f"{name:32s} {shown} {warm * 1e6:9.1f} us")


if __name__ == "__main__":
    main()
