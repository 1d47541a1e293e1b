"""Timing and memory primitives for the benchmark suite.

- Each callable is timed in batches: a batch is n back-to-back calls with n chosen (once, by
  calibration) so that one batch takes about `target` seconds (default 3 ms, i.e. within the
  2-5 ms band); the per-call time of a batch is its duration divided by n. A call slower than
  the band runs alone (n = 1).
- Callables that are compared are timed *interleaved*: one batch of each in a fixed order, and
  that whole round repeated R times, so slow drifts and bursts of machine noise hit all of them
  alike. We report, per callable, the median over rounds of the per-call time and, per pair,
  the median over rounds of the *paired* ratio (ratio of the two per-call times measured in the
  same round), which is less sensitive to noise than the ratio of two medians.
- Every batch is timed on two clocks: wall time (perf_counter, the default for reporting) and
  this process's CPU time (process_time), which does not count the time the process was
  preempted by other processes: on a busy machine it is the steadier of the two.
- The garbage collector stays enabled: cyclic garbage a callable creates is part of its cost.
"""
import statistics
import time
import tracemalloc

_perf = time.perf_counter
_cpu = time.process_time


def time_batch(fn, args, n):
    """Per-call seconds of n back-to-back calls fn(*args) (wall clock)."""
    start = _perf()
    for _ in range(n):
        fn(*args)
    return (_perf() - start) / n


def time_batch_both(fn, args, n):
    """(wall, cpu) per-call seconds of n back-to-back calls fn(*args)."""
    cpu0 = _cpu()
    start = _perf()
    for _ in range(n):
        fn(*args)
    wall = _perf() - start
    cpu = _cpu() - cpu0
    return wall / n, cpu / n


def calibrate(fn, args, target=3e-3, low=2e-3):
    """The batch size n that makes one batch of calls take about `target` seconds (>= low)."""
    fn(*args)  # warm up (first-call effects, caches)
    fn(*args)
    n = 1
    while True:
        elapsed = time_batch(fn, args, n) * n
        if elapsed >= low:
            # refine once from the measured rate, aiming at target
            per_call = elapsed / n
            return max(1, int(round(target / per_call)))
        if elapsed <= 0:
            n *= 10
            continue
        n = max(n * 2, int(n * target / elapsed))


def interleaved(callables, args_of, repeats, target=3e-3):
    """Time several callables interleaved.

    callables: ordered dict name -> fn; args_of: dict name -> args tuple.
    Returns name -> {"batch": n, "wall": [seconds per call, one per round], "cpu": [...]}.
    """
    sizes = {name: calibrate(fn, args_of[name], target) for name, fn in callables.items()}
    wall = {name: [] for name in callables}
    cpu = {name: [] for name in callables}
    names = list(callables)
    for round_ in range(repeats):
        # each round starts one callable later: none always runs right after the same one (the
        # one after the function paid ~5-10% more, its caches and allocator left by another)
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            w, c = time_batch_both(callables[name], args_of[name], sizes[name])
            wall[name].append(w)
            cpu[name].append(c)
    return {name: {"batch": sizes[name], "wall": wall[name], "cpu": cpu[name]}
            for name in callables}


def quantiles(values):
    """(q25, median, q75) of a list of numbers."""
    values = sorted(values)
    if len(values) == 1:
        return values[0], values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], statistics.median(values), q[2]


def paired_ratios(num, den):
    return [a / b for a, b in zip(num, den)]


def peak_memory(fn, args):
    """Peak bytes allocated (Python objects and NumPy buffers, as tracemalloc sees them) during
    one call fn(*args), above what was allocated just before the call. Includes the result."""
    fn(*args)  # warm: lazily created module state should not count
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        fn(*args)
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        result = fn(*args)
        _, peak = tracemalloc.get_traced_memory()
        del result
    finally:
        if started:
            tracemalloc.stop()
    return peak - before
