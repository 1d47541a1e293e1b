"""Batches: generate and check programs (in worker processes), shrink failures, summarize.

run_batch(first_seed, count) checks `count` programs from consecutive generator seeds (seeds
whose program is discarded are skipped and counted), then shrinks the failures (up to
`shrink_per_key` programs per failure key, smallest programs first; 0: all of them) and
returns a Summary: programs, refusals by reason and by construct, failures by kind and mode,
and the shrunk reproductions (standalone scripts, see repro.py), which it can write to a folder.

Plans: "full" runs every mode on every program; "quick" (the pytest batch) runs vjp, jvp and
the dot test on every program and one more mode per program in rotation (grad, grad_tuple,
value_and_grad, hvp, float32, unoptimized), to fit a time budget.
"""
import collections
import multiprocessing
import os
import re
import signal
import time
from dataclasses import dataclass, field

from .checker import MODES, SCALAR_ONLY, Checker, Failure
from .generator import Discard, generate
from .program import CALLS
from .repro import script
from .shrink import modes_for, shrink

PRIORITY = ["crash", "mutation", "wrong", "dot", "value", "verify", "side_effects",
            "structure", "float32", "cache", "hang"]
ROTATION = ["grad", "value_and_grad", "grad_tuple", "hvp", "hvp_reverse", "float32",
            "unoptimized"]


class _Timeout(BaseException):
    """A program took too long (a BaseException: the checker's `except Exception` must not
    catch it)."""


def _alarm(signum, frame):
    raise _Timeout()


@dataclass
class Result:
    """What checking one seed gave (picklable: it comes back from a worker)."""
    seed: int
    discarded: str = None
    output: str = None
    tags: frozenset = frozenset()
    modes: tuple = ()
    failures: list = field(default_factory=list)
    refusals: list = field(default_factory=list)
    unsure: int = 0
    checked: int = 0
    seconds: float = 0.0
    size: int = 0
    noise: list = field(default_factory=list)


def plan(seed, output, quick):
    if not quick:
        return list(MODES)
    rotation = [m for m in ROTATION if output == "scalar" or m not in SCALAR_ONLY]
    return ["vjp", "jvp", rotation[seed % len(rotation)]]


def check_seed(seed, quick=False, timeout=120, verify=True):
    """Generate and check the program of one seed."""
    start = time.monotonic()
    try:
        program = generate(seed)
    except Discard as exc:
        return Result(seed, discarded=str(exc)[:120])
    except Exception as exc:  # the fuzzer's own bug: said, and the run goes on without it
        return Result(seed, discarded=f"generator error {type(exc).__name__}: {exc}"[:120])
    result = Result(seed, output=program.output, tags=program.tags,
                    modes=tuple(plan(seed, program.output, quick)), size=len(program.source))
    previous = signal.signal(signal.SIGALRM, _alarm) if timeout else None
    if timeout:
        signal.alarm(timeout)
    try:
        outcome = Checker(program, modes=result.modes, verify=verify).run()
        result.failures, result.refusals = outcome.failures, outcome.refusals
        result.unsure, result.checked = outcome.unsure, outcome.checked
        result.noise = outcome.noise
    except _Timeout:
        result.failures = [Failure("hang", "all", 0, f"checking took over {timeout} s")]
    finally:
        if timeout:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
    result.seconds = time.monotonic() - start
    return result


@dataclass
class Shrunk:
    seed: int
    key: tuple
    failure: Failure
    script: str
    source: str
    calls: tuple


def shrink_seed(job):
    """Shrink the failure `key` of the program of `seed`: a Shrunk (or None)."""
    seed, key, budget = job
    program = generate(seed)
    try:
        small, calls = shrink(program, key, budget=budget)
        outcome = Checker(small, calls=calls, **modes_for(key)).run()
        failure = next((f for f in outcome.failures if f.key == key), None)
        if failure is None:  # (does not reproduce any more: keep the original)
            small, calls = program, CALLS
            outcome = Checker(small, calls=calls, **modes_for(key)).run()
            failure = next((f for f in outcome.failures if f.key == key), None)
        if failure is None:
            return None
        return Shrunk(seed, key, failure, script(small, failure, calls), small.source, calls)
    except Exception as exc:  # noqa: BLE001 - a shrinker problem must not stop the batch
        failure = Failure(key[0].split(":")[0], key[1], 0, f"(not shrunk: {exc!r})")
        return Shrunk(seed, key, failure, f"# seed {seed}: shrinking failed: {exc!r}\n",
                      program.source, CALLS)


