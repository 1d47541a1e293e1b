"""Branches, loops and state in both modes: each program checked against central differences in
float64 and by the dot-product test between forward and reverse mode; some also to second order
(forward over the generated reverse code, stacks and loops included)."""
import numpy as np
import pytest

import srcad
import programs as p

rng = np.random.default_rng(7)
V = rng.uniform(0.1, 0.9, 5)
M = rng.uniform(0.1, 0.9, (3, 4))

CASES = [
    (p.branch_on_sign, (0.7,), 0),
    (p.branch_on_sign, (-0.4,), 0),
    (p.branch_on_sign, (-2.0,), 0),
    (p.branch_on_array, (V, V[::-1].copy()), (0, 1)),
    (p.nested_branches, (np.array([0.2, 0.9]), 1.0), 0),
    (p.nested_branches, (np.array([0.7, 0.9]), 1.0), 0),
    (p.conditional_expression, (0.5,), 0),
    (p.conditional_expression, (-0.5,), 0),
    (p.range_loop, (V, 5), 0),
    (p.loop_over_shape, (M,), 0),
    (p.loop_over_rows, (M, V[:4].copy()), (0, 1)),
    (p.enumerate_and_zip, (V, V + 1.0), (0, 1)),
    (p.zip_with_reversed, (M, V[:4].copy()), (0, 1)),
    (p.while_loop, (1.3,), 0),
    (p.while_loop, (7.0,), 0),
    (p.loop_with_break, (np.array([0.9, 1.1, 0.8, 0.9, 1.0]),), 0),
    (p.loop_with_continue, (np.array([0.9, -1.1, 0.8, -0.9, 1.0]),), 0),
    (p.early_return, (np.array([0.2, 0.5, 1.5, 0.1]),), 0),
    (p.early_return, (np.array([0.2, 0.5, 0.5, 0.1]),), 0),
    (p.reassigned_state, (V,), 0),
    (p.swaps, (0.3, 0.7), (0, 1)),
    (p.element_stores, (V,), 0),
    (p.column_and_mask_stores, (M, 0.3), (0, 1)),
    (p.list_append_stack, (V,), 0),
    (p.non_differentiable_parts, (V * 3,), 0),
    (p.logistic_map, (0.3, 10), 0),
    (p.rnn, (V[:3].copy(), M[:, :3].copy(), M, rng.uniform(-1, 1, (4, 4))), (0, 1, 2)),
]


@pytest.mark.parametrize("func,args,wrt", CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_first_order(func, args, wrt):
    srcad.check_grads(func, args, wrt=wrt)


SECOND = [(p.branch_on_sign, (0.7,), 0), (p.range_loop, (V, 5), 0),
          (p.loop_over_rows, (M, V[:4].copy()), 1), (p.while_loop, (1.3,), 0),
          (p.loop_with_break, (np.array([0.9, 1.1, 0.8, 0.9, 1.0]),), 0),
          (p.element_stores, (V,), 0), (p.logistic_map, (0.3, 6), 0),
          (p.rnn, (V[:3].copy(), M[:, :3].copy(), M, rng.uniform(-1, 1, (4, 4))), 1)]


@pytest.mark.parametrize("func,args,wrt", SECOND,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(SECOND)])
def test_second_order(func, args, wrt):
    srcad.check_grads(func, args, wrt=wrt, order=2)


def test_trip_count_differs_between_calls():
    df = srcad.grad(p.while_loop)
    for x in (0.5, 3.0, 9.0, 12.0):
        h = 1e-6
        fd = (p.while_loop(x + h) - p.while_loop(x - h)) / (2 * h)
        assert abs(df(x) - fd) < 1e-5 * max(1.0, abs(fd))


def test_two_threads_run_the_same_derivative():
    import threading
    df = srcad.grad(p.rnn, wrt=1)
    args = (V[:3].copy(), M[:, :3].copy(), M, rng.uniform(-1, 1, (40, 4)))
    expected = df(*args)
    results = []

    def work():
        for _ in range(20):
            results.append(np.max(np.abs(df(*args) - expected)))

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 40 and max(results) == 0.0


def test_logistic_map_derivative_matches_the_chain_rule():
    x0, k = 0.3, 25
    x, d = x0, 1.0
    for _ in range(k):
        d = d * 4.0 * (1.0 - 2.0 * x)
        x = 4.0 * x * (1.0 - x)
    assert srcad.grad(p.logistic_map)(x0, k) == pytest.approx(d, rel=1e-12)
