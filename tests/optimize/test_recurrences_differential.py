"""Random recurrences against central differences and against their gradient with the hoist,
tiles and turns passes switched off: a loop over the rows of xs whose turn multiplies a row by an
unchanged matrix (written in each of the ways numpy spells a product, the row named or not)
and reads its gates as slices of one vector (in any order, some overlapping or leaving a gap,
some read twice), with the matrix or the rows changed in some programs. The passes must
give the numbers of the code without them, f's value to the bit in value_and_grad."""
import numpy as np
import pytest

import srcad

from generated import module_function
from regressions.numeric import central_gradient

ACTIVATIONS = ["np.tanh({})", "1.0 / (1.0 + np.exp(-{}))", "np.sin({})", "{} ** 2",
               "np.maximum({}, 0.1 * {})"]
PRODUCTS = ["np.dot(U, {row})", "U.dot({row})", "U @ {row}", "np.matmul(U, {row})",
            "{row} @ V", "{row}.dot(V)", "np.dot({row}, V)"]
LOOPS = ["range(X.shape[0])", "range(len(X))", "range(T)", "range(T - 1)"]
# (start, stop) of a gate in units of H; the gates of one program tile [0, 4H) or not
LAYOUTS = [[(0, 1), (1, 2), (2, 3), (3, 4)], [(2, 3), (0, 1), (3, 4), (1, 2)],
           [(0, 2), (2, 4)], [(0, 1), (1, 3), (3, 4), (0, 1)], [(0, 2), (1, 3), (3, 4)],
           [(0, 1), (2, 4)]]


def bound(k):
    return {0: "", 1: "H", 2: "H2", 3: "H3", 4: ""}[k]


def program(seed):
    rng = np.random.default_rng(seed)
    product = PRODUCTS[rng.integers(len(PRODUCTS))]
    named = rng.random() < 0.5
    row = "x" if named else "X[t]"
    lines = ["def f(W, U, V, b, xs, h0):", "    X = xs * 1.0", "    T = X.shape[0]",
             "    H = h0.shape[0]",
             "    H2 = 2 * H", "    H3 = 3 * H", "    h = h0", "    c = h0 * 0.5",
             f"    for t in {LOOPS[rng.integers(len(LOOPS))]}:"]
    if named:
        lines.append("        x = X[t]")
    lines.append(f"        g = W @ h + {product.format(row=row)} + b")
    change = rng.integers(6)
    if change == 0:
        lines.append("        U = U * 0.9")
    elif change == 1:
        lines.append("        X[t] = X[t] * 0.5")
    gates = []
    for k, (lo, hi) in enumerate(LAYOUTS[rng.integers(len(LAYOUTS))]):
        act = ACTIVATIONS[rng.integers(len(ACTIVATIONS))]
        piece = f"g[{bound(lo)}:{bound(hi)}]"
        lines.append(f"        a{k} = {act.format(piece, piece)}")
        gates.append(f"a{k}" if hi - lo == 1 else f"a{k}[:H]")
    mixed = " + ".join(f"{g} * {'c' if i % 2 else 'h'}" for i, g in enumerate(gates))
    lines.append(f"        c = np.tanh({mixed})")
    lines.append("        h = c * 0.8 + h * 0.2")
    lines.append("    return np.sum(h ** 2) + np.sum(c)")
    return "import numpy as np\n\n\n" + "\n".join(lines) + "\n"


def arguments(seed):
    rng = np.random.default_rng(seed + 1000)
    H, D, T = 2, 3, 5
    return (0.4 * rng.normal(size=(4 * H, H)), rng.normal(size=(4 * H, D)),
            rng.normal(size=(D, 4 * H)), rng.normal(size=4 * H), rng.normal(size=(T, D)),
            rng.normal(size=H))


@pytest.mark.parametrize("seed", range(24))
def test_random_recurrences_against_central_differences_and_the_passes_off(seed, tmp_path):
    source = program(seed)
    f = module_function(source, f"recurrence_{seed}", tmp_path)
    args = arguments(seed)
    wrt = (0, 1, 2, 3, 4, 5)
    got = srcad.grad(f, wrt=wrt)(*args)
    plain = srcad.grad(f, wrt=wrt, disable=("hoist", "tiles", "turns"))(*args)
    for i, g, p in zip(wrt, got, plain):
        np.testing.assert_allclose(g, p, rtol=1e-11, atol=1e-12, err_msg=source)
        np.testing.assert_allclose(g, central_gradient(f, args, i), rtol=1e-5, atol=1e-7,
                                   err_msg=source)
    value, _ = srcad.value_and_grad(f, wrt=1)(*args)
    assert value == f(*args), source


@pytest.mark.parametrize("seed", range(0, 24, 3))
def test_random_recurrences_forward_mode_and_second_order(seed, tmp_path):
    """The dot-product test of forward against reverse mode (both built with the passes), and
    the Hessian-vector product (forward mode over the generated gradient, whose hoisted
    products it differentiates again) against the one with the passes off."""
    source = program(seed)
    f = module_function(source, f"recurrence_{seed}", tmp_path)
    args = arguments(seed)
    rng = np.random.default_rng(seed + 7)
    v = rng.normal(size=args[1].shape)
    tangent = srcad.jvp(f, wrt=1)(*args, v)
    np.testing.assert_allclose(tangent, np.vdot(srcad.grad(f, wrt=1)(*args), v), rtol=1e-11,
                               err_msg=source)
    got = srcad.hvp(f, wrt=1)(*args, v)
    plain = srcad.hvp(f, wrt=1, disable=("hoist", "tiles", "turns"))(*args, v)
    np.testing.assert_allclose(got, plain, rtol=1e-10, atol=1e-11, err_msg=source)
