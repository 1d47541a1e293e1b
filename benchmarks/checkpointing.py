"""Memory and time of reverse mode through a long loop, with and without srcad.checkpoint.

    make bench-checkpoint                          # an RNN and an ODE integrator, T = 10,000
    .venv/bin/python benchmarks/checkpointing.py --steps 2500,10000,40000

Two loops of T turns, each written three ways: plain (the tape keeps every turn), marked
`srcad.checkpoint(range(T))` (a state kept every ~sqrt(T) turns, each stretch run again in the
adjoint sweep), and marked with every=k for a few k. For each: the peak of memory allocated
during one warm gradient call (tracemalloc: the tape, the checkpoints, the temporaries), and
the median of 5 warm calls' wall-clock time; the ratios are against the plain loop's. The
primal's own time is printed for scale (checkpointing runs the turns once more).

    rnn(W, h0, xs):   h = tanh(W @ h + xs[t])              W 32 x 32, xs T x 32
    ode(k, y0):       y = y + dt * (-k * y + sin(y))       (explicit Euler on a 64-vector; the
                                                           gradient with respect to y0)

BLAS threads are pinned to 1 (the Makefile sets them; so does this file before numpy loads).
"""
import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import time
import tracemalloc

import environment  # noqa: E402 - one BLAS thread, before NumPy loads

environment.plain_builds(("SRCAD_VERIFY",))  # (verify mode runs the unoptimized derivative too)

import numpy as np  # noqa: E402

import srcad  # noqa: E402

SOURCE = '''
import numpy as np
import srcad


def rnn(W, h0, xs):
    h = h0
    for t in {head}:
        h = np.tanh(W @ h + xs[t])
    return np.sum(h ** 2)


def ode(k, y0, steps):
    y = y0
    for t in {head_ode}:
        y = y + 0.001 * (-k * y + np.sin(y))
    return np.sum(y * y)
'''


def _module(name, head, head_ode):
    """The two loops with this loop head, in a file of their own (srcad reads source)."""
    path = os.path.join(tempfile.mkdtemp(prefix="srcad-ckpt-"), f"{name}.py")
    with open(path, "w") as f:
        f.write(SOURCE.format(head=head, head_ode=head_ode))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


VARIANTS = [  # (label, rnn loop head, ode loop head)
    ("plain", "range(xs.shape[0])", "range(steps)"),
    ("checkpoint (sqrt T)", "srcad.checkpoint(range(xs.shape[0]))",
     "srcad.checkpoint(range(steps))"),
    ("checkpoint every=10", "srcad.checkpoint(range(xs.shape[0]), every=10)",
     "srcad.checkpoint(range(steps), every=10)"),
    ("checkpoint every=1000", "srcad.checkpoint(range(xs.shape[0]), every=1000)",
     "srcad.checkpoint(range(steps), every=1000)"),
]


def measure(function, args):
    function(*args)  # built, warm
    tracemalloc.start()
    function(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    times = []
    for _ in range(5):
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
    return peak, statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="10000", help="comma-separated loop lengths T")
    options = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    modules = [(label, _module(f"ckpt_{i}", head, head_ode))
               for i, (label, head, head_ode) in enumerate(VARIANTS)]
    print(f"{'workload':<10} {'T':>6}  {'variant':<22} {'peak MB':>9} {'memory':>7} "
          f"{'ms':>8} {'time':>6}")
    for steps in [int(s) for s in options.steps.split(",")]:
        W, h0 = rng.normal(size=(32, 32)) * 0.3, rng.normal(size=32)
        xs = rng.normal(size=(steps, 32))
        cases = [("rnn", lambda m: (srcad.grad(m.rnn), (W, h0, xs)), modules[0][1].rnn,
                  (W, h0, xs)),
                 ("ode", lambda m: (srcad.grad(m.ode, wrt=1), (0.5, rng.normal(size=64), steps)),
                  modules[0][1].ode, (0.5, np.ones(64), steps))]
        for workload, make, primal, primal_args in cases:
            base = None
            for label, module in modules:
                gradient, args = make(module)
                peak, seconds = measure(gradient, args)
                base = base or (peak, seconds)
                print(f"{workload:<10} {steps:>6}  {label:<22} {peak / 1e6:>9.3f} "
                      f"{peak / base[0]:>6.1%} {seconds * 1e3:>8.1f} {seconds / base[1]:>5.2f}x")
            start = time.perf_counter()
            primal(*primal_args)
            print(f"{workload:<10} {steps:>6}  {'(the function itself)':<22} {'':>9} {'':>7} "
                  f"{(time.perf_counter() - start) * 1e3:>8.1f}")


if __name__ == "__main__":
    sys.exit(main())
