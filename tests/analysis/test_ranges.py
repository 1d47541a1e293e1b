"""analysis/ranges.py: the classes of numbers (-inf, negative, 0, positive, inf, nan) each
operation can give, checked against what NumPy computes on numbers of every class, and the
classes of names through bindings, loops, tapes and shared storage."""
import itertools
import textwrap
import warnings

import gast
import numpy as np
import pytest

from srcad.analysis import ranges
from srcad.analysis.ranges import (FINITE, NAN, NEG, NINF, PINF, POS, UNKNOWN, ZERO,
                                   expression_classes, value_classes)
from srcad.runtime import HELPERS

# numbers of each class; magnitudes from subnormal to moderate (the analysis assumes no
# overflow of sums, products and quotients of finite numbers; it follows underflow)
SAMPLES = {NINF: [-np.inf], NEG: [-2.5, -1.0, -1e-300, -5e-324], ZERO: [0.0, -0.0],
           POS: [5e-324, 1e-300, 1.0, 2.5], PINF: [np.inf], NAN: [np.nan]}


def class_of(value):
    return ranges._number_class(float(value))


def predicted(source, **classes):
    node = gast.parse(source).body[0].value
    return expression_classes(node, classes)


@pytest.mark.parametrize("source", ["a + b", "a - b", "a * b", "a / b", "safe_mul(a, b)",
                                    "safe_div(a, b)", "slope_mul(a, b)", "np.maximum(a, b)",
                                    "np.where(a > b, a, b)"])
def test_every_binary_operation_gives_a_class_it_predicts(source):
    function = eval(f"lambda a, b: {source}", {"np": np, **HELPERS})  # noqa: S307
    for (ca, xs), (cb, ys) in itertools.product(SAMPLES.items(), repeat=2):
        allowed = predicted(source, a=ca, b=cb)
        for x, y in itertools.product(xs, ys):
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                got = class_of(function(np.float64(x), np.float64(y)))
            if got & (NINF | PINF) and np.isfinite(x) and np.isfinite(y):
                continue  # (an overflow: 2.5 / 5e-324; assumed not to happen)
            assert got & allowed, f"{source} at a={x!r}, b={y!r}: {got} not in {allowed}"


@pytest.mark.parametrize("name", ["exp", "sqrt", "log", "log2", "tanh", "abs", "square", "sin",
                                  "cos", "arctan", "log1p", "expm1", "negative"])
def test_every_function_gives_a_class_it_predicts(name):
    values = [v for vs in SAMPLES.values() for v in vs] + [-800.0, 800.0, -0.5, 710.0]
    for x in values:
        with np.errstate(all="ignore"):
            got = class_of(getattr(np, name)(np.float64(x)))
        allowed = predicted(f"np.{name}(a)", a=class_of(x))
        assert got & allowed, f"np.{name}({x!r}): {got} not in {allowed}"


def test_sums_of_entries():
    assert predicted("np.sum(a)", a=POS) == ZERO | POS  # (an empty sum is 0; no overflow)
    assert predicted("a.sum()", a=POS | NEG) & NAN == 0
    assert predicted("a.sum()", a=POS | PINF | NINF) & NAN  # inf - inf
    assert predicted("np.mean(a)", a=POS) & NAN  # (the mean of no entries)


def test_a_value_of_unknown_kind_gives_no_claim():
    assert predicted("1.0 + np.exp(a)", a=UNKNOWN) is UNKNOWN
    assert predicted("a ** 0.5", a=POS) is UNKNOWN  # ((-1.0) ** 0.5 is complex)
    assert predicted("f(a)", a=POS) is UNKNOWN


def classes_of(source, real=("x",), **kwargs):
    fdef = gast.parse(textwrap.dedent(source)).body[0]
    return value_classes(fdef, set(real), **kwargs)


def test_a_name_holds_what_any_of_its_bindings_gives():
    got = classes_of("""
        def f(x):
            t = 1.0 + np.exp(x)
            for i in range(3):
                t = t * 2.0
            u = 1.0 / t
            return u
        """)
    assert got["t"] == POS | PINF  # (2.0 * t does not underflow)
    assert got["u"] == POS | ZERO  # (1 / inf)


def test_parameters_are_finite_and_unknown_names_unknown():
    got = classes_of("""
        def f(x, n):
            a = x * x
            b = n + 1.0
            c = GLOBAL * 2.0
            return a + b + c
        """)
    assert got["x"] == FINITE and got["a"] == POS | ZERO
    assert got["b"] is UNKNOWN and got["c"] is UNKNOWN


def test_a_store_adds_to_every_name_that_may_share_its_storage():
    got = classes_of("""
        def f(x):
            d = 1.0 + np.exp(x)
            v = d.reshape(-1)
            w = v[:2]
            w[0] = -3.0
            e = 1.0 + np.exp(x)
            e += x
            return d
        """)
    assert got["d"] & NEG and got["v"] & NEG
    assert got["e"] & (NEG | ZERO)  # (an augmented assignment is a store)


def test_a_tape_restores_and_a_list_holds():
    got = classes_of("""
        def f(x):
            stack = []
            items = []
            t = 1.0 + np.exp(x)
            stack.append(t)
            u = x - 1.0
            stack.append(u)
            items.append(u)
            u = stack.pop()
            t = stack.pop()
            s = items.pop()
            return t
        """)
    assert got["t"] == POS | PINF  # (popped back into the name it was pushed from)
    assert got["s"] & NEG  # (an item of a list: any of what it holds)


