"""The optimizations of generated gradients, pass by pass: what each does to the generated source
(read through srcad.source, shape-specialized like the calls run) and that the numbers stay
right (central differences and the dot-product test, through srcad.check_grads)."""
import math

import astor
import gast
import numpy as np
import pytest

import golden_functions
import srcad
from srcad.optimize.copies import propagate_copies
from srcad.optimize.simplify import FoldConstants, propagate_constants
from srcad.pipeline import build


def as_text(node):
    if isinstance(node, gast.FunctionDef):
        node = gast.Module(body=[node], type_ignores=[])
    return astor.to_source(gast.gast_to_ast(node))


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
    assert "t2.sum(axis=(0,))" in text  # the quotient alone: not (-bt * t2 / c).sum(axis=(0,))
    check(quotient, (a, c), (0, 1))


def scalar_divisor(x, s):
    return np.sum(np.exp(x / s))


def scalar_scale(x, s):
    return np.sum(np.sin(x * s))


def test_the_sum_of_a_product_of_two_vectors_is_a_dot_product(rng):
    x, s = rng.normal(size=6), 1.7
    text = body(scalar_scale, (0, 1), (x, s))
    assert ".dot(x)" in text and ".sum()" not in text
    check(scalar_scale, (x, s), (0, 1))


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


def softmax_total(z):
    e = np.exp(z)
    p = e / np.sum(e * e, axis=1, keepdims=True)  # (not normalized: sum(p) is not constant)
    return np.sum(p) / 3.0


def test_a_broadcast_divided_by_a_column_stays_a_broadcast_of_the_column(rng):
    z = rng.normal(size=(5, 3))
    text = body(softmax_total, 0, (z,))
    assert "np.full" not in text  # (1/3) / column, spread only where it meets exp(z)
    check(softmax_total, (z,), 0)


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

def _fold(source, inexact=("f",), arrays=("x",)):
    tree = gast.parse(source)
    return FoldConstants(set(inexact), set(arrays)).visit(tree)


