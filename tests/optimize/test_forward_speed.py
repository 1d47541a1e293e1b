"""Forward mode made fast: the gradient of a function of one float is its own generated function
(dx = 1.0 in the body, called with f's arguments), and tangents proportional to one other tangent
are folded into the statement that reads them (srcad/proportional.py).

No timings here: the numbers are checked against central differences and reverse mode, the
folding against the code it must (and must not) write."""
import math
import re
import textwrap

import gast
import numpy as np
import pytest

import srcad
from srcad.backend.emit import function_source
from srcad.optimize.manager import facts_for
from srcad.optimize.proportional import fold_proportional
from srcad.syntax.nodes import comment


# ---------------------------------------------------------------------------------------------
# the folding pass on its own: generated-code snippet in, generated-code snippet out


def fold(source, tangents):
    """Fold a snippet; string statements "# ..." stand for the comments passes write."""
    fdef = gast.parse(textwrap.dedent(source)).body[0]

    def comments(stmts):
        out = []
        for stmt in stmts:
            if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant) and str(
                    stmt.value.value).startswith("# "):
                out.append(comment(stmt.value.value[2:]))
                continue
            for field in ("body", "orelse"):
                if isinstance(getattr(stmt, field, None), list):
                    setattr(stmt, field, comments(getattr(stmt, field)))
            out.append(stmt)
        return out
    fdef.body = comments(fdef.body)
    return function_source(fold_proportional(fdef, facts_for(fdef, tangents=set(tangents))))


def same(source):
    return textwrap.dedent(source).replace('"# ', "# ").replace('"\n', "\n").lstrip("\n")


LOGISTIC_LOOP = '''
def f(x, k, dx):
    t1 = range(k)
    for _ in t1:
        "# tangent of: x = 3.7 * x * (1.0 - x)"
        t2 = 3.7 * x
        dt2 = 3.7 * dx
        t3 = 1.0 - x
        dt3 = -dx
        x = t2 * t3
        dx = dt2 * t3 + t2 * dt3
    return dx
'''


def test_fold_collects_the_coefficient_of_the_loop_carried_tangent():
    assert fold(LOGISTIC_LOOP, {"dx", "dt2", "dt3"}) == same('''
        def f(x, k, dx):
            t1 = range(k)
            for _ in t1:
                # tangent of: x = 3.7 * x * (1.0 - x)
                t2 = 3.7 * x
                t3 = 1.0 - x
                x = t2 * t3
                dx = dx * (3.7 * t3 - t2)
            return dx
        ''')


FOLDS = [
    # a chain of scalings; numbers multiplied out; a line left with no tangent loses its comment
    ('''
     def f(x, dx):
         "# tangent of: a = np.sin(x)"
         a = np.sin(x)
         da = dx * np.cos(x)
         "# tangent of: b = -(2.0 * a) / x"
         t1 = 2.0 * a
         dt1 = 2.0 * da
         b = -t1 / x
         db = -dt1 / x
         return db
     ''', '''
     def f(x, dx):
         a = np.sin(x)
         # tangent of: b = -(2.0 * a) / x
         t1 = 2.0 * a
         b = -t1 / x
         db = -2.0 * dx * np.cos(x) / x
         return db
     '''),
    # two base tangents: each keeps its own coefficient
    ('''
     def f(x, y, dx, dy):
         t1 = np.sin(x)
         dt1 = dx * np.cos(x)
         t2 = np.cos(y)
         dt2 = -dy * np.sin(y)
         a = t1 * t2
         da = dt1 * t2 + t1 * dt2
         return da
     ''', '''
     def f(x, y, dx, dy):
         t1 = np.sin(x)
         t2 = np.cos(y)
         a = t1 * t2
         da = dx * np.cos(x) * t2 - dy * t1 * np.sin(y)
         return da
     '''),
    # like terms are added, on their own statement too when that saves operations (p * p)
    ('''
     def f(x, dx, dp, p):
         dt1 = dx * 3.0
         dy = dt1 * x + x * dx
         dq = dp * p + p * dp
         return dy, dq
     ''', '''
     def f(x, dx, dp, p):
         dy = 4.0 * dx * x
         dq = 2 * dp * p
         return dy, dq
     '''),
    # division: the tangent in the numerator folds, a sum of coefficients stays in parentheses
    ('''
     def f(x, t, dx):
         dt1 = dx / x
         dt2 = -dx
         dz = (dt1 - dt2 * t) / t
         return dz
     ''', '''
     def f(x, t, dx):
         dz = dx * (1 / x + t) / t
         return dz
     '''),
]


