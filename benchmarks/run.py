"""srcad benchmark suite: generated gradients against hand-written NumPy gradients.

    make bench                                 # the full run (pins BLAS to one thread)
    .venv/bin/python benchmarks/run.py --quick # smoke test: fewer repeats
    .venv/bin/python benchmarks/run.py --only helmholtz --only rnn_T50

For every workload (benchmarks/workloads.py) it
  1. checks srcad's gradient against the hand-written one (relative 1e-10; exits 1 if not),
  2. times f, srcad's gradient, the hand-written gradient (and autograd, JAX eager and jit,
     PyTorch, tangent-ad, srcad + numba when installed)
     interleaved: one calibrated batch (~3 ms) of each, in that order, repeated; per-call medians
     and medians of the paired per-round ratios,
  3. times srcad's cold build (fresh function object, empty in-memory caches) and its cached
     lookup (srcad.grad(f) again for the same f),
  4. measures the peak memory (tracemalloc) of one gradient call, srcad and hand-written,
  5. where dask is installed, counts dask's computations during a gradient call on chunked
     dask arrays (benchmarks/dask_counts.py: 0, the gradient is a graph; --no-dask skips it),
then prints tables and a pass/fail summary of the team's targets (reported, not asserted) and
writes everything, raw samples included, to benchmarks/results/latest.json.

See docs/performance.md.
"""
import os
import sys

import environment  # noqa: E402 - one BLAS thread, before NumPy loads

# srcad keeps builds on disk when SRCAD_CACHE_DIR is set; cold builds must not read them (the
# on-disk cache is measured separately, in a temporary directory of its own).
_USER_CACHE_DIR = environment.plain_builds(("SRCAD_CACHE_DIR",))["SRCAD_CACHE_DIR"]

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
if ROOT not in sys.path:
    sys.path.insert(1, ROOT)

import argparse  # noqa: E402
import datetime  # noqa: E402
import fnmatch  # noqa: E402
import functools  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import srcad  # noqa: E402
import srcad.api.derivatives  # noqa: E402
import srcad.api.cache  # noqa: E402

import adapters  # noqa: E402
import dask_counts  # noqa: E402
import timing  # noqa: E402
from workloads import fresh_functions, make_workloads  # noqa: E402

VERIFY_RTOL = 1e-10

TARGETS = {
    "srcad_vs_hand": 1.15,      # srcad gradient time / hand-written gradient time, every workload
    "srcad_vs_hand_new": 1.3,   # ... on issue 15's workloads (tagged "new" in workloads.py)
    "helmholtz_grad_vs_f": 3.0,  # srcad gradient time / function time, every Helmholtz size
    "cold_build_s": 50e-3,      # median cold build
    "cached_lookup_s": 20e-6,   # median cached lookup
    "rnn_T50_memory": 1.5,      # peak memory of the RNN T=50 gradient, srcad / hand-written
}

# The peers srcad should be ahead of on every workload where they have a number (issue: "ahead
# of autograd, torch eager and tangent-ad"): adapter name -> label. Reported, not asserted.
PEERS_TO_BEAT = {"autograd": "autograd", "torch": "torch eager", "tangent_ad": "tangent-ad"}


# --------------------------------------------------------------------------------------------
# Verification
# --------------------------------------------------------------------------------------------

def _as_tuple(value, many):
    return tuple(value) if many else (value,)


def relative_error(got, want, many, floor=0.0):
    """max over outputs of max|got - want| / max(max|want|, floor); inf on a shape mismatch."""
    got = _as_tuple(got, many)
    want = _as_tuple(want, many)
    if len(got) != len(want):
        return float("inf")
    worst = 0.0
    for g, w in zip(got, want):
        g = np.asarray(g, dtype=np.float64)
        w = np.asarray(w, dtype=np.float64)
        if g.shape != w.shape or not np.all(np.isfinite(g)):
            return float("inf")
        scale = max(float(np.max(np.abs(w))) if w.size else 0.0, floor)
        diff = float(np.max(np.abs(g - w))) if w.size else 0.0
        worst = max(worst, diff / scale if scale > 0 else (0.0 if diff == 0 else float("inf")))
    return worst


