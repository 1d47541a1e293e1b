"""Statement families: each returns the lines of one random statement (or a short group of
statements that belong together) and records the variables it defines in the scope.

    assign         t = <expr>
    derive         a new variable of a new shape: reductions, slices, fancy reads, .T, ravel,
                   expand_dims, np.concatenate, np.stack, np.outer
    update         x = x * ..., s = s + ..., x += ... (in place only on arrays the program owns)
    stores         y = x.copy() / np.zeros(..) / x * 1.0, then y[i] = .., y[:, j] += ..,
                   y[idx] += .. (repeated indices), y[mask] = 0.0
    views          v = y[1:]; v += .., v = y.reshape(-1); v *= 3, r = y.ravel(); r[0] = ..,
                   y = x; y *= 2 after x = x * 1.0, np.add.at, y.fill(v), y.sort()
    branch         if / elif / else on computed values, assigning a new name in every branch
                   or reassigning an existing one under one branch
    for_loop       range(k) (short: unrolled by srcad; long: kept as a loop), range(n),
                   for row in X, enumerate, zip, nested; accumulations, recurrences, stores,
                   break / continue
    while_loop     counted, or on a computed value
    list_stack     rows = [] (or list(), list(range(0))); rows.append(..) in a loop;
                   np.stack(rows); or rows = [0.0, 0.0, 0.0]; rows[i] = .. in a loop
    helper_stmt    a, b = helper(..) (tuple results), helper([x, y]) (a list of arrays),
                   sum(g([x, y])) (a helper that yields)
    side_effect    log.append(..), counter["calls"] += 1 (counted: a derivative runs them as often)
    python_idioms  [e for v in (a, b)], sum(e for v in ..), {"a": a}; d["c"] = .., {k: e for k, v
                   in d.items()}, a tuple used whole and item by item, [*pair, a], sets of
                   indices, a try that sets a flag, a correlation through np.fft
    normalize      the stable logsumexp, softmax and log-softmax: m = np.max(x, axis=a, ..)
                   subtracted, then added back (m[..., 0], m with keepdims, m[:, None],
                   np.expand_dims) or normalized away; sometimes added back by a factor or
                   read again later (srcad's invariance analysis: inert or not)
    closures       a function defined in f that reads f's variables (def or lambda), called
                   twice; a numpy function bound to a name and called through it
    linalg         numpy.linalg on a well-conditioned matrix made from the program's values:
                   solve (with A or A.T), inv, det, slogdet, cholesky, a solve with the
                   Cholesky factor, and a Gaussian process's evidence (solve and slogdet, or
                   cholesky and solve, of one matrix: srcad factors it once)
    argument_mask  a bool argument whose values decide shapes: x[keep], np.where(keep, ..), a
                   list grown under `if keep[i]`, np.nonzero(keep), a slice bound or a loop's
                   length counted from it
    early_return   a loop with `return` inside (the last statement group of f)
"""
import re
import zlib

from . import exprs
from .exprs import expr, number, operand
from .scope import Expr, Var, broadcast, dim_text, minus, reduced, shape_text


def indent(lines, levels=1):
    return ["    " * levels + line for line in lines]


def target_shape(scope, arrays=0.75):
    shapes = scope.shapes()
    arrays_ = [s for s in shapes if s]
    if arrays_ and scope.chance(arrays):
        return scope.pick(arrays_)
    return ()


def assign(scope, depth=3):
    shape = target_shape(scope)
    e = expr(scope, shape, depth)
    name = scope.fresh("t")
    scope.add(Var(name, shape, py=e.py, owned=e.owned, positive=e.positive))
    return [f"{name} = {e.text}"]


def derive(scope, depth=2):
    """A new variable whose shape is not among the shapes so far."""
    arrays = [v for v in scope.arrays(1) if not v.py]
    if not arrays:
        return assign(scope)
    v = scope.pick(arrays)
    s = v.shape
    options = ["reduce", "slice", "transpose", "expand", "stack", "concat", "outer", "fancy",
               "ravel"]
    kind = scope.pick(options)
    source = operand(scope, s, depth) if scope.chance(0.5) else exprs.leaf(scope, s)
    e, shape = None, None
    if kind == "reduce":
        axis = scope.pick(list(range(len(s))) + [None])
        keep = scope.chance(0.3)
        name = scope.pick(["sum", "mean", "max", "min"])
        shape = s[:axis] + ((1,) if keep else ()) + s[axis + 1:] if axis is not None else \
            ((1,) * len(s) if keep else ())
        args = ("" if axis is None else f", axis={axis}") + (", keepdims=True" if keep else "")
        e = f"np.{name}({source.text}{args})"
        scope.tags.add(f"reduce_{name}")
    elif kind == "slice" and scope.min_size(s[0]) >= 2:
        e, shape = f"{v.name}[1:]", (minus(s[0], 1),) + s[1:]
        if len(s) == 2 and scope.min_size(s[1]) >= 2 and scope.chance(0.5):
            e, shape = f"{v.name}[:, :-1]", (s[0], minus(s[1], 1))
        scope.tags.add("read_slice")
    elif kind == "fancy" and scope.min_size(s[0]) >= 3:
        e, shape = f"{v.name}[np.array([0, 2, 0])]", (3,) + s[1:]
        scope.tags.add("read_fancy")
    elif kind == "transpose" and len(s) == 2:
        e, shape = f"{source.atom()}.T", (s[1], s[0])
        scope.tags.add("transpose")
    elif kind == "ravel" and len(s) == 2:
        e, shape = f"{source.atom()}.ravel()", (exprs._product_dim(*s),)
        scope.tags.add("ravel")
    elif kind == "expand" and len(s) == 1:
        e, shape = scope.pick([(f"{source.atom()}[:, None]", (s[0], 1)),
                               (f"np.expand_dims({source.text}, 0)", (1, s[0]))])
        scope.tags.add("expand_dims")
    elif kind == "stack" and len(s) == 1:
        other = operand(scope, s, depth)
        e, shape = f"np.stack([{source.text}, {other.text}])", (2, s[0])
        if scope.chance(0.4):
            e, shape = f"np.stack([{source.text}, {other.text}], axis=1)", (s[0], 2)
        scope.tags.add("stack")
    elif kind == "concat" and len(s) == 1:
        w = scope.pick([u for u in scope.arrays(1) if u.ndim == 1 and not u.py])
        d = f"{dim_text(s[0])} + {dim_text(w.shape[0])}" if not (
            isinstance(s[0], int) and isinstance(w.shape[0], int)) else s[0] + w.shape[0]
        e, shape = f"np.concatenate([{source.text}, {w.name}])", (d,)
        scope.tags.add("concatenate")
    elif kind == "outer" and len(s) == 1:
        w = scope.pick([u for u in scope.arrays(1) if u.ndim == 1 and not u.py])
        e, shape = f"np.outer({source.text}, {w.name})", (s[0], w.shape[0])
        scope.tags.add("product_outer")
    if e is None:
        return assign(scope)
    name = scope.fresh("t")
    scope.add(Var(name, shape, owned=kind in ("reduce", "fancy", "stack", "concat", "outer")))
    return [f"{name} = {e}"]


def _into(scope, shape):
    """A shape that broadcasts into `shape` (for in-place updates: the result keeps its shape)."""
    return scope.pick([s for s in scope.shapes() if broadcast(shape, s) == shape] or [()])


