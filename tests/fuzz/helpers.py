"""Helper-function families: module-level functions that f (or another helper) calls.

    call_expr    h(a, b) in an expression: a helper returning a scalar or an array of the
                 requested shape (made on first need, reused later: called in loops, from other
                 helpers, with other arguments)
    (recursive)  h(a, 2) with h(v, depth) calling itself depth times on a step of v (a
                 share of call_expr's new helpers)
    tuple_call   p, q = h(a, b): a helper returning a tuple the caller unpacks
    list_call    h([x, y]): a helper taking a list of arrays (a loop over it, or xs[0], xs[1])
    generator_call  sum(g([x, y])), list(g(...)): a helper that yields a value per item
    (closures)   about one helper in four is made by a factory and reads a value of its
                 (`scale = 1.0`): a closure, which stays a call
    (methods)    about one in four is a method of an object made at module level, reading
                 self.scale, with a docstring of several lines: the object called, or its
                 bound method bound to the helper's name
    (nested)     about one plain helper in two that f itself calls is defined inside f
                 (srcad lifts it out, and writes it into f where it is small); a function
                 defined in f (stmts.closures) may call it, a helper's body never does

A helper's body is made by the same statement and expression families as f's, in a scope of
its own: its parameters are its variables, the size parameters are not in scope (so shapes come
from its arguments), and its values are not known while generating (the guards check them when
the statement that calls it is validated). A helper may take f's `log` list and append to it.
"""
import zlib
from dataclasses import dataclass

from . import stmts
from .exprs import expr, operand
from .scope import Expr, Var


@dataclass
class Helper:
    name: str
    params: tuple  # ((name, shape), ...)
    returns: tuple  # shapes; one: a single value; two: a tuple
    text: str
    takes_log: bool = False
    takes_list: bool = False
    recursive: bool = False  # h(v, depth): the caller passes a small int depth
    nested: bool = False  # defined at the top of f's body, not at module level


def _scope_for(scope, params):
    inner = scope.child(in_loop=True, sizes_known=False, helper_depth=scope.helper_depth + 1,
                        values=None, long_loop=False, has_k=False)
    inner.vars = {}
    inner.ints = {}
    inner.names = {}
    inner.params = frozenset(name for name, _ in params)
    for name, shape in params:
        inner.add(Var(name, shape, py=shape == ()))
    inner.side_effects = ("log",) if "log" in scope.side_effects else ()
    return inner


# names of srcad's runtime helpers that templates call: a user's function so named must not
# stand in for the helper where the derivative calls it (srcad renames or refuses)
RUNTIME_NAMES = ("logistic", "masked", "safe_mul", "safe_div", "slope_mul", "unbroadcast",
                 "triangle", "unreduce", "unindex")


