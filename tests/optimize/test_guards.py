"""The guards pass (optimize/guards.py) by itself: a strong-zero guard whose operands cannot
meet what it guards against is the plain operation, and one they can meet stays. The classes
of numbers it reads are analysis/ranges.py's (tests/analysis/test_ranges.py)."""
import numpy as np

from srcad.optimize.guards import drop_unmet_guards

from before_after import check_rewrite, check_unchanged

RNG = np.random.default_rng(11)
Z, G = RNG.normal(size=6), RNG.normal(size=6)


def facts(callee=False, **probed):
    """The build's facts the pass reads: the parameters' dtypes (all float64 unless given);
    callee: the code is a callee's derivative (its parameters are its caller's values)."""
    chars = {"z": "d", "g": "d", "x": "d", "c": "d", **probed}
    return dict(probed=chars.get, shapes={}, singular={}, arrays=set(), callee=callee)


def test_a_divisor_that_cannot_be_zero_or_nan_divides_plainly():
    # the sigmoid's: 1 + exp(-z) is at least 1 (or inf); its reciprocal's adjoint divides twice
    check_rewrite(drop_unmet_guards, """
        def f(z, g):
            t1 = -z
            t2 = np.exp(t1)
            t3 = 1.0 + t2
            s = 1.0 / t3
            share = safe_div(g, t3)
            bt3 = -safe_div(share, t3)
            bt1 = safe_mul(bt3, t2)
            return bt1 + s
        """, """
        def f(z, g):
            t1 = -z
            t2 = np.exp(t1)
            t3 = 1.0 + t2
            s = 1.0 / t3
            share = g / t3
            bt3 = -(share / t3)
            bt1 = safe_mul(bt3, t2)
            return bt1 + s
        """, (Z, G), **facts())
    # (the last guard stays: exp(-z) is inf for z < -709.78, where the adjoint may be 0)


def test_a_divisor_that_may_be_zero_keeps_its_guard():
    # np.where(c > 0, x / c, 0.0): the untaken branch's zero adjoint over c = 0 must stay 0
    check_unchanged(drop_unmet_guards, """
        def f(x, c, g):
            t = x / c
            bt = np.where(c > 0, g, 0.0)
            bx = safe_div(bt, c)
            bc = -safe_mul(bx, t)
            return bx, bc
        """, (Z, np.array([2.0, 0.0, 1.0, 0.0, 3.0, 1.0]), G), **facts())


def test_a_nan_from_an_untaken_branch_keeps_the_guard():
    # 1 + sqrt(x) is nan for x < 0: not a divisor to divide by plainly
    check_unchanged(drop_unmet_guards, """
        def f(x, g):
            t1 = np.sqrt(x)
            t2 = 1.0 + t1
            share = safe_div(g, t2)
            return share
        """, (np.abs(Z), G), **facts())


def test_a_store_into_a_view_changes_what_its_base_holds():
    # d is at least 1 where it is made, but a store through its view v writes a 0 into it
    check_unchanged(drop_unmet_guards, """
        def f(x, g):
            t = np.exp(x)
            d = 1.0 + t
            v = d[:3]
            v[1] = 0.0
            return safe_div(g, d)
        """, (Z, G), **facts())


def test_an_unknown_call_may_change_its_argument():
    check_unchanged(drop_unmet_guards, """
        def f(x, g):
            d = 1.0 + np.exp(x)
            np.copyto(d, x)
            return safe_div(g, d)
        """, (Z, G), **facts())


def test_values_popped_from_a_tape_are_values_their_names_held():
    # reverse mode's stack: t is at least 1 wherever it was pushed from
    check_rewrite(drop_unmet_guards, """
        def f(z, g):
            stack = []
            for i in range(3):
                t = 1.0 + np.exp(z)
                stack.append(t)
                z = z * 0.5
            out = g
            for i in range(3):
                t = stack.pop()
                out = safe_div(out, t)
            return out
        """, """
        def f(z, g):
            stack = []
            for i in range(3):
                t = 1.0 + np.exp(z)
                stack.append(t)
                z = z * 0.5
            out = g
            for i in range(3):
                t = stack.pop()
                out = out / t
            return out
        """, (Z, G), **facts())