def update(scope, depth=2):
    """Reassign or update an existing variable (arguments included)."""
    candidates = list(scope.vars.values())
    if not candidates:
        return assign(scope)
    v = scope.pick(candidates)
    in_place = (v.shape and v.owned) or (not v.shape and (v.py or v.owned))
    if in_place and scope.chance(0.5):
        op = scope.weighted([("+=", 3), ("-=", 2), ("*=", 2), ("/=", 1), ("**=", 0.3)])
        if op == "**=":
            scope.tags.add("augassign_pow")
            v.positive = False
            return [f"{v.name} **= 2"]
        e = exprs.denominator(scope, _into(scope, v.shape), depth) if op == "/=" else \
            expr(scope, _into(scope, v.shape), depth)
        scope.tags.add("augassign" if not v.shape else "augassign_array")
        v.positive = v.positive and e.positive and op in ("+=", "*=", "/=")
        v.py = v.py and e.py
        return [f"{v.name} {op} {e.text}"]
    e = expr(scope, _into(scope, v.shape), depth)
    form = scope.pick(["{v} * {e}", "{v} + {e}", "0.5 * {v} + {e}", "np.tanh({v}) * 1.5",
                       "{v} - {e}", "{e} * {v} - {v}"])
    if v.name in scope.params:
        scope.tags.add("reassign_argument")
    scope.add(Var(v.name, v.shape, py=v.py and e.py, owned=True))
    return [f"{v.name} = {form.format(v=v.name, e=e.atom())}"]


# -- stores ---------------------------------------------------------------------------------------

def _create(scope, shape):
    """Lines that make a new array y of this shape that the program owns, and y's name."""
    y = scope.fresh("y")
    sources = [v for v in scope.of_shape(shape) if not v.py]
    forms = []
    if sources:
        v = scope.pick(sources).name
        forms += [("copy", f"{v}.copy()"), ("copy", f"np.copy({v})"), ("times_one", f"{v} * 1.0"),
                  ("zeros_like", f"np.zeros_like({v})"), ("ones_like", f"np.ones_like({v})"),
                  ("np_array", f"np.array({v})"), ("plus_zero", f"{v} + 0.0")]
    if scope.sizes_known:
        forms += [("zeros", f"np.zeros({shape_text(shape)})"),
                  ("ones", f"np.ones({shape_text(shape)})")]
    if not forms:
        return None, None
    if scope.chance(0.08):  # (an int array: a float stored into it is rounded, no derivative)
        forms = [("zeros_int", f"np.zeros({shape_text(shape)}, dtype=int)")] if (
            scope.sizes_known) else [("zeros_like_int", f"np.zeros_like({v}, dtype=int)")]
    tag, form = scope.pick(forms)
    scope.tags.add("create_" + tag)
    scope.add(Var(y, shape, owned=True))
    return [f"{y} = {form}"], y


def _store_line(scope, y, shape, depth):
    """One store into y (of shape `shape`)."""
    first = scope.min_size(shape[0])
    options = ["index", "index", "mask"]
    if first >= 2:
        options += ["tail"]
    if first >= 3:
        options += ["repeated"]
    if len(shape) == 2:
        options += ["column", "element"]
    kind = scope.pick(options)
    op = scope.weighted([("=", 3), ("+=", 3), ("-=", 1), ("*=", 1)])
    scope.tags.add(f"store_{kind}")
    if kind == "index":
        i = scope.pick([0, 1, -1] if first >= 2 else [0, -1])
        e = expr(scope, _into(scope, shape[1:]), depth)
        return f"{y}[{i}] {op} {e.text}"
    if kind == "tail":
        e = expr(scope, _into(scope, (minus(shape[0], 1),) + shape[1:]), depth)
        return f"{y}[1:] {op} {e.text}"
    if kind == "repeated":
        index = scope.pick(["np.array([0, 2, 0])", "np.array([1, 1])", "[0, 2, 0]"])
        count = 2 if index == "np.array([1, 1])" else 3
        e = expr(scope, _into(scope, (count,) + shape[1:]), depth)
        scope.tags.add("repeated_index")
        return f"{y}[{index}] {op} {e.text}"
    if kind == "column":
        j = scope.pick([0, -1])
        e = expr(scope, _into(scope, (shape[0],)), depth)
        return f"{y}[:, {j}] {op} {e.text}"
    if kind == "element":
        e = expr(scope, (), depth)
        return f"{y}[0, -1] {op} {e.text}"
    # a mask of y's shape from values known now (y itself as created, or another variable)
    others = [v for v in scope.of_shape(shape) if v.name != y and not v.py]
    base = scope.pick(others).name if others else y
    threshold = scope.threshold(base)
    value = scope.pick(["0.0", "0.5", f"{number(scope).atom()}"])
    masked = scope.pick([f"{y}[{base} > {threshold!r}] = {value}",
                         f"{y}[{base} < {threshold!r}] *= 2.0"])
    return masked


def stores(scope, depth=2):
    shapes = [s for s in scope.shapes(min_ndim=1, max_ndim=2)]
    if not shapes:
        return assign(scope)
    shape = scope.pick(shapes)
    lines, y = _create(scope, shape)
    if lines is None:
        return assign(scope)
    for _ in range(scope.rng.randint(1, 3)):
        lines.append(_store_line(scope, y, shape, depth))
    return lines


def _owned_array(scope, min_ndim=1, max_ndim=2):
    """An array the program owns (made here if there is none): (lines, var)."""
    owned = [v for v in scope.arrays(min_ndim) if v.owned and not v.py and v.ndim <= max_ndim]
    if owned and scope.chance(0.7):
        return [], scope.pick(owned)
    shapes = scope.shapes(min_ndim=min_ndim, max_ndim=max_ndim)
    if not shapes:
        return None, None
    lines, name = _create(scope, scope.pick(shapes))
    if lines is None:
        return None, None
    return lines, scope.vars[name]


def views(scope, depth=2):
    """Writes through views and aliases, and in-place methods."""
    kind = scope.pick(["slice_view", "reshape_view", "ravel_view", "alias", "add_at", "fill",
                       "sort", "column_view", "transpose_view", "slice_view"])
    scope.tags.add(f"view_{kind}")
    if kind == "alias":
        x = scope.pick([v for v in scope.arrays(1) if not v.py] or [None])
        if x is None:
            return assign(scope)
        y = scope.fresh("y")
        e = expr(scope, _into(scope, x.shape), depth)
        op = scope.pick(["*= 2.0", f"+= {e.text}", "-= 0.5", f"*= {e.atom()}"])
        lines = [f"{x.name} = {x.name} * 1.0", f"{y} = {x.name}", f"{y} {op}"]
        scope.add(Var(x.name, x.shape, owned=True))
        scope.add(Var(y, x.shape, owned=True))
        return lines
    lines, y = _owned_array(scope, max_ndim=1 if kind == "sort" else 2)
    if lines is None:
        return assign(scope)
    s = y.shape
    v = scope.fresh("v")
    if kind == "slice_view" and scope.min_size(s[0]) >= 2:
        tail = (minus(s[0], 1),) + s[1:]
        e = expr(scope, _into(scope, tail), depth)
        write = scope.pick([f"{v} += {e.text}", f"{v} *= {number(scope).atom()}",
                            f"{v}[0] = {expr(scope, s[1:], depth).text}", f"{v} -= {e.text}"])
        scope.add(Var(v, tail, owned=True))
        return lines + [f"{v} = {y.name}[1:]", write]
    if kind in ("reshape_view", "ravel_view"):
        make = f"{y.name}.reshape(-1)" if kind == "reshape_view" else f"{y.name}.ravel()"
        flat = (s[0] if len(s) == 1 else exprs._product_dim(*s),)
        write = scope.pick([f"{v} *= 3.0", f"{v}[0] = {expr(scope, (), depth).text}",
                            f"{v}[-1] += {expr(scope, (), depth).text}"])
        scope.add(Var(v, flat, owned=True))
        return lines + [f"{v} = {make}", write]
    if kind == "add_at" and scope.min_size(s[0]) >= 3:
        index = scope.pick(["np.array([0, 2, 0])", "np.array([1, 0, 1])"])
        e = expr(scope, _into(scope, (3,) + s[1:]), depth)
        return lines + [f"np.add.at({y.name}, {index}, {e.text})"]
    if kind == "fill":
        e = expr(scope, (), depth)
        return lines + [f"{y.name}.fill({e.text})"]
    if kind == "sort":
        return lines + [f"{y.name}.sort()"]
    if kind == "column_view" and len(s) == 2:
        e = expr(scope, _into(scope, (s[0],)), depth)
        scope.add(Var(v, (s[0],), owned=True))
        return lines + [f"{v} = {y.name}[:, 0]", f"{v} -= {e.text}"]
    if kind == "transpose_view" and len(s) == 2:
        e = expr(scope, _into(scope, (s[0],)), depth)
        scope.add(Var(v, (s[1], s[0]), owned=True))
        return lines + [f"{v} = {y.name}.T", f"{v}[0] += {e.text}"]
    e = expr(scope, _into(scope, s), depth)
    return lines + [f"{y.name} *= {e.atom()}"]