def mismatch_reason(got, want, many):
    """Why relative_error is inf, in words (a shape or a count that differs, a value that is
    not finite), or '' when it is not one of those."""
    got = _as_tuple(got, many)
    want = _as_tuple(want, many)
    if len(got) != len(want):
        return f"{len(got)} outputs, the hand-written {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape:
            return f"output {i} has shape {g.shape}, the hand-written {w.shape}"
        if not np.all(np.isfinite(g.astype(np.float64))):
            return f"output {i} is not finite"
    return ""


def one_line(exc, limit=160):
    """type: the first line of an exception's message, shortened to one line of the notes."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if len(text) > limit:
        text = text[:limit - 3] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# --------------------------------------------------------------------------------------------
# Measurements
# --------------------------------------------------------------------------------------------

def clear_srcad_caches():
    """Empty srcad's in-memory caches of built derivatives (the disk is not a cache here: the
    module files srcad writes are only for tracebacks, and a fresh file name gives new ones)."""
    builds = getattr(srcad.api.cache, "_BUILDS", None)
    if builds is not None:
        builds.clear()
    derivatives = getattr(srcad.api.derivatives, "_DERIVATIVES", None)
    if derivatives is not None:
        derivatives.clear()


def _timed_build(workload, namespace, now):
    """(construct, first call, warm call) seconds for srcad.grad of namespace's function."""
    args = workload.args
    func = namespace[workload.func_name]
    clear_srcad_caches()
    gc.collect()
    start = now()
    grad = srcad.grad(func, wrt=workload.wrt)
    constructed = now()
    grad(*args)
    first = now()
    warm = []
    for _ in range(5):
        t0 = now()
        grad(*args)
        warm.append(now() - t0)
    return constructed - start, first - constructed, statistics.median(warm)


def _build_record(parts):
    out = {"build": [], "construct": [], "first_call": [], "warm_call": []}
    for construct, first_call, warm_call in parts:
        out["construct"].append(construct)
        out["first_call"].append(first_call)
        out["warm_call"].append(warm_call)
        out["build"].append(max(construct + first_call - warm_call, 0.0))
    return out


def cold_builds(workload, count, clock="wall"):
    """Cold builds of srcad.grad for a freshly created function object, `count` times.

    srcad.grad(f) checks f and the first call with arguments of a new shape signature builds the
    derivative specialized to those shapes; both are part of the cost of getting a first
    gradient. So one cold build is: srcad.grad(f) + the first call - the median of the
    following warm calls (the gradient evaluation itself, which is not build work).
    Returns a dict of lists: build (the estimate), construct, first_call, warm_call (seconds),
    on the given clock (wall: perf_counter, cpu: process_time).
    """
    now = time.perf_counter if clock == "wall" else time.process_time
    return _build_record([_timed_build(workload, fresh_functions(), now) for _ in range(count)])


def disk_cached_builds(workload, count, clock="wall"):
    """Builds served by srcad's on-disk cache (SRCAD_CACHE_DIR): the same source file compiled
    again into new function objects, the in-memory caches emptied, a warm cache directory (what
    a second process gets). Same accounting as cold_builds."""
    now = time.perf_counter if clock == "wall" else time.process_time
    directory = tempfile.mkdtemp(prefix="srcad-bench-diskcache-")
    os.environ["SRCAD_CACHE_DIR"] = directory
    try:
        path = fresh_functions()["__file__"]
        _timed_build(workload, fresh_functions(path), now)  # fills the directory
        return _build_record([_timed_build(workload, fresh_functions(path), now)
                              for _ in range(count)])
    finally:
        del os.environ["SRCAD_CACHE_DIR"]
        shutil.rmtree(directory, ignore_errors=True)


