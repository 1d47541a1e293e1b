"""The before/after harness of the optimizer's unit tests (tests/optimize/): a pass run by itself
on a function written out, its result compared with the function expected after it, and both
run on the same arguments, which must give the same numbers. A rewrite is tested as it is
specified (the text after it) and as it must behave (the value is unchanged).

    check_rewrite(keep_rank_one, '''
        def f(A, u, v):
            t = np.outer(u, v)
            return A @ t @ A
        ''', '''
        def f(A, u, v):
            return np.outer(A @ u, A.T @ v)
        ''', args=(A, u, v), shape_of={...}.get)
"""
import textwrap

import gast
import numpy as np

from srcad.backend.emit import function_source
from srcad.optimize import manager
from srcad.runtime import HELPERS


def parsed(source):
    return gast.parse(textwrap.dedent(source).strip() + "\n").body[0]


def text_of(fdef):
    """The function's code as srcad writes generated code (backend/emit.py), without its comment
    lines (the expected functions are parsed: their comments are gone)."""
    return "\n".join(line for line in function_source(fdef).strip().splitlines()
                     if not line.lstrip().startswith("#"))


def rewritten(run, before, **facts):
    """The function `before` (source) after the pass `run(code, facts)`, given these facts of
    the build (manager.STATIC_FACTS: shape_of, derived, ...); the facts about the code itself
    (binds, loads, ...) are computed from it as the pass manager does."""
    fdef = parsed(before)
    return run(fdef, manager.facts_for(fdef, **facts))


def values(source, args):
    namespace = {"np": np, **HELPERS}  # (generated code calls the runtime helpers)
    exec(compile(textwrap.dedent(source), "<before/after>", "exec"), namespace)  # noqa: S102
    function = namespace[parsed(source).name]
    return function(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])


def check_rewrite(run, before, after, args, **facts):
    """The pass turns before into after (as text), and both give the same numbers on args."""
    got = rewritten(run, before, **facts)
    assert text_of(got) == text_of(parsed(after)), (
        f"after the pass:\n{text_of(got)}\n\nexpected:\n{text_of(parsed(after))}")
    after_values, before_values = values(text_of(got), args), values(before, args)
    pairs = zip(after_values, before_values) if isinstance(before_values, tuple) else [
        (after_values, before_values)]
    for a, b in pairs:
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def check_unchanged(run, before, args, **facts):
    """The pass leaves before as it is (a case it must not rewrite)."""
    check_rewrite(run, before, before, args, **facts)