def primary(failures):
    """The failure of a program to shrink: the most basic kind first."""
    return min(failures, key=lambda f: (PRIORITY.index(f.kind) if f.kind in PRIORITY else 99,
                                        f.call))


@dataclass
class Summary:
    first_seed: int
    results: list
    shrunk: list
    seconds: float

    @property
    def programs(self):
        return [r for r in self.results if r.discarded is None]

    def failing(self):
        return [r for r in self.programs if r.failures]

    def text(self):
        programs = self.programs
        n = len(programs) or 1
        lines = [f"srcad fuzz: {len(programs)} programs from seed {self.first_seed} "
                 f"({len(self.results) - len(programs)} seeds discarded by the generator) "
                 f"in {self.seconds:.0f} s"]
        broken = [r for r in self.results if (r.discarded or "").startswith("generator error")]
        for r in broken[:5]:
            lines.append(f"  seed {r.seed}: {r.discarded} (a bug of the fuzzer's generator)")
        refused = [r for r in programs if r.refusals]
        fully = [r for r in refused if {m for m, _ in r.refusals} >= set(
            m for m in r.modes if m != "unoptimized")]
        lines.append(f"refusals: {len(refused)} programs ({100 * len(refused) / n:.1f} %) had a "
                     f"mode refused with SrcadError, {len(fully)} ({100 * len(fully) / n:.1f} %) "
                     f"every mode")
        reasons = collections.Counter()
        for r in refused:
            for reason in {reason for _, reason in r.refusals}:
                reasons[reason] += 1
        for reason, count in reasons.most_common(12):
            lines.append(f"  {count:5d}  {reason}")
        lines.append("refusal rate by construct (programs using it; top 12):")
        lines += self._by_tag(lambda r: bool(r.refusals), 12)
        failing = self.failing()
        lines.append(f"failures: {len(failing)} programs ({100 * len(failing) / n:.1f} %) failed "
                     f"at least one check")
        lines += self._families(programs)
        kinds = collections.Counter()
        for r in failing:
            for key in {f.key for f in r.failures}:
                kinds[key] += 1
        lines.append("programs failing, by kind and mode:")
        for (kind, mode), count in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {count:5d}  {kind:28s} {mode}")
        lines.append("failure rate by construct (programs using it; top 15):")
        lines += self._by_tag(lambda r: bool(r.failures), 15)
        unsure = sum(r.unsure for r in programs)
        checked = sum(r.checked for r in programs)
        lines.append(f"oracle: {checked} comparisons, {unsure} undecided "
                     f"({100 * unsure / max(checked, 1):.2f} %: kinks or branch flips within "
                     f"the steps; never reported)")
        noisy = [r for r in programs if r.noise]
        if noisy:
            lines.append(f"verify mode raised on {len(noisy)} programs whose derivatives were "
                         f"right (it counts the program's own appends to a list argument as a "
                         f"change of the argument; not counted as failures)")
        if self.shrunk:
            lines.append(f"shrunk reproductions: {len(self.shrunk)}")
            for s in self.shrunk:
                lines.append(f"  seed {s.seed:7d}  {s.key[0]:28s} {s.key[1]:24s} "
                             f"{len(s.source.splitlines())} lines")
        return "\n".join(lines)

    def _families(self, programs):
        """Rates like 'reverse mode was wrong on X % of the programs where it ran'."""
        groups = {"reverse mode (grad, value_and_grad, vjp) wrong": (
                      {"grad", "grad_tuple", "value_and_grad", "vjp"}, {"wrong"}),
                  "forward mode (jvp) wrong": ({"jvp"}, {"wrong"}),
                  "forward and reverse disagree (dot test)": ({"vjp/jvp"}, {"dot"}),
                  "hvp wrong": ({"hvp", "hvp_reverse"}, {"wrong"}),
                  "optimized != unoptimized (verify mode)": (set(MODES), {"verify"}),
                  "every optimization off, still wrong": (
                      {m + "[disable=all]" for m in MODES}, {"wrong"})}
        lines = []
        for label, (modes, kinds) in groups.items():
            bad = [r for r in programs if any(f.mode in modes and f.kind in kinds
                                              for f in r.failures)]
            lines.append(f"  {label}: {len(bad)} programs "
                         f"({100 * len(bad) / max(len(programs), 1):.1f} %)")
        return lines

    def _by_tag(self, predicate, top):
        counts, hits = collections.Counter(), collections.Counter()
        for r in self.programs:
            for tag in r.tags:
                counts[tag] += 1
                hits[tag] += predicate(r)
        rows = sorted(((hits[t] / counts[t], t) for t in counts if counts[t] >= 5),
                      reverse=True)[:top]
        return [f"  {100 * rate:5.1f} %  {tag} ({hits[tag]} of {counts[tag]})"
                for rate, tag in rows]

    def write(self, directory):
        """Each shrunk reproduction as a script, and the summary, into directory."""
        os.makedirs(directory, exist_ok=True)
        for name in os.listdir(directory):  # the previous run's reproductions (ours only)
            if re.fullmatch(r"[\w.-]+-seed\d+\.py", name):
                os.remove(os.path.join(directory, name))
        written = []
        for s in self.shrunk:
            kind = s.key[0].replace(":", "-")
            mode = s.key[1].replace("/", "-").replace("[disable=all]", "-unoptimized")
            path = os.path.join(directory, f"{kind}-{mode}-seed{s.seed}.py")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(s.script)
            written.append(path)
        with open(os.path.join(directory, "summary.txt"), "w", encoding="utf-8") as handle:
            handle.write(self.text() + "\n")
        with open(os.path.join(directory, "failures.txt"), "w", encoding="utf-8") as handle:
            for r in self.failing():  # one line per failing program: seed, then its failures
                keys = sorted({f"{kind} {mode}" for kind, mode in (f.key for f in r.failures)})
                handle.write(f"{r.seed}\t" + "\t".join(keys) + "\n")
        return written