def generated_callable(grad, args):
    """The generated function grad(*args) runs, to call directly without srcad's API wrapper
    (diagnostic: the wrapper's per-call cost), or None when that is not simply possible."""
    try:
        if hasattr(grad, "specialize"):
            function, sync, _ = grad.specialize(args, {})
        else:
            function, sync = grad.generated, grad.sync
    except Exception:  # noqa: BLE001 - internals change; the column is optional
        return None
    if sync is not None or getattr(grad, "single_tuple", False):
        return None
    return function


def cached_lookups(func, wrt, repeats, target, clock="wall"):
    lookup = functools.partial(srcad.grad, func, wrt=wrt)
    lookup()
    n = timing.calibrate(lookup, (), target)
    pick = 0 if clock == "wall" else 1
    return [timing.time_batch_both(lookup, (), n)[pick] for _ in range(repeats)], n


def summary(samples):
    q25, med, q75 = timing.quantiles(samples)
    return {"median": med, "q25": q25, "q75": q75}


def measure(workload, func, grad, hand, extra, config):
    """All measurements of one workload. extra: name -> gradient callable of other frameworks."""
    args = workload.args
    callables = {"f": func, "srcad": grad}
    generated = generated_callable(grad, args) if config.generated else None
    if generated is not None and relative_error(generated(*args), grad(*args),
                                                isinstance(workload.wrt, tuple)) == 0.0:
        callables["srcad_generated"] = generated
    callables["hand"] = hand
    callables.update(extra)
    timed = timing.interleaved(callables, {name: args for name in callables},
                               config.repeats, config.target)
    result = {"name": workload.name, "description": workload.description,
              "function": workload.func_name, "wrt": workload.wrt, "clock": config.clock,
              "tags": list(workload.tags)}
    pairs = [("srcad", "hand"), ("srcad", "f"), ("hand", "f")]
    if "srcad_generated" in timed:
        pairs += [("srcad_generated", "hand")]
    pairs += [(name, "hand") for name in extra]
    pairs += [("srcad", name) for name in extra if name in PEERS_TO_BEAT]
    other_clock = "cpu" if config.clock == "wall" else "wall"
    for clock, suffix in ((config.clock, ""), (other_clock, f"_{other_clock}")):
        times = result["times" + suffix] = {}
        ratios = result["ratios" + suffix] = {}
        for name, data in timed.items():
            times[name] = dict(summary(data[clock]), batch=data["batch"], samples=data[clock])
        for num, den in pairs:
            paired = timing.paired_ratios(timed[num][clock], timed[den][clock])
            ratios[f"{num}/{den}"] = dict(summary(paired), samples=paired)

    builds = cold_builds(workload, config.builds, config.clock)
    result["cold_build"] = dict(summary(builds["build"]), samples=builds["build"],
                                parts={k: dict(summary(v), samples=v)
                                       for k, v in builds.items() if k != "build"})
    disk = disk_cached_builds(workload, config.builds, config.clock)
    result["disk_cached_build"] = dict(summary(disk["build"]), samples=disk["build"],
                                       parts={k: dict(summary(v), samples=v)
                                              for k, v in disk.items() if k != "build"})
    lookups, n = cached_lookups(func, workload.wrt, config.repeats, config.target,
                                config.clock)
    result["cached_lookup"] = dict(summary(lookups), batch=n, samples=lookups)

    memory = {"srcad": timing.peak_memory(grad, args), "hand": timing.peak_memory(hand, args),
              "f": timing.peak_memory(func, args)}
    for name, fn in extra.items():
        memory[name] = timing.peak_memory(fn, args)
    result["peak_memory_bytes"] = memory
    result["memory_ratio_srcad/hand"] = memory["srcad"] / memory["hand"] if memory["hand"] else None
    return result


# --------------------------------------------------------------------------------------------
# Targets and printing
# --------------------------------------------------------------------------------------------

def hand_limit(result):
    """The target of srcad/hand for a workload: 1.3 on issue 15's workloads, 1.15 on the others."""
    return TARGETS["srcad_vs_hand_new" if "new" in result.get("tags", ()) else "srcad_vs_hand"]


