"""Bugs that differentiating srcad's own generated code (grad(grad(f))) brought to light; each
is a bug of first-order derivatives of user code too, and is checked on user code here.

- `lst.append((a, b))`: the adjoint of an appended tuple display was popped and dropped (a
  silent zero gradient; a callee's record appends such tuples to its tape's stack);
- `a and b` / `a or b` ran every operand: `x is not None and len(x) == 2` called len(None), and
  a draw after `or` ran when the left side was true (the random stream moved);
- a conditional expression nested in another's branch ran whichever branch was taken;
- the seed of a function returning a tuple was named like the adjoint of a variable `out`;
- the adjoints of np.stack and np.concatenate, differentiated again, met None items."""
import numpy as np
import pytest

import srcad


def pairs_appended(x):
    pairs = []
    for i in range(3):
        a = x * i
        b = x ** 2
        pairs.append((a, b))
    total = 0.0
    for p in pairs:
        total = total + p[0] * p[1]
    return total


@pytest.mark.parametrize("x", [0.7, np.array([0.7, 0.2])])
def test_append_of_a_tuple_display_passes_its_items_adjoints(x):
    srcad.check_grads(pairs_appended, (x,))


def length_checked(x, axis=None):
    if axis is not None and len(axis) == 2:
        return np.sum(x)
    return np.sum(x ** 2)


def test_and_does_not_run_its_right_side_when_the_left_is_false():
    x = np.array([1.0, -2.0])
    np.testing.assert_allclose(srcad.grad(length_checked)(x), 2 * x)
    np.testing.assert_allclose(srcad.jvp(length_checked)(x, np.ones(2)), np.sum(2 * x))


def drawn_only_if_needed(x, rng, fixed):
    noise = fixed or rng.standard_normal()
    return np.sum(x * noise)


def test_or_does_not_draw_when_its_left_side_is_true():
    x = np.array([1.0, 2.0])
    rng = np.random.default_rng(5)
    before = rng.bit_generator.state
    np.testing.assert_allclose(srcad.grad(drawn_only_if_needed)(x, rng, 3.0), [3.0, 3.0])
    assert rng.bit_generator.state == before  # nothing drawn


def nested_conditionals(x, i):
    return x[i] if i < len(x) else (x[i - 1] if i - 1 < len(x) else 0.0 * x[0])


def test_a_nested_conditional_expression_runs_only_its_branch():
    x = np.array([1.0, 2.0, 3.0])
    for i in (1, 3, 7):  # (x[6] would raise)
        srcad.check_grads(nested_conditionals, (x, i))


def pair_with_out(x):
    out = x * 2.0
    return np.sum(out), out


def test_a_variable_named_out_in_a_function_returning_a_tuple():
    dy = (1.0, np.array([1.0, -1.0]))
    x = np.array([0.5, 0.25])
    np.testing.assert_allclose(srcad.vjp(pair_with_out)(x, dy), 2.0 + 2.0 * dy[1])
    value, aux_grad = srcad.value_and_grad(pair_with_out, has_aux=True)(x)
    np.testing.assert_allclose(aux_grad, [2.0, 2.0])


def stacked_pair(y, z):
    return np.sum(np.stack([y, z ** 2], axis=1) ** 3) + np.sum(np.concatenate([y, z]) ** 2)


@pytest.mark.parametrize("wrt", [0, 1])
def test_reverse_over_reverse_of_stack_and_concatenate_with_one_operand_varied(wrt):
    """unstack/unconcatenate (the adjoints of np.stack/np.concatenate) give a list whose other
    item no adjoint reaches (None): their own adjoints take zeros there (fuzz seed 20240672)."""
    y, z = np.array([0.3, -0.2]), np.array([0.5, 0.1])
    by_forward = srcad.hessian(stacked_pair, wrt=wrt)(y, z)
    by_reverse = srcad.hessian(stacked_pair, wrt=wrt, mode="reverse-over-reverse")(y, z)
    np.testing.assert_allclose(by_reverse, by_forward, rtol=1e-12, atol=1e-14)


def second_of_a_list(xs):
    return np.cos(xs[1])


def list_to_helper(y):
    w1 = 1.0
    return second_of_a_list([y, w1]) + np.sum(second_of_a_list([w1, y]))


def test_reverse_over_reverse_where_an_item_of_a_list_gets_no_adjoint():
    """The adjoint of an item of a list (unindex) differentiated again read None where the
    outer adjoint of that item was never reached (fuzz seed 49059): zeros there now."""
    y = np.array([-0.9, 0.4])
    np.testing.assert_allclose(srcad.hessian(list_to_helper, mode="reverse-over-reverse")(y),
                               srcad.hessian(list_to_helper)(y), rtol=1e-12, atol=1e-15)