def _pool(jobs):
    if jobs <= 1:
        return None
    return multiprocessing.get_context("fork").Pool(jobs)


def run_batch(first_seed, count, jobs=1, quick=False, shrink_per_key=3, shrink_budget=30.0,
              timeout=120, progress=None, max_shrinks=None, verify=True):
    """Check `count` programs from first_seed on, then shrink failures (see the docstring).
    Interrupted (Ctrl-C, or SIGTERM from `python -m tests.fuzz`), it stops checking and
    summarizes the programs checked so far (seeds in order from first_seed)."""
    start = time.monotonic()
    results = []
    next_seed = first_seed
    pool = _pool(jobs)
    try:
        try:
            _check_all(pool, first_seed, count, quick, timeout, verify, results, progress)
        except KeyboardInterrupt:
            print(f"  stopped: {sum(r.discarded is None for r in results)} programs checked",
                  flush=True)
        if pool:  # (a new pool: the old one may still hold seeds of the last chunk)
            pool.terminate()
            pool = _pool(jobs)
        jobs_ = _shrink_jobs(results, shrink_per_key, shrink_budget, max_shrinks)
        shrunk = [s for s in (pool.imap(shrink_seed, jobs_) if pool else map(shrink_seed, jobs_))
                  if s is not None]
    finally:
        if pool:
            pool.terminate()
    unique, seen = [], set()
    for s in shrunk:
        if (s.key, s.source) not in seen:
            seen.add((s.key, s.source))
            unique.append(s)
    return Summary(first_seed, results, unique, time.monotonic() - start)


def _check_all(pool, first_seed, count, quick, timeout, verify, results, progress):
    next_seed = first_seed
    while sum(r.discarded is None for r in results) < count:
        needed = count - sum(r.discarded is None for r in results)
        chunk = range(next_seed, next_seed + needed + needed // 20 + 1)
        next_seed = chunk.stop
        jobs_in = [(s, quick, timeout, verify) for s in chunk]
        mapped = pool.imap(_check_job, jobs_in) if pool else map(_check_job, jobs_in)
        for result in mapped:
            if sum(r.discarded is None for r in results) >= count:
                break
            results.append(result)
            if progress:
                progress(result, results)


def _check_job(job):
    return check_seed(*job)


def _shrink_jobs(results, per_key, budget, most=None):
    """(seed, key, budget) for the failures to shrink: per_key programs per key (the smallest;
    0: all), the most common keys first, at most `most` in all."""
    if per_key is None or per_key < 0:
        return []
    by_key = collections.defaultdict(list)
    for r in results:
        if r.failures and r.discarded is None:
            for key in sorted({f.key for f in r.failures if f.kind != "hang"}):
                by_key[key].append(r)
    jobs = []
    for key, rs in sorted(by_key.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        rs = sorted(rs, key=lambda r: r.size)
        for r in (rs if per_key == 0 else rs[:per_key]):
            jobs.append((r.seed, key, budget))
    return jobs if most is None else jobs[:most]