@pytest.mark.parametrize("before, after", FOLDS)
def test_fold(before, after):
    tangents = {n.id for n in gast.walk(gast.parse(textwrap.dedent(before)))
                if isinstance(n, gast.Name) and n.id.startswith("d")}
    assert fold(before, tangents) == same(after)


UNCHANGED = {
    "read twice": '''
        def f(x, dx):
            dt1 = 3.7 * dx
            dy = dt1 * x
            dz = dt1 * np.cos(x)
            return dy + dz
        ''',
    "read before it is bound, in the loop": '''
        def f(x, k, dx, dt1):
            for _ in range(k):
                dz = dt1 * 2.0 + dx
                dt1 = dx * x
            return dz
        ''',
    "a factor it reads is bound again": '''
        def f(x, dx):
            dt1 = dx * x
            x = x + 1.0
            dz = dt1 * x + dx
            return dz
        ''',
    "its base is bound again": '''
        def f(x, dx, t):
            dt1 = 2.0 * dx
            dx = dx * t
            dz = dt1 * t + dx
            return dz
        ''',
    "a store into an array in between": '''
        def f(x, dx, dy, dv):
            dt1 = 2.0 * dx
            dy[0] = dv
            dz = dt1 * x + dx
            return dz
        ''',
    "strong zeros: safe_mul and safe_div stay with their statements": '''
        def f(x, t, dx):
            dt1 = safe_mul(dx, t)
            dt2 = dt1 * 2.0
            dt3 = 2.0 * dx
            dz = safe_div(dt3, x) + dt2
            return dz
        ''',
    "matrix products are not elementwise": '''
        def f(x, W, dx):
            dt1 = 2.0 * dx
            dz = dt1 @ W
            dt2 = -dx
            dy = np.dot(dt2, W)
            return dz, dy
        ''',
    "a tangent in a denominator, a product of tangents": '''
        def f(x, dx, dy):
            dt1 = 2.0 * dx
            dz = x / dt1
            dt2 = 3.0 * dx
            dw = dt2 * dy
            return dz, dw
        ''',
    "into a nested block": '''
        def f(x, c, dx):
            dt1 = 2.0 * dx
            if c:
                dz = dt1 * x
            else:
                dz = dx
            return dz
        ''',
    "the result would only copy another tangent (an alias)": '''
        def f(x, dx):
            dt1 = -dx
            dz = -dt1
            return dz
        ''',
    "a call of a user function in between": '''
        def f(x, dx):
            dt1 = 2.0 * dx
            t2 = helper(x)
            dz = dt1 * t2
            return dz
        ''',
    "terms that cancel": '''
        def f(x, dx):
            dt1 = dx * x
            dz = dt1 - x * dx
            return dz
        ''',
    "a sum of two tangents scaled (multiplying it out adds operations)": '''
        def f(x, dx, dy):
            dt1 = 2.0 * dx
            dz = (dt1 + dy) * x
            return dz
        ''',
}


@pytest.mark.parametrize("name", sorted(UNCHANGED))
def test_fold_leaves_alone(name):
    source = UNCHANGED[name]
    tangents = {n.id for n in gast.walk(gast.parse(textwrap.dedent(source)))
                if isinstance(n, gast.Name) and n.id.startswith("d")}
    assert fold(source, tangents) == same(source)


def test_fold_only_touches_tangents():
    """Statements whose targets are not tangents are never substituted or rewritten."""
    source = '''
        def f(x, dx):
            t1 = 2.0 * x
            t2 = t1 * x + x * t1
            return t2
        '''
    assert fold(source, {"dx"}) == same(source)


# ---------------------------------------------------------------------------------------------
# numbers: central differences in float64, and reverse mode


def central(f, args, position, h=1e-6):
    x = args[position]
    step = h * max(1.0, abs(x))
    up = list(args)
    down = list(args)
    up[position] = x + step
    down[position] = x - step
    return (f(*up) - f(*down)) / (2 * step)


def logistic(x, k):
    for _ in range(k):
        x = 3.7 * x * (1.0 - x)
    return x


def branches(x):
    if x > 0.5:
        y = 3.0 * x * x
    else:
        y = -2.0 * x
    return np.sin(y) * y


def with_math(x):
    return math.sin(x) * math.exp(-x) / (1.0 + x * x) + math.log(x) * math.sqrt(x)


def mixture(x, n):
    """Proportional tangents (tanh, products by constants) next to ones that are not (exp's
    safe_mul, sums of two tangents)."""
    s = 0.0
    for i in range(n):
        u = math.tanh(x * (i + 1))
        v = np.exp(u)
        s = s + u * v - 0.5 * s * x
    return s * x