@pytest.mark.parametrize("before, after", [
    ("y = safe_div(2.0, x)", "y = 2.0 / x"),
    ("y = safe_mul(x, -3.0)", "y = x * -3.0"),
    ("y = safe_div(2.0, f)", "y = safe_div(2.0, f)"),  # f may be a Python 0.0: kept
    ("y = safe_div(2.0, f * x)", "y = 2.0 / (f * x)"),
    ("y = safe_div(x, 2.0)", "y = safe_div(x, 2.0)"),  # a zero x over 2.0 is 0 anyway: kept
    ("y = safe_div(0.0, x)", "y = safe_div(0.0, x)"),  # 0 / 0 = 0: the guard matters
    ("y = safe_mul(float('inf'), x)", "y = safe_mul(float('inf'), x)"),
    ("y = 1.0 / 4", "y = 0.25"),
    ("y = 1.0 / 0", "y = 1.0 / 0"),
    ("y = -(2.0)", "y = -2.0"),
    ("y = 1.0 * f", "y = f"),  # f is a float (the probe saw one): the same value
    ("y = f * -1.0", "y = -f"),
    ("y = f / 1.0", "y = f"),
    ("y = 1.0 / f", "y = 1.0 / f"),
    ("y = 1.0 * k", "y = 1.0 * k"),  # k may be an int: 1.0 * k is a float
    ("y = 1.0 * (k / 2)", "y = k / 2"),  # a true division is a float
    ("y = 1.0 * (k + 2.5)", "y = k + 2.5"),
    ("y = 1.0 * (k + 2)", "y = 1.0 * (k + 2)"),
    ("y = 1.0 * np.exp(f - x)", "y = np.exp(f - x)"),  # exp of a float: that float type
    ("y = -1.0 * np.cos(f)", "y = -np.cos(f)"),
    ("y = 1.0 * np.exp(k)", "y = 1.0 * np.exp(k)"),  # (an int's, or a bool's float16: kept)
    ("y = 1.0 * np.maximum(f, k)", "y = 1.0 * np.maximum(f, k)"),  # (not in the list: kept)
    ("y = (0.5 * x).sum(axis=(1,))", "y = 0.5 * x.sum(axis=(1,))"),
    ("y = -(x * 2).sum()", "y = -(2 * x.sum())"),
    ("y = x * 0.015625 * 2 * f", "y = x * 0.03125 * f"),  # a power of two: exact
    ("y = 2 * (3.0 * x)", "y = 6.0 * x"),
    ("y = 0.1 * x * 3.0", "y = 0.1 * x * 3.0"),  # 0.3 * x may round differently: kept
    ("y = 3.0 * x / 4", "y = 0.75 * x"),
    ("y = 3.0 * x / 0.1", "y = 3.0 * x / 0.1"),
    ("y = 4 / (3.0 * x)", "y = 4 / (3.0 * x)"),
    ("y = 1.0715086071862673e+301 * x * 1.0715086071862673e+301",
     "y = 1.0715086071862673e+301 * x * 1.0715086071862673e+301"),  # the product overflows
    ("y = g(m, not False)", "y = g(m, True)"),  # (a template's flag, given as a constant)
    ("y = not None", "y = True"),
    ("y = not 0.0", "y = not 0.0"),  # (only bools and None)
    ("y = (c, low)[0] @ (c, low)[-1]", "y = c @ low"),  # (a tuple parameter given a display)
    ("y = (c, 2.0)[1]", "y = 2.0"),
    ("y = (c, low)[2]", "y = (c, low)[2]"),  # (out of range: the IndexError stays)
    ("y = (c, g(x))[0]", "y = (c, g(x))[0]"),  # (a call in the display runs: kept)
    ("y = (c, low)[i]", "y = (c, low)[i]"),
    ("y = oriented(triangle(m, False), True)", "y = np.swapaxes(np.triu(m), -1, -2)"),
    ("y = off_triangle(m, True) + oriented(m, False) * 2.0", "y = np.triu(m, 1) + m * 2.0"),
    ("y = triangle(m, low)", "y = triangle(m, low)"),  # (a flag known when it runs: kept)
    ("y = oriented(m, 1)", "y = oriented(m, 1)"),  # (only bools)
])
def test_fold_constants(before, after):
    got = as_text(_fold(before)).strip()
    assert got == after


def test_a_seed_of_one_is_propagated_into_the_adjoint_sweep():
    fdef = gast.parse("def f(x):\n    bout = 1.0\n    bx = bout * x\n    return bx\n").body[0]
    propagate_constants(fdef, {"bout", "bx"})
    text = as_text(fdef)
    assert "bx = 1.0 * x" in text


def test_user_constants_keep_their_names(rng):
    def scaled(x):
        R = 8.314
        return R * np.sum(x ** 2)
    text = build(scaled, example=((rng.normal(size=3),), {})).source
    assert "R = 8.314" in text


# --- outer products accumulated in loops: a block of steps as one matrix product -------------

recurrence = golden_functions.rnn  # h = tanh(W h + U x_t + b), T steps; sum(h ** 2)


def _recurrence_args(rng, steps):
    return (rng.normal(size=(4, 4)) / 2, rng.normal(size=(4, 3)) / 2, rng.normal(size=4) * 0.1,
            rng.normal(size=(steps, 3)), rng.normal(size=4))


@pytest.mark.parametrize("steps", [1, 3, 32, 40, 65])
def test_outer_products_in_a_loop_are_one_matrix_product_per_block(steps, rng):
    args = _recurrence_args(rng, steps)
    text = body(recurrence, (0, 1, 2), args)
    if steps <= 3:  # a few steps are written out (test_unroll.py): no loop, no outer products
        assert "for " not in text and "stack" not in text
    else:
        assert "np.outer" not in text
        assert "bW += np.dot(bt" in text and "_rows.sum(axis=0)" in text  # bb too
    check(recurrence, args, (0, 1, 2, 4))