# -- control flow ---------------------------------------------------------------------------------

def _body(scope, count, families):
    lines = []
    for _ in range(count):
        family = scope.weighted(families)
        lines += family(scope)
    return lines


def branch(scope, depth=2):
    """if / elif / else on computed values."""
    shape = target_shape(scope, 0.6)
    existing = [v for v in scope.vars.values() if v.shape == shape]
    reassign = existing and scope.chance(0.4)
    target = scope.pick(existing).name if reassign else scope.fresh("t")
    conditions = [exprs.condition(scope)]
    if scope.chance(0.35):
        conditions.append(exprs.condition(scope))
        scope.tags.add("elif")
    has_else = not reassign or scope.chance(0.5)
    lines, results = [], []
    for k, cond in enumerate(conditions + ([None] if has_else else [])):
        inner = scope.child()
        body = _body(inner, scope.rng.randint(0, 1), [(assign, 1), (update, 1)])
        e = expr(inner, shape, depth)
        results.append(e)
        body.append(f"{target} = {e.text}")
        head = "if" if k == 0 else "elif" if cond is not None else "else"
        lines.append(f"{head} {cond}:" if cond is not None else "else:")
        lines += indent(body)
    scope.tags.add("if_reassign" if reassign else "if")
    owned = all(e.owned for e in results) and (not reassign or scope.vars[target].owned)
    scope.add(Var(target, shape, owned=owned, py=all(e.py for e in results) and (
        not reassign or scope.vars[target].py)))
    return lines


def _bounded(scope, shape, depth):
    """An expression of this shape whose size stays moderate: for loop bodies."""
    e = expr(scope, shape, depth)
    form = scope.pick(["np.sin({t})", "np.tanh({t})", "np.cos({t})", "{t}"])
    if form == "{t}" and scope.long_loop:
        form = "np.tanh({t})"
    return form.format(t=e.text)


def _state(scope):
    """Lines before a loop and the name of the state it updates: an accumulator, a copy, or an
    existing variable (arguments too)."""
    kind = scope.pick(["zero", "zero", "copy", "existing"])
    shape = target_shape(scope, 0.5)
    if kind == "existing":
        candidates = [v for v in scope.vars.values() if v.shape == shape]
        if candidates:
            v = scope.pick(candidates)
            if v.name in scope.params:
                scope.tags.add("reassign_argument")
            return [], v.name, v.shape
    name = scope.fresh("s" if not shape else "acc")
    if kind == "copy" and scope.of_shape(shape):
        source = scope.pick(scope.of_shape(shape)).name
        init = f"{source} * 1.0"
    elif shape and scope.sizes_known:
        init = f"np.zeros({shape_text(shape)})"
    elif shape:
        source = scope.pick(scope.of_shape(shape)).name
        init = f"np.zeros_like({source})"
    else:
        init = "0.0"
    scope.add(Var(name, shape, py=init == "0.0", owned=True))
    return [f"{name} = {init}"], name, shape


def _accumulate(scope, state, shape, depth=2):
    value = _bounded(scope, _into(scope, shape), depth)
    c = abs(scope.constant(0.1, 1.0))
    if scope.long_loop:
        form = scope.pick(["{s} = 0.9 * {s} + {c} * {v}", "{s} = {s} + 0.05 * {v}"])
    else:
        form = scope.pick(["{s} = {s} + {v}", "{s} = {s} + {c} * {v}", "{s} += {c} * {v}",
                           "{s} = 0.9 * {s} + {v}", "{s} = {s} * 0.5 + {c} * {v}",
                           "{s} -= {v}"])
    if "+=" in form or "-=" in form:
        scope.tags.add("loop_augassign")
    return [form.format(s=state, c=c, v=value)]


def _recurrence(scope, state, shape, depth=2):
    squares = [v for v in scope.vars.values() if len(shape) == 1 and v.shape == (shape[0],) * 2]
    if squares and scope.chance(0.6):
        W = scope.pick(squares).name
        e = expr(scope, _into(scope, shape), depth - 1)
        scope.tags.add("recurrence_matmul")
        return [f"{state} = np.tanh({W} @ {state} + {e.atom()})"]
    e = expr(scope, _into(scope, shape), depth - 1)
    return [f"{state} = np.tanh({state} * {e.atom()} + 0.1)"]


def _reset(scope, inner, state, shape):
    """A value the loop reads and then overwrites with one no derivative flows through (a mask,
    ones): the adjoint of the overwritten value must not reach the turn before."""
    m = scope.fresh("m")
    start = expr(scope, shape, 1)
    use = _bounded(inner, _into(inner, shape), 1)
    reset = scope.pick([f"{m} > {abs(scope.constant(0.1, 1.0))}", f"np.ones_like({m})",
                        f"np.ones(np.shape({m}))", f"np.sign({m})"])
    scope.tags.add("loop_reset")
    return [f"{m} = {start.text} * 1.0"], [f"{state} = {state} + {m} * {use}", f"{m} = {reset}"]


def _loop_control(scope, index):
    kind = scope.pick(["continue_int", "break_int", "break_value", "continue_value"])
    scope.tags.add(kind.split("_")[0])
    if kind.endswith("int") and index is not None:
        c = scope.rng.randint(0, 2)
        return [f"if {index} == {c}:", "    continue"] if kind.startswith("continue") else \
            [f"if {index} > {c + 1}:", "    break"]
    return [f"if {exprs.condition(scope)}:", f"    {kind.split('_')[0]}"]


