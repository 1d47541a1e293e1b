"""The optimizations of generated gradients, pass by pass: what each does to the generated source
(read through srcad.source, shape-specialized like the calls run) and that the numbers stay
right (central differences and the dot-product test, through srcad.check_grads)."""
import numpy as np
import pytest

import srcad
from srcad.optimize import FoldConstants, propagate_constants
from srcad.pipeline import build

import gast


def body(func, wrt, args):
    """The generated gradient function's text, specialized to args (helpers left out)."""
    text = srcad.source(func, wrt=wrt, args=args)
    return text[text.index(f"def {func.__name__}_grad"):]


def check(func, args, wrt):
    srcad.check_grads(func, args, wrt=wrt)
    srcad.check_grads(func, args, wrt=wrt, modes=("reverse",), order=2)


# --- sums over broadcast axes: factors constant along them come out of the sum ---------------

def quotient(a, c):
    return np.sum(np.sin(a) / c)


def test_a_divisor_shaped_like_the_sum_divides_after_summing(rng):
    a, c = rng.normal(size=(5, 4)), rng.uniform(1.0, 2.0, size=4)
    text = body(quotient, (0, 1), (a, c))
    assert ".sum(axis=(0,)) / c" in text  # not (-bt * t / c).sum(axis=(0,))
    check(quotient, (a, c), (0, 1))


def scalar_divisor(x, s):
    return np.sum(np.exp(x / s))


def test_the_sum_of_a_product_of_two_vectors_is_a_dot_product(rng):
    x, s = rng.normal(size=6), 1.7
    text = body(scalar_divisor, (0, 1), (x, s))
    assert "np.dot(" in text and ".sum()" not in text
    check(scalar_divisor, (x, s), (0, 1))


def row_normalize(x, w):
    return np.sum(w * (x / np.sum(x, axis=1, keepdims=True)))


def test_axes_kept_by_the_operand_are_summed_with_keepdims(rng):
    x, w = rng.uniform(0.5, 1.5, size=(4, 3)), rng.normal(size=(4, 3))
    text = body(row_normalize, 0, (x, w))
    assert "keepdims=True)" in text and "np.reshape" not in text
    check(row_normalize, (x, w), (0, 1))


# --- broadcasts sink into the elementwise arithmetic that consumes them ----------------------

def sum_of_logs(x):
    return np.sum(np.log(x))


def test_the_adjoint_of_a_sum_is_not_spread_before_an_elementwise_op(rng):
    x = rng.uniform(0.5, 2.0, size=(3, 4))
    text = body(sum_of_logs, 0, (x,))
    assert "np.full" not in text
    assert "1.0 / x" in text  # the seed is a number: no strong-zero guard needed
    check(sum_of_logs, (x,), 0)


def column_mean(x, w):
    mu = np.mean(x, axis=0)
    return np.sum((x - mu) ** 2 * w)


def row_mean(x, w):
    mu = np.mean(x, axis=1)
    return np.sum(np.tanh(mu) * w[:, 0]) + np.sum(np.sin(x) * w)


@pytest.mark.parametrize("func", [column_mean, row_mean])
def test_the_adjoint_of_an_axis_reduction_is_not_spread(func, rng):
    x, w = rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    text = body(func, 0, (x, w))
    assert "unreduce(" not in text
    if func is row_mean:  # a kept axis that is not leading: numpy needs it as length 1
        assert "np.reshape(" in text
    check(func, (x, w), (0, 1))


def spread_then_reduced(x, s):
    p = x / np.sum(x, axis=1, keepdims=True)
    return np.sum(p) * s


def test_a_broadcast_stays_where_the_other_operand_is_smaller(rng):
    x = rng.uniform(0.5, 1.5, size=(4, 3))
    text = body(spread_then_reduced, (0, 1), (x, 2.0))
    assert "np.full((4, 3)" in text  # divided by a (4, 1) column: the result must stay (4, 3)
    check(spread_then_reduced, (x, 2.0), (0, 1))


def in_a_loop(x, n):
    total = 0.0
    for i in range(n):
        total = total + np.sum(np.sin(x) * i)
    return total


def test_broadcasts_in_loops(rng):
    x = rng.normal(size=(3, 2))
    check(in_a_loop, (x, 3), 0)


def reused(x, y):
    s = np.sum(x * y)
    return s * np.sum(np.cos(x)) + np.sum(y)


def test_a_spread_adjoint_used_several_times(rng):
    x, y = rng.normal(size=4), rng.normal(size=4)
    text = body(reused, (0, 1), (x, y))
    assert "np.full" not in text
    check(reused, (x, y), (0, 1))


def test_generic_builds_are_not_rewritten():
    text = srcad.source(sum_of_logs)  # no example arguments: shapes unknown
    assert "np.broadcast_to" in text or "np.full" in text or "unreduce" in text


# --- constants -------------------------------------------------------------------------------

def _fold(source):
    tree = gast.parse(source)
    return FoldConstants().visit(tree)


@pytest.mark.parametrize("before, after", [
    ("y = safe_div(2.0, x)", "y = 2.0 / x"),
    ("y = safe_mul(x, -3.0)", "y = x * -3.0"),
    ("y = safe_div(x, 2.0)", "y = safe_div(x, 2.0)"),  # a zero x over 2.0 is 0 anyway: kept
    ("y = safe_div(0.0, x)", "y = safe_div(0.0, x)"),  # 0 / 0 = 0: the guard matters
    ("y = safe_mul(float('inf'), x)", "y = safe_mul(float('inf'), x)"),
    ("y = 1.0 / 4", "y = 0.25"),
    ("y = 1.0 / 0", "y = 1.0 / 0"),
    ("y = -(2.0)", "y = -2.0"),
])
def test_fold_constants(before, after):
    from srcad.emit import function_source  # noqa: F401  (astor through srcad's emitter)
    import astor
    got = astor.to_source(gast.gast_to_ast(_fold(before))).strip()
    assert got == after


def test_a_seed_of_one_is_propagated_into_the_adjoint_sweep():
    fdef = gast.parse("def f(x):\n    bout = 1.0\n    bx = bout * x\n    return bx\n").body[0]
    propagate_constants(fdef, {"bout", "bx"})
    import astor
    text = astor.to_source(gast.gast_to_ast(gast.Module(body=[fdef], type_ignores=[])))
    assert "bx = 1.0 * x" in text


def test_user_constants_keep_their_names(rng):
    def scaled(x):
        R = 8.314
        return R * np.sum(x ** 2)
    text = build(scaled, example=((rng.normal(size=3),), {})).source
    assert "R = 8.314" in text