def evaluate_targets(results):
    checks = []

    def add(target, subject, value, limit, unit=""):
        checks.append({"target": target, "workload": subject, "value": value, "limit": limit,
                       "unit": unit, "pass": value <= limit})

    for r in results:
        limit = hand_limit(r)
        add(f"srcad/hand time <= {limit}", r["name"], r["ratios"]["srcad/hand"]["median"], limit)
        if r["function"] == "helmholtz":
            add("helmholtz grad/f time <= 3", r["name"], r["ratios"]["srcad/f"]["median"],
                TARGETS["helmholtz_grad_vs_f"])
        add("cold build < 50 ms", r["name"], r["cold_build"]["median"], TARGETS["cold_build_s"],
            "s")
        add("cached lookup < 20 us", r["name"], r["cached_lookup"]["median"],
            TARGETS["cached_lookup_s"], "s")
        if r["name"] == "rnn_T50":
            add("rnn_T50 peak memory srcad/hand <= 1.5", r["name"], r["memory_ratio_srcad/hand"],
                TARGETS["rnn_T50_memory"])
    # ahead of each peer on every workload where it has a number: srcad/peer time < 1 (the
    # median of the paired per-round ratios); the worst is the smallest peer/srcad
    for peer, label in PEERS_TO_BEAT.items():
        for r in results:
            ratio = r["ratios"].get(f"srcad/{peer}")
            if ratio is not None:
                checks.append({"target": f"srcad faster than {label}", "workload": r["name"],
                               "value": ratio["median"], "limit": 1.0, "unit": "",
                               "pass": ratio["median"] < 1.0, "peer": peer})
    return checks


def fmt_us(seconds):
    us = seconds * 1e6
    if us >= 1000:
        return f"{us:,.0f}"
    if us >= 100:
        return f"{us:.0f}"
    if us >= 10:
        return f"{us:.1f}"
    return f"{us:.2f}"


def fmt_ms(seconds):
    return f"{seconds * 1e3:.1f}"


def fmt_kib(nbytes):
    return f"{nbytes / 1024:,.1f}"


def fmt_ratio(value, limit=None):
    text = f"{value:.2f}"
    if limit is not None:
        text += "  " if value <= limit else " !"
    return text


def table(headers, rows, align=None):
    widths = [max(len(str(h)), *(len(str(row[i])) for row in rows)) for i, h in enumerate(headers)]
    align = align or ["<"] + [">"] * (len(headers) - 1)
    line = "  ".join(f"{h:{a}{w}}" for h, a, w in zip(headers, align, widths))
    out = [line, "  ".join("-" * w for w in widths)]
    for row in rows:
        out.append("  ".join(f"{str(c):{a}{w}}" for c, a, w in zip(row, align, widths)))
    return "\n".join(out)


