"""The examples run as a newcomer runs them (`python examples/NAME.py` from the repository root),
exit 0, and print the numbers they are about. Each example also asserts its own checks."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_example(name):
    result = subprocess.run([sys.executable, os.path.join("examples", name)], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"examples/{name} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def number_after(label, text):
    match = re.search(re.escape(label) + r"\s*([-+0-9.eE]+)", text)
    assert match, f"{label!r} not in the output"
    return float(match.group(1))


# example -> (what must be printed, generated code that must be shown)
EXPECTED = {
    "quickstart.py": (["df/dx1   = 5.500000", "df/dx2   = 1.716338",
                       "forward mode, dx1 = 1: df = 5.500000"], "def f_grad(x1, x2):"),
    "batchnorm.py": ([], "def batchnorm_loss_grad("),
    "derivatives.py": (["value_and_grad(g)(x)[0]            -10.726279",
                        "the two modes agree to 0.0e+00"], "def f_jvp(x, *, dx):"),
    "rnn.py": (["loss = 1.147099", "dL/db = [-0.217801  0.115342 -0.203932 -0.095613]"],
               "def rnn_loss_grad(W, U, b, xs):"),
    "logistic_map.py": (["40   0.755660148   -1.030980833880e+12   -1.030980833880e+12"],
                        "def logistic_grad(x, K):"),
    "higher_order.py": (["order 6: -52.176307576786   closed form -52.176307576786",
                         "   in the generated gradient: bt7 = clip(bh)",
                         "step 3: x = 0.852605502013726"], "def centered_loss_aux(w, X, y):"),
    "custom_template.py": (["loss            = 0.715641",
                            "srcad gradient  = [ 0.017617 -0.091794  0.071698]"],
                           "def loss_grad(w, X, t):"),
    # the programs scientists differentiate; lines that print the same with or without the
    # optional scikit-learn and SciPy (the digits examples train on random data without them)
    "mlp_digits.py": (["check_grads: srcad", "mean training loss: first epoch"], ""),
    "convnet.py": (["check_grads(loss_strided): srcad", "max gradient gap"], ""),
    "lstm.py": (["check_grads: srcad -0.0380227943", "step   1: loss 0.49415"], ""),
    "gaussian_process.py": (["nll(theta0) = 34.247602 (Cholesky), 34.247602 (slogdet)",
                             "gradient    = [ 4.338488  0.154676 15.662556] (Cholesky)",
                             "              [ 4.338488  0.154676 15.662556] (slogdet)"], ""),
    "bbvi.py": (["check_grads: srcad 0.8629996773", "-ELBO: first 60 steps 35.4146"], ""),
    "mixture.py": (["check_grads: srcad 138.0812015342", "mean nll: first step 4.0303"], ""),
    "heat_equation.py": (["check_grads: srcad -2.1785115774", "fitted kappa = 0.20000000"],
                         "def mismatch_grad(u0, kappa, target, steps):"),
    "checkpointing.py": (["the two gradients differ by          0.0e+00",
                          "T = 20000 steps, W 16 x 16"],
                         "        # the stretch's turns again, from its kept state"),
    "jacobians.py": (["n = 50:", "the Hessian against X^T diag(p (1 - p)) X + I: relative gap"],
                     ""),
    "ode_rk4.py": (["final state [ 8.0066 11.4163]",
                    "d loss / d (x0, y0)                    = [-20.023  10.262]"], ""),
}

# example -> (label, bound): a number the example prints after label must be below the bound
# (checked on the same run as EXPECTED)
BOUNDS = {
    "convnet.py": [("max gradient gap", 1e-12)],
    "bbvi.py": [("max |srcad - gradient derived by hand| =", 1e-12)],
    "heat_equation.py": [("max |dL/du0 - adjoint simulation| =", 1e-12)],
    "ode_rk4.py": [("forward and reverse Jacobians agree to", 1e-12)],
    "jacobians.py": [("X + I: relative gap", 1e-12)],
}

# example -> (label of the loss before training, label of the loss after): training lowers it
LEARNS = {
    "mlp_digits.py": ("first epoch", "last epoch"),
    "convnet.py": ("first epoch", "last epoch"),
    "lstm.py": ("loss: first step", "last step"),
    "bbvi.py": ("-ELBO: first 60 steps", "last 60 steps"),
    "mixture.py": ("mean nll: first step", "last step"),
    "heat_equation.py": ("initial-state loss: first step", "after 30 steps"),
    "ode_rk4.py": ("fit loss: first step", "last step"),
}


EXAMPLES = sorted(f for f in os.listdir(os.path.join(ROOT, "examples")) if f.endswith(".py"))


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_runs_and_prints_its_numbers(name):
    out = run_example(name)  # an example not listed in EXPECTED only has to run
    lines, generated = EXPECTED.get(name, ([], ""))
    for line in lines:
        assert line in out, f"examples/{name}: expected {line!r} in:\n{out}"
    assert generated in out
    for label, bound in BOUNDS.get(name, []):
        assert number_after(label, out) < bound, f"examples/{name}: {label} too large:\n{out}"
    if name in LEARNS:
        before, after = (number_after(label, out) for label in LEARNS[name])
        assert after < before, f"examples/{name}: the loss did not go down:\n{out}"


def test_examples_agree_with_their_independent_checks():
    assert number_after("max |srcad - closed form| =", run_example("batchnorm.py")) < 1e-10
    assert number_after("over dW, dU, db =", run_example("rnn.py")) < 1e-12
    custom = run_example("custom_template.py")
    assert number_after("max |gradient - closed form| =", custom) < 1e-14
    assert number_after("max |hessian  - closed form| =", custom) < 1e-14


def test_the_documented_examples_exist():
    assert set(EXPECTED) | set(BOUNDS) | set(LEARNS) <= set(EXAMPLES)


def test_the_readme_shows_the_code_srcad_generates_today():
    """README's generated-code sample is srcad.source of the quickstart's f, byte for byte."""
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        import quickstart
    finally:
        sys.path.pop(0)
    import srcad
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    assert "```python\n" + srcad.source(quickstart.f, wrt=(0, 1)) + "```\n" in readme


def test_the_coverage_page_counts_what_srcad_covers_today():
    import srcad
    with open(os.path.join(ROOT, "docs", "coverage.md"), encoding="utf-8") as handle:
        page = handle.read()
    assert f"**{len(srcad.coverage())} differentiable callables" in page, "run `make docs`"