def test_an_empty_loop_leaves_zero_gradients(rng):
    args = _recurrence_args(rng, 2)
    grad = srcad.grad(recurrence, wrt=(0, 1, 2))
    grad(*args)  # specialize to two steps...
    empty = args[:3] + (np.zeros((0, 3)), args[4])
    dW, dU, db = grad(*empty)  # ...then a different signature: no steps at all
    assert not dU.any() and dU.shape == (4, 3) and dW.shape == (4, 4)


def nested_recurrence(W, xs):
    total = 0.0
    for i in range(2):
        h = xs[i]
        for t in range(3):
            h = np.sin(np.dot(W, h))
        total = total + np.sum(h)
    return total


def test_outer_products_in_nested_loops(rng):
    args = (rng.normal(size=(3, 3)), rng.normal(size=(2, 3)))
    assert "np.outer" not in body(nested_recurrence, 0, args)
    check(nested_recurrence, args, (0, 1))


def reads_the_accumulator(W, xs):
    h = xs[0]
    total = 0.0
    for t in range(4):
        h = np.tanh(np.dot(W, h))
        total = total + np.sum(W * h)  # W's adjoint gets another contribution in the loop
    return total


def test_a_loop_that_uses_the_accumulator_otherwise_is_left_alone(rng):
    args = (rng.normal(size=(3, 3)) / 2, rng.normal(size=(2, 3)))
    check(reads_the_accumulator, args, (0, 1))


def test_a_length_one_factor_is_not_taken_out_of_a_total_sum(rng):
    """sum over x of shape (1,) down to a scalar: x's (1,)-shaped partner must stay inside the
    sum, or the scalar's adjoint would come out shaped (1,)."""
    x, s = rng.normal(size=1), 1.7
    dx, ds = srcad.grad(scalar_divisor, wrt=(0, 1))(x, s)
    assert np.shape(dx) == (1,) and np.shape(ds) == ()
    check(scalar_divisor, (x, s), (0, 1))


# --- the adjoint of a subscript, written out where shapes are known --------------------------

def corner(a):
    return np.sum(np.sin(a[1:, :2]) * a[0, :2])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_first_adjoint_of_a_subscript_is_zeros_and_a_store(dtype, rng):
    a = rng.normal(size=(4, 3)).astype(dtype)
    text = body(corner, 0, (a,))
    assert "np.zeros((4, 3), " in text and "unindex(" not in text
    grad = srcad.grad(corner)(a)
    assert grad.dtype == dtype
    check(corner, (a.astype(np.float64),), 0)


def test_a_vjp_keeps_the_helper(rng):
    """A cotangent may be an integer array: the helper makes the adjoint a float array."""
    a = rng.normal(size=(4, 3))
    vjp = srcad.vjp(lambda_free_slice)
    (got,) = (vjp(a, np.ones((3, 2), dtype=int)),)
    want = np.zeros((4, 3))
    want[1:, :2] = np.cos(a[1:, :2])
    assert np.allclose(got, want) and got.dtype == np.float64


def lambda_free_slice(a):
    return np.sin(a[1:, :2])


def log_of_first(x1, x2):
    return np.log(x1) + x1 * x2


def test_a_constant_over_a_python_float_zero_is_inf_not_zero_division():
    """safe_div(1.0, x1) may not become 1.0 / x1 when x1 is a Python float: 1.0 / 0.0 raises."""
    dx1, dx2 = srcad.grad(log_of_first, wrt=(0, 1))(0.0, 5.0)
    assert dx1 == np.inf and dx2 == 0.0


# --- strength reduction: reductions on float arrays as array methods -------------------------

def centered(x):
    mu = np.mean(x, 0)
    return np.sum(np.max(x - mu, axis=1)) + np.sum(x, axis=(0, 1))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_reductions_of_float_arrays_are_methods_and_a_mean_is_a_sum_over_a_count(dtype, rng):
    x = rng.normal(size=(6, 3)).astype(dtype)
    text = body(centered, 0, (x,))
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    assert "x.sum(axis=0) / 6" in code and "np.mean" not in code
    assert ".max(axis=1)" in text
    assert srcad.grad(centered)(x).dtype == dtype
    check(centered, (x.astype(np.float64),), 0)


