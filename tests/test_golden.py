"""Golden files: the generated source of a few functions, byte for byte.

A change in the generated code shows up here as a diff to read, not as a silent drift. When the
change is intended, regenerate the files with `make golden` (SRCAD_UPDATE_GOLDEN=1) and commit
them together with the change that caused it.

The functions live in tests/golden_functions.py; each golden file is the full module srcad
emits, so it must also run: its numbers are checked against central differences.
"""
import inspect
import os
import re

import numpy as np
import pytest

import srcad
import golden_functions as gf

GOLDEN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
UPDATE = os.environ.get("SRCAD_UPDATE_GOLDEN") == "1"


def _batchnorm_args(rng):
    return (rng.normal(loc=1.0, scale=2.0, size=(64, 3)), rng.normal(size=(64, 3)))


# name -> (function, options, argument maker)
CASES = {
    "worked_example_reverse": (gf.worked_example, dict(mode="reverse", wrt=(0, 1)),
                               lambda rng: (2.0, 5.0)),
    "worked_example_forward": (gf.worked_example, dict(mode="forward", wrt=(0, 1)),
                               lambda rng: (2.0, 5.0)),
    "softmax_like_reverse": (gf.softmax_like, dict(mode="reverse", wrt=0),
                             lambda rng: (rng.normal(size=(4, 5)),)),
    "softmax_like_forward": (gf.softmax_like, dict(mode="forward", wrt=0),
                             lambda rng: (rng.normal(size=(4, 5)),)),
    "mlp_layer_loss_reverse": (gf.mlp_layer_loss, dict(mode="reverse", wrt=(0, 1, 2)),
                               lambda rng: (rng.normal(size=(6, 4)), rng.normal(size=(4, 3)),
                                            rng.normal(size=3))),
    "batchnorm_reverse": (gf.batchnorm, dict(mode="reverse", wrt=0), _batchnorm_args),
    "running_sum_loop_reverse": (gf.running_sum_loop, dict(mode="reverse", wrt=0),
                                 lambda rng: (rng.normal(size=5), 5)),
    "while_with_break_reverse": (gf.while_with_break, dict(mode="reverse", wrt=0),
                                 lambda rng: (1.1,)),
    "branches_reverse": (gf.branches, dict(mode="reverse", wrt=0),
                         lambda rng: (rng.normal(size=4),)),
    "element_loop_reverse": (gf.element_loop, dict(mode="reverse", wrt=0),
                             lambda rng: (rng.normal(size=5),)),
    # the helper kept as a call (its generated forward and backward halves), and written in
    # (frontend/inline.py: calls inside expressions are bound to names first)
    "helper_call_reverse": (gf.helper_call, dict(mode="reverse", wrt=(0, 1), disable="inline"),
                            lambda rng: (rng.normal(size=3), 0.7)),
    "helper_call_inlined_reverse": (gf.helper_call, dict(mode="reverse", wrt=(0, 1)),
                                    lambda rng: (rng.normal(size=3), 0.7)),
    "running_sum_loop_forward": (gf.running_sum_loop, dict(mode="forward", wrt=0),
                                 lambda rng: (rng.normal(size=5), 5)),
}
# specialized to example shapes (what srcad.grad runs): unbroadcast gone where shapes agree
SPECIALIZED = {
    "worked_example_reverse_specialized": (gf.worked_example, dict(mode="reverse", wrt=(0, 1)),
                                           (2.0, 5.0)),
    "mlp_layer_loss_reverse_specialized": (gf.mlp_layer_loss, dict(mode="reverse", wrt=(0, 1, 2)),
                                           (np.ones((6, 4)), np.ones((4, 3)), np.ones(3))),
    "batchnorm_reverse_specialized": (gf.batchnorm, dict(mode="reverse", wrt=0),
                                      (np.ones((64, 3)), np.ones((64, 3)))),
    # the row maximum's adjoint is zero: the softmax does not depend on it (invariance.py)
    "softmax_like_reverse_specialized": (gf.softmax_like, dict(mode="reverse", wrt=0),
                                         (np.ones((4, 3)),)),
    # the outer products of the loop: 32 steps at a time as one matrix product (outer.py)
    "rnn_reverse_specialized": (gf.rnn, dict(mode="reverse", wrt=(0, 1, 2)),
                                (np.ones((5, 5)) * 0.1, np.ones((5, 3)) * 0.1, np.ones(5) * 0.1,
                                 np.ones((40, 3)), np.ones(5))),
    # issue 15's workloads: Rosenbrock (bx[i] -= g in place), and RK4 whose right-hand side
    # helper is written in (inline.py): no helper derivative, no unbroadcast
    "rosenbrock_reverse_specialized": (gf.rosenbrock, dict(mode="reverse", wrt=0),
                                       (np.ones(10),)),
    "ode_rk4_reverse_specialized": (gf.ode_rk4, dict(mode="reverse", wrt=(0, 1)),
                                    (np.ones(4), 0.4, np.eye(4) * 0.1, 20)),
}
def _like(example):
    """Random arguments of the example's shapes (the specialized code assumes those shapes)."""
    def make(rng):
        return tuple(rng.normal(loc=1.0, size=np.shape(e)) if isinstance(e, np.ndarray)
                     else e for e in example)
    return make


