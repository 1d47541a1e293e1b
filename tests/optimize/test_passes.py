"""The pass manager (optimize/manager.py, optimize/passes.py): every pass declared once, a stage
of its own, switched off by its PASSES name; facts computed once per version of the code."""
import textwrap

import gast
import numpy as np
import pytest

import srcad
from srcad import pipeline
from srcad.optimize import manager, passes


def softmax_loss(x, w):
    z = x * w
    m = np.max(z, axis=1, keepdims=True)
    e = np.exp(z - m)
    return np.sum(np.log(np.sum(e, axis=1)) - z[:, 0]) / 3.0


def logistic(x, k):
    for _ in range(k):
        x = 3.7 * x * (1.0 - x)
    return x


ARGS = (np.linspace(0.1, 1.2, 12).reshape(3, 4), np.linspace(-1.0, 1.0, 4))


def test_every_pass_is_a_stage_and_a_switch():
    declared = [p for entry in passes.PIPELINE for p in getattr(entry, "passes", (entry,))]
    assert {p.switch for p in declared} - {None} <= set(pipeline.PASSES)
    for p in declared:
        assert p.name in pipeline.STAGES
    code_passes = set(pipeline.PASSES) - {"specialize", "callees", "float_gradient"}  # (how
    # the code runs: for which arguments, in which mode; not a stage of its text)
    assert code_passes <= set(pipeline.STAGES)


@pytest.mark.parametrize("stage", [s for s in pipeline.STAGES if s != "emit"])
def test_source_at_every_stage_specialized(stage):
    text = srcad.source(softmax_loss, args=ARGS, stage=stage)
    assert "def softmax_loss" in text


def test_stages_follow_the_passes_in_order():
    """The last pass's stage is the optimized code; a group's stage is its last member's."""
    assert srcad.source(softmax_loss, args=ARGS, stage="strength") == srcad.source(
        softmax_loss, args=ARGS, stage="optimize")
    assert srcad.source(softmax_loss, args=ARGS, stage="simplify") == srcad.source(
        softmax_loss, args=ARGS, stage="dead_code")


def test_forward_derivative_before_and_after_proportional_folding():
    args = (0.3, 100)
    unfolded = srcad.source(logistic, args=args, stage="derivative")
    folded = srcad.source(logistic, args=args, stage="proportional")
    assert "dt2 = 3.7 * dx" in unfolded and "dx = dt2 * t3 + t2 * dt3" in unfolded
    assert "dt2" not in folded and "dx = dx * (3.7 * t3 - t2)" in folded
    off = srcad.source(logistic, args=args, stage="proportional", disable="proportional")
    assert off == unfolded


def test_a_disabled_pass_leaves_its_stage_unchanged():
    after = srcad.source(softmax_loss, args=ARGS, stage="signs", disable="signs")
    assert srcad.source(softmax_loss, args=ARGS, stage="resimplify", disable="signs") == after


def _fdef(source):
    return gast.parse(textwrap.dedent(source)).body[0]


def test_facts_are_computed_once_and_dropped_when_the_code_changes():
    fdef = _fdef("""
        def f(x):
            a = x * 2.0
            b = a
            return b
        """)
    calls = []
    counting = dict(manager.CODE_FACTS)
    real = counting["binds"]
    counting["binds"] = lambda code, facts: calls.append(1) or real(code, facts)
    reader = manager.Pass("reader", lambda code, facts: facts.binds and code, needs=("binds",))
    keeper = manager.Pass("keeper", lambda code, facts: _rename(code), keeps=("binds",))
    changer = manager.Pass("changer", lambda code, facts: _rename(code))
    idle = manager.Pass("idle", lambda code, facts: code)
    build = manager.Build("reverse", "grad", False)
    facts = manager.Facts({})
    original = manager.CODE_FACTS
    manager.CODE_FACTS = counting
    try:
        manager.run_passes(fdef, [reader, reader, idle, reader], build, facts)
        assert len(calls) == 1  # computed once; a pass that changed nothing keeps it
        manager.run_passes(fdef, [reader, keeper, reader], build, facts)
        assert len(calls) == 2  # (run_passes starts afresh), kept by keeper
        manager.run_passes(fdef, [reader, changer, reader], build, facts)
        assert len(calls) == 4  # dropped by changer
    finally:
        manager.CODE_FACTS = original


def _rename(code):
    for node in gast.walk(code):
        if isinstance(node, gast.Name) and node.id == "b":
            node.id = "c"
        elif isinstance(node, gast.Name) and node.id == "c":
            node.id = "b"
    return code