def _helper_name(scope, body):
    """helper1, helper2, ...; for about one helper in three the name of a runtime helper not
    taken yet, picked by a checksum of its body (not by scope.rng: the programs of a seed stay
    the ones they were, but for these names)."""
    taken = {h.name for h in scope.helpers}
    free = [n for n in RUNTIME_NAMES if n not in taken]
    check = zlib.crc32("\n".join(body).encode())
    if free and check % 3 == 0:
        scope.tags.add("helper_runtime_name")
        return free[check // 3 % len(free)]
    return scope.fresh("helper")


def make_helper(scope, returns):
    """A new helper returning values of these shapes; appended to scope.helpers."""
    shapes = scope.shapes()
    count = scope.rng.randint(1, 3)
    chosen = [scope.pick(shapes) for _ in range(count)]
    for shape in returns:  # an argument of each returned shape keeps the body easy to make
        if shape not in chosen and scope.of_shape(shape):
            chosen.append(shape)
    params = tuple((name, shape) for name, shape in zip("abcd", chosen))
    inner = _scope_for(scope, params)
    takes_log = bool(inner.side_effects) and scope.chance(0.3)
    inner.side_effects = ()
    body = []
    for _ in range(scope.rng.randint(0, 3)):
        family = scope.weighted([(stmts.assign, 4), (stmts.update, 2), (stmts.branch, 1),
                                 (stmts.for_loop, 0.7), (stmts.stores, 0.5)])
        body += family(inner)
    if takes_log:
        body.insert(0, "log.append(1)")
        scope.tags.add("side_effect")
    results = [expr(inner, shape, 2).text for shape in returns]
    name = _helper_name(scope, body + results)
    names = [p for p, _ in params] + (["log"] if takes_log else [])
    text = "\n".join([f"def {name}({', '.join(names)}):"] + stmts.indent(body) +
                     [f"    return {', '.join(results)}"])
    check = zlib.crc32(text.encode())  # (a checksum, not scope.rng: see _helper_name)
    if check % 4 == 1:
        text = _closure(name, body, results, names)
        scope.tags.add("helper_closure")
    elif check % 4 == 3:
        text = _method(name, body, results, names, bound=check // 4 % 2 == 1)
        scope.tags.add("helper_bound_method" if check // 4 % 2 else "helper_callable_object")
    nested = check % 4 in (0, 2) and check // 4 % 2 == 0 and not scope.helper_depth
    if nested:
        scope.tags.add("helper_nested")
    helper = Helper(name, params, tuple(returns), text, takes_log, nested=nested)
    scope.helpers.append(helper)
    scope.tags.add("helper" if len(returns) == 1 else "helper_tuple")
    if scope.helper_depth:
        scope.tags.add("helper_calls_helper")
    return helper


def _closure(name, body, results, names):
    """The helper made by a factory, reading a value of the factory's (a closure: not written
    into its caller; its derivative is specialized at each call, api/callees.py)."""
    scaled = [f"scale * ({r})" for r in results]
    return "\n".join([f"def make_{name}():", "    scale = 1.0", "",
                      f"    def {name}({', '.join(names)}):"] + stmts.indent(body, 2)
                     + [f"        return {', '.join(scaled)}", "", f"    return {name}", "", "",
                        f"{name} = make_{name}()"])


def _method(name, body, results, names, bound):
    """The helper as a method of an object made at module level, reading the object's attribute
    (self.scale), with a docstring of several lines: the object itself called (__call__), or
    its bound method under the helper's name (bound). srcad calls the method's function with
    the object as self."""
    method = "apply" if bound else "__call__"
    scaled = [f"self.scale * ({r})" for r in results]
    home = f"{name.capitalize()}Home"
    return "\n".join([f"class {home}:", "    def __init__(self, scale):",
                      "        self.scale = scale", "",
                      f"    def {method}(self, {', '.join(names)}):",
                      '        """The helper, a method.', "",
                      "        Its docstring has several lines, as methods' do.", '        """']
                     + stmts.indent(body, 2) + [f"        return {', '.join(scaled)}", "", "",
                                                f"{name} = {home}(1.0)"
                                                + (f".{method}" if bound else "")])


_STEPS = ["np.sin(v) * 0.9 + v * 0.1", "np.tanh(v) + 0.5 * v", "0.5 * v - 0.25 * np.cos(v)"]


def recursive_helper(scope, shape):
    """def h(v, depth): return v at depth 0, else h(step(v), depth - 1): a helper that calls
    itself (srcad builds its derivative per call; the depth is an int argument)."""
    name = scope.fresh("helper")
    step = scope.pick(_STEPS)
    text = "\n".join([f"def {name}(v, depth):", "    if depth <= 0:", "        return v",
                      f"    return {name}({step}, depth - 1)"])
    helper = Helper(name, (("v", shape),), (shape,), text, recursive=True)
    scope.helpers.append(helper)
    scope.tags.add("helper_recursive")
    return helper


def _arguments(scope, helper, depth):
    args = [operand(scope, shape, depth).text if scope.chance(0.3)
            else expr(scope, shape, 0).text for _, shape in helper.params]
    if helper.recursive:
        args.append(str(scope.rng.randint(1, 3)))
    if helper.takes_log:
        args.append("log")
    return ", ".join(args)


def _usable(scope, helper):
    """A helper the scope may call: not itself (no recursion), taking log only where log is, and
    one nested in f from f only."""
    return not helper.takes_list and (not helper.takes_log or "log" in scope.side_effects) and \
        not (helper.nested and scope.helper_depth) and \
        all(scope.of_shape(shape) or shape == () for _, shape in helper.params)


def call_expr(scope, shape, depth):
    existing = [h for h in scope.helpers if h.returns == (shape,) and _usable(scope, h)]
    if existing and scope.chance(0.6):
        helper = scope.pick(existing)
        scope.tags.add("helper_reused" if not scope.in_loop else "helper_in_loop")
    else:
        if len(scope.helpers) >= 4:
            return None
        helper = recursive_helper(scope, shape) if scope.chance(0.2) else make_helper(
            scope, (shape,))
    return Expr(f"{helper.name}({_arguments(scope, helper, depth)})", shape, atomic=True)


def tuple_call(scope, depth=2):
    shapes = scope.shapes()
    returns = (scope.pick(shapes), scope.pick(shapes))
    existing = [h for h in scope.helpers if len(h.returns) == 2 and _usable(scope, h)]
    helper = scope.pick(existing) if existing and scope.chance(0.5) else make_helper(scope,
                                                                                     returns)
    names = [scope.fresh("p") for _ in helper.returns]
    for name, shape in zip(names, helper.returns):
        scope.add(Var(name, shape, owned=False))
    return [f"{', '.join(names)} = {helper.name}({_arguments(scope, helper, depth)})"]


LIST_BODIES = [
    ["total = 0.0", "for v in xs:", "    total = total + np.sum(np.sin(v) * v)", "return total"],
    ["total = 0.0", "for v in xs:", "    total = total + np.mean(v ** 2)", "return total"],
    ["total = 1.0", "for i, v in enumerate(xs):",
     "    total = total + (i + 1.0) * np.sum(np.tanh(v))", "return total"],
    ["return np.sum(xs[0] ** 2) * np.sum(np.cos(xs[-1]))"],
    ["first = xs[0]", "rest = 0.0", "for v in xs[1:]:", "    rest = rest + np.sum(v)",
     "return np.sum(first * first) + rest"],
]


def list_call(scope, depth=2):
    """t = helper([x, y, ...]): a helper taking a list of arrays."""
    existing = [h for h in scope.helpers if h.takes_list]
    if existing and scope.chance(0.5):
        helper = scope.pick(existing)
    else:
        body = scope.pick(LIST_BODIES)
        name = scope.fresh("helper")
        helper = Helper(name, (), ((),), "\n".join([f"def {name}(xs):"] + stmts.indent(body)),
                        takes_list=True)
        scope.helpers.append(helper)
    items = [expr(scope, scope.pick(scope.shapes()), 1 if scope.chance(0.3) else 0).text
             for _ in range(scope.rng.randint(2, 3))]
    result = scope.fresh("t")
    scope.add(Var(result, (), owned=True))
    scope.tags.add("helper_list")
    return [f"{result} = {helper.name}([{', '.join(items)}])"]


GENERATOR_BODIES = [
    ["for v in xs:", "    yield np.sin(v) * v"],
    ["for i, v in enumerate(xs):", "    yield (i + 1.0) * np.tanh(v)"],
    ["total = 0.0", "for v in xs:", "    total = total + v", "    yield total * 0.5"],
]


def generator_call(scope, depth=2):
    """t = sum(g([x, y])) or list(g([x, y]))[k]: a helper that yields (srcad reads a call of it
    as the list of what it yields: frontend/generators.py)."""
    shape = scope.pick(scope.shapes())
    name = scope.fresh("helper")
    body = scope.pick(GENERATOR_BODIES)
    helper = Helper(name, (), (), "\n".join([f"def {name}(xs):"] + stmts.indent(body)),
                    takes_list=True)
    scope.helpers.append(helper)
    items = [expr(scope, shape, 1 if scope.chance(0.3) else 0).text
             for _ in range(scope.rng.randint(2, 3))]
    result = scope.fresh("t")
    scope.add(Var(result, shape, owned=True))
    scope.tags.add("helper_generator")
    call = f"{name}([{', '.join(items)}])"
    if scope.chance(0.5):
        return [f"{result} = sum({call}) * 1.0"]
    return [f"{result} = list({call})[{scope.pick([0, -1])}] * 2.0"]