for _name, (_func, _options, _example) in SPECIALIZED.items():
    CASES[_name] = (_func, dict(_options, args=_example), _like(_example))
# d/dt log(t c) = 1 / t; the column sums of 1 / c are 3 / c (cancel.py); positive arguments
CASES["log_product_reverse_specialized"] = (
    gf.log_product, dict(mode="reverse", wrt=(0, 1), args=(np.ones((3, 4)), np.ones((1, 3)))),
    lambda rng: (rng.uniform(0.5, 1.5, (3, 4)), rng.uniform(0.5, 1.5, (1, 3))))


def golden_path(name):
    return os.path.join(GOLDEN_DIR, f"{name}.py")


@pytest.mark.parametrize("name", sorted(CASES))
def test_generated_source_matches_the_golden_file(name):
    func, options, _ = CASES[name]
    text = srcad.source(func, **options)
    path = golden_path(name)
    if UPDATE:
        os.makedirs(GOLDEN_DIR, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        return
    assert os.path.exists(path), f"no golden file {path}: run `make golden` to create it"
    with open(path, encoding="utf-8", newline="") as handle:
        golden = handle.read()
    if text != golden:
        import difflib
        diff = "".join(difflib.unified_diff(golden.splitlines(True), text.splitlines(True),
                                            f"golden/{name}.py", "generated now"))
        pytest.fail(f"generated source differs from golden/{name}.py (if intended: "
                    f"`make golden`):\n{diff}")


def test_no_stray_golden_files():
    present = {f[:-3] for f in os.listdir(GOLDEN_DIR) if f.endswith(".py")}
    assert present <= set(CASES), f"golden files without a case: {sorted(present - set(CASES))}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_source_has_no_absolute_paths(name):
    func, options, _ = CASES[name]
    text = srcad.source(func, **options)
    tests_dir = os.path.dirname(os.path.abspath(gf.__file__))
    assert tests_dir not in text
    assert os.path.dirname(tests_dir) not in text
    assert not re.search(r"(^|[\s'\"(])(/[\w.-]+){2,}", text), "an absolute POSIX path"
    assert not re.search(r"[A-Za-z]:\\\\", text), "an absolute Windows path"
    header = text.split('"""')[1]
    for where in re.findall(r"Source: (\S+?):(\d+)", header):
        assert where[0] == "golden_functions.py", header
    assert f"golden_functions.py:{func.__code__.co_firstlineno}" in header


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_module_computes_the_right_numbers(name, rng):
    """Run the module text (the golden file's content) and compare with central differences."""
    func, options, make_args = CASES[name]
    text = srcad.source(func, **options)
    namespace = {"__name__": f"golden_{name}"}
    exec(compile(text, golden_path(name), "exec"), namespace)
    generated = namespace[f"{func.__name__}_{'grad' if options['mode'] == 'reverse' else 'jvp'}"]
    args = make_args(rng)
    positions = options["wrt"] if isinstance(options["wrt"], tuple) else (options["wrt"],)
    h = 1e-6
    if options["mode"] == "reverse":
        grads = generated(*args)
        grads = grads if isinstance(options["wrt"], tuple) else (grads,)
        for position, g in zip(positions, grads):
            x = np.asarray(args[position], dtype=float)
            assert np.shape(g) == x.shape
            direction = rng.normal(size=x.shape)
            plus, minus = list(args), list(args)
            plus[position] = x + h * direction
            minus[position] = x - h * direction
            fd = (func(*plus) - func(*minus)) / (2 * h)
            assert abs(np.sum(g * direction) - fd) <= 1e-7 * max(1.0, abs(fd)), (position, fd)
    else:
        directions = [rng.normal(size=np.shape(args[p])) for p in positions]
        names = [p.name for p in inspect.signature(generated).parameters.values()
                 if p.kind is p.KEYWORD_ONLY]
        assert len(names) == len(positions)
        tangent = generated(*args, **dict(zip(names, directions)))
        plus, minus = list(args), list(args)
        for p, d in zip(positions, directions):
            plus[p] = np.asarray(args[p], dtype=float) + h * d
            minus[p] = np.asarray(args[p], dtype=float) - h * d
        fd = (func(*plus) - func(*minus)) / (2 * h)
        assert abs(tangent - fd) <= 1e-7 * max(1.0, abs(fd))
