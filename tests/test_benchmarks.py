"""The benchmark workloads (benchmarks/workloads.py) as correctness tests: srcad's gradient of
each agrees with its hand-written gradient to 1e-10 relative, as `make bench` checks before it
times anything. No timing here (speed is measured by the benchmark, not asserted in tests)."""
import os
import sys

import numpy as np
import pytest

import srcad

BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "benchmarks")
sys.path.insert(0, BENCHMARKS)
from workloads import fresh_functions, make_workloads  # noqa: E402

sys.path.remove(BENCHMARKS)
WORKLOADS = make_workloads()


@pytest.fixture(scope="module")
def functions():
    return fresh_functions()


@pytest.mark.parametrize("workload", WORKLOADS, ids=[w.name for w in WORKLOADS])
def test_srcad_gradient_matches_the_hand_written_one(workload, functions):
    grad = srcad.grad(functions[workload.func_name], wrt=workload.wrt)
    many = isinstance(workload.wrt, tuple)
    for _ in range(2):  # the first call builds the specialized code, the second reuses it
        got = grad(*workload.args)
        want = workload.hand(*workload.args)
        got, want = (got, want) if many else ((got,), (want,))
        assert len(got) == len(want)
        for g, h in zip(got, want):
            scale = max(float(np.max(np.abs(h))), workload.grad_floor)
            assert np.shape(g) == np.shape(h)
            assert float(np.max(np.abs(np.asarray(g) - h))) <= 1e-10 * scale, workload.name


@pytest.mark.parametrize("n", [1, 10])
def test_helmholtz_reference_holds_for_a_nonsymmetric_matrix(n, functions):
    """The reference hand-written Helmholtz gradient is right for any A (the benchmark's A is
    symmetric, but the function does not ask for that); the symmetric shortcut is reported
    beside it, and is right only there."""
    workload = next(w for w in WORKLOADS if w.name == f"helmholtz_n{n}")
    x, A, b = workload.args
    A = A + np.triu(np.ones((n, n)), 1) * 0.3  # no longer symmetric (for n > 1)
    got = srcad.grad(functions["helmholtz"])(x, A, b)
    want = workload.hand(x, A, b)
    assert np.max(np.abs(got - want)) <= 1e-10 * np.max(np.abs(want))
    symmetric = workload.variants["hand_sym"](x, A, b)
    assert (np.max(np.abs(symmetric - want)) > 1e-6) == (n > 1)
    x, A, b = workload.args
    assert np.max(np.abs(workload.variants["hand_sym"](x, A, b) - workload.hand(x, A, b))) \
        <= 1e-12 * np.max(np.abs(workload.hand(x, A, b)))


@pytest.mark.parametrize("workload", WORKLOADS, ids=[w.name for w in WORKLOADS])
def test_torch_versions_match_the_hand_written_gradients(workload):
    """benchmarks/torch_workloads.py (the torch column; skipped where torch is not installed):
    each torch version's gradient agrees with the hand-written one as srcad's does."""
    torch = pytest.importorskip("torch")
    sys.path.insert(0, BENCHMARKS)
    try:
        import torch_workloads
    finally:
        sys.path.remove(BENCHMARKS)
    f = torch_workloads.FUNCTIONS.get(workload.func_name)
    if f is None:
        pytest.skip(f"no torch version of {workload.func_name}")
    many = isinstance(workload.wrt, tuple)
    wrt = workload.wrt if many else (workload.wrt,)
    tensors = [torch.tensor(a, dtype=torch.float64, requires_grad=i in wrt)
               if isinstance(a, np.ndarray) or (isinstance(a, float) and i in wrt) else a
               for i, a in enumerate(workload.args)]
    got = torch.autograd.grad(f(*tensors), [tensors[i] for i in wrt])
    want = workload.hand(*workload.args)
    want = want if many else (want,)
    for g, h in zip(got, want):
        scale = max(float(np.max(np.abs(h))), workload.grad_floor)
        assert tuple(g.shape) == np.shape(h)
        assert float(np.max(np.abs(g.numpy() - h))) <= 1e-10 * scale, workload.name


def test_tangent_ad_adapter_matches_the_hand_written_gradient():
    """The tangent-ad column (benchmarks/adapters.py; skipped where tangent-ad is not
    installed): on a small workload with two differentiated arguments, one of them broadcast,
    the adapter's gradient agrees with the hand-written one as srcad's does, and its build
    time is kept for the JSON."""
    pytest.importorskip("tangent", reason="tangent-ad is not installed (pip install tangent-ad)")
    sys.path.insert(0, BENCHMARKS)
    try:
        import adapters
    finally:
        sys.path.remove(BENCHMARKS)
    adapter = adapters._tangent_ad()
    assert adapter is not None and adapter.name == "tangent_ad"
    workload = next(w for w in WORKLOADS if w.name == "tiny_log")
    grad = adapter.make(workload)
    assert adapter.compile_ms[workload.name] > 0
    got = grad(*workload.args)
    want = workload.hand(*workload.args)
    assert len(got) == len(want) == 2
    for g, h in zip(got, want):
        assert np.shape(g) == np.shape(h)
        assert float(np.max(np.abs(np.asarray(g) - h))) <= 1e-10 * float(np.max(np.abs(h)))
