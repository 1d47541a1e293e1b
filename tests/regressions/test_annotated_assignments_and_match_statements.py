"""Statement kinds the passes did not know went through them: an annotated assignment
(`y: np.ndarray = x * 2.0`) was dropped from the reverse sweep, and the gradient of
sum((2x)^2) came out as zeros, without an error; a match statement crashed the reverse pass
(AttributeError: 'Match' object has no attribute 'value'), try/except* another pass. Now the
function is parsed into plain forms (frontend/forms.py): an annotated assignment is an
assignment, a match statement on values an if/elif chain; any other statement kind is refused
at the user's line."""
import numpy as np
import pytest

import srcad


def annotated(x):
    y: np.ndarray = x * 2.0
    z: float
    total: float = np.sum(y ** 2)
    return total


def annotated_helper(v):
    w: np.ndarray = np.sin(v)
    return w * v


def calls_annotated_helper(x):
    return np.sum(annotated_helper(x) ** 2)


def by_kind(x, kind):
    match kind:
        case "sq":
            y = x ** 2
        case "abs" | "l1":
            y = np.abs(x)
        case None:
            y = x * 3.0
        case n if n > 3:
            y = x * n
        case _:
            y = np.sin(x)
    return np.sum(y)


def on_an_expression(x, k):
    total = 0.0
    for i in range(3):
        match i + k:
            case 0 | 2 as even:
                total = total + np.sum(x ** (even + 1))
            case 1:
                total = total - np.sum(np.cos(x))
            case other:
                total = total + other * np.sum(x)
    return total


def sequence_pattern(x, pair):
    match pair:
        case (a, b):
            return np.sum(x * a * b)
    return np.sum(x)


def exception_group(x):
    try:
        y = x ** 2
    except* ValueError:
        y = x
    return np.sum(y)


def _central(f, args, eps=1e-6):
    x = args[0]
    grad = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[k] += eps
        minus[k] -= eps
        grad[k] = (f(plus, *args[1:]) - f(minus, *args[1:])) / (2 * eps)
    return grad


X = np.array([0.5, -1.5, 2.0])


@pytest.mark.parametrize("f", [annotated, calls_annotated_helper])
def test_an_annotated_assignment_is_an_assignment(f):
    value, gradient = srcad.value_and_grad(f)(X)
    assert value == f(X)
    np.testing.assert_allclose(gradient, _central(f, (X,)), rtol=1e-7)
    np.testing.assert_allclose(srcad.jvp(f)(X, np.ones(3)), np.sum(_central(f, (X,))),
                               rtol=1e-7)


@pytest.mark.parametrize("kind", ["sq", "abs", "l1", None, 5, 2])
def test_a_match_on_values_takes_the_case_python_takes(kind):
    value, gradient = srcad.value_and_grad(by_kind)(X, kind)
    assert value == by_kind(X, kind)
    np.testing.assert_allclose(gradient, _central(by_kind, (X, kind)), rtol=1e-7)


@pytest.mark.parametrize("k", [0, 1, 2])
def test_a_match_on_an_expression_in_a_loop(k):
    value, gradient = srcad.value_and_grad(on_an_expression)(X, k)
    assert value == on_an_expression(X, k)
    np.testing.assert_allclose(gradient, _central(on_an_expression, (X, k)), rtol=1e-7)


def test_other_patterns_and_statement_kinds_are_refused_at_their_line():
    with pytest.raises(srcad.SrcadError, match="sequence, mapping or class patterns") as info:
        srcad.grad(sequence_pattern)
    assert "case (a, b):" in str(info.value)
    with pytest.raises(srcad.SrcadError, match=r"try/except\*") as info:
        srcad.grad(exception_group)
    assert "test_annotated_assignments_and_match_statements.py:" in str(info.value)


def test_a_builder_meeting_a_statement_it_does_not_know_is_an_internal_error():
    """Behind the parse-time refusal: a statement the derivative builders neither differentiate
    nor name as one without a derivative (syntax/nodes.NO_DERIVATIVE) stops the build, where an
    unknown one was left out of the derivative."""
    import gast
    from srcad.syntax.nodes import not_differentiated
    stmt = gast.AnnAssign(target=gast.Name(id="y", ctx=gast.Store(), annotation=None,
                                           type_comment=None),
                          annotation=gast.Name(id="float", ctx=gast.Load(), annotation=None,
                                               type_comment=None),
                          value=gast.Constant(value=1.0, kind=None), simple=1)
    with pytest.raises(AssertionError, match="does not know"):
        not_differentiated(stmt)
    not_differentiated(gast.Pass())
