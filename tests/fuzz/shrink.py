"""Shrink a failing program to a few lines that still fail the same way.

A candidate is kept when it is smaller (fewer AST nodes, smaller sizes, fewer calls, rounder
argument values), still valid (generator.validate: it runs, stays away from kinks, does not
change its arguments) and still shows a failure with the same key (kind and mode; for verify
failures the same guilty pass, for crashes the same exception type). Candidates, tried in
rounds until none is kept or the budget runs out:

    drop a statement (in f, in a helper, in a loop or branch body), or a whole helper
    replace an if by one of its branches, a loop by one pass of its body
    replace an expression by one of its operands, or by 1.0 / 0.5 / a variable;
    drop keyword arguments (axis=, keepdims=)
    round float literals, shrink range(3) to range(1)
    drop the second call (or the first), shrink the sizes n, m, k, round the argument values
    drop parameters f no longer reads

Only the failing mode is rechecked (verify mode off unless the failure is a verify failure), so
one candidate costs a build or two.
"""
import ast
import contextlib
import copy
import signal
import time
import warnings

from .checker import Checker
from .generator import validate
from .program import CALLS, NEW_VALUES


def _size(program, calls):
    """What the shrinker minimizes: AST nodes first, then sizes, calls, unrounded values,
    parameters, and reads of local names (a parameter read instead lets a copy go)."""
    tree = ast.parse(program.source)
    nodes = sum(1 for _ in ast.walk(tree))
    params = {p.name for p in program.params}
    local_reads = sum(1 for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(
        n.ctx, ast.Load) and n.id not in params and n.id != "np")
    sizes = sum(sum(program.sizes[_sized(c)].values()) for c in calls)
    return (nodes * 10 + sizes + 25 * len(calls) + (4 if program.rounding is None else 0)
            + len(program.params) + local_reads)


def modes_for(key):
    """Checker options that recheck only what failed with this key."""
    kind, mode = key
    unoptimized = None
    base = mode.split("[")[0]
    if mode.endswith("[disable=all]"):
        modes, unoptimized = ["unoptimized"], base
    elif mode == "vjp/jvp":
        modes = ["vjp", "jvp"]
    else:
        modes = [base]
    return dict(modes=modes, unoptimized=unoptimized, verify=kind.startswith("verify"))


class _Slow(BaseException):
    """Out of time (a BaseException: the checker's `except Exception` must not catch it)."""


@contextlib.contextmanager
def deadline(seconds):
    """Raise _Slow in the block after `seconds` (a shrunk loop may never end: dropping its
    counter's increment is a valid edit). Main thread only; restores an outer alarm."""
    def ring(signum, frame):
        raise _Slow()
    previous = signal.signal(signal.SIGALRM, ring)
    outer = signal.setitimer(signal.ITIMER_REAL, seconds)[0]
    started = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - started), 1e-3))


def fails(program, key, calls, seconds=10.0):
    """True when program is valid and still fails with key on these calls."""
    try:
        with deadline(seconds):
            if validate(program) is not None:
                return False
            outcome = Checker(program, calls=calls, **modes_for(key)).run()
    except (_Slow, Exception):  # noqa: BLE001 - too slow, or a checker problem: not the same
        return False
    return any(f.key == key for f in outcome.failures)


# -- candidate programs ---------------------------------------------------------------------------

def _statement_lists(tree):
    """(owner node, field name) of every list of statements."""
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            value = getattr(node, field, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                yield node, field


def _indexed(tree):
    return list(ast.walk(tree))


def _first_value(loop):
    """Statements binding the loop target to its first value (one pass of the body)."""
    it, target = loop.iter, loop.target
    text = ast.unparse(target)
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name):
        if it.func.id == "range":
            start = ast.unparse(it.args[0]) if len(it.args) > 1 else "0"
            return ast.parse(f"{text} = {start}").body
        if it.func.id == "enumerate":
            return ast.parse(f"{text} = 0, {ast.unparse(it.args[0])}[0]").body
        if it.func.id == "zip":
            firsts = ", ".join(f"{ast.unparse(a)}[0]" for a in it.args)
            return ast.parse(f"{text} = {firsts}").body
    return ast.parse(f"{text} = {ast.unparse(it)}[0]").body