def render(results, checks, extra_names, status, clock):
    lines = []
    headers = ["workload", "f us", "srcad us", "hand us", "srcad/hand", "srcad/f", "hand/f"]
    for name in extra_names:
        headers += [f"{name} us", f"{name}/hand"]
    rows = []
    for r in results:
        t, q = r["times"], r["ratios"]
        limit_f = TARGETS["helmholtz_grad_vs_f"] if r["function"] == "helmholtz" else None
        row = [r["name"], fmt_us(t["f"]["median"]), fmt_us(t["srcad"]["median"]),
               fmt_us(t["hand"]["median"]),
               fmt_ratio(q["srcad/hand"]["median"], hand_limit(r)),
               fmt_ratio(q["srcad/f"]["median"], limit_f), fmt_ratio(q["hand/f"]["median"])]
        for name in extra_names:
            if name in t:
                row += [fmt_us(t[name]["median"]), fmt_ratio(q[f"{name}/hand"]["median"])]
            else:
                row += ["-", "-"]
        rows.append(row)
    lines.append(f"Time per call ({clock} clock; median over interleaved rounds; ratios: median "
                 f"of paired per-round ratios; '!' = misses its target)")
    lines.append(table(headers, rows))
    lines.append("")
    other_clock = "cpu" if clock == "wall" else "wall"
    headers = ["workload", "build ms", "disk ms", "lookup us", "srcad KiB", "hand KiB", "mem srcad/hand",
               "srcad/hand IQR", f"srcad/hand {other_clock}", "gen/hand"]
    rows = []
    for r in results:
        mem = r["peak_memory_bytes"]
        q = r["ratios"]["srcad/hand"]
        gen = r["ratios"].get("srcad_generated/hand")
        limit_mem = TARGETS["rnn_T50_memory"] if r["name"] == "rnn_T50" else None
        rows.append([
            r["name"],
            fmt_ms(r["cold_build"]["median"]) + (
                "  " if r["cold_build"]["median"] < TARGETS["cold_build_s"] else " !"),
            fmt_ms(r["disk_cached_build"]["median"]),
            fmt_us(r["cached_lookup"]["median"]) + (
                "  " if r["cached_lookup"]["median"] < TARGETS["cached_lookup_s"] else " !"),
            fmt_kib(mem["srcad"]), fmt_kib(mem["hand"]),
            fmt_ratio(r["memory_ratio_srcad/hand"], limit_mem),
            f"{q['q25']:.2f}-{q['q75']:.2f}",
            f"{r['ratios_' + other_clock]['srcad/hand']['median']:.2f}",
            f"{gen['median']:.2f}" if gen else "-",
        ])
    lines.append("Cold build, build from a warm on-disk cache (disk) and cached lookup (medians), "
                 "peak memory of one gradient call "
                 "(tracemalloc), spread of srcad/hand (quartiles), srcad/hand on the other "
                 "clock, and gen/hand: srcad's generated function called directly (no API wrapper)")
    lines.append(table(headers, rows))
    lines.append("")
    lines.append("Targets (reported, not asserted):")
    by_target = {}
    for c in checks:
        if "peer" not in c:
            by_target.setdefault(c["target"], []).append(c)
    for peer, label in PEERS_TO_BEAT.items():  # the peers last; one with no number: why
        why = status.get(peer, "not run")
        by_target[f"srcad faster than {label}"] = (
            [c for c in checks if c.get("peer") == peer]
            or ("no workload with a number" if why == "used" else why))
    for target, items in by_target.items():
        if isinstance(items, str):  # a peer with no number: why
            lines.append(f"  {'n/a':<12} {target:<40} ({items})")
            continue
        failed = [c for c in items if not c["pass"]]
        worst = max(items, key=lambda c: c["value"] / c["limit"])
        value = (f"{worst['value'] * 1e3:.1f} ms" if target.startswith("cold")
                 else f"{worst['value'] * 1e6:.1f} us" if target.startswith("cached")
                 else f"{worst['value']:.2f}")
        verdict = "PASS" if not failed else f"FAIL ({len(failed)}/{len(items)})"
        detail = f"worst {worst['workload']} = {value}"
        if "peer" in worst:
            detail = (f"on {len(items)} workload{'s' if len(items) > 1 else ''}; worst "
                      f"{worst['workload']}: {PEERS_TO_BEAT[worst['peer']]}/srcad time = "
                      f"{1.0 / worst['value']:.2f}")
        if failed:
            detail += "; failing: " + ", ".join(c["workload"] for c in failed)
        lines.append(f"  {verdict:<12} {target:<40} {detail}")
    missing = [k for k, v in status.items() if v != "used"]
    if missing:
        lines.append("")
        lines.append("Other frameworks: " + "; ".join(f"{k}: {status[k]}" for k in status))
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Environment
# --------------------------------------------------------------------------------------------

