"""Where does a generated gradient spend its time? A per-statement profile.

    .venv/bin/python benchmarks/hotspots.py helmholtz_n10 [--top 15]

Takes srcad's generated gradient of a workload (srcad.source), runs its statements one at a
time in order, and times each top-level statement by itself (median of many executions, each on
a fresh shallow copy of the local variables, lists copied, so accumulations and stack pushes and
pops do not pile up). A loop counts as one statement; --inside times the statements of the
loops' bodies too, for one pass through the body. The per-statement exec overhead (timing an
empty statement) is subtracted. Statements run through exec with a dict of locals, where name
lookups are slower than in a function's fast locals: cheap statements and whole loops look
costlier than they are inside the real function. Compare statements with each other; for the
cost of a whole call use run.py. The code profiled is the one grad(*args) runs: srcad
specializes it to the argument shapes on first call; srcad.source(f, wrt=..., args=...) shows it.
"""
import argparse
import copy
import os
import statistics
import sys
import time

import environment  # noqa: E402,F401 - one BLAS thread, before NumPy loads

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))

import ast  # noqa: E402

import srcad  # noqa: E402

from workloads import fresh_functions, make_workloads  # noqa: E402


def _copy_locals(local):
    return {k: (list(v) if isinstance(v, list) else v) for k, v in local.items()}


def _time_stmt(code, glob, local, reps):
    samples = []
    for _ in range(reps):
        scratch = _copy_locals(local)
        start = time.perf_counter()
        exec(code, glob, scratch)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _compile(stmt):
    if isinstance(stmt, ast.Return):
        stmt = ast.Assign(targets=[ast.Name("__return__", ast.Store())],
                          value=stmt.value or ast.Constant(None))
    module = ast.Module(body=[stmt], type_ignores=[])
    ast.fix_missing_locations(module)
    return compile(module, "<generated>", "exec")


def profile(source, function_name, args, reps=300, inside=False):
    tree = ast.parse(source)
    glob = {"__name__": "srcad_hotspots"}
    exec(compile(source, "<generated>", "exec"), glob)
    fdef = next(node for node in tree.body
                if isinstance(node, ast.FunctionDef) and node.name == function_name)
    names = [a.arg for a in fdef.args.posonlyargs + fdef.args.args]
    local = dict(zip(names, args))
    body = fdef.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    overhead = _time_stmt(_compile(ast.Pass()), glob, {}, reps)
    rows = []
    for stmt in body:
        code = _compile(stmt)
        text = ast.unparse(stmt).splitlines()
        label = text[0] + (" ..." if len(text) > 1 else "")
        if inside and isinstance(stmt, (ast.For, ast.While)):
            rows.append((None, f"[loop] {label}"))
            rows.extend(_profile_loop_body(stmt, glob, local, reps, overhead))
        rows.append((max(_time_stmt(code, glob, local, reps) - overhead, 0.0), label))
        exec(code, glob, local)
    return rows


def _profile_loop_body(loop, glob, local, reps, overhead):
    """Time one pass through a for loop's body, statement by statement, at its first
    iteration (on a copy of the locals: the real loop runs afterwards)."""
    if not isinstance(loop, ast.For):
        return []
    scratch = _copy_locals(local)
    scratch = {k: (copy.copy(v) if isinstance(v, list) else v) for k, v in scratch.items()}
    iterator = iter(eval(compile(ast.Expression(loop.iter), "<generated>", "eval"), glob, scratch))
    try:
        value = next(iterator)
    except StopIteration:
        return []
    bind = ast.Module(body=[ast.Assign(targets=[loop.target], value=ast.Name("__item__",
                                                                            ast.Load()))],
                      type_ignores=[])
    ast.fix_missing_locations(bind)
    scratch["__item__"] = value
    exec(compile(bind, "<generated>", "exec"), glob, scratch)
    rows = []
    for stmt in loop.body:
        code = _compile(stmt)
        text = ast.unparse(stmt).splitlines()
        rows.append((max(_time_stmt(code, glob, scratch, reps) - overhead, 0.0),
                     "    " + text[0] + (" ..." if len(text) > 1 else "")))
        exec(code, glob, scratch)
    return rows


def generated_source(grad, func, workload):
    """The source of the code grad(*args) runs: srcad specializes derivatives to the argument
    shapes on first call, and srcad.source(f, args=...) shows that code."""
    try:
        return srcad.source(func, wrt=workload.wrt, args=workload.args)
    except TypeError:  # an srcad without args=: the internal route, then the generic code
        try:
            return grad.specialize(workload.args, {})[2].built.source
        except Exception:  # noqa: BLE001
            return srcad.source(func, wrt=workload.wrt)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workload")
    parser.add_argument("--top", type=int, default=0, help="only the N slowest statements")
    parser.add_argument("--inside", action="store_true", help="also time loop bodies")
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--source", action="store_true", help="print the generated source too")
    config = parser.parse_args(argv)
    workloads = {w.name: w for w in make_workloads()}
    if config.workload not in workloads:
        raise SystemExit(f"no workload {config.workload!r}; have {', '.join(workloads)}")
    w = workloads[config.workload]
    func = fresh_functions()[w.func_name]
    grad = srcad.grad(func, wrt=w.wrt)
    grad(*w.args)
    source = generated_source(grad, func, w)
    name = getattr(grad, "__name__", f"{w.func_name}_grad")
    if config.source:
        print(source)
    rows = profile(source, name, w.args, config.reps, config.inside)
    total = sum(t for t, _ in rows if t is not None and not _.startswith("    "))
    shown = rows
    if config.top:
        shown = sorted((r for r in rows if r[0] is not None), key=lambda r: -r[0])[:config.top]
    print(f"{config.workload}: generated {name}, sum of top-level statements {total * 1e6:.1f} us")
    for t, label in shown:
        if t is None:
            print(f"{'':>9}  {label}")
        else:
            print(f"{t * 1e6:7.2f} us  {label[:110]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