def test_half_precision_and_integer_arrays_keep_numpy_functions(rng):
    x16 = rng.normal(size=(6, 3)).astype(np.float16)
    assert "np.mean(x, 0)" in srcad.source(centered, mode="forward", args=(x16,))
    assert "np.mean(x, 0)" in srcad.source(centered, mode="forward", args=(np.ones((6, 3), int),))


def layer(W, x, s):
    return np.sum(np.tanh(np.dot(W, x) + np.dot(x, s)))


def test_products_of_arrays_are_array_methods(rng):
    """np.dot(W, x) of two arrays is W.dot(x) (numpy's routine without its dispatch); a product
    with a float keeps np.dot (a float has no .dot)."""
    W, x = rng.normal(size=(3, 3)), rng.normal(size=3)
    text = body(layer, (0, 1), (W, x, 1.5))
    assert "W.dot(x)" in text and "np.dot(x, s)" in text
    assert "bt" in text and ".dot(W)" in text  # the adjoints' products too
    check(layer, (W, x, 1.5), (0, 1))


# --- copies: an adjoint handed on goes on under its new name ---------------------------------

def normalized(x, w):
    mu = np.mean(x, 0)
    a = x - mu
    return np.sum(w * a / np.sqrt(np.mean(a ** 2, 0) + 1e-5))


def test_an_adjoint_copied_into_another_goes_on_as_it(rng):
    x, w = rng.normal(size=(8, 3)), rng.normal(size=(8, 3))
    text = body(normalized, 0, (x, w))
    assert "bx = ba" not in text and "return ba" in text  # ba's array takes x's contributions
    check(normalized, (x, w), (0, 1))


@pytest.mark.parametrize("source, expected", [
    # the copy's source is read after the copy takes a new value: kept
    ("def f(b):\n    b = b * 2\n    a = b\n    a = a + 1\n    c = b * 3\n    return a, c\n",
     "a = b"),
    # a parameter is never renamed (in place updates would reach the caller's array)
    ("def f(b):\n    a = b\n    a = a + 1\n    return a\n", "a = b"),
])
def test_copies_that_must_stay(source, expected):
    fdef = gast.parse(source).body[0]
    assert expected in as_text(propagate_copies(fdef))


def assert_copies_keep_the_numbers(source, *args):
    """propagate_copies(f) computes what f computes (f: the function in source)."""
    namespace = {}
    exec(as_text(propagate_copies(gast.parse(source).body[0])), namespace)
    exec(source.replace("def f", "def g"), namespace)
    assert namespace["f"](*args) == namespace["g"](*args)


def test_a_copy_in_a_loop_is_not_continued_under_its_source():
    """Continued as b, a's new values would reach b's reads in the next turn of the loop."""
    source = ("def f(x, n):\n    b = x * 2\n    c = 0.0\n    for i in range(n):\n"
              "        a = b\n        a = a + 1\n        c = c + a\n    return c\n")
    assert_copies_keep_the_numbers(source, 1.5, 4)


def test_a_temporary_read_before_its_definition_in_a_loop_keeps_its_name():
    """t is bound once, in the loop, and read at the top of the next turn: renaming its
    definition into the copy a = t would leave that read without a value."""
    source = ("def f(x, n):\n    a = 0.0\n    y = 0.0\n    for i in range(n):\n"
              "        if i > 0:\n            y = y + t\n        t = x + i\n        a = t\n"
              "        a = a + y\n    return a\n")
    assert_copies_keep_the_numbers(source, 1.5, 4)


def scaled_sum(x, w):
    return np.sum(np.sin(x) * w)


def test_a_length_one_argument_keeps_its_axis_when_everything_is_summed(rng):
    """The sum of a (5,) product down to w of shape (1,) is shaped (1,), not a number (it was a
    np.dot, shaped ())."""
    x, w = rng.normal(size=5), np.array([1.3])
    gx, gw = srcad.grad(scaled_sum, wrt=(0, 1))(x, w)
    assert np.shape(gw) == (1,)
    np.testing.assert_allclose(gw, [np.sum(np.sin(x))], rtol=1e-14)
    check(scaled_sum, (x, w), (0, 1))