def statement_candidates(tree):
    """Trees with one statement dropped, or a compound statement replaced by its body."""
    for li, (owner, field) in enumerate(list(_statement_lists(tree))):
        body = getattr(owner, field)
        for i in reversed(range(len(body))):
            stmt = body[i]
            if isinstance(stmt, ast.FunctionDef) and stmt.name == "f":
                continue
            if isinstance(stmt, ast.Return) and isinstance(owner, ast.FunctionDef) and \
                    i == len(body) - 1:
                continue
            replacements = [[]]
            if isinstance(stmt, ast.If):
                replacements = [stmt.body, stmt.orelse, []] if stmt.orelse else [stmt.body, []]
            elif isinstance(stmt, (ast.For, ast.While)):
                first = _first_value(stmt) if isinstance(stmt, ast.For) else []
                replacements = [[], first + [s for s in stmt.body
                                             if not isinstance(s, (ast.Break, ast.Continue))]]
            for replacement in replacements:
                yield ("statement", li, i, id(replacement)), \
                    _replace_statement(tree, li, i, replacement, stmt)


def _replace_statement(tree, li, i, replacement, stmt):
    new = copy.deepcopy(tree)
    owner, field = list(_statement_lists(new))[li]
    body = getattr(owner, field)
    body[i:i + 1] = copy.deepcopy(replacement)
    if not body:
        body.append(ast.Pass())
    return new


_SIMPLE = [ast.Constant(1.0), ast.Constant(0.5)]


def expression_candidates(tree):
    """Trees with one expression replaced by an operand, a constant or a name."""
    nodes = _indexed(tree)
    f = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f"), None)
    params = [a.arg for a in f.args.args] if f is not None else []
    for index, node in enumerate(nodes):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and \
                node.id not in params and node.id not in ("np", "numpy"):
            for k, name in enumerate(params):  # t4 = t2 -> t4 = x: t2 can go
                yield ("name", index, k), _replace_at(tree, index, ast.Name(name, ast.Load()))
            continue
        if not isinstance(node, ast.expr) or isinstance(node, (ast.Name, ast.Constant)):
            if isinstance(node, ast.Constant) and isinstance(node.value, float):
                for value in (1.0, 0.5, round(node.value, 1)):
                    if value != node.value and len(repr(value)) <= len(repr(node.value)):
                        yield ("constant", index, value), _replace_at(tree, index,
                                                                      ast.Constant(value))
            continue
        if isinstance(node, ast.Call) and node.keywords:
            yield ("keywords", index), _edit_at(tree, index, lambda n: setattr(n, "keywords",
                                                                                []))
        options = []
        if isinstance(node, ast.BinOp):
            options = [node.left, node.right]
        elif isinstance(node, ast.UnaryOp):
            options = [node.operand]
        elif isinstance(node, ast.IfExp):
            options = [node.body, node.orelse]
        elif isinstance(node, ast.Call):
            options = [a for a in node.args if not isinstance(a, ast.Starred)]
            if isinstance(node.func, ast.Attribute) and not _is_module(node.func.value):
                options.append(node.func.value)  # x.sum() -> x
            if isinstance(node.func, ast.Name) and node.func.id == "range" and node.args:
                last = node.args[-1]
                if isinstance(last, ast.Constant) and isinstance(last.value, int) and \
                        last.value > 1:
                    yield ("range", index), _edit_at(
                        tree, index, lambda n: n.args.__setitem__(-1, ast.Constant(1)))
                continue
        elif isinstance(node, ast.Subscript):
            options = [node.value]
        elif isinstance(node, ast.Attribute) and not _is_module(node.value):
            options = [node.value]
        elif isinstance(node, ast.BoolOp):
            options = list(node.values)
        elif isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) > 1 and \
                isinstance(node.ctx, ast.Load):
            for k in range(len(node.elts)):
                yield ("element", index, k), _edit_at(tree, index,
                                                      lambda n, k=k: n.elts.pop(k))
        if isinstance(node, ast.Compare):
            continue  # conditions: the branches are shrunk instead
        for k, option in enumerate(options):
            if isinstance(option, ast.expr):
                yield ("operand", index, k), _replace_at(tree, index, option)
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Call)) and not _in_store(tree, index):
            for k, simple in enumerate(_SIMPLE):
                yield ("simple", index, k), _replace_at(tree, index, simple)