def environment():
    info = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "srcad": getattr(srcad, "__version__", "?"),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "load_average_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "SRCAD_CACHE_DIR_ignored": _USER_CACHE_DIR,
        "threads_env": {v: os.environ.get(v) for v in
                        ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")},
    }
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        info["blas"] = f"{blas.get('name')} {blas.get('version')}"
    except Exception:  # noqa: BLE001 - older numpy: informational only
        pass
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "srcad", "templates"],
                               cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
        info["git"] = commit + ("+dirty(srcad/templates)" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        pass
    return info


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------

def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="smoke test: 5 rounds, 3 cold builds (numbers are noisier)")
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="run only the workload NAME, or those of function NAME "
                             "(helmholtz: all sizes), or matching a glob (tiny_*); repeatable, "
                             "or comma-separated")
    parser.add_argument("--repeats", type=int, help="interleaved rounds (default 31; quick 5)")
    parser.add_argument("--builds", type=int, help="cold builds per workload (default 9; quick 3)")
    parser.add_argument("--target-ms", type=float, default=3.0,
                        help="duration of one timed batch of calls, in ms (default 3)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="the clock the tables and targets use (both are recorded): wall "
                             "time, or this process's CPU time (steadier on a busy machine)")
    parser.add_argument("--no-frameworks", action="store_true",
                        help="skip autograd / JAX / PyTorch / tangent-ad / numba even when "
                             "installed")
    parser.add_argument("--no-generated", dest="generated", action="store_false",
                        help="do not time srcad's generated function separately from the API")
    parser.add_argument("--json", default=os.path.join(HERE, "results", "latest.json"),
                        help="where to write the results (default benchmarks/results/latest.json)")
    parser.add_argument("--list", action="store_true", help="list the workloads and exit")
    parser.add_argument("--no-dask", dest="dask", action="store_false",
                        help="skip the table of dask's computations per gradient call (it runs "
                             "where dask is installed: benchmarks/dask_counts.py)")
    config = parser.parse_args(argv)
    config.repeats = config.repeats or (5 if config.quick else 31)
    config.builds = config.builds or (3 if config.quick else 9)
    config.target = config.target_ms * 1e-3
    config.only = [p.strip() for item in config.only for p in item.split(",") if p.strip()]
    return config


def select(workloads, patterns):
    if not patterns:
        return workloads
    chosen = [w for w in workloads
              if any(w.name == p or w.func_name == p or fnmatch.fnmatchcase(w.name, p)
                     for p in patterns)]
    if not chosen:
        raise SystemExit(f"--only {','.join(patterns)}: no such workload; have "
                         f"{', '.join(w.name for w in workloads)}")
    return chosen


