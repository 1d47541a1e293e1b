"""Write docs/coverage.md and docs/constructs.md from srcad itself. Run by `make docs`.

coverage.md:   every differentiable callable (srcad.coverage()), grouped by module, and the
               callables srcad treats as non-differentiable (their results are constants).
constructs.md: the Python srcad differentiates. Each construct below comes with a small example
               that this script differentiates and checks (both modes, against central
               differences) before listing it as supported; an example that fails is listed
               under "Not yet", with its error and what to write instead. Then the constructs
               srcad refuses, from srcad.frontend.fence.UNSUPPORTED.
"""
import copy
import importlib.util
import inspect
import math
import os
import sys
import tempfile
import textwrap
import types

import numpy as np
from scipy import stats  # (the docs are generated where the optional scipy is installed)

import srcad
from srcad.frontend.fence import unsupported_table
from srcad.frontend.resolve import LIBRARY_MODULES
from srcad.rules.registry import REGISTRY
from srcad.runtime import HELPERS

HERE = os.path.dirname(os.path.abspath(__file__))
X3 = np.array([0.3, -0.7, 1.2])


# ---------------------------------------------------------------------------------------------
# the examples: ordinary module-level functions (srcad reads their source)

def if_elif_else(x):
    if x[0] > 0:
        y = x * 2.0
    elif x[1] > 0:
        y = np.sin(x)
    else:
        y = -x
    return np.sum(y)


def match_on_values(x, kind):
    match kind:
        case "sq" | "square":
            y = x * x
        case None:
            y = np.sin(x)
        case k if k > 2:
            y = x * k
        case _:
            y = -x
    return np.sum(y)


def annotated_assignment(x):
    y: np.ndarray = x * 2.0
    total: float = np.sum(y * y)
    return total


def conditional_expression(x):
    y = np.sum(x) if x[0] > 0 else np.sum(x * x)
    return y * (2.0 if x[1] < 0 else 3.0)


def boolean_logic(x):
    if (x[0] > 0 and x[1] < 0) or not x[2] < 5:
        return np.sum(x ** 2)
    if -1.0 < x[0] < 1.0 <= x[2]:
        return np.sum(np.exp(x))
    return np.sum(x)


def for_range(x, n):
    s = 0.0
    for i in range(1, n):
        s = s + x[i] * x[i - 1]
    return s


def for_over_values(x, w):
    s = 0.0
    for row in x:
        s = s + np.tanh(row @ w)
    for i, v in enumerate(w):
        s = s + v * i
    for a, b in zip(w, w[::-1]):
        s = s + a * b
    return s


def while_loop(x):
    y = x
    k = 0
    while y < 10.0:
        y = y * 1.5 + 0.1
        k += 1
    return y * k


def break_continue_return(x):
    s = 0.0
    for i in range(10):
        if i == 1:
            continue
        if i >= len(x):
            break
        if s > 100.0:
            return s
        s = s + x[i] ** 2
    return s


def augmented_assignment(x):
    s = 1.0
    s += x[0]
    s *= x[1]
    s -= x[2]
    s /= 2.0
    s **= 2
    return s


def tuple_assignment_and_swaps(x):
    a, b = x[0], x[1]
    for i in range(3):
        a, b = b, a * b + 1.0
    return a + b


def array_stores(x):
    y = np.zeros(5)
    y[0] = x[0] * 2.0
    y[1:4] = x ** 2
    y[2] += x[2]
    z = x.copy()
    z[z < 0] = 0.0
    np.add.at(y, [0, 0, 4], x)
    return np.sum(y * y) + np.sum(z ** 3)


def array_methods(x):
    A = x.reshape(3, 1) * x
    return A.sum() + A.T.mean(axis=0)[1] + x.dot(x) + (x ** 2).max() / x.size + A.shape[0]


def list_append_stack(x):
    out = []
    for i in range(len(x)):
        out.append(x[i] * (i + 1))
    return np.sum(np.stack(out) ** 2)


def list_append_array(x):
    out = []
    for i in range(len(x)):
        out.append(x[i] * (i + 1))
    return np.sum(np.array(out) ** 2)


def tuples(x):
    t = (x[0], x[1] * 2.0)
    a, b = t
    return a * b + t[1]


SCALE = np.array([1.0, 2.0, 3.0])


def module_constants(x):
    return np.sum(SCALE * x) * math.pi


def dict_of_parameters(params, x):
    h = np.tanh(x @ params["W"] + params["b"])
    return np.sum(h ** 2)


def list_of_parameters(layers, x):
    h = x
    for W in layers:
        h = np.tanh(h @ W)
    return np.sum(h)


class Affine:
    def __init__(self, w, b):
        self.w = w
        self.b = b


def object_of_parameters(p, x):
    return np.sum((x * p.w + p.b) ** 2)