def _is_module(node):
    return isinstance(node, ast.Name) and node.id in ("np", "numpy") or (
        isinstance(node, ast.Attribute) and _is_module(node.value))


def _in_store(tree, index):
    node = _indexed(tree)[index]
    return isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del))


def _replace_at(tree, index, replacement):
    new = copy.deepcopy(tree)
    nodes = _indexed(new)
    target = nodes[index]
    for parent in nodes:
        for field, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, field, copy.deepcopy(replacement))
                return new
            if isinstance(value, list):
                for k, item in enumerate(value):
                    if item is target:
                        value[k] = copy.deepcopy(replacement)
                        return new
    return new


def _edit_at(tree, index, edit):
    new = copy.deepcopy(tree)
    edit(_indexed(new)[index])
    return new


def _unused_params(program):
    tree = ast.parse(program.source)
    f = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f")
    used = {n.id for n in ast.walk(f) if isinstance(n, ast.Name)}
    return [p for p in program.params if p.name not in used]


def _without_params(program, drop):
    tree = ast.parse(program.source)
    f = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f")
    names = {p.name for p in drop}
    f.args.args = [a for a in f.args.args if a.arg not in names]
    params = tuple(p for p in program.params if p.name not in names)
    return program.with_(source=ast.unparse(tree) + "\n", params=params)


def _sized(call):
    """The index of the sizes a call uses (NEW_VALUES: the first call's)."""
    return 0 if call == NEW_VALUES else call


def other_candidates(program, calls):
    """Smaller sizes, rounder values, fewer parameters: (program, calls)."""
    unused = _unused_params(program)
    if unused:
        yield _without_params(program, unused), calls
    for call in sorted({_sized(c) for c in calls}):
        for dim, value in sorted(program.sizes[call].items()):
            for smaller in sorted({1, 2, 3, value - 1}):
                if 1 <= smaller < value:
                    sizes = [dict(s) for s in program.sizes]
                    sizes[call][dim] = smaller
                    yield program.with_(sizes=tuple(sizes)), calls
    if program.rounding is None:
        yield program.with_(rounding=1), calls


# -- the search -----------------------------------------------------------------------------------

def shrink(program, key, calls=CALLS, budget=60.0, max_tests=600):
    """The smallest program found that still fails with key, and the calls it needs."""
    start = time.monotonic()
    best, best_calls = program, tuple(calls)
    tests = 0
    seen = set()

    def out_of_budget():
        return time.monotonic() - start > budget or tests >= max_tests

    improved = True
    while improved and not out_of_budget():
        improved = False
        for make in (_fewer_calls, _structural, _expressions, _others):
            for candidate, candidate_calls in make(best, best_calls):
                if out_of_budget():
                    break
                if _size(candidate, candidate_calls) >= _size(best, best_calls):
                    continue
                fingerprint = (candidate.source, repr(candidate.sizes), candidate.rounding,
                               candidate_calls, candidate.params)
                if fingerprint in seen:
                    continue
                seen.add(fingerprint)
                tests += 1
                if fails(candidate, key, candidate_calls):
                    best, best_calls = candidate, candidate_calls
                    improved = True
                    break  # new candidates from the smaller program
            if improved:
                break
    return best, best_calls


def _fewer_calls(program, calls):
    if len(calls) > 1:
        for keep in calls:
            yield program, (keep,)


def _from_tree(program, tree):
    try:
        source = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
        with warnings.catch_warnings():
            warnings.simplefilter("error", SyntaxWarning)  # 1.0[0]: not worth trying
            compile(source, "<shrink>", "exec")
    except (SyntaxError, SyntaxWarning, ValueError, TypeError, AttributeError):
        return None
    return program.with_(source=source)


def _structural(program, calls):
    tree = ast.parse(program.source)
    for _, new in statement_candidates(tree):
        candidate = _from_tree(program, new)
        if candidate is not None and candidate.source != program.source:
            yield candidate, calls


def _expressions(program, calls):
    tree = ast.parse(program.source)
    for _, new in expression_candidates(tree):
        candidate = _from_tree(program, new)
        if candidate is not None and candidate.source != program.source:
            yield candidate, calls


def _others(program, calls):
    yield from other_candidates(program, calls)


__all__ = ["shrink", "fails", "modes_for"]