def while_loop(x):
    y = x
    n = 0
    while y < 10.0 and n < 50:
        y = y * 1.5 + np.cos(y)
        n = n + 1
        if y > 8.0:
            break
    return y / x


def helper(u):
    return u * u * 2.0 - u


def calls_helper(x):
    return helper(x) * np.sin(x) + helper(2.0 * x)


def two_inputs(x, y):
    a = np.sin(x) * np.cos(y)
    b = x * y - x / y
    return a * b + 3.0 * x - y * y


def powers(x, k):
    y = x ** 3 - 2.0 * x ** 2
    for _ in range(k):
        y = -y / (1.0 + x) + np.arctan(x) * 0.5
    return y


SCALAR_PROGRAMS = [
    (logistic, (0.3, 6)),
    (logistic, (0.71, 1)),
    (logistic, (0.3, 0)),
    (branches, (0.7,)),
    (branches, (0.2,)),
    (with_math, (0.7,)),
    (mixture, (0.4, 4)),
    (while_loop, (1.3,)),
    (calls_helper, (0.6,)),
    (two_inputs, (0.8, 1.7)),
    (powers, (0.45, 3)),
]


@pytest.mark.parametrize("func, args", SCALAR_PROGRAMS,
                         ids=[f"{f.__name__}{a}" for f, a in SCALAR_PROGRAMS])
def test_gradient_of_one_float_against_central_differences(func, args):
    for position in range(len(args)):
        if type(args[position]) is not float:
            continue
        df = srcad.grad(func, wrt=position)
        got = df(*args)
        assert type(got) in (float, np.float64), type(got)
        assert got == pytest.approx(central(func, args, position), rel=1e-6, abs=1e-8)
        # and reverse mode agrees to rounding (vjp does not take the forward path)
        assert got == pytest.approx(srcad.vjp(func, wrt=position)(*args, 1.0), rel=1e-12,
                                    abs=1e-14)
        # as does the JVP (tangents passed in rather than seeded)
        assert got == pytest.approx(srcad.jvp(func, wrt=position)(*args, 1.0), rel=1e-13,
                                    abs=1e-15)


@pytest.mark.parametrize("direction", [(1.0, 0.0), (0.0, 1.0), (0.3, -1.7)])
def test_two_base_tangents_are_not_mixed(direction):
    x, y = 0.8, 1.7
    dx, dy = direction
    got = srcad.jvp(two_inputs, wrt=(0, 1))(x, y, dx, dy)
    h = 1e-6
    want = (two_inputs(x + h * dx, y + h * dy) - two_inputs(x - h * dx, y - h * dy)) / (2 * h)
    assert got == pytest.approx(want, rel=1e-7)
    text = srcad.source(two_inputs, mode="forward", wrt=(0, 1))
    # sin(x) cos(y): one coefficient for each tangent
    assert "da = dx * np.cos(x) * t2 - dy * t1 * np.sin(y)\n" in text


def elementwise(x, w):
    y = 3.0 * x
    z = y * np.cos(x) - x / w
    return np.sum(z * z + np.tanh(z) * w)


def test_array_tangents_fold_elementwise():
    rng = np.random.default_rng(1)
    x, w, v = rng.normal(size=5), rng.uniform(1.0, 2.0, size=(3, 5)), rng.normal(size=5)
    got = srcad.jvp(elementwise)(x, w, v)
    h = 1e-6
    want = (elementwise(x + h * v, w) - elementwise(x - h * v, w)) / (2 * h)
    assert got == pytest.approx(want, rel=1e-7)
    assert got == pytest.approx(np.dot(srcad.grad(elementwise)(x, w), v), rel=1e-12)
    specialized = srcad.source(elementwise, mode="forward", args=(x, w))
    assert "dy = 3.0 * dx" not in specialized  # folded into the statement that reads it


