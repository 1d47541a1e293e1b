"""The strong-zero products' fast path for a number on either side (templates/
numpy_elementwise.py): safe_mul(a, b) of a finite nonzero number a is a * b, as it already was
for such a b; strong_mul(g, s) of a finite nonzero number g is g * s. A zero, inf or nan number
keeps the guard."""
import numpy as np

from srcad import runtime


def test_a_scalar_factor_on_either_side_skips_the_guards_only_where_it_may():
    """safe_mul(a, b) with a finite nonzero number a is a * b (no zero factor on a's side can
    meet b's infs; b's zeros against a finite a give 0 anyway); a zero, inf or nan number a
    keeps the guard. strong_mul(g, s) likewise for a finite nonzero g."""
    safe_mul, strong_mul = runtime.HELPERS["safe_mul"], runtime.HELPERS["strong_mul"]
    b = np.array([np.inf, 0.0, np.nan, 2.0])
    np.testing.assert_array_equal(safe_mul(np.float64(2.0), b), [np.inf, 0.0, np.nan, 4.0])
    np.testing.assert_array_equal(safe_mul(0.0, b), [0.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(safe_mul(np.inf, np.array([0.0, 1.0])), [0.0, np.inf])
    np.testing.assert_array_equal(strong_mul(np.float64(-3.0), b), [-np.inf, -0.0, np.nan, -6.0])
    np.testing.assert_array_equal(strong_mul(0.0, b), [0.0, 0.0, 0.0, 0.0])