def rebinds_in_a_loop(A):
    for i, row in enumerate(A):
        A = 0.5
    return 1.0


def test_reverse_over_reverse_of_a_gradient_that_pops_its_stack():
    """A generated gradient pops the values its loops saved; reverse mode of `v = lst.pop()`
    had no adjoint (the appends' adjoints then popped an empty list: fuzz seed 49143). Its
    adjoint pushes v's adjoint back."""
    A = np.array([[0.7]])
    np.testing.assert_array_equal(srcad.vjp(srcad.grad(rebinds_in_a_loop))(A, np.ones((1, 1))),
                                  np.zeros((1, 1)))


def dict_entries(x, y):
    d1 = {"a": y[0] * x, "b": x}
    d1["c"] = d1["a"] * d1["b"]
    return np.sum(d1["c"]) + 1.0


@pytest.mark.parametrize("disable", [None, "all"])
def test_reverse_over_reverse_of_dict_adjoints_in_a_build_for_any_shapes(disable):
    """The first-order code's dict adjoints (dict_without, item_of, ...) are values of
    the second-order code: their adjoints are dicts, added with add_adjoint where a build for
    any shapes cannot know (`dict + dict` raised: fuzz seed 49204, unoptimized)."""
    x, y = np.array([1.3, 0.2]), np.array([1.9])
    H = srcad.hessian(dict_entries, mode="reverse-over-reverse", disable=disable)(x, y)
    np.testing.assert_allclose(H, srcad.hessian(dict_entries)(x, y), rtol=1e-12, atol=1e-15)


def rows_appended(x):
    rows = []
    for i in range(3):
        rows.append(x * i)
    t = rows
    return 1.0 + np.sum(np.stack(t) ** 2)


def test_reverse_over_reverse_where_first_order_code_pops_a_list_adjoint():
    """First-order code pops the adjoint of an appended list (bx = brows.pop()), so that list is
    empty when the second-order adjoint runs: the adjoints of item_adjoints and unstack no
    longer read their (popped) result (fuzz seed 50008)."""
    x, v = np.array([1.4, 0.3]), np.array([-0.5, 1.0])
    np.testing.assert_allclose(srcad.vjp(srcad.grad(rows_appended))(x, v),
                               srcad.hvp(rows_appended)(x, v), rtol=1e-12)


def cos_of_a_dot_in_a_loop(x):
    s1 = 0.0
    for j in range(2):
        s1 += np.cos(np.tanh(x) @ x)
    return s1


def mean_of_a_concatenation(y):
    t = np.concatenate([y, y])
    return np.mean(t ** 2)


@pytest.mark.parametrize("disable", [None, "all", "specialize"])
@pytest.mark.parametrize("func, x", [(cos_of_a_dot_in_a_loop, np.array([-1.3])),
                                     (mean_of_a_concatenation, np.array([-0.9, 0.4]))])
def test_reverse_over_reverse_adds_list_adjoints_in_every_build(func, x, disable):
    """Lists in first-order code (a tuple popped off the stack, unconcatenate's pieces) have
    list adjoints in the second-order code; in a build for any shapes they were added with +
    (joined: 2x too small, silently; fuzz seeds 50019, 50051) or met None (50176)."""
    v = np.linspace(0.5, 1.0, x.size)
    expected = srcad.hvp(func)(x, v)
    got = srcad.vjp(srcad.grad(func), disable=disable, verify=False)(x, v)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def branch_test_reassigned(x):
    c = x[0] > 0
    y = x
    if c:
        c = x[1] > 0
        y = np.sin(x) * 2
    return np.sum(y)


def and_in_a_loop(A, n):
    rows = []
    for i in range(n):
        rows.append((A if np.sum(A) < 0.12 and np.min(A) > 0.3 else A) / np.tanh(A))
    return np.sum(np.stack(rows) ** 2)


@pytest.mark.parametrize("func, args", [
    (branch_test_reassigned, (np.array([0.5, -0.3]),)),
    (branch_test_reassigned, (np.array([0.5, 0.3]),)),
    (and_in_a_loop, (np.array([[-0.19], [0.31], [-0.22]]), 3))])
def test_an_if_whose_test_its_branch_assigns(func, args):
    """`if c: c = ...`: the adjoint sweep decided which branch ran by c's value after the
    branch (a silent wrong gradient in user code); `a and b` lowered to `t = a; if t: t = b`
    had the same shape (a crash in a loop: fuzz seed 53096). The test gets a name of its own."""
    srcad.check_grads(func, args)