def test_hessian_over_folded_forward_mode():
    """hessian and hvp run forward mode over the generated gradient: folding is in that path."""
    x = np.array([0.3, -0.4, 0.9])

    def g(x):
        return np.sum(np.sin(3.0 * x) * x ** 2) + x[0] * x[1]

    H = srcad.hessian(g)(x)
    want = np.diag(-9.0 * np.sin(3.0 * x) * x ** 2 + 12.0 * x * np.cos(3.0 * x)
                   + 2.0 * np.sin(3.0 * x))
    want[0, 1] += 1.0
    want[1, 0] += 1.0
    np.testing.assert_allclose(H, want, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# the gradient of a function of one float: its own function, called directly


LOGISTIC_GRADIENT = '''\
def logistic_grad(x, k):
    """Gradient of logistic (test_forward_speed.py:{line}) with respect to x."""
    # forward mode: the tangent of x starts at 1, so the tangent of the output is the gradient
    dx = 1.0
    t1 = range(k)
    for _ in t1:
        # tangent of: x = 3.7 * x * (1.0 - x)  (test_forward_speed.py:{body})
        t2 = 3.7 * x
        t3 = 1.0 - x
        x = t2 * t3
        dx = dx * (3.7 * t3 - t2)
    return dx
'''


def test_source_shows_the_forward_gradient_that_grad_runs():
    args = (0.3, 20)  # (20 turns: a loop; up to 16 are written out, see test_unroll.py)
    text = srcad.source(logistic, wrt=0, args=args)
    line = logistic.__code__.co_firstlineno
    assert text.startswith('"""Generated by srcad 0.1.0: forward mode (grad) of logistic, '
                           'with respect to x.')
    assert text.endswith(LOGISTIC_GRADIENT.format(line=line, body=line + 2))
    assert "def logistic_grad(x, k):" in text and "*, dx" not in text
    g = srcad.grad(logistic)
    function, sync, comp = g.specialize(args, {})
    assert comp.built.source == text  # the code srcad.source shows is the code that runs
    assert sync is None and function.__name__ == "logistic_grad"
    assert function.__code__.co_filename == comp.path  # the generated function, unwrapped
    assert function(*args) == g(*args)
    # without example arguments (or with an array) srcad.source shows reverse mode, as before
    assert "reverse mode (grad)" in srcad.source(logistic)
    assert "reverse mode (grad)" in srcad.source(elementwise, args=(np.ones(3), np.ones(3)))
    # stages follow the same choice
    assert "dx = 1.0" in srcad.source(logistic, args=args, stage="derivative")


def test_forward_gradient_needs_example_arguments():
    with pytest.raises(srcad.SrcadError, match="example arguments"):
        srcad.source(logistic, mode="forward", kind="grad")
    with pytest.raises(srcad.SrcadError, match="one number"):
        srcad.source(elementwise, mode="forward", kind="grad", args=(np.ones(3), np.ones(3)))


def vector_output(x):
    return np.array([x, 2.0 * x])


def maybe_vector(x):
    if x > 0.0:
        y = np.ones(3) * x
    else:
        y = 2.0 * x
    return y


SCALAR_MESSAGE = ("srcad.grad needs a function with a scalar output, this one returned shape "
                  "{}; use srcad.vjp or srcad.jacobian")


def test_non_scalar_output_raises_the_same_error():
    with pytest.raises(ValueError, match=re.escape(SCALAR_MESSAGE.format((2,)))):
        srcad.grad(vector_output)(1.0)
    # the probe ran the scalar branch: the check stays in the code, and the other branch
    # (same signature) is refused
    g = srcad.grad(maybe_vector)
    assert g(-1.0) == 2.0
    with pytest.raises(ValueError, match=re.escape(SCALAR_MESSAGE.format((3,)))):
        g(1.0)
    assert "size_of(dy) != 1" in srcad.source(maybe_vector, args=(-1.0,))


def test_the_scalar_check_is_left_out_where_the_probe_proved_a_scalar():
    assert "raise ValueError" not in srcad.source(logistic, args=(0.3, 10))
    assert "raise ValueError" in srcad.source(vector_output, args=(1.0,))


def squares(x, k):
    return np.sum(x * x) * k if k > 1 else np.sum(x)


def test_calls_with_other_signatures_pick_their_own_code():
    """The call path keys specializations by argument types, then by the values of ints, bools
    and strings and the shapes of arrays: each combination gets its own code."""
    g = srcad.grad(squares)
    assert g(3.0, 2) == 12.0
    assert g(3.0, 1) == 1.0
    assert g(3.0, True) == 1.0  # True == 1 but a bool: a signature of its own
    assert g(3.0, 3) == 18.0
    np.testing.assert_allclose(g(np.array([1.0, 2.0]), 2), [4.0, 8.0])
    np.testing.assert_allclose(g(np.array([1.0, 2.0, 3.0]), 1), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(g(np.array([[1.0]]), 2), [[4.0]])
    assert g(np.float64(3.0), 2) == 12.0  # a numpy scalar: reverse mode
    assert g(3.0, k=2) == 12.0  # keywords take the signature path
    assert g(3.0, 2) == 12.0 and g(3.0, 1) == 1.0