def test_a_list_that_is_not_a_tape_shares_what_it_holds():
    check_unchanged(drop_unmet_guards, """
        def f(z, g):
            items = []
            t = 1.0 + np.exp(z)
            items.append(t)
            items[0][2] = 0.0
            return safe_div(g, t)
        """, (Z, G), **facts())


def test_a_parameter_of_unknown_dtype_is_not_taken_for_a_real_number():
    # (a complex z: 1 + exp(z) is 0 at z = i pi)
    check_unchanged(drop_unmet_guards, """
        def f(z, g):
            d = 1.0 + np.exp(z)
            return safe_div(g, d)
        """, (Z, G), **facts(z=None))


def test_a_quotient_as_a_factor_of_its_numerator():
    # z = x / y; the adjoint of z ** 2 is g * 2 * z: where y is 0 or nan, z is inf or nan and
    # so is that numerator, never 0 (the mixture's Mahalanobis terms)
    check_rewrite(drop_unmet_guards, """
        def f(x, c, g):
            y = np.exp(c)
            z = x / y
            bz = g * 2 * z
            share = safe_div(bz, y)
            by = -safe_mul(share, z)
            return share, by
        """, """
        def f(x, c, g):
            y = np.exp(c)
            z = x / y
            bz = g * 2 * z
            share = bz / y
            by = -(share * z)
            return share, by
        """, (Z, G, G * 3.0), **facts())


def test_a_numerator_without_the_quotient_keeps_its_guard():
    check_unchanged(drop_unmet_guards, """
        def f(x, c, g):
            y = np.exp(c)
            z = x / y
            share = safe_div(g, y)
            by = -safe_mul(share, z)
            return share, by
        """, (Z, G, G * 3.0), **facts())


def test_values_finite_where_the_output_is_finite():
    # the singular points' facts of a gradient: D's zeros and nans, y's infs and nans make the
    # output inf or nan (singular.py), so there the guards are not needed
    check_rewrite(drop_unmet_guards, """
        def f(A, D, g):
            y = A / D
            share = safe_div(g, D)
            bD = -safe_mul(share, y)
            return share, bD
        """, """
        def f(A, D, g):
            y = A / D
            share = g / D
            bD = -(share * y)
            return share, bD
        """, (Z, np.abs(G) + 1.0, G), **dict(facts(A="d", D="d"), singular={
            "D": {"ZN"}, "y": {"N"}}))


def test_a_callee_parameter_may_be_inf_or_nan():
    # the caller's values (np.sqrt(x) at x < 0 in an untaken branch): 1 + exp(z) may be nan
    code = """
        def f(z, g):
            t2 = np.exp(z)
            t3 = 1.0 + t2
            share = safe_div(g, t3)
            return share
        """
    nan = np.array([np.nan, 1.0, 0.0])
    check_unchanged(drop_unmet_guards, code, (nan, np.zeros(3)), **facts(callee=True))
    check_rewrite(drop_unmet_guards, code, code.replace("safe_div(g, t3)", "g / t3"),
                  (Z, G), **facts())


def test_a_strong_product_by_a_finite_value_is_plain():
    # strong_mul(g, s) guards only s's infs and nans (g's zeros win against them)
    check_rewrite(drop_unmet_guards, """
        def f(x, g):
            t = np.sin(x)
            u = np.log(x)
            a = strong_mul(g, t)
            b = strong_mul(g, u)
            return a + b
        """, """
        def f(x, g):
            t = np.sin(x)
            u = np.log(x)
            a = g * t
            b = strong_mul(g, u)
            return a + b
        """, (np.abs(Z) + 0.5, G), **facts())