def for_loop(scope, depth=2):
    kinds = ["range_k", "range_dim", "rows", "enumerate", "zip", "range_1", "nested"]
    if not scope.has_k:
        kinds.remove("range_k")
    kind = scope.pick(kinds)
    lines, state, shape = _state(scope)
    inner = scope.child(in_loop=True, long_loop=scope.long_loop and kind == "range_k")
    index = None
    element = None  # (name, shape) of the element a loop over values binds
    arrays1 = [v for v in scope.arrays(1) if not v.py]
    if kind in ("rows", "enumerate", "zip") and not arrays1:
        kind = "range_dim"
    if kind == "range_k":
        head = "for i in range(k):"
        index = "i"
        inner.ints["i"] = "k"
        scope.tags.add("loop_long" if scope.long_loop else "loop_short")
    elif kind in ("range_dim", "range_1", "nested"):
        dims = sorted({d for v in arrays1 for d in v.shape[:1]} | {3}, key=repr)
        d = scope.pick(dims)
        holders = [v for v in arrays1 if v.shape[0] == d]
        count = dim_text(d) if isinstance(d, int) or scope.sizes_known or not holders else None
        if count is None or (holders and scope.chance(0.4)):
            holder = scope.pick(holders) if holders else None
            count = scope.pick([f"len({holder.name})", f"{holder.name}.shape[0]"]) \
                if holder else str(d)
        start = "1, " if kind == "range_1" else ""
        head = f"for i in range({start}{count}):"
        index = "i"
        inner.ints["i"] = d
        scope.tags.add(f"loop_{kind}")
    elif kind == "rows":
        x = scope.pick(arrays1)
        head = f"for row in {x.name}:"
        element = ("row", x.shape[1:])
        scope.tags.add("loop_rows")
    elif kind == "enumerate":
        x = scope.pick(arrays1)
        head = f"for i, row in enumerate({x.name}):"
        index, element = "i", ("row", x.shape[1:])
        inner.ints["i"] = None
        scope.tags.add("loop_enumerate")
    else:
        x = scope.pick(arrays1)
        partners = [v for v in arrays1 if v.shape[0] == x.shape[0]]
        y = scope.pick(partners)
        head = f"for a, b in zip({x.name}, {y.name}):"
        inner.add(Var("a", x.shape[1:], py=x.ndim == 1))
        element = ("b", y.shape[1:])
        scope.tags.add("loop_zip")
    if element is not None:
        inner.add(Var(element[0], element[1], py=not element[1]))
    body = []
    for _ in range(scope.rng.randint(1, 2)):
        choice = scope.weighted([("accumulate", 4), ("recurrence", 1), ("store", 1),
                                 ("control", 0.8), ("side", 0.3 if scope.side_effects else 0),
                                 ("reset", 0.5), ("gated", 0.6 if len(shape) == 1 else 0)])
        if choice == "accumulate":
            body += _accumulate(inner, state, shape)
        elif choice == "gated":
            before, turn = _gated(scope, inner, state, shape)
            lines += before
            body += turn
        elif choice == "reset":
            before, turn = _reset(scope, inner, state, shape)
            lines += before
            body += turn
        elif choice == "recurrence" and shape:
            body += _recurrence(inner, state, shape)
        elif choice == "store":
            body += _loop_store(inner, index) or _accumulate(inner, state, shape)
        elif choice == "control":
            body = _loop_control(inner, index) + body
        elif choice == "side":
            body += side_effect(inner)
        else:
            body += _accumulate(inner, state, shape)
    if kind == "nested":
        inner_lines = ["for j in range(2):"] + indent(_accumulate(inner, state, shape))
        body += inner_lines
        scope.tags.add("loop_nested")
    if not any(line.lstrip().startswith(state) for line in body):
        body += _accumulate(inner, state, shape)
    scope.add(Var(state, shape, owned=True, py=False))
    return lines + [_checkpointed(scope, head, body)] + indent(body)


def _gated(scope, inner, state, shape):
    """(lines before the loop, lines of its body): a turn's two gates, slices of one stacked
    vector bounded by a size read before the loop, g[:n] and g[n:2 * n] (an LSTM's turn;
    frontend/sizes.py binds 2 * n once, before the loop, and the gates' adjoints are stored
    into disjoint slices of fresh zeros)."""
    holders = [v for v in scope.arrays(1) if not v.py and v.shape == shape]
    if not holders:
        return [], _accumulate(inner, state, shape)
    size, g = scope.fresh("n"), inner.fresh("g")
    read = scope.pick([f"{scope.pick(holders).name}.shape[0]", f"len({scope.pick(holders).name})"])
    first, second = expr(inner, shape, 1), expr(inner, shape, 1)
    scope.tags.add("loop_gated")
    return [f"{size} = {read}"], [
        f"{g} = np.concatenate([{first.text}, {second.text}])",
        f"{state} = {state} + {scope.constant()!r} * np.tanh({g}[:{size}]) * "
        f"np.sin({g}[{size}:2 * {size}])"]


def _checkpointed(scope, head, body):
    """Sometimes the loop marked srcad.checkpoint (reverse mode keeps every k-th state and runs
    stretches again): where srcad allows it, a range loop not inside another loop whose body
    breaks, stores into arrays and appends nowhere."""
    text = "\n".join(body)
    if not head.startswith("for i in range(") or scope.in_loop or any(
            word in text for word in ("break", ".append(", "] =", "] +=", "] -=", "] *=")):
        return head
    if not scope.chance(0.3):
        return head
    every = scope.pick(["", ", every=1", ", every=2", ", every=3"])
    scope.tags.add("checkpoint")
    return f"for i in srcad.checkpoint({head[len('for i in '):-1]}{every}):"


def _loop_store(scope, index):
    if index is None or scope.ints.get(index) is None:
        return None
    d = scope.ints[index]
    owned = [v for v in scope.vars.values() if v.owned and v.shape and v.shape[0] == d
             and not v.py]
    if not owned:
        return None
    y = scope.pick(owned)
    e = _bounded(scope, _into(scope, y.shape[1:]), 2)
    op = scope.pick(["=", "+=", "*="])
    scope.tags.add("loop_store")
    return [f"{y.name}[{index}] {op} {e}"]


def while_loop(scope, depth=2):
    if scope.chance(0.5):
        lines, state, shape = _state(scope)
        count = "k" if scope.has_k and scope.chance(0.5) else str(scope.rng.randint(2, 5))
        inner = scope.child(in_loop=True, long_loop=scope.long_loop and count == "k")
        j = scope.fresh("j")
        body = _accumulate(inner, state, shape) + [f"{j} += 1"]
        scope.tags.add("while_counted")
        scope.add(Var(state, shape, owned=True))
        return lines + [f"{j} = 0", f"while {j} < {count}:"] + indent(body)
    start_value = exprs.reduction(scope, (), 1) or exprs.read(scope, (), 1) or \
        exprs.leaf(scope, ())
    base = exprs.Expr(f"1.0 + {start_value.atom()} ** 2", (), positive=True)
    w, c = scope.fresh("w"), scope.fresh("c")
    start = scope.evaluate(base.text)
    top = float(max(float(v) for v in start)) if start else 1.0
    threshold = round(top * scope.rng.uniform(1.5, 6.0) + 0.37, 2)
    growth = scope.pick(["{w} = {w} * 1.5 + 0.1", "{w} = {w} * {w} + 0.3",
                         "{w} = {w} * 1.3 + 0.2 * np.tanh({w})"])
    scope.tags.add("while_value")
    scope.add(Var(w, (), owned=True))
    return [f"{w} = {base.text}", f"{c} = 0", f"while {w} < {threshold!r} and {c} < 30:",
            "    " + growth.format(w=w), f"    {c} += 1", f"{w} = {w} * {c}"]


def list_stack(scope, depth=2):
    shape = target_shape(scope, 0.7)
    rows = scope.fresh("rows")
    count_options = [("3", 3)]
    if scope.has_k and not scope.long_loop:
        count_options.append(("k", "k"))
    arrays1 = [v for v in scope.arrays(1) if not v.py]
    if scope.sizes_known:
        count_options += [(dim_text(d), d) for d in sorted({v.shape[0] for v in arrays1},
                                                           key=repr)
                          if isinstance(d, str) and d in ("n", "m")]
    count, dim = scope.pick(count_options)
    inner = scope.child(in_loop=True)
    inner.ints["i"] = dim if isinstance(dim, str) else None
    e = expr(inner, shape, depth)
    item = scope.pick([f"{e.atom()} * (i + 1)", f"np.sin({e.text} * i)", f"{e.atom()} + i",
                       e.text])
    how = scope.pick(["np.stack({r})", "np.stack({r})", "np.array({r})", "np.stack({r}, axis=-1)"])
    result = scope.fresh("t")
    new_shape = (dim,) + shape if "axis=-1" not in how else shape + (dim,)
    scope.tags.add("list_" + how.split("(")[0].split(".")[1])
    scope.add(Var(result, new_shape, owned=True))
    if count == "3" and scope.chance(0.3):  # a display of three items, stored into by index
        zero = "0.0" if not shape else f"np.zeros({shape_text(shape)})"
        scope.tags.add("list_store")
        return [f"{rows} = [{zero}, {zero}, {zero}]", f"for i in range({count}):",
                f"    {rows}[i] = {item}", f"{result} = {how.format(r=rows)}"]
    if zlib.crc32(item.encode()) % 3 == 0:  # a trajectory: each item from the one before,
        zero = "0.0" if not shape else f"np.zeros({shape_text(shape)})"  # read from the end
        scope.tags.add("list_trajectory")  # (picked by a checksum: seeds keep their programs)
        return [f"{rows} = [{zero}]", f"for i in range({count}):",
                f"    {rows}.append(np.tanh({rows}[-1]) * 0.9 + {item})",
                f"{result} = {how.format(r=rows + '[1:]')}"]
    made = scope.pick(["[]", "[]", "list()", "list(range(0))"])  # (each an empty list)
    if made != "[]":
        scope.tags.add("list_made_by_call")
    return [f"{rows} = {made}", f"for i in range({count}):", f"    {rows}.append({item})",
            f"{result} = {how.format(r=rows)}"]