def keywords_and_defaults(x, power=2, scale=1.0, kind="sum", offset=None):
    y = scale * x ** power
    if offset is not None:
        y = y + offset
    if kind == "sum":
        return np.sum(y)
    return np.max(y)


def keywords_at_the_call(x):
    return keywords_and_defaults(x, power=3, kind="sum", offset=1.0)


def scaled_sin(v, scale=1.0):
    return np.sin(v) * scale


def module_level_helpers(x):
    return np.sum(scaled_sin(x, scale=2.0)) + scaled_sin(x[0])


def helper_in_another_module(x):
    return np.sum(mylib.softsq(x, scale=2.0))


def nested_functions(x, w):
    def layer(v):
        return np.tanh(v * w)
    square = lambda t: t * t
    return np.sum(square(layer(x)))


cube = lambda v: v * v * v


def module_level_lambda(x):
    return np.sum(cube(x))


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def recursion(x):
    return np.sum(power(x, 3))


def make_loss(target):
    def loss(x):
        return np.sum((x - target) ** 2)
    return loss


closure = make_loss(np.array([1.0, 0.0, -1.0]))


class Model:
    def __init__(self, scale):
        self.scale = scale

    def loss(self, x):
        return np.sum(np.sin(x) * self.scale)


def non_differentiable_ops(x):
    k = np.argmax(x)
    f = np.floor(x[0] * 3)
    mask = x > 0
    return x[k] * f + np.sum(x[mask]) + len(x) * x[1] + x.shape[0] + round(x[2] * 10)


def builtin_max_min(x):
    return max(x[1], x[2]) + min(x[0], 3.0)


def astype(x):
    return np.sum(x.astype(float) ** 2)


def out_arguments(x):
    y = np.zeros(3)
    np.multiply(x, 2.0, out=y)
    return np.sum(y ** 2)


def dict_built_inside(x):
    p = {}
    p["a"] = x * 2.0
    return np.sum(p["a"])


def comprehensions(x):
    squares = [v * v for v in x if v > -10.0]
    return sum(np.sin(s) for s in squares) + np.sum([[a * b for a in x] for b in x])


def dict_comprehensions_and_map(x):
    parts = {"a": x, "b": x * 2.0}
    scaled = {k: np.sin(v) for k, v in parts.items()}
    return sum(map(np.sum, scaled.values())) + sum(map(lambda v: np.sum(v * v), [x, x]))


def total(*arrays):
    return sum(np.sum(a ** 2) for a in arrays)


def pair(a, b):
    return np.sum(a * b)


def starred(x):
    both = (x, x * 2.0)
    return total(x, *both) + pair(*both) + np.sum(np.concatenate([*both, x]))


def apply_twice(fn, v):
    return fn(fn(v))


def functions_as_values(x):
    def cube(v):
        return v ** 3
    return np.sum(apply_twice(np.sin, x)) + np.sum(apply_twice(cube, x))


def function_aliases(x):
    act = np.tanh
    square = np.square
    return np.sum(square(act(x)) + act(2.0 * x))


def checks_and_context(x):
    assert x.ndim == 1, "x must be a vector"
    if x.shape[0] < 2:
        raise ValueError("x needs two entries")
    with np.errstate(divide="ignore"):
        y = np.log(x * x + 1.0)
    del x
    return np.sum(y)


def nested_unpacking(x):
    (a, b), c = (x[0], x[1]), x[2]
    s = 0.0
    for i, (u, v) in enumerate([(a, b), (b, c)]):
        s = s + i * u * v
    return s + a * b * c


def loop_over_dict(params):
    s = 0.0
    for key in params:
        s = s + np.sum(params[key] ** 2)
    return s


def loop_over_dict_items(params):
    s = 0.0
    for key, value in params.items():
        s = s + np.sum(value ** 2)
    return s


def builtin_sum_abs(x):
    return sum(x) + abs(x[0])


def set_comprehension(x):
    picked = sorted({i % 2 for i in range(4)} | {2})
    return np.sum(x[picked] ** 2)


def try_for_a_flag(x):
    ok = True
    try:
        np.linalg.cholesky(np.outer(x, x) - np.eye(3))
    except np.linalg.LinAlgError:
        ok = False
    if ok:
        return np.sum(x ** 2)
    return np.sum(np.sin(x))


def running(x):
    total = 0.0
    for v in x:
        total = total + v
        yield total * v


def generator_helper(x):
    return sum(v ** 2 for v in running(x))


def scaled(x, **options):
    return np.sum(x * options["scale"]) + options.get("shift", 0.0)


def keyword_arguments(x):
    fixed = {"scale": 2.0, "shift": x[0]}
    return scaled(x, scale=x[1]) + scaled(x ** 2, **fixed)


class Dense:
    def __init__(self, W):
        self.W = W

    def __call__(self, h):
        return np.tanh(self.W @ h)


LAYERS = [Dense(np.eye(3)), Dense(0.5 * np.ones((3, 3)))]