def _says_unchanged(change):
    def run(code, facts):
        facts.unchanged()
        return _rename(code) if change else code
    return run


def test_a_pass_that_says_it_changed_nothing_is_not_censused_after(monkeypatch):
    """A pass that says it changed nothing (facts.unchanged()) keeps every fact, and the census
    after it is skipped; without SRCAD_VERIFY its word is taken."""
    monkeypatch.setenv("SRCAD_VERIFY", "0")
    taken = []
    real = manager.census
    monkeypatch.setattr(manager, "census", lambda code, after: taken.append(after) or real(
        code, after))
    quiet = manager.Pass("quiet", _says_unchanged(False))
    idle = manager.Pass("idle", lambda code, facts: code)
    group = manager.Group("both_quiet", [quiet, quiet])
    manager.run_passes(_fdef("def f(x):\n    b = x\n    return b\n"), [quiet, idle, group],
                       manager.Build("reverse", "grad", False), manager.Facts({}))
    assert taken == ["the derivative pass", "idle"]


def test_a_pass_that_says_it_changed_nothing_and_did_is_an_internal_error(monkeypatch):
    """With SRCAD_VERIFY (the tests' and the fuzzer's setting) a pass is held to its word, alone
    or as one of a group (where the group's census would otherwise be skipped)."""
    monkeypatch.setenv("SRCAD_VERIFY", "1")
    liar = manager.Pass("liar", _says_unchanged(True))
    quiet = manager.Pass("quiet", _says_unchanged(False))
    build = manager.Build("reverse", "grad", False)
    for entries, name in (([liar], "liar"), ([manager.Group("both", [quiet, liar])], "both")):
        with pytest.raises(AssertionError, match=f"{name} said it changed nothing"):
            manager.run_passes(_fdef("def f(x):\n    b = x\n    return b\n"), entries, build,
                               manager.Facts({}))
    manager.run_passes(_fdef("def f(x):\n    b = x\n    return b\n"), [quiet], build,
                       manager.Facts({}))  # (telling the truth)


def test_a_pass_declared_for_some_calls_runs_only_where_one_is_made():
    ran = []
    outer = manager.Pass("outer", lambda code, facts: ran.append(1) or code, calls=("np.outer",))
    build, facts = manager.Build("reverse", "grad", False), manager.Facts({})
    manager.run_passes(_fdef("def f(x):\n    return np.dot(x, x) + outer(x)\n"), [outer],
                       build, facts)
    assert ran == []  # (np.dot, and a function of another name)
    manager.run_passes(_fdef("def f(x):\n    return 2.0 * np.outer(x, x)\n"), [outer], build,
                       facts)
    assert ran == [1]
    assert "np.linalg.slogdet" in passes.FACTORING


def test_a_pass_reads_only_the_facts_it_declares():
    sneaky = manager.Pass("sneaky", lambda code, facts: facts.loads and code, needs=("binds",))
    with pytest.raises(AssertionError, match="did not declare"):
        manager.run_passes(_fdef("def f(x):\n    return x\n"), [sneaky],
                           manager.Build("reverse", "grad", False), manager.Facts({}))


def test_a_shared_node_after_a_pass_is_an_internal_error():
    def share(code, facts):
        code.body.insert(0, gast.Expr(value=code.body[-1].value))
        return code
    with pytest.raises(AssertionError, match="after sharer, 1 nodes"):
        manager.run_passes(_fdef("def f(x):\n    return x\n"), [manager.Pass("sharer", share)],
                           manager.Build("reverse", "grad", False), manager.Facts({}))


def test_which_builds_a_pass_runs_for():
    p = passes.by_name("cancel")
    assert p.runs(manager.Build("reverse", "grad", True))
    assert not p.runs(manager.Build("reverse", "grad", False))  # specialized builds only
    assert not p.runs(manager.Build("forward", "jvp", True))
    assert not p.runs(manager.Build("reverse", "grad", True, disabled={"cancel"}))
    assert passes.by_name("singular").runs(manager.Build("reverse", "grad", True,
                                                         singular={"D": {"ZN"}}))
    assert not passes.by_name("singular").runs(manager.Build("reverse", "grad", True))


@pytest.mark.parametrize("ident", ["x", "bt_1", "x'y", "\u00e9t\u00e9"])
def test_a_name_factor_keys_as_gast_dump_writes_it(ident):
    from srcad.optimize.algebra import factor_key
    node = gast.Name(id=ident, ctx=gast.Load(), annotation=None, type_comment=None)
    assert factor_key(node) == gast.dump(node)