def helper_stmt(scope, depth=2):
    from .helpers import generator_call, list_call, tuple_call
    if scope.helper_depth >= 1:
        return assign(scope)
    return scope.weighted([(tuple_call, 0.55), (list_call, 0.3), (generator_call, 0.15)])(
        scope, depth)


def side_effect(scope, depth=1):
    if not scope.side_effects:
        return assign(scope)
    name = scope.pick(scope.side_effects)
    scope.tags.add("side_effect")
    if name == "log":
        return [f"log.append({scope.pick(['1', '0.5', 'len(log)'])})"]
    return ['counter["calls"] += 1']


def python_idioms(scope, depth=2):
    """The Python around the calculus (srcad's frontend/statements.py and starred.py): list
    comprehensions and generator expressions over a tuple of arrays, dicts built and stored
    into, dict comprehensions over .items(), a tuple used whole and item by item, *a in a
    display, a list or tuple repeated by a count. The result is a new variable of the items'
    shape."""
    shape = target_shape(scope, 0.8)
    items = [exprs.leaf(scope, shape) if scope.chance(0.5) else expr(scope, shape, depth - 1)
             for _ in range(scope.pick([2, 3]))]
    texts = [e.text for e in items]
    inner = scope.child(in_loop=True)
    v = inner.fresh("v")
    inner.add(Var(v, shape))
    body = expr(inner, shape, depth)
    if v not in body.text:
        body = Expr(f"{body.atom()} * {v}", shape)
    result = scope.fresh("t")
    kinds = ["listcomp", "genexpr", "dict", "dictcomp", "whole_and_item", "starred", "sets",
             "try_flag", "pairs_loop", "nested_rows", "zip_loop", "repeated"] + (
        ["fft", "selected"] if shape else [])
    kind = scope.pick(kinds)
    scope.tags.add("idiom_" + kind)
    display = "(" + ", ".join(texts) + ("," if len(texts) == 1 else "") + ")"
    if kind == "listcomp":
        lst = scope.fresh("items")
        lines = [f"{lst} = [{body.text} for {v} in {display}]",
                 f"{result} = np.sum(np.stack({lst}), axis=0) if len({lst}) > 1 else {lst}[0]"
                 if shape else f"{result} = sum({lst}) * 1.0"]
        if shape:
            lines[1] = f"{result} = np.stack({lst})[0] + {lst}[-1]"
    elif kind == "genexpr":
        lines = [f"{result} = sum({body.text} for {v} in {display}) * 1.0"]
    elif kind == "dict":
        d = scope.fresh("d")
        lines = [f'{d} = {{"a": {texts[0]}, "b": {texts[1]}}}',
                 f'{d}["c"] = {d}["a"] * {scope.constant()!r} + {d}["b"]',
                 f'{result} = {d}["c"] * {d}["b"]']
    elif kind == "dictcomp":
        d, e = scope.fresh("d"), scope.fresh("d")
        lines = [f'{d} = dict(a={texts[0]}, b={texts[1]})',
                 f"{e} = {{key: {body.text} for key, {v} in {d}.items()}}",
                 f'{result} = {e}["a"] + {e}["b"] * {d}["a"]']
    elif kind == "whole_and_item":
        pair = scope.fresh("pair")
        made = display
        if shape and zlib.crc32(display.encode()) % 2:  # (a call's tuple: np.split's; picked
            made = f"np.split(np.concatenate({display}), {len(texts)})"  # by a checksum, so
            # every seed keeps its program)
        lines = [f"{pair} = {made}",
                 f"{result} = {pair}[0] * {pair}[1] + np.stack({pair})[-1]"]
    elif kind == "sets":
        picked = scope.fresh("picked")
        lines = [f"{picked} = sorted({{k % 2 for k in range(3)}} | {{1}})",
                 f"{result} = {display}[{picked}[-1]] * len({picked}) + {texts[0]}"]
    elif kind == "try_flag":  # (a try binds constants: a flag, whatever the data)
        ok = scope.fresh("ok")
        threshold = round(scope.rng.uniform(-1.0, 1.0), 2)
        lines = [f"{ok} = True", "try:", f"    if np.sum({texts[0]}) > {threshold!r}:",
                 '        raise ValueError("large")', "except ValueError:", f"    {ok} = False",
                 f"{result} = {texts[0]} * 2.0 if {ok} else {texts[1]} - {texts[0]}"]
    elif kind == "pairs_loop":  # a list of tuples, unpacked by a for target
        pairs, k, u, w = (scope.fresh(p) for p in ("pairs", "k", "u", "w"))
        a, b = texts[0], texts[-1]
        lines = [f"{pairs} = [({a}, {b}), ({b}, {texts[1]})]", f"{result} = {a} * 0.5",
                 f"for {k}, ({u}, {w}) in enumerate({pairs}):",
                 f"    {result} = {result} + ({k} + 1.0) * {u} * {w}"]
    elif kind == "nested_rows":  # a list of lists, one item of it read twice
        rows = scope.fresh("rows")
        lines = [f"{rows} = [[{texts[0]}, {texts[1]}], [{texts[-1]}, {texts[0]}, {texts[1]}]]",
                 f"{result} = {rows}[0][1] * {rows}[1][2] + {rows}[1][0] * {rows}[1][1]"]
    elif kind == "zip_loop":  # pairs of items of two displays
        u, w = scope.fresh("u"), scope.fresh("w")
        lines = [f"{result} = {texts[0]} * 0.0",
                 f"for {u}, {w} in zip([{', '.join(texts)}], ({texts[-1]}, {texts[0]})):",
                 f"    {result} = {result} + {u} * {w}"]
    elif kind == "repeated":  # a list or tuple repeated by a count: each item's adjoint
        reps, count = scope.fresh("reps"), scope.pick(["2", "3", "(1 + 1)"])  # adds its copies'
        form = scope.pick(["list", "tuple", "count_first"])
        made = {"list": f"[{texts[0]}, {texts[-1]}] * {count}",
                "tuple": f"({texts[0]}, {texts[-1]}) * {count}",
                "count_first": f"{count} * [{texts[0]}]"}[form]
        lines = [f"{reps} = {made}"]
        if form == "list" and scope.chance(0.5):  # (an item replaced: the list is stored into)
            lines.append(f"{reps}[1] = {reps}[0] * {scope.constant()!r}")
        lines.append(f"{result} = {reps}[-1] * {reps}[0] + sum({reps}) * 0.5")
    elif kind == "selected":  # entries picked by their values: the selection's size is
        picked = scope.fresh("picked")  # decided by them (the call at other values: another)
        lines = [f"{picked} = {texts[0]}[{texts[-1]} > {scope.constant(-0.5, 0.5)!r}]",
                 f"{result} = {texts[0]} * (1.0 + np.sum(np.tanh({picked})) / (1.0 + "
                 f"{picked}.size))"]
    elif kind == "fft":  # a circular correlation through complex values: real again
        z = scope.fresh("z")
        lines = [f"{z} = np.fft.rfft({texts[0]}) * np.conj(np.fft.rfft({texts[1]}))",
                 f"{result} = np.fft.irfft({z} * (1.0 - 0.5j), n=np.shape({texts[0]})[-1])"]
    else:
        pair = scope.fresh("pair")
        lines = [f"{pair} = {display}",
                 f"{result} = np.stack([*{pair}, {texts[0]}])[1] * {pair}[0]"]
    scope.add(Var(result, shape, owned=True))
    return lines


