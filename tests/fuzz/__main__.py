"""python -m tests.fuzz: fuzz srcad with random NumPy programs (what `make fuzz` runs).

    python -m tests.fuzz --count 2000                 # a random first seed, printed
    python -m tests.fuzz --count 500 --seed 1234 --jobs 2 --out fuzz-failures
    python -m tests.fuzz --seed 1234 --count 1 --show # one program, its failures, shrunk

Writes one standalone script per shrunk failure into --out, and summary.txt; prints the summary.
Exit status 1 when any program failed.
"""
import argparse
import os
import random
import signal
import sys

from .checker import verify_environment
from .program import directory
from .runner import run_batch


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=2000, help="programs to check")
    parser.add_argument("--seed", type=int, default=None, help="first generator seed "
                        "(default: random, printed)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--out", default="fuzz-failures", help="folder for the reproductions")
    parser.add_argument("--quick", action="store_true", help="the pytest plan: vjp, jvp, dot "
                        "and one more mode per program (default: every mode)")
    parser.add_argument("--shrink-per-key", type=int, default=3, help="failing programs to "
                        "shrink per failure kind and mode (0: all; -1: none)")
    parser.add_argument("--shrink-budget", type=float, default=30.0,
                        help="seconds per shrink")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per program")
    parser.add_argument("--no-verify", action="store_true", help="build the derivatives without "
                        "srcad's verify mode (to measure the derivatives alone)")
    parser.add_argument("--show", action="store_true", help="print each failing program and "
                        "its failures as they come")
    options = parser.parse_args(argv)
    seed = options.seed if options.seed is not None else random.randrange(10 ** 6)
    print(f"srcad fuzz: {options.count} programs from seed {seed} (rerun: python -m tests.fuzz "
          f"--count {options.count} --seed {seed})", flush=True)

    def progress(result, results):
        done = sum(r.discarded is None for r in results)
        if options.show and result.failures:
            from .generator import generate
            print(f"--- seed {result.seed}\n{generate(result.seed).source}")
            for failure in result.failures:
                print(f"    {failure}")
        elif result.failures:  # (said at once: a long run may be stopped before its summary)
            kinds = sorted({f"{f.kind} in {f.mode}" for f in result.failures})
            print(f"  seed {result.seed} fails: {'; '.join(kinds)}", flush=True)
        if done % 100 == 0 and result.discarded is None:
            failing = sum(bool(r.failures) for r in results)
            print(f"  {done} programs, {failing} failing", flush=True)

    # srcad writes the modules it generates (gradients that hvp differentiates) to its cache
    # folder: thousands of programs would fill ~/.cache/srcad, so they go to a temporary one
    parent = os.getpid()

    def stop(signum, frame):  # SIGTERM: stop checking, summarize what was checked
        if os.getpid() != parent:  # (a worker of the pool, which terminate() stops)
            os._exit(143)
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)
    with verify_environment(XDG_CACHE_HOME=directory(),
                            SRCAD_VERIFY="0" if options.no_verify else "1"):
        summary = run_batch(seed, options.count, jobs=options.jobs, quick=options.quick,
                            shrink_per_key=options.shrink_per_key,
                            shrink_budget=options.shrink_budget, timeout=options.timeout,
                            progress=progress, verify=not options.no_verify)
    written = summary.write(options.out)
    print(summary.text())
    print(f"wrote {len(written)} reproductions and summary.txt to {options.out}/")
    return 1 if summary.failing() else 0


if __name__ == "__main__":
    sys.exit(main())