def test_singular_facts_limit_a_name_of_its_own():
    got = classes_of("""
        def f(x):
            d = x * 3.0
            return d
        """, finite_where={"d": ~(ZERO | NAN)})
    assert got["d"] == NEG | POS


# numbers of unknown kind (a build without dtypes, a complex argument): ANY_FINITE
COMPLEX_SAMPLES = [0.0, -2.5, 1e-300, 3.0 + 4.0j, -1j, 0.5 - 1e-300j, 2.0, 1j * np.pi / 2]


@pytest.mark.parametrize("source", ["a + b", "a - b", "a * b", "-a", "a ** 3", "np.sin(a)",
                                    "np.cos(a)", "np.tan(a)", "np.tanh(a)", "np.abs(a)",
                                    "np.square(a)", "a.sum()", "np.dot(a, b)",
                                    "np.where(a == b, a, b)", "strong_mul(a, b)"])
def test_finite_numbers_of_unknown_kind_stay_finite_where_predicted(source):
    # what ANY_FINITE claims (finite, nothing more) holds for complex numbers too
    assert predicted(source, a=ranges.ANY_FINITE, b=ranges.ANY_FINITE) == ranges.ANY_FINITE
    function = eval(f"lambda a, b: {source}", {"np": np, **HELPERS})  # noqa: S307
    for x, y in itertools.product(COMPLEX_SAMPLES, repeat=2):
        with np.errstate(all="ignore"):
            got = function(np.array([x, y]), np.array([y, x]))
        assert np.all(np.isfinite(got)), (source, x, y, got)


@pytest.mark.parametrize("source", ["a / b", "np.exp(a)", "np.log(a)", "np.sqrt(a)",
                                    "1.0 + a * a", "np.arctan(a)", "np.mean(a)"])
def test_nothing_is_claimed_where_a_number_of_unknown_kind_may_be_inf_nan_or_zero(source):
    # 1 / (1 + z * z) at z = 1j divides by 0; sqrt(-1.0) of a real is nan; arctan(1j) is inf
    got = predicted(source, a=ranges.ANY_FINITE, b=ranges.ANY_FINITE)
    assert got == (ranges.ANY_FINITE if source == "1.0 + a * a" else UNKNOWN), (source, got)
    assert predicted(f"safe_div(c, {source})", a=ranges.ANY_FINITE, b=ranges.ANY_FINITE,
                     c=POS) is UNKNOWN


def test_integer_powers_are_products():
    for exponent in range(0, 6):
        source = f"a ** {exponent}"
        for ca, xs in SAMPLES.items():
            allowed = predicted(source, a=ca)
            for x in xs:
                with np.errstate(all="ignore"):
                    got = class_of(np.float64(x) ** exponent)
                if got & (NINF | PINF) and np.isfinite(x):
                    continue  # (an overflow of a product: assumed not to happen)
                assert got & allowed, f"{source} at a={x!r}: {got} not in {allowed}"
    assert predicted("a ** -1", a=POS) is UNKNOWN and predicted("a ** 2.5", a=POS) is UNKNOWN


def test_ordinary_rules_follow_no_overflow_and_no_underflow():
    def ordinary(source, **classes):
        return expression_classes(gast.parse(source).body[0].value, classes, None,
                                  ranges.ORDINARY)
    assert predicted("np.exp(a)", a=FINITE) == ZERO | POS | PINF
    assert ordinary("np.exp(a)", a=FINITE) == POS
    assert ordinary("b / np.exp(a)", a=FINITE, b=FINITE) == FINITE  # (a mixture's z)
    assert predicted("b / np.exp(a)", a=FINITE, b=FINITE) & PINF
    assert ordinary("a * b", a=POS, b=NEG) == NEG and predicted("a * b", a=POS, b=NEG) & ZERO
    assert ordinary("np.mean(a)", a=POS) == ZERO | POS and predicted("np.mean(a)", a=POS) & NAN
    # what is singular at an ordinary point stays so
    assert ordinary("np.log(a)", a=ZERO | POS) & NINF
    assert ordinary("a / b", a=POS, b=ZERO | POS) & PINF
    assert ordinary("np.sqrt(a)", a=FINITE) & NAN


def test_a_ratio_of_sizes_is_a_number():
    # (Python ints: 0 / 0 raises ZeroDivisionError, no inf or nan reaches the code)
    assert predicted("size_of(a) / size_of(b)", a=UNKNOWN, b=UNKNOWN) == ZERO | POS
    assert predicted("len(a) / x.size", a=UNKNOWN, x=UNKNOWN) == ZERO | POS


def test_numpy_linalg_calls_leave_their_arguments_alone():
    got = classes_of("""
        def f(x, K, y):
            I = np.eye(3)
            alpha = np.linalg.solve(K, y)
            t = I * 2.0
            return alpha, t, y
        """, real=("x", "K", "y"))
    assert got["y"] == FINITE and got["K"] == FINITE and got["alpha"] is UNKNOWN
    assert got["I"] == ZERO | POS and got["t"] == ZERO | POS


def test_a_value_popped_and_dropped_makes_the_list_no_tape():
    got = classes_of("""
        def f(x):
            stack = []
            t = np.log(x)
            stack.append(t)
            stack.pop()
            u = 2.0 * x
            return u
        """)
    assert got["u"] == FINITE and got["t"] & NINF  # (no error: the bare pop is not a tape's)