def _broadcast_back(scope, m, ndim, axis):
    """m (reduced over axis without keepdims) as an operand of the array it came from."""
    if ndim == 1:
        return scope.pick([m, f"{m}[None]", f"np.expand_dims({m}, 0)"])
    if axis == 0:
        return scope.pick([m, f"{m}[None, :]", f"np.expand_dims({m}, 0)"])
    return scope.pick([f"{m}[:, None]", f"{m}[..., None]", f"np.expand_dims({m}, 1)",
                       f"np.expand_dims({m}, -1)"])


def _dropped(scope, m, ndim, axis):
    """m (reduced over axis with keepdims) with that axis indexed away."""
    if axis == ndim - 1:
        return scope.pick([f"{m}[..., 0]", f"{m}[:, 0]" if ndim == 2 else f"{m}[0]"])
    return f"{m}[0]"


def normalize(scope, depth=2):
    """logsumexp, softmax or log-softmax over one axis of an array, shifted by its maximum (or
    minimum, or mean: any shift cancels) as numerically stable code writes them. The shift m is
    read twice and the two reads cancel: srcad proves that and leaves m's adjoint out. Sometimes
    it does not cancel (added back by a factor) or m is kept in scope for later statements."""
    arrays = [v for v in scope.arrays(1) if not v.py and v.ndim <= 2]
    if not arrays:
        return assign(scope)
    v = scope.pick(arrays)
    shape, lines = v.shape, []
    x = v.name
    if scope.chance(0.4):
        e = expr(scope, shape, depth)
        x = scope.fresh("t")
        lines.append(f"{x} = {e.text}")
        scope.add(Var(x, shape, owned=e.owned, positive=e.positive))
    axis = scope.pick(range(len(shape)))
    ax = scope.pick([axis, axis - len(shape)])
    kind = scope.pick(["lse_dropped", "lse_kept", "lse_back", "softmax", "log_softmax"])
    keep = kind != "lse_back" and (kind == "lse_dropped" or scope.chance(0.7))
    shift = scope.weighted([("max", 5), ("min", 1), ("mean", 1)])
    m = scope.fresh("m")
    keepdims = ", keepdims=True" if keep else ""
    lines.append(scope.pick([f"{m} = np.{shift}({x}, axis={ax}{keepdims})",
                             f"{m} = {x}.{shift}(axis={ax}{keepdims})"]))
    back = m if keep else _broadcast_back(scope, m, len(shape), axis)
    factor = scope.weighted([("", 8), ("2.0 * ", 1), ("0.5 * ", 1)])  # (not cancelled)
    sums = f"np.sum(np.exp({x} - {back}), axis={ax}"
    t = scope.fresh("t")
    if kind == "lse_dropped":
        result = f"{factor}{_dropped(scope, m, len(shape), axis)} + np.log({sums}))"
        out = reduced(shape, axis, False)
    elif kind in ("lse_kept", "lse_back"):
        result = f"{factor}{m} + np.log({sums}{keepdims}))"
        out = reduced(shape, axis, keep)
    elif kind == "softmax":
        e = scope.fresh("e")
        lines.append(f"{e} = np.exp({x} - {back})")
        result, out = f"{e} / np.sum({e}, axis={ax}, keepdims=True)", shape
    else:
        result, out = f"{x} - {factor}{back} - np.log({sums}, keepdims=True))", shape
    lines.append(f"{t} = {result}")
    scope.tags.add(f"normalize_{kind}")
    scope.add(Var(t, out, owned=True, positive=kind == "softmax"))
    if scope.chance(0.3):  # read again later, perhaps: then m matters
        scope.add(Var(m, reduced(shape, axis, keep), owned=True))
    return lines


def closures(scope, depth=2):
    """A function defined in f that reads f's variables (srcad lifts it: frontend/lift.py), as a
    def or a lambda, called twice with other arguments; or a numpy function bound to a name."""
    shape = target_shape(scope, 0.8)
    kind = scope.pick(["def", "lambda", "alias"])
    fn, v, t = scope.fresh("inner"), scope.fresh("v"), scope.fresh("t")
    a, b = operand(scope, shape, depth), operand(scope, shape, depth)
    scope.tags.add(f"closure_{kind}")
    if kind == "alias":
        function = scope.pick(["np.tanh", "np.sin", "np.cos", "np.exp"])
        lines = [f"{fn} = {function}", f"{t} = {fn}({a.text}) + {fn}({b.text}) * 0.5"]
    else:  # (its body may call a helper nested in f: one nested function calling another)
        inner = scope.child(in_loop=True)
        inner.add(Var(v, shape))
        body = expr(inner, shape, depth)
        if not re.search(rf"\b{v}\b", body.text):
            body = Expr(f"{body.atom()} * {v}", shape)
        if kind == "def":
            lines = [f"def {fn}({v}):", f"    return {body.text}",
                     f"{t} = {fn}({a.text}) + {fn}({b.text})"]
        else:
            lines = [f"{fn} = lambda {v}: {body.text}", f"{t} = {fn}({a.text}) * {fn}({b.text})"]
    scope.add(Var(t, shape, owned=True))
    return lines


# linalg's statements per kind: the lines (t the result, a the matrix, b the right-hand side,
# rhs the same as an operand) and whether t is a vector (else a number)
_LINALG = {
    "solve": ("{t} = np.linalg.solve({a}, {b})", True),
    "solve_t": ("{t} = np.linalg.solve({a}.T, {b}) * {c}", True),
    "inv": ("{t} = np.linalg.inv({a}) @ {rhs}", True),
    "det": ("{t} = np.linalg.det({a}) * {rhs}", True),
    "slogdet": ("{sign}, {logdet} = np.linalg.slogdet({a})\n{t} = {sign} * {logdet} + {rhs}",
                True),
    "cholesky": ("{L} = np.linalg.cholesky({a})\n"
                 "{t} = np.sum(np.log(np.diag({L}))) + {L} @ {rhs}", True),
    "cholesky_solve": ("{L} = np.linalg.cholesky({a})\n{t} = np.linalg.solve({L}, {b})", True),
    "evidence": ("{t} = 0.5 * np.dot({rhs}, np.linalg.solve({a}, {rhs})) + 0.5 * "
                 "np.linalg.slogdet({a})[1]", False),
    "gp": ("{L} = np.linalg.cholesky({a})\n{t} = 0.5 * np.dot({rhs}, np.linalg.solve({a}, "
           "{rhs})) + np.sum(np.log(np.diag({L})))", False),  # (cholesky and solve: one matrix)
}