# --- computed constants: square roots of numbers, and arithmetic with them, are numbers ------

def with_roots(x):
    s2 = np.sqrt(2.0)
    c = (1.0 + s2) / math.sqrt(8.0)
    return np.sum(x * c) * s2


def test_square_roots_of_numbers_are_folded(rng):
    x = rng.normal(size=4)
    code = [line for line in body(with_roots, 0, (x,)).splitlines() if "#" not in line]
    assert not any("sqrt" in line for line in code)  # (the gradient is one number, spread)
    np.testing.assert_array_equal(srcad.grad(with_roots)(x),
                                  np.full(4, (1.0 + np.sqrt(2.0)) / np.sqrt(8.0) * np.sqrt(2.0)))
    check(with_roots, (x,), 0)


def root_over(x, k):
    s = np.sqrt(2.0)
    return np.sum(x) * (s / k)


def test_a_root_that_may_be_divided_by_a_python_zero_stays_numpy():
    """np.float64 / 0.0 is inf; a Python float / 0.0 raises: s is not folded."""
    text = body(root_over, 0, (np.ones(3), 2.0))
    assert "np.sqrt(2.0)" in text
    with np.errstate(divide="ignore"):
        value, grad = srcad.value_and_grad(root_over)(np.ones(3), 0.0)
    assert value == np.inf and np.all(grad == np.inf)


def negated_number_times_scalar(x):
    return -0.5 * np.dot(x, x)


def test_a_negative_number_times_a_scalar_needs_no_unbroadcast(rng):
    """-0.5 * t is a minus and a number: shaped (), like 2.0 (it called unbroadcast)."""
    x = rng.normal(size=3)
    assert "unbroadcast" not in body(negated_number_times_scalar, 0, (x,))
    check(negated_number_times_scalar, (x,), 0)


def softmax_sum(z):
    ez = np.exp(z)
    return np.sum(ez / np.sum(ez, axis=1, keepdims=True)) / 3.0 + np.sum(z * z)


def test_a_spread_value_read_twice_is_computed_once(rng):
    """The adjoint of p = ez / s spread from the seed is (1/3) / s at both of its reads: one
    division, bound to a name, not one per read. (The softmax part's gradient is exactly 0:
    z * z keeps the checked gradient away from rounding noise.)"""
    z = rng.normal(size=(5, 3))
    text = body(softmax_sum, 0, (z,))
    adjoint = text[text.index("# grad of"):]
    assert adjoint.count(" / t1") == 1, text  # (t1: the row sums)
    check(softmax_sum, (z,), 0)


def first_columns(a):
    return np.sum(np.sin(a[:, :2]))


def test_generic_code_keeps_float32_through_its_helpers(rng):
    """unindex and the other helpers made their zeros with np.result_type(g, float), which is
    float64 for a float32 g (float is a dtype there, not a weak number): now result_type(g,
    0.0). The generic code (no shapes known) and the specialized code agree on float32."""
    a = rng.normal(size=(3, 4)).astype(np.float32)
    generic = srcad.grad(first_columns).generated(a)
    assert generic.dtype == np.float32 == srcad.grad(first_columns)(a).dtype
    np.testing.assert_allclose(generic[:, :2], np.cos(a[:, :2]), rtol=1e-6)
    assert not generic[:, 2:].any()


def root_times_float32(x):
    s = np.sqrt(2.0)
    return np.sum(x * s)


def test_a_root_read_with_float32_stays_a_float64_scalar(rng):
    """np.sqrt(2.0) is a float64 scalar: x * it is float64 for a float32 x, x * 1.414... would be
    float32. Not folded there: the value and the gradient keep the dtypes of the function."""
    x = rng.normal(size=4).astype(np.float32)
    value, grad = srcad.value_and_grad(root_times_float32)(x)
    assert np.asarray(value).dtype == np.asarray(root_times_float32(x)).dtype == np.float64
    assert "np.sqrt(2.0)" in srcad.source(root_times_float32, kind="value_and_grad", args=(x,))
    np.testing.assert_allclose(grad, np.full(4, np.sqrt(2.0)), rtol=1e-7)