def main(argv=None):
    config = parse_args(sys.argv[1:] if argv is None else argv)
    workloads = select(make_workloads(), config.only)
    if config.list:
        for w in workloads:
            print(f"{w.name:<16} {w.description}")
        return 0
    started = time.perf_counter()
    env = environment()
    print(f"srcad benchmarks: {len(workloads)} workloads, {config.repeats} interleaved rounds, "
          f"~{config.target_ms:g} ms batches, {config.builds} cold builds, {config.clock} clock"
          f"{' (quick)' if config.quick else ''}")
    print(f"python {env['python']}, numpy {env['numpy']} ({env.get('blas', '?')}), "
          f"srcad {env['srcad']} {env.get('git', '')}, {env.get('cpu', '?')} x{env['cpu_count']}, "
          f"BLAS threads {env['threads_env']['OPENBLAS_NUM_THREADS']}, load average "
          f"{' '.join(f'{x:.2f}' for x in env.get('load_average_at_start') or [])}")

    # Build everything once first (this also loads srcad's templates, so the cold builds timed
    # later measure building one function, not importing the compiler), and verify.
    namespace = fresh_functions()
    frameworks, status = ([], {"autograd": "skipped", "jax": "skipped", "jax_jit": "skipped",
                               "torch": "skipped", "tangent_ad": "skipped",
                               "numba": "skipped"}) \
        if config.no_frameworks else adapters.available()
    failures = []
    prepared = []
    for w in workloads:
        func = namespace[w.func_name]
        grad = srcad.grad(func, wrt=w.wrt)
        many = isinstance(w.wrt, tuple)
        want = w.hand(*w.args)
        err = relative_error(grad(*w.args), want, many, w.grad_floor)
        print(f"  verify {w.name:<16} srcad vs hand-written: max relative error {err:.1e}")
        if not err <= VERIFY_RTOL:
            failures.append(f"{w.name}: srcad's gradient differs from the hand-written one "
                            f"(max relative error {err:.3e} > {VERIFY_RTOL:g})")
        extra = {}
        for name, variant in w.variants.items():
            var_err = relative_error(variant(*w.args), want, many, w.grad_floor)
            if not var_err <= VERIFY_RTOL:
                failures.append(f"{w.name}: hand-written variant {name} differs from the "
                                f"reference (max relative error {var_err:.3e})")
            extra[name] = variant
        for fw in frameworks:
            try:
                other = fw.make(w)
                got = other(*w.args)
                fw_err = relative_error(got, want, many, w.grad_floor)
                reason = mismatch_reason(got, want, many) if fw_err == float("inf") else ""
            except Exception as exc:  # noqa: BLE001 - an optional column: report, drop, go on
                print(f"  note: {fw.label} cannot run {w.name}: {one_line(exc)}")
                continue
            if not fw_err <= VERIFY_RTOL:
                print(f"  note: {fw.label} gradient of {w.name} differs from the hand-written "
                      f"one (relative error {fw_err:.1e}{': ' + reason if reason else ''}); "
                      f"column dropped")
                continue
            extra[fw.name] = other
        prepared.append((w, func, grad, extra))
    if failures:
        print("\nVERIFICATION FAILED: not timing wrong gradients.", file=sys.stderr)
        for failure in failures:
            print("  " + failure, file=sys.stderr)
        return 1

    results = []
    for w, func, grad, extra in prepared:
        t0 = time.perf_counter()
        result = measure(w, func, grad, w.hand, extra, config)
        result["compile_ms"] = {fw.name: fw.compile_ms[w.name] for fw in frameworks
                                if fw.compile_ms and w.name in fw.compile_ms and fw.name in extra}
        results.append(result)
        print(f"  timed  {w.name:<16} srcad/hand {result['ratios']['srcad/hand']['median']:.2f}"
              f"  ({time.perf_counter() - t0:.1f} s)")

    checks = evaluate_targets(results)
    variant_names = list(dict.fromkeys(name for w in workloads for name in w.variants))
    extra_names = variant_names + [fw.name for fw in frameworks
                                   if any(fw.name in r["times"] for r in results)]
    print()
    print(render(results, checks, extra_names, status, config.clock))
    compiled = [fw for fw in frameworks if fw.compile_ms]
    for fw in compiled:
        times = [f"{r['name']} {r['compile_ms'][fw.name]:,.0f}" for r in results
                 if fw.name in r["compile_ms"]]
        if times:
            print(f"\n{fw.compile_what} of {fw.label}, ms, not in the times above: "
                  + ", ".join(times))
    elapsed = time.perf_counter() - started
    print(f"\n({elapsed:.0f} s)")
    dask_rows = None
    if config.dask:  # (eager computations per gradient call on dask arrays: 0 is lazy)
        print()
        dask_rows = dask_counts.report()

    if hasattr(os, "getloadavg"):
        env["load_average_at_end"] = list(os.getloadavg())
    payload = {"environment": env, "frameworks": status,
               "config": {"quick": config.quick, "repeats": config.repeats,
                          "builds": config.builds, "batch_target_s": config.target,
                          "clock": config.clock,
                          "only": config.only, "verify_rtol": VERIFY_RTOL},
               "targets": TARGETS, "results": results, "checks": checks,
               "elapsed_s": elapsed, "dask_counts": dask_rows}
    os.makedirs(os.path.dirname(os.path.abspath(config.json)), exist_ok=True)
    with open(config.json, "w", encoding="utf-8") as handle:
        json.dump(payload, handle, indent=1, default=_json_default)
    print(f"results written to {os.path.relpath(config.json)}")
    return 0


def _json_default(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(type(value))


if __name__ == "__main__":
    sys.exit(main())