# the same quantities through scipy.linalg (templates/scipy_linalg.py), where scipy is installed:
# its solves, factors (cho_factor's pair passed whole and its factor read) and LU solves
_SCIPY_LINALG = {
    "solve": "{t} = scipy.linalg.solve({a}, {b}{pos})",
    "solve_t": "{t} = scipy.linalg.solve({a}, {b}, transposed=True) * {c}",
    "inv": "{t} = scipy.linalg.inv({a}) @ {rhs}",
    "det": "{t} = scipy.linalg.det({a}) * {rhs}",
    "cholesky": "{L} = scipy.linalg.cholesky({a})\n"
                "{t} = np.sum(np.log(np.diag({L}))) + {L}.T @ {rhs}",
    "cholesky_solve": "{L} = scipy.linalg.cholesky({a}, lower=True)\n"
                      "{t} = scipy.linalg.solve_triangular({L}, {b}, lower=True)",
    "evidence": "{t} = 0.5 * np.dot({rhs}, scipy.linalg.lu_solve(scipy.linalg.lu_factor({a}), "
                "{rhs})) + 0.5 * np.linalg.slogdet({a})[1]",
    "gp": "{L} = scipy.linalg.cho_factor({a}, lower=True)\n{t} = 0.5 * np.dot({rhs}, "
          "scipy.linalg.cho_solve({L}, {rhs})) + np.sum(np.log(np.diag({L}[0])))",
}
# products with diagonal matrices of vectors, diagonals and traces of products (diagonal.py)
_DIAGONAL = {
    "inv": "{t} = np.linalg.inv({a}) @ np.diag({rhs}) @ {rhs}",
    "det": "{t} = np.linalg.det({a}) * (np.diag({rhs}) @ {a} @ {rhs})",
    "cholesky": "{L} = np.linalg.cholesky({a})\n"
                "{t} = np.sum(np.log(np.diag({L}))) + np.diag({rhs}) @ ({L} @ {rhs})",
    "solve": "{t} = np.linalg.solve({a}, np.diag({a} @ np.diag({rhs}) @ {a}.T))",
    "evidence": "{t} = 0.5 * np.dot({rhs}, np.diag({a}.T @ np.diag({rhs}) @ {a})) + 0.5 * "
                "np.linalg.slogdet({a})[1]",
    "solve_t": "{t} = np.linalg.solve({a}.T, {b}) * np.trace({a} @ {a}.T) * {c}",
    "slogdet": "{sign}, {logdet} = np.linalg.slogdet({a})\n"
               "{t} = {sign} * {logdet} + np.diagonal({a} @ {a}) * {rhs}",
}
try:
    import scipy.linalg  # noqa: F401
    _HAS_SCIPY = True
except ImportError:  # (the numpy forms only)
    _HAS_SCIPY = False


def linalg(scope, depth=2):
    """numpy.linalg on a matrix built from a vector or matrix v of the program, well
    conditioned whatever v holds: a Gram matrix scaled by 1 + |v|^2 plus the identity
    (symmetric positive definite, eigenvalues in [1, 2]), or the identity plus a scaled outer
    product of two vectors (not symmetric, eigenvalues near 1)."""
    candidates = [v for v in scope.arrays(1) if not v.py and v.ndim in (1, 2)]
    if not candidates:
        return assign(scope)
    v = scope.pick(candidates)
    d, x = v.shape[0], v.name
    size = f"len({x})"
    a, t = scope.fresh("A"), scope.fresh("t")
    b = expr(scope, (d,), depth)
    spd = v.ndim == 2 or scope.chance(0.6)
    if spd:
        gram = f"{x} @ {x}.T" if v.ndim == 2 else f"np.outer({x}, {x})"
        lines = [f"{a} = {gram} / (1.0 + np.sum({x} * {x})) + np.eye({size})"]
        kind = scope.pick(["solve", "solve_t", "inv", "det", "slogdet", "cholesky",
                           "cholesky_solve", "evidence", "gp"])
    else:
        u = expr(scope, (d,), depth)
        lines = [f"{a} = np.eye({size}) + np.outer({x}, {u.atom()}) / (2.0 + np.sum({x} * {x})"
                 f" + np.sum({u.atom()} ** 2))"]
        kind = scope.pick(["solve", "solve_t", "inv", "det", "slogdet", "evidence"])
    template, vector = _LINALG[kind]
    if _HAS_SCIPY and kind in _SCIPY_LINALG and zlib.crc32(lines[0].encode()) % 2:
        template = _SCIPY_LINALG[kind].replace("{pos}", ", assume_a='pos'" if spd else "")
        kind = "scipy_" + kind  # (picked by a checksum: every seed keeps its program)
    elif kind in _DIAGONAL and zlib.crc32(lines[0].encode()) // 2 % 2:
        template = _DIAGONAL[kind]
        kind = "diagonal_" + kind
    names = {"t": t, "a": a, "b": b.text, "rhs": b.atom()}
    for key, prefix in (("L", "L"), ("sign", "sign"), ("logdet", "logdet")):
        if "{" + key + "}" in template:
            names[key] = scope.fresh(prefix)
    if "{c}" in template:
        names["c"] = repr(scope.constant())
    lines += template.format(**names).split("\n")
    shape = (d,) if vector else ()
    scope.tags.add(f"linalg_{kind}")
    scope.add(Var(t, shape, owned=True))
    return lines


_GATE_BODIES = ["1.0 / (1.0 + np.exp(-z))", "0.5 * np.tanh(z) + 0.5", "z * z - 0.5 * z",
                 "np.exp(-(z ** 2))"]


def gates(scope, depth=2):
    """One elementwise function of adjacent slices of a stacked vector (an LSTM's gates):
    a1 = act(g[:n]); a2 = act(g[n:2 * n]); ... which srcad applies once to their union
    (frontend/slices.py). act is a module-level helper or a ufunc; the size n is read from a
    vector's shape or length, bound once or read in each bound. Sometimes the group is one
    srcad must leave as written: the slices out of order, or a gate changed in place later."""
    from .helpers import Helper
    vectors = [v for v in scope.arrays(1) if not v.py and v.ndim == 1]
    if not vectors:
        return assign(scope)
    x = scope.pick(vectors)
    shape = x.shape
    count = scope.pick([2, 3, 4])
    g, size = scope.fresh("g"), scope.fresh("n")
    parts = [expr(scope, shape, depth - 1).text for _ in range(count)]
    lines = [f"{g} = np.concatenate([{', '.join(parts)}])"]
    read = scope.pick([f"{x.name}.shape[0]", f"len({x.name})"])
    if scope.chance(0.7):
        lines.append(f"{size} = {read}")
    else:
        size = read  # (read in every bound)
    if scope.chance(0.5):
        existing = [h for h in scope.helpers if h.name.startswith("act")]
        if existing and scope.chance(0.5):
            act = scope.pick(existing).name
        else:
            act = scope.fresh("act")
            scope.helpers.append(Helper(act, (("z", shape),), (shape,), "\n".join(
                [f"def {act}(z):", f"    return {scope.pick(_GATE_BODIES)}"])))
    else:
        act = scope.pick(["np.tanh", "np.exp", "np.sin", "np.negative"])

    def bound(j):
        return "" if j == 0 else size if j == 1 else f"{j} * {size}"
    order = list(range(count))
    variant = scope.weighted([("batched", 6), ("reordered", 1), ("changed", 1)])
    if variant == "reordered":
        scope.rng.shuffle(order)
    targets = [scope.fresh("a") for _ in order]
    for target, j in zip(targets, order):
        upper = "" if j == count - 1 and scope.chance(0.3) else bound(j + 1)
        lines.append(f"{target} = {act}({g}[{bound(j)}:{upper}])")
    if variant == "changed":
        lines.append(f"{scope.pick(targets)} += {scope.constant()!r}")
    scope.tags.add(f"gates_{variant}")
    t = scope.fresh("t")
    weights = [repr(scope.constant()) for _ in targets]
    lines.append(f"{t} = " + " + ".join(f"{w} * {a}" for w, a in zip(weights, targets)))
    for target in targets:
        scope.add(Var(target, shape, owned=False))
    scope.add(Var(t, shape, owned=True))
    return lines