def loop_over_layers(x):
    for layer in LAYERS:
        x = layer(x)
    for act in [np.sin, np.tanh]:
        x = act(x)
    return np.sum(x ** 2)


def frozen_distribution(x):
    rv = stats.norm(x[0], 2.0)
    return np.sum(rv.logpdf(x)) + rv.cdf(x[1])


def fft_power(x):
    z = np.fft.rfft(x * np.hanning(3))
    return np.sum(np.abs(z) ** 2) + np.sum(np.real(z * np.conj(z)))


# constructs srcad.frontend.fence refuses beyond its UNSUPPORTED table (each row is checked:
# listed only if srcad really raises SrcadError for its example)
def refused_star_args(x):
    return np.sum(np.maximum(*[x, 0.0]))


LIMITS = {"a_min": 0.0, "a_max": 1.0}


def refused_star_kwargs(x):
    return np.sum(np.clip(x, **LIMITS))


def refused_try_computing_a_value(x):
    try:
        y = np.log(x)
    except FloatingPointError:
        y = x
    return np.sum(y)


def refused_attribute_store(x, state):
    state.h = x * 2.0
    return np.sum(state.h)


def refused_nested_store(x):
    y = np.zeros((2, 3))
    y[0][1] = x[0]
    return np.sum(y)


def refused_loop_else(x):
    s = 0.0
    for v in x:
        s = s + v
    else:
        s = s * 2.0
    return s


def refused_unpack_into_store(x):
    y = np.zeros(2)
    a, y[0] = x[0], x[1]
    return a + np.sum(y)


def refused_no_return(x):
    y = x * 2.0


def refused_write_through_a_view(x):
    y = x.copy()
    v = y[1:]
    v += x[:-1]
    return np.sum(y * y)


def refused_store_into_an_argument(x):
    x[0] = 0.0
    return np.sum(x * x)


def refused_in_place_call(x):
    y = np.zeros((3, 3))
    np.fill_diagonal(y, x)
    return np.sum(y * y)


def refused_in_place_method(x):
    y = x * 2.0
    y.sort()
    return y[0] * 3.0


BATCHES = iter([np.ones(3)] * 1000)


def refused_outside_iterator(x):
    return np.sum(x * next(BATCHES))


def refused_recursive_nested_function(x):
    def power(v, n):
        return v if n == 1 else v * power(v, n - 1)
    return power(x[0], 3)


def refused_max_of_one_iterable(x):
    return max(x)


REFUSED = [
    (refused_star_args, "`*args` unpacking in calls (`f(*xs)`) where srcad cannot count the "
                        "items (`rs.randn(*x.shape)`, a library function or a method of an "
                        "argument spreading a shape, runs as written where its result is not "
                        "differentiated)", "pass the arguments one by one"),
    (refused_star_kwargs, "`**d` in calls where srcad cannot know d's keys (a global dict, "
     "a dict changed after it is built)", "pass keyword arguments by name, or build the dict "
     "once in the function from a display (`{'s': s}`)"),
    (refused_try_computing_a_value, "a try statement that computes a value the output depends "
     "on from differentiated values (what a try binds is a constant)",
     "compute only a flag in the try (`ok = True` / `except ...: ok = False`) and the values "
     "after it, under `if ok:`"),
    (refused_attribute_store, "assignment to attributes (`state.h = v`)",
     "keep the value in a local name and return it"),
    (refused_nested_store, "stores into an expression (`y[i][j] = v`)", "index once: `y[i, j] = v`"),
    (refused_loop_else, "loops with an `else` clause",
     "set a flag before `break` and test it after the loop"),
    (refused_unpack_into_store, "unpacking into anything but plain names (`a, y[0] = ...`)",
     "unpack into names, then store them"),
    (refused_no_return, "a function without a `return` value", "return the value to differentiate"),
    (refused_write_through_a_view, "writes through a view or another name for an array that is "
     "read afterwards (`v = y[1:]; v += e`, `z = y; y *= 2`)",
     "write into the array itself (`y[1:] += e`), or make a copy (`v = y[1:].copy()`)"),
    (refused_store_into_an_argument, "stores into an argument (`x[0] = 0.0`): the caller's "
     "array", "store into a copy: `x = x.copy()` first"),
    (refused_in_place_call, "calls that write into an argument (`np.copyto`, "
     "`np.fill_diagonal`, `np.multiply.at`, `rng.shuffle(y)`, `random.shuffle(items)`, a helper that changes "
     "its argument, through any name, view or tuple target (`a[i], a[j] = a[j], a[i]`), or a "
     "method that stores into its object (`self.h = v`); unless it only updates (`p -= v`) "
     "arrays the caller made and does not read again)",
     "build the result as a new array (`y = y[rng.permutation(len(y))]`); return the "
     "helper's new value (`np.add.at(y, i, v)` and `np.subtract.at` into an array the "
     "function made are differentiated)"),
    (refused_in_place_method, "methods that change an array in place (`y.sort()`, "
     "`y.fill(v)`, `y.__setitem__(i, v)`), also of a global array (`buf.fill(v)`, "
     "`np.ndarray.fill(buf, v)`)", "`y = np.sort(y)`, `y = np.full_like(y, v)`"),
    (refused_outside_iterator, "reading an iterator the function does not make "
     "(`next(batches)`, `for b in gen`, `enumerate(itertools.count())`): srcad may run the "
     "function more than once for one derivative call, and an iterator cannot be put back",
     "take the item before the call and pass it in (`loss(w, next(batches))`)"),
    (refused_recursive_nested_function, "a nested function that calls itself (lifted out of "
     "the function around it, its own name is not bound there)",
     "define it at module level: recursive calls of module functions are followed"),
    (refused_max_of_one_iterable, "`max(items)`, `min(items)` over the items of one iterable "
     "(`max(a, b, c)` of values is differentiated)", "`np.max(x)` for an array, or list the "
     "values: `max(a, b, c)`"),
]