def pairwise(scope, depth=2):
    """Pairwise code (N-body energies, kernels, mixtures): the differences of every point of
    one set with every point of another, d = p[:, None, :] - q[None, :, :] (N x M x len(x),
    over a thousand items, so that the adjoint's sums are contractions: optimize/contract.py),
    maybe over a scale the same for every pair; then an elementwise function of d summed over
    its last axis, and the pairs' sum, or the weighted differences summed over one set (the
    force on each point of the other). The points move with a vector x of the program."""
    vectors = [v for v in scope.arrays(1) if not v.py and v.ndim == 1]
    if not vectors:
        return assign(scope)
    x = scope.pick(vectors)
    shape = x.shape
    n, m = scope.pick([16, 20, 24]), scope.pick([16, 20, 24])
    p, d, e, t = (scope.fresh(prefix) for prefix in ("p", "d", "e", "t"))
    lines = [f"{p} = np.cos(np.arange({n})[:, None] * {scope.constant(0.2, 0.9)!r} + "
             f"{x.name}[None, :])"]
    if scope.chance(0.4):
        q = p
    else:
        q = scope.fresh("q")
        y = expr(scope, shape, depth - 1)
        lines.append(f"{q} = np.sin(np.arange({m})[:, None] * {scope.constant(0.2, 0.9)!r}) * "
                     f"{y.atom()}[None, :]")
    sign = scope.pick(["-", "+"])
    diff = f"{p}[:, None, :] {sign} {q}[None, :, :]"
    variant = scope.weighted([("plain", 3), ("scaled", 2)])
    if variant == "scaled":  # (x - mu) / sigma, sigma the same for every pair
        w = expr(scope, shape, depth - 1)
        diff = f"({diff}) / (1.0 + {w.atom()} ** 2)"
    lines.append(f"{d} = {diff}")
    reduced = scope.pick([f"np.sum({d} ** 2, axis=2)", f"np.sum({d} * {d}, axis=-1)",
                          f"({d} ** 2).sum(axis=2)"])
    lines.append(f"{e} = {scope.pick(['np.exp(-', '1.0 / (1.0 + '])}{reduced})")
    if scope.chance(0.5):
        # the force on each point, through tanh, summed over the points (the total force of
        # a set on itself is zero, pair by pair: only rounding would be left to compare)
        lines.append(f"{t} = np.sum(np.tanh(np.sum({e}[:, :, None] * {d}, axis=1)), axis=0)")
        scope.add(Var(t, shape, owned=True))
    else:
        lines.append(f"{t} = {scope.constant()!r} * np.sum({e})")
        scope.add(Var(t, (), owned=True))
    scope.tags.add(f"pairwise_{variant}")
    return lines


def kind_change(scope, depth=2):
    """A name that holds values of other kinds at other points: a float array, then a mask
    (m > c), the float16 np.tanh of a mask, its sum (a number) or a masked copy, rebound in a
    loop that may not run (range(1, 1), range(2)) or in one arm of a branch, next to a name
    that takes its earlier value; both then read as floats. The shape probe keeps no facts
    about such names, so the derivative's zeros (0.0 for a value with axes: fuzz seed 145185),
    its broadcasts (np.full(S, 1.0) * a float16 value: a float64 adjoint accumulated in
    float16) and its zero tangents (a mask's zeros_like has no negation) do without them.
    (No float32 casts here: central differences of a rounding to float32 are noise.)"""
    arrays = [v for v in scope.arrays(1) if not v.py]
    if not arrays:
        return assign(scope)
    x = scope.pick(arrays)
    m, b, t, j = (scope.fresh(prefix) for prefix in ("m", "b", "t", "j"))
    c = scope.constant(-0.9, 0.9)
    variant = scope.weighted([("mask", 3), ("float16", 2), ("number", 1), ("masked", 1)])
    rebind = {"mask": f"{m} > {c!r}", "float16": f"np.tanh({m} > {c!r})",
              "number": f"np.sum({m} ** 2) * 0.1", "masked": f"np.where({m} > {c!r}, {m}, 0.0)"
              }[variant]
    head = scope.pick(["for {j} in range(1, 1):", "for {j} in range(2):",
                       f"if np.sum({x.name}) > {scope.constant(-1.0, 1.0)!r}:"]).format(j=j)
    lines = [f"{m} = {x.name} * {scope.constant(0.5, 1.5)!r}", f"{b} = {x.name}", head,
             f"    {b} = {m}", f"    {m} = {rebind}"]
    if head.startswith("for") and scope.chance(0.3):  # (stored into after: the store's
        # adjoint reads bb[0]; a float64 copy: a store into float16 rounds, a step function)
        lines += [f"{b} = {b} + np.zeros_like({x.name})", f"{b}[0] = {x.name}[0] * 2.0"]
    use = scope.pick([f"np.cos({m} * {x.name})", f"np.tanh({m}) * {x.name}",
                      f"np.sin({x.name}) * {m}"])
    lines.append(f"{t} = np.sin({b} * 1.0) + {use}")
    scope.tags.add(f"kind_change_{variant}")
    scope.add(Var(t, x.shape, owned=True))
    return lines


def argument_mask(scope, depth=2):
    """A bool argument `keep` whose values decide shapes: x[keep] reduced, np.where(keep, ..),
    a list grown under `if keep[i]`, the indices np.nonzero(keep) picks. The call with other
    values gives keep another count of True entries, so a build that wrote the first call's
    shapes into its code would give wrong numbers there."""
    vectors = [v for v in scope.of_shape(("n",), arrays_only=True)]
    if "keep" not in scope.params or not vectors:
        return assign(scope, depth)
    x = scope.pick(vectors)
    t = scope.fresh("t")
    c = scope.constant(0.5, 1.5)
    variant = scope.weighted([("select", 3), ("where", 2), ("grown", 2), ("nonzero", 1),
                              ("prefix", 1), ("counted", 1)])
    scope.tags.add(f"argument_mask_{variant}")
    if variant == "prefix":  # (a bound computed from the mask's values)
        scope.add(Var(t, ()))
        return [f"{t} = np.sum({x.name}[:np.count_nonzero(keep)] ** 2) * {c!r}"]
    if variant == "counted":  # (a loop's length computed from them)
        i = scope.fresh("i")
        scope.add(Var(t, x.shape, owned=True))
        return [f"{t} = {x.name} * {c!r}", f"for {i} in range(int(np.sum(keep))):",
                f"    {t} = np.sin({t}) + {x.name} * 0.5"]
    if variant == "select":
        reduce = scope.pick(["np.mean({} ** 2)", "np.sum(np.sin({}))", "np.max({})"])
        scope.add(Var(t, ()))
        return [f"{t} = {reduce.format(f'{x.name}[keep]')} * {c!r}"]
    if variant == "where":
        scope.add(Var(t, x.shape, owned=True))
        return [f"{t} = np.where(keep, {x.name}, {x.name} * {c!r})"]
    if variant == "nonzero":
        picked = scope.fresh("idx")
        scope.add(Var(t, ()))
        return [f"{picked} = np.nonzero(keep)[0]",
                f"{t} = np.sum({x.name}[{picked}] ** 2) / len({picked})"]
    rows, i = scope.fresh("rows"), scope.fresh("i")
    scope.add(Var(t, x.shape, owned=True))
    return [f"{rows} = [{x.name} * {c!r}]", f"for {i} in range(len(keep)):",
            f"    if keep[{i}]:", f"        {rows}.append(np.sin({x.name}) * {x.name}[{i}])",
            f"{t} = np.mean(np.stack({rows}), axis=0)"]


def early_return(scope, final):
    """A loop that may return early: `final` is the text of f's last return value."""
    arrays1 = [v for v in scope.arrays(1) if not v.py and v.ndim == 1]
    if not arrays1:
        return []
    x = scope.pick(arrays1)
    inner = scope.child(in_loop=True)
    inner.ints["i"] = x.shape[0]
    early = expr(inner, (), 2)
    threshold = round(scope.rng.uniform(-0.8, 1.2), 2)
    scope.tags.add("early_return")
    return [f"for i in range(len({x.name})):", f"    if {x.name}[i] > {threshold!r}:",
            f"        return {early.atom()} * {x.name}[i] + {final}"]


FAMILIES = [(assign, 5), (derive, 2), (update, 2.5), (stores, 1.5), (views, 0.9), (branch, 1.5),
            (for_loop, 2), (while_loop, 0.6), (list_stack, 0.7), (helper_stmt, 0.7),
            (side_effect, 0.2), (python_idioms, 0.8), (normalize, 0.8), (linalg, 0.6),
            (closures, 0.6), (gates, 0.6), (pairwise, 0.5), (kind_change, 0.5),
            (argument_mask, 1.5)]