def refuses(func):
    try:
        srcad.source(func)
    except srcad.SrcadError:
        return True
    except Exception:
        return False
    return False


# helpers in another module: written to a temporary module and imported, as a user's would be
MYLIB = '''import numpy as np


def softsq(x, scale=1.0):
    return np.log1p(scale * x * x)
'''


def _import_mylib():
    directory = tempfile.mkdtemp(prefix="srcad-docs-")
    path = os.path.join(directory, "mylib.py")
    with open(path, "w") as handle:
        handle.write(MYLIB)
    spec = importlib.util.spec_from_file_location("mylib", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["mylib"] = module
    spec.loader.exec_module(module)
    return module


mylib = _import_mylib()


# ---------------------------------------------------------------------------------------------
# the list: (section, construct, function to call, functions to show, args, wrt, kwargs, what
# to write if it fails)

class Construct:
    def __init__(self, section, title, func, args, wrt=0, show=None, kwargs=None, instead=""):
        self.section = section
        self.title = title
        self.func = func
        self.args = args
        self.wrt = wrt
        self.show = show if show is not None else [func]
        self.kwargs = kwargs or {}
        self.instead = instead


RNG = np.random.default_rng(0)
CONSTRUCTS = [
    Construct("Control flow", "`if` / `elif` / `else` on values computed from the inputs",
              if_elif_else, (X3,), instead="`np.where(cond, a, b)` for elementwise choices"),
    Construct("Control flow", "conditional expressions `a if c else b`",
              conditional_expression, (X3,), instead="an `if` statement"),
    Construct("Control flow", "`and`, `or`, `not`, chained comparisons `a < b < c`",
              boolean_logic, (X3,), instead="nested ifs"),
    Construct("Control flow", "`for` over `range(...)` (bounds from arguments, `len`, shapes)",
              for_range, (X3, 3), instead="a vectorised expression"),
    Construct("Control flow", "`for` over an array's rows, `enumerate(...)`, `zip(...)`",
              for_over_values, (RNG.normal(size=(4, 3)), X3), wrt=(0, 1),
              instead="`for i in range(len(x)): row = x[i]`"),
    Construct("Control flow", "`match` on values: literals, `|` alternatives, `None`, "
              "captures with guards, `_`", match_on_values, (X3, "square"),
              instead="`if` / `elif`"),
    Construct("Control flow", "`while` loops", while_loop, (1.3,),
              instead="a `for` loop with `break`"),
    Construct("Control flow", "`break`, `continue`, and `return` inside loops",
              break_continue_return, (X3,), instead="flags tested after the loop"),
    Construct("Assignment and arrays", "augmented assignment `+=`, `-=`, `*=`, `/=`, `**=`",
              augmented_assignment, (X3,), instead="`s = s + v`"),
    Construct("Assignment and arrays", "annotated assignment `y: np.ndarray = ...`",
              annotated_assignment, (X3,), instead="`y = ...`"),
    Construct("Assignment and arrays", "tuple assignment and swaps `a, b = b, a * b`",
              tuple_assignment_and_swaps, (X3,), instead="one assignment per line"),
    Construct("Assignment and arrays",
              "stores into arrays: `y[i] = v`, `y[1:4] = v`, `y[i] += v`, `y[mask] = 0`, "
              "`np.add.at(y, idx, v)`, `x.copy()`", array_stores, (X3,), instead="`np.where`, `np.concatenate`"),
    Construct("Assignment and arrays",
              "array methods and attributes: `x.reshape`, `x.T`, `x.sum(axis=...)`, "
              "`x.dot`, `x.max()`, `x.shape`, `x.size`", array_methods, (X3,),
              instead="the `np.*` function"),
    Construct("Assignment and arrays", "lists built with `append`, then `np.stack(list)`",
              list_append_stack, (X3,), instead="preallocate and store: `y[i] = v`"),
    Construct("Assignment and arrays", "lists built with `append`, then `np.array(list)`",
              list_append_array, (X3,), instead="`np.stack(list)`"),
    Construct("Assignment and arrays", "tuples: built, indexed, unpacked", tuples, (X3,),
              instead="separate names"),
    Construct("Assignment and arrays", "module-level constants (arrays, numbers, `math.pi`)",
              module_constants, (X3,), show=[module_constants],
              instead="pass them in as arguments"),
    Construct("Parameters", "a dict of parameters: the gradient is a dict with the same keys",
              dict_of_parameters,
              ({"W": RNG.normal(size=(3, 2)), "b": RNG.normal(size=2)}, RNG.normal(size=(4, 3))),
              instead="separate array arguments"),
    Construct("Parameters", "a list (or tuple) of parameters: the gradient is a list (tuple)",
              list_of_parameters, ([RNG.normal(size=(3, 3)), RNG.normal(size=(3, 2))],
                                   RNG.normal(size=(4, 3))), instead="separate array arguments"),
    Construct("Parameters", "an object with array attributes: the gradient is a "
              "`types.SimpleNamespace` with the same attributes", object_of_parameters,
              (Affine(np.array([1.0, 2.0, 3.0]), 0.5), X3), show=[Affine, object_of_parameters],
              instead="separate array arguments"),
    Construct("Parameters", "keyword arguments, defaults, string and `None` flags, also at "
              "calls of helpers", keywords_at_the_call, (X3,),
              show=[keywords_and_defaults, keywords_at_the_call],
              instead="positional arguments"),
    Construct("Parameters", "keyword arguments passed to the derivative itself "
              "(`srcad.grad(f)(x, power=3)`)", keywords_and_defaults, (X3,),
              kwargs={"power": 3, "offset": 0.5}, show=[], instead="positional arguments"),
    Construct("Functions", "module-level helpers (differentiated from their source too)",
              module_level_helpers, (X3,), show=[scaled_sin, module_level_helpers],
              instead="inline the helper"),
    Construct("Functions", "helpers imported from other modules", helper_in_another_module,
              (X3,), show=[MYLIB, helper_in_another_module], instead="inline the helper"),
    Construct("Functions", "functions defined inside the function (`def`, or a lambda bound "
              "to a name), reading its variables", nested_functions, (X3, 0.7), wrt=(0, 1),
              instead="module-level helpers with the values as arguments"),
    Construct("Functions", "lambdas bound to a name at module level", module_level_lambda,
              (X3,), show=["cube = lambda v: v * v * v\n", module_level_lambda],
              instead="`def`"),
    Construct("Functions", "recursion", recursion, (X3,), show=[power, recursion],
              instead="a loop"),
    Construct("Functions", "closures: the differentiated function may itself be a closure",
              closure, (X3,), show=[make_loss, "closure = make_loss(np.array([1.0, 0.0, -1.0]))\n"],
              instead="pass the captured values as arguments"),
    Construct("Functions", "bound methods (`srcad.grad(model.loss)`)", Model(2.0).loss,
              (X3,), show=[Model], instead="a function taking the object as an argument"),
    Construct("Non-differentiable operations",
              "`np.floor`, `round`, `np.argmax`, comparisons, boolean masks, `len`, shapes: "
              "they run as written and carry a zero derivative", non_differentiable_ops,
              (X3,), instead="compute them outside and pass them in"),
    Construct("Not in the list above", "builtin `max(a, b)` / `min(a, b)` of differentiable "
              "values", builtin_max_min, (X3,), instead="`np.maximum(a, b)` / `np.minimum(a, b)`"),
    Construct("Not in the list above", "`x.astype(float)`", astype, (X3,),
              instead="`np.asarray(x, dtype=float)`"),
    Construct("Not in the list above", "`out=` arguments", out_arguments, (X3,),
              instead="assign the result: `y = np.multiply(x, 2.0)`"),
    Construct("Assignment and arrays", "dicts built inside the function (`{...}`, "
              "`dict(W=...)`, `d[k] = v`)", dict_built_inside, (X3,), instead="local names"),
    Construct("Assignment and arrays", "list comprehensions and generator expressions",
              comprehensions, (X3,), instead="a `for` loop that appends"),
    Construct("Assignment and arrays", "dict comprehensions, `map`, `d.values()`",
              dict_comprehensions_and_map, (X3,), instead="a `for` loop"),
    Construct("Assignment and arrays", "`*a` in displays and calls, helpers with `*args`",
              starred, (X3,), show=[total, pair, starred], instead="the items by name"),
    Construct("Functions", "functions passed to helpers as values (numpy's, your own, nested "
              "ones)", functions_as_values, (X3,), show=[apply_twice, functions_as_values],
              instead="call the function by name in the helper"),
    Construct("Functions", "a function bound to a local name and called through it "
              "(`act = np.tanh`)", function_aliases, (X3,),
              instead="call the function by its own name"),
    Construct("Assignment and arrays", "nested tuple unpacking, also in `for` targets",
              nested_unpacking, (X3,), instead="one name per line"),
    Construct("Control flow", "`assert`, `raise`, `with np.errstate(...)`, `del`, `global` "
              "reads: they run as in f", checks_and_context, (X3,),
              instead="checks outside the function"),
    Construct("Parameters", "`for key in params` over a dict of parameters",
              loop_over_dict, ({"a": X3, "b": 2.0 * X3},),
              instead='a tuple of the keys: `for key in ("a", "b")`'),
    Construct("Parameters", "`for key, value in params.items()` (`.keys()`, `.values()`)",
              loop_over_dict_items, ({"a": X3, "b": 2.0 * X3},),
              instead='`for key in ("a", "b"): value = params[key]`'),
    Construct("Not in the list above", "builtin `sum(...)` and `abs(...)` of differentiable "
              "values", builtin_sum_abs, (X3,), instead="`np.sum`, `np.abs`"),
    Construct("Assignment and arrays", "set displays and set comprehensions of constants "
              "(indices, names)", set_comprehension, (X3,), instead="`sorted` lists"),
    Construct("Control flow", "`try` / `except` / `else` / `finally` binding constants (a "
              "flag, a fallback): the try runs as in f, what it binds has derivative zero",
              try_for_a_flag, (X3,), instead="the check outside the function"),
    Construct("Functions", "helper generators (`yield`, `yield from`): the caller reads the "
              "list of what they yield", generator_helper, (X3,), show=[running,
                                                                       generator_helper],
              instead="a helper that returns a list"),
    Construct("Functions", "helpers with `**kwargs`, and `**d` in calls of a dict the "
              "function builds", keyword_arguments, (X3,), show=[scaled, keyword_arguments],
              instead="named parameters"),
    Construct("Functions", "loops over a list of objects or functions known when the "
              "function is built (`for layer in self.layers`, `for act in [np.sin, g]`)",
              loop_over_layers, (X3,), show=[Dense, "LAYERS = [Dense(np.eye(3)), Dense(0.5 * "
                                                    "np.ones((3, 3)))]\n", loop_over_layers],
              instead="call each layer by name"),
    Construct("Functions", "frozen scipy.stats distributions (`rv = norm(m, s)`, then "
              "`rv.logpdf(x)`)", frozen_distribution, (X3,),
              instead="`stats.norm.logpdf(x, m, s)`"),
    Construct("Not in the list above", "`np.fft` transforms and the complex values they make "
              "(first order; + - * / @, `** n`, sums, indexing, `np.real`, `np.imag`, `np.conj`, "
              "`np.abs`)", fft_power, (X3,),
              instead="real DFT matrices: `np.cos(2 * np.pi * np.outer(k, n) / N) @ x`"),
]


# ---------------------------------------------------------------------------------------------
# checking one construct

def _leaves(value):
    """(path, array) pairs of a parameter structure: dicts, lists, tuples, objects, arrays."""
    if isinstance(value, dict):
        return [((key,) + path, leaf) for key in value for path, leaf in _leaves(value[key])]
    if isinstance(value, (list, tuple)):
        return [((i,) + path, leaf) for i, item in enumerate(value)
                for path, leaf in _leaves(item)]
    if isinstance(value, (np.ndarray, float, int, np.generic)):
        return [((), value)]
    return [(("." + key,) + path, leaf) for key, item in vars(value).items()
            for path, leaf in _leaves(item)]


def _get(value, path):
    for step in path:
        value = getattr(value, step[1:]) if isinstance(step, str) and step.startswith(".") \
            else value[step]
    return value


def _moved(value, path, delta):
    """A copy of the structure with the leaf at `path` moved by delta."""
    if not path:
        return np.asarray(value, dtype=float) + delta if isinstance(value, np.ndarray) \
            else float(value) + float(delta)
    step, rest = path[0], path[1:]
    if isinstance(step, str) and step.startswith("."):
        out = copy.copy(value)
        setattr(out, step[1:], _moved(getattr(value, step[1:]), rest, delta))
        return out
    if isinstance(value, tuple):
        return tuple(_moved(v, rest, delta) if i == step else v for i, v in enumerate(value))
    out = copy.copy(value)
    out[step] = _moved(value[step], rest, delta)
    return out


def _mapped(value, fn):
    """The structure with fn applied to every leaf (objects copied, attributes replaced)."""
    if isinstance(value, dict):
        return {key: _mapped(item, fn) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_mapped(item, fn) for item in value)
    if isinstance(value, (np.ndarray, float, int, np.generic)):
        return fn(value)
    out = copy.copy(value)
    for key, item in vars(value).items():
        setattr(out, key, _mapped(item, fn))
    return out


def check_structured(func, args, wrt, kwargs, h=1e-6):
    """Both modes of a function of parameter structures against central differences: forward
    mode along one random direction of the whole structure, reverse mode leaf by leaf; the
    gradient must have the parameter's structure."""
    rng = np.random.default_rng(1)
    positions = wrt if isinstance(wrt, tuple) else (wrt,)
    directions = [_mapped(args[p], lambda leaf: rng.standard_normal(np.shape(leaf)))
                  for p in positions]
    plus, minus = list(args), list(args)
    for position, direction in zip(positions, directions):
        moves = dict(_leaves(direction))
        for path, _ in _leaves(args[position]):
            plus[position] = _moved(plus[position], path, h * moves[path])
            minus[position] = _moved(minus[position], path, -h * moves[path])
    fd = (func(*plus, **kwargs) - func(*minus, **kwargs)) / (2 * h)
    jv = float(srcad.jvp(func, wrt=positions)(*args, *directions, **kwargs))
    if abs(jv - fd) > 1e-6 * max(1.0, abs(fd)):
        raise AssertionError(f"forward mode: J v = {jv!r}, central differences {fd!r}")
    grads = srcad.grad(func, wrt=positions)(*args, **kwargs)
    for position, gradient in zip(positions, grads):
        arg = args[position]
        expected = (types.SimpleNamespace if not isinstance(arg, (dict, list, tuple, np.ndarray,
                                                                 float, int)) else type(arg))
        if not isinstance(gradient, expected):
            raise AssertionError(f"the gradient of a {type(arg).__name__} is a "
                                 f"{type(gradient).__name__}")
        for path, leaf in _leaves(arg):
            v = rng.standard_normal(np.shape(leaf))
            plus, minus = list(args), list(args)
            plus[position] = _moved(arg, path, h * v)
            minus[position] = _moved(arg, path, -h * v)
            fd = (func(*plus, **kwargs) - func(*minus, **kwargs)) / (2 * h)
            got = float(np.sum(np.asarray(_get(gradient, path)) * v))
            if abs(got - fd) > 1e-6 * max(1.0, abs(fd)):
                raise AssertionError(f"gradient at {path}: {got!r}, central differences {fd!r}")


def check(construct):
    """None if srcad differentiates the example correctly, else the first line of the error."""
    args, wrt, kwargs = construct.args, construct.wrt, construct.kwargs
    positions = wrt if isinstance(wrt, tuple) else (wrt,)
    try:
        if all(isinstance(args[p], (np.ndarray, float)) for p in positions):
            srcad.check_grads(construct.func, args, wrt=wrt, kwargs=kwargs)
        else:
            check_structured(construct.func, args, wrt, kwargs)
    except Exception as exc:  # what a user would see: a build error, a crash or a wrong number
        lines = [line for line in str(exc).splitlines() if line.strip()]
        first = lines[0] if lines else ""
        if isinstance(exc, srcad.SrcadError) and ": " in first:
            first = first.split(": ", 1)[1]  # drop the file:line:col prefix
        if "srcad's derivatives" in first and len(lines) > 1:
            return f"no error, a wrong derivative ({lines[1].strip()})"[:220]
        return f"{type(exc).__name__}: {first}"[:220]
    return None


def source_of(item):
    if isinstance(item, str):
        return item
    return textwrap.dedent(inspect.getsource(item))


# ---------------------------------------------------------------------------------------------
# the pages

def constructs_page():
    results = [(c, check(c)) for c in CONSTRUCTS]
    lines = [
        "# What srcad differentiates",
        "",
        "Generated by `docs/generate.py` (`make docs`); edit that script, not this file.",
        "",
        "srcad differentiates ordinary Python functions that use NumPy, `math` and "
        "`scipy.special` (the callables are listed in [coverage.md](coverage.md)). Every example "
        "on this page was differentiated when the page was generated, in forward and reverse "
        "mode, and checked with `srcad.check_grads` (central differences and the exact "
        "dot-product test between the two modes); examples whose arguments are dicts, lists "
        "or objects are checked against central differences instead, in both modes (the "
        "gradient leaf by leaf).",
        "",
    ]
    section = None
    supported = [(c, r) for c, r in results if r is None]
    failing = [(c, r) for c, r in results if r is not None]
    lines += ["## Supported", ""]
    for construct, _ in supported:
        if construct.section != section:
            section = construct.section
            lines += [f"### {section}", ""]
        lines += [f"**{construct.title}**", ""]
        shown = "\n\n".join(source_of(item).rstrip() for item in construct.show)
        if shown:
            lines += ["```python", shown, "```", ""]
        if construct.kwargs:
            call = ", ".join(f"{k}={v!r}" for k, v in construct.kwargs.items())
            lines += [f"called as `srcad.grad({construct.func.__name__})(x, {call})`", ""]
    lines += ["## Not yet", "",
              "These examples fail today (the error as a user sees it); write the alternative "
              "instead.", "",
              "| construct | what happens | write instead |", "|---|---|---|"]
    for construct, error in failing:
        cell = error.replace("|", "\\|")
        lines.append(f"| {construct.title} | {cell} | {construct.instead} |")
    lines += ["", "<details><summary>the failing examples</summary>", "", "```python"]
    lines += ["\n\n".join(source_of(c.func).rstrip() for c, _ in failing), "```", "",
              "</details>", ""]
    lines += ["## Refused", "",
              "srcad refuses these at build time with a `srcad.SrcadError` naming the file, "
              "line and column (from `srcad.frontend.fence.UNSUPPORTED`):", "",
              "| construct | what to do instead |", "|---|---|"]
    for what, instead in unsupported_table():
        lines.append(f"| {what} | {instead} |")
    for func, what, instead in REFUSED:
        if refuses(func):
            lines.append(f"| {what} | {instead} |")
        else:
            print(f"warning: {func.__name__} is no longer refused; its row is left out")
    untemplated = [name for name, op in (("np.fft.rfftn", np.fft.rfftn),
                                         ("np.gradient", np.gradient),
                                         ("np.fft.hfft", np.fft.hfft)) if not REGISTRY.knows(op)]
    example = (" (today, for example, " + ", ".join(f"`{name}`" for name in untemplated[:2])
               + ")") if untemplated else ""
    lines += ["", f"A call of a callable that has no template{example} is refused the same way; "
              "[templates.md](templates.md) shows how to register one.", ""]
    return "\n".join(lines), failing


def coverage_page():
    rows = srcad.coverage()
    groups = {}
    for row in rows:  # grouped by library module: scipy.stats lists norm.logpdf, t.cdf, ...
        module, _, name = row["name"].rpartition(".")
        library, _, owner = module.rpartition(".")
        if module not in LIBRARY_MODULES and library in LIBRARY_MODULES:
            module, name = library, f"{owner}.{name}"
        groups.setdefault(module, []).append((name, row))
    both = sum(1 for r in rows if r["forward"] and r["reverse"])
    helpers = {id(f) for f in HELPERS.values()}
    constants = sorted({REGISTRY.name_of(op) for key, op in REGISTRY.nondifferentiable.items()
                        if key not in helpers})
    lines = [
        "# Coverage: the callables srcad differentiates",
        "",
        "Generated by `docs/generate.py` (`make docs`) from `srcad.coverage()`; the same list "
        "prints with `srcad coverage`.",
        "",
        f"**{len(rows)} differentiable callables, {both} with both a forward-mode (tangent) and "
        f"a reverse-mode (adjoint) template.** Aliases (`np.concatenate` / `np.concat`, "
        f"`np.arccos` / `np.acos`, ...) share one row under one name. Methods of arrays "
        f"(`x.sum()`, `x.T`, `x.reshape(...)`) use the templates of the matching functions. "
        f"Anything else is refused at build time with a pointer to "
        f"[templates.md](templates.md).",
        "",
        "| module | callables |",
        "|---|---|",
    ]
    for module in sorted(groups):
        lines.append(f"| `{module}` | {len(groups[module])} |")
    lines.append("")
    for module in sorted(groups):
        lines += [f"## `{module}` ({len(groups[module])})", "",
                  "| callable | forward | reverse |", "|---|---|---|"]
        for name, row in groups[module]:
            lines.append(f"| `{name}` | {'yes' if row['forward'] else 'no'} | "
                         f"{'yes' if row['reverse'] else 'no'} |")
        lines.append("")
    lines += [
        f"## Non-differentiable ({len(constants)})", "",
        "These run as written inside differentiated code; their results are constants (a zero "
        "derivative), which is exact wherever they are piecewise constant (rounding, "
        "comparisons, argmax, shapes, constructors of constant arrays).", "",
        ", ".join(f"`{name}`" for name in constants), "",
    ]
    if "builtins.max" in constants or "builtins.min" in constants:
        lines += ["Builtin `max` and `min` are in this list, so `max(a, b)` of two differentiable "
                  "values gets a zero derivative today: write `np.maximum(a, b)` / "
                  "`np.minimum(a, b)` (see [constructs.md](constructs.md)).", ""]
    return "\n".join(lines)


def main():
    coverage = coverage_page()
    constructs, failing = constructs_page()
    for name, text in (("coverage.md", coverage), ("constructs.md", constructs)):
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as handle:
            handle.write(text)
        print(f"wrote docs/{name}")
    supported = len(CONSTRUCTS) - len(failing)
    print(f"{supported} of {len(CONSTRUCTS)} constructs checked and supported; not yet:")
    for construct, error in failing:
        print(f"  {construct.title}: {error}")


if __name__ == "__main__":
    main()
