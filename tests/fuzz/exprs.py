"""Expression families: each makes a random expression of a requested symbolic shape from the
variables in scope, or returns None when it cannot make one of that shape.

    leaf           a variable of that shape, a float literal (negative ones too)
    negation       -(-a), (-a) * (-b), -a - b, 1.0 - a - b, -2.0 * a - 3.0 * b
    arithmetic     + - * / with Python floats, 0-d values and arrays, every broadcasting pair
    power          a ** 2, a ** 2.0, (-0.6) ** 2 * a, a - (-0.5) ** 2.0, p ** 0.5, p ** b, 1.5 ** a
    smooth         sin, cos, tanh, exp
    kinked         log and sqrt of positive values, abs, maximum, minimum (kept off their kinks
                   by guards.py)
    library        numpy's other functions: log1p, expm1, arctan, sinh, cosh, square, a
                   sigmoid written out, logaddexp, hypot; along an axis cumsum, cumprod, flip,
                   roll, sort
    select         np.where(mask, a, b), a if cond else b
    reduction      sum, mean, max, min, prod, var; axis, keepdims; np.f(e) and e.f() forms
    product        @, np.dot, e.dot, np.outer, np.matmul, np.einsum, .T, matmul with 1-D
                   operands
    reshaping      .T, transpose, reshape, ravel, expand_dims, [None, :], stack
    read           x[1], x[-1], x[1:], x[:, 0], x[i, j], x[np.array([0, 2, 0])], x[::-1]
    call           a helper function (helpers.py)

expr(scope, shape, depth) picks a family at random (weights below) and recurses with depth - 1
for operands; depth 0 gives a leaf.
"""
from .scope import Expr, broadcast, dim_text, minus, reduced, shape_text


def expr(scope, shape, depth):
    """A random expression of this shape."""
    if depth <= 0:
        return leaf(scope, shape)
    families = [(f, w) for f, w in WEIGHTS]
    for _ in range(6):
        family = scope.weighted(families)
        made = family(scope, shape, depth)
        if made is not None:
            return made
        families = [(f, w) for f, w in families if f is not family]
    return leaf(scope, shape)


def operand(scope, shape, depth):
    """expr at depth - 1, more often a leaf."""
    return expr(scope, shape, depth - 1 if scope.chance(0.6) else depth - 2)


# -- leaves -------------------------------------------------------------------------------------

def number(scope, low=-2.0, high=2.0):
    value = scope.constant(low, high)
    return Expr(repr(value), (), owned=True, positive=value > 0, py=True, atomic=value >= 0)


def leaf(scope, shape, depth=0):
    """A variable of this shape (a literal or a scalar times ones when there is none)."""
    candidates = scope.of_shape(shape)
    if shape == () and not candidates and scope.arrays(1) and scope.chance(0.6) and \
            depth >= 0:
        made = read(scope, (), 1) if scope.chance(0.6) else reduction(scope, (), -1)
        if made is not None:
            return made
    if shape == () and (not candidates or scope.chance(0.2)):
        return number(scope)
    if candidates:
        v = scope.pick(candidates)
        return Expr(v.name, shape, owned=False, positive=v.positive, py=v.py, atomic=True)
    scope.tags.add("ones")
    scalar = leaf(scope, ())
    return Expr(f"{scalar.atom()} * np.ones({shape_text(shape)})", shape, owned=True)


def pair(scope, shape):
    """Two operand shapes that broadcast to shape: (shape, shape), (shape, ()), (row, matrix),
    (column, row), ... from the shapes of variables in scope."""
    available = sorted(set(scope.shapes()) | {shape, ()}, key=repr)  # (sorted: str hashes vary)
    pairs = [(a, b) for a in available for b in available if broadcast(a, b) == shape]
    weights = []
    for a, b in pairs:
        w = 1.0
        if a != b and a != () and b != ():
            w = 3.0  # a real broadcast between two arrays
        weights.append(w)
    a, b = scope.weighted(list(zip(pairs, weights)))
    if a != b and a != () and b != ():
        scope.tags.add("broadcast")
    return a, b


def positive(scope, shape, depth):
    """An expression that is > 0 by construction (or guarded)."""
    own = [v for v in scope.of_shape(shape) if v.positive]
    if own and scope.chance(0.4):
        v = scope.pick(own)
        return Expr(v.name, shape, owned=False, positive=True, py=v.py, atomic=True)
    e = operand(scope, shape, depth)
    form = scope.pick(["1.0 + {a} * {a}", "0.5 + {a} ** 2", "np.exp({t})", "2.0 + np.sin({t})",
                       "1.5 + np.tanh({t})", "{t}"])
    if form == "{t}" and not e.positive:
        scope.tags.add("guarded_domain")
    text = form.format(a=e.atom(), t=e.text)
    return Expr(text, shape, positive=True, atomic=form.startswith("np.") or form == "{t}"
                and e.atomic, py=e.py and shape == ())


# -- arithmetic ---------------------------------------------------------------------------------

def negation(scope, shape, depth):
    sa, sb = pair(scope, shape)
    a, b = operand(scope, sa, depth), operand(scope, sb, depth)
    c1, c2 = abs(scope.constant(0.5, 3.0)), abs(scope.constant(0.5, 3.0))
    forms = ["-{a}", "-(-{a})", "(-{a}) * (-{b})", "-{a} - {b}", "1.0 - {a} - {b}",
             "-{c1} * {a} - {c2} * {b}", "-({a} - {b})", "{a} - (-{b})", "-{a} * {b}",
             "-(-{a} + {b})"]
    form = scope.pick(forms)
    if "{b}" not in form:
        a = operand(scope, shape, depth)
    scope.tags.add("negation")
    return Expr(form.format(a=a.atom(), b=b.atom(), c1=c1, c2=c2), shape,
                py=a.py and ("{b}" not in form or b.py))


def denominator(scope, shape, depth):
    """Something to divide by, away from 0."""
    choice = scope.pick(["positive", "positive", "constant", "any"])
    if choice == "constant" and shape == ():
        return number(scope)
    if choice == "any":
        scope.tags.add("guarded_domain")
        return operand(scope, shape, depth)
    return positive(scope, shape, depth)


def arithmetic(scope, shape, depth):
    op = scope.weighted([("+", 3), ("-", 3), ("*", 3), ("/", 1.5), ("c", 2)])
    if op == "c":  # with a Python float
        a = operand(scope, shape, depth)
        c = number(scope)
        form = scope.pick(["{c} * {a}", "{a} * {c}", "{a} + {c}", "{c} - {a}", "{a} / {c}",
                           "{a} - {c}"])
        scope.tags.add("python_float")
        return Expr(form.format(a=a.atom(), c=c.atom()), shape, py=a.py,
                    positive=a.positive and c.positive and form[4] in "*+/")
    sa, sb = pair(scope, shape)
    a = operand(scope, sa, depth)
    b = denominator(scope, sb, depth) if op == "/" else operand(scope, sb, depth)
    for _ in range(2):  # x - x, x + x: rarely what anyone writes
        if b.text != a.text or op not in "+-":
            break
        b = operand(scope, sb, depth)
    if op == "*" and sa == sb and scope.chance(0.15):  # the same subexpression twice
        b = a
        scope.tags.add("repeated_subexpression")
    return Expr(f"{a.atom()} {op} {b.atom()}", shape, py=a.py and b.py,
                positive=a.positive and b.positive and op in "+*/")


def power(scope, shape, depth):
    form = scope.weighted([("{a} ** 2", 3), ("{a} ** 3", 1), ("{a} ** 2.0", 1.5),
                           ("(-0.6) ** 2 * {a}", 1), ("{a} - (-0.5) ** 2.0", 1),
                           ("(-2.0) ** 3 + {a}", 0.5), ("{p} ** 0.5", 1), ("{p} ** 1.5", 1),
                           ("{p} ** -1.5", 0.5), ("{p} ** -2", 0.5), ("{p} ** {b}", 1),
                           ("1.5 ** {a}", 1), ("0.5 ** (-{a})", 0.5)])
    a = operand(scope, shape, depth)
    p = positive(scope, shape, depth)
    b = Expr("", ())
    if "{b}" in form:
        sp, sb = pair(scope, shape)
        p = positive(scope, sp, depth)
        b = operand(scope, sb, depth)
    scope.tags.add("power")
    if form.startswith("(-") or "(-0.5)" in form:
        scope.tags.add("negative_base")
    text = form.format(a=a.atom(), p=p.atom(), b=b.atom())
    return Expr(text, shape, positive=form.startswith("{p}") or form.startswith("1.5")
                or form.startswith("0.5"), py=a.py and p.py)


# -- elementwise functions ------------------------------------------------------------------------

def smooth(scope, shape, depth):
    a = operand(scope, shape, depth)
    name = scope.weighted([("sin", 3), ("cos", 2), ("tanh", 3), ("exp", 1.5)])
    scope.tags.add(name)
    if name == "exp" and not scope.chance(0.5):
        return Expr(f"np.exp(-{a.atom()} * {a.atom()})", shape, positive=True, atomic=True)
    return Expr(f"np.{name}({a.text})", shape, positive=name == "exp", atomic=True)


def kinked(scope, shape, depth):
    name = scope.weighted([("log", 2), ("sqrt", 2), ("abs", 1.5), ("maximum", 1.5),
                           ("minimum", 1), ("relu", 1)])
    scope.tags.add(name)
    if name in ("log", "sqrt"):
        p = positive(scope, shape, depth)
        return Expr(f"np.{name}({p.text})", shape, positive=name == "sqrt", atomic=True)
    if name == "abs":
        a = operand(scope, shape, depth)
        return Expr(f"np.abs({a.text})", shape, positive=True, atomic=True)
    if name == "relu":
        a = operand(scope, shape, depth)
        return Expr(f"np.maximum({a.text}, 0.0)", shape, atomic=True)
    sa, sb = pair(scope, shape)
    a, b = operand(scope, sa, depth), operand(scope, sb, depth)
    return Expr(f"np.{name}({a.text}, {b.text})", shape, atomic=True)


def library(scope, shape, depth):
    """numpy's other functions, elementwise or along an axis (the shape kept), each of whose
    derivatives is a template of its own."""
    kinds = ["log1p", "expm1", "arctan", "sinh", "cosh", "square", "sigmoid", "logaddexp",
             "hypot"] + (["cumsum", "cumprod", "flip", "roll", "sort"] if shape else [])
    kind = scope.pick(kinds)
    scope.tags.add(f"lib_{kind}")
    if kind in ("logaddexp", "hypot"):
        sa, sb = pair(scope, shape)
        a, b = operand(scope, sa, depth), operand(scope, sb, depth)
        second = f"0.5 + {b.atom()} ** 2" if kind == "hypot" else b.text  # (off hypot's kink)
        return Expr(f"np.{kind}({a.text}, {second})", shape, atomic=True,
                    positive=kind == "hypot")
    a = operand(scope, shape, depth)
    if kind == "log1p":
        return Expr(f"np.log1p({a.atom()} * {a.atom()})", shape, atomic=True)
    if kind in ("expm1", "arctan", "sinh", "cosh", "square"):
        return Expr(f"np.{kind}({a.text})", shape, atomic=True, positive=kind == "cosh")
    if kind == "sigmoid":
        return Expr(f"1.0 / (1.0 + np.exp(-{a.atom()}))", shape, positive=True)
    axis = scope.pick(range(len(shape)))
    axis = scope.pick([axis, axis - len(shape)])
    if kind == "cumprod":  # (factors in [0.5, 2.5]: products of many stay in range)
        return Expr(f"np.cumprod(np.tanh({a.text}) + 1.5, axis={axis})", shape, atomic=True,
                    positive=True)
    if kind == "roll":
        return Expr(f"np.roll({a.text}, 1, axis={axis})", shape, atomic=True)
    return Expr(f"np.{kind}({a.text}, axis={axis})", shape, atomic=True)


def condition(scope, depth=1):
    """A scalar condition on computed values, with a threshold far from its values."""
    value = expr(scope, (), depth)
    if not _mentions_variable(scope, value.text):  # a literal: use a variable
        value = reduction(scope, (), 1) or read(scope, (), 1) or leaf(scope, ())
    threshold = scope.threshold(value.text)
    op = scope.pick([">", "<", ">=", "<="])
    text = f"{value.atom()} {op} {threshold!r}"
    if scope.chance(0.15):
        scope.tags.add("boolean_logic")
        other = reduction(scope, (), 1) or expr(scope, (), 1)
        text = f"{text} {scope.pick(['and', 'or'])} {other.atom()} > " \
               f"{scope.threshold(other.text)!r}"
    elif scope.chance(0.1):
        scope.tags.add("boolean_logic")
        text = f"not {text}"
    return text


def _mentions_variable(scope, text):
    import re
    return any(re.search(rf"\b{name}\b", text) for name in scope.vars)


def select(scope, shape, depth):
    if scope.chance(0.5) and shape == ():
        scope.tags.add("ifexp")
        a, b = operand(scope, shape, depth), operand(scope, shape, depth)
        return Expr(f"{a.atom()} if {condition(scope)} else {b.atom()}", shape, py=a.py and b.py)
    sm, sa = pair(scope, shape)
    masked = operand(scope, sm, depth)
    threshold = scope.threshold(masked.text)
    sb = scope.pick([s for s in scope.shapes() if broadcast(s, shape) == shape] or [shape])
    a, b = operand(scope, sa, depth), operand(scope, sb, depth)
    op = scope.pick([">", "<"])
    scope.tags.add("where")
    return Expr(f"np.where({masked.atom()} {op} {threshold!r}, {a.text}, {b.text})", shape,
                atomic=True)


# -- reductions and products ---------------------------------------------------------------------

def reduction(scope, shape, depth):
    """np.sum(e, axis=.., keepdims=..) and friends, from a shape that reduces to this one."""
    options = []
    for source in scope.shapes(min_ndim=1):
        for axis in [None] + list(range(len(source))) + [-1]:
            for keepdims in (False, True):
                if reduced(source, axis, keepdims) == shape:
                    options.append((source, axis, keepdims))
    if not options:
        return None
    source, axis, keepdims = scope.pick(options)
    name = scope.weighted([("sum", 4), ("mean", 2), ("max", 1), ("min", 1), ("prod", 0.5),
                           ("var", 0.7)])
    e = operand(scope, source, depth)
    args = []
    if axis is not None:
        args.append(f"axis={axis}")
    if keepdims:
        args.append("keepdims=True")
        scope.tags.add("keepdims")
    scope.tags.add(f"reduce_{name}")
    if name == "prod":  # keep products of many entries in range
        e = Expr(f"np.tanh({e.text}) + 1.5", source)
    tail = "".join(", " + a for a in args)
    if scope.chance(0.4):
        scope.tags.add("method")
        return Expr(f"{e.atom()}.{name}({', '.join(args)})", shape, atomic=True)
    return Expr(f"np.{name}({e.text}{tail})", shape, atomic=True)


def product(scope, shape, depth):
    """Matrix and vector products that give this shape."""
    shapes = scope.shapes(min_ndim=1, max_ndim=2)
    options = []
    ones = [s for s in shapes if len(s) == 1]
    twos = [s for s in shapes if len(s) == 2]
    if shape == ():
        options += [("dot", s, s) for s in ones]
    elif len(shape) == 1:
        p = shape[0]
        options += [("Ax", (p, s[0]), s) for s in ones if (p, s[0]) in twos]
        options += [("xA", s, (s[0], p)) for s in ones if (s[0], p) in twos]
        options += [("ATx", (s[0], p), s) for s in ones if (s[0], p) in twos]
    elif len(shape) == 2:
        p, q = shape
        options += [("AB", (p, r[1]), (r[1], q)) for r in twos if r[0] == p and (r[1], q) in twos]
        options += [("outer", (p,), (q,))] if (p,) in ones and (q,) in ones else []
        options += [("ATB", (r[0], p), (r[0], q)) for r in twos if r[1] == p and (r[0], q) in twos]
    if not options:
        return None
    kind, sa, sb = scope.pick(options)
    a, b = operand(scope, sa, depth), operand(scope, sb, depth)
    scope.tags.add(f"product_{kind}")
    if kind == "dot":
        form = scope.pick(["{a} @ {b}", "np.dot({a}, {b})", "{a}.dot({b})",
                           "np.einsum('i,i->', {a}, {b})"])
    elif kind in ("Ax", "xA", "AB"):
        spelled = {"Ax": "'ij,j->i'", "xA": "'i,ij->j'", "AB": "'ij,jk->ik'"}[kind]
        form = scope.pick(["{a} @ {b}", "np.dot({a}, {b})", "np.matmul({a}, {b})",
                           "np.einsum(" + spelled + ", {a}, {b})"])
    elif kind == "ATx" or kind == "ATB":
        form = scope.pick(["{a}.T @ {b}", "np.dot({a}.T, {b})", "np.transpose({a}) @ {b}",
                           "np.einsum(" + ("'ji,j->i'" if kind == "ATx" else "'ji,jk->ik'")
                           + ", {a}, {b})"])
        scope.tags.add("transpose")
    else:
        form = scope.pick(["np.outer({a}, {b})", "np.einsum('i,j->ij', {a}, {b})"])
    if "einsum" in form:
        scope.tags.add("einsum")
    return Expr(form.format(a=a.atom(), b=b.atom()), shape, atomic=form.startswith("np."))


# -- shapes --------------------------------------------------------------------------------------

def reshaping(scope, shape, depth):
    """Transposes, reshapes, expand_dims, stack: something of another shape made into this one."""
    shapes = scope.shapes(min_ndim=1)
    options = []
    if len(shape) == 2:
        a, b = shape
        if (b, a) in shapes:
            options.append(("T", (b, a)))
            if scope.sizes_known:
                options.append(("reshape2", (b, a)))
        if a == 1 and (b,) in shapes:
            options.append(("row", (b,)))
        if b == 1 and (a,) in shapes:
            options.append(("col", (a,)))
        if a in (2, 3) and (b,) in shapes:
            options.append(("stack0", (b,)))
        if b in (2, 3) and (a,) in shapes:
            options.append(("stack1", (a,)))
    if len(shape) == 1:
        (a,) = shape
        if (1, a) in shapes:
            options.append(("unrow", (1, a)))
        if (a, 1) in shapes:
            options.append(("uncol", (a, 1)))
        for s in shapes:
            if len(s) == 2 and a == _product_dim(*s):
                options.append(("ravel", s))
    if not options:
        return None
    kind, source = scope.pick(options)
    scope.tags.add(f"shape_{kind}")
    if kind in ("stack0", "stack1"):
        count = shape[0] if kind == "stack0" else shape[1]
        parts = ", ".join(operand(scope, source, depth).text for _ in range(count))
        axis = "" if kind == "stack0" else ", axis=1"
        return Expr(f"np.stack([{parts}]{axis})", shape, atomic=True)
    e = operand(scope, source, depth)
    if kind == "reshape2":
        rows, columns = dim_text(shape[0]), dim_text(shape[1])
    forms = {
        "T": ["{e}.T", "np.transpose({e})"],
        "reshape2": ["{e}.reshape(%s, %s)" % (rows, columns), "np.reshape({e}, (%s, -1))" % rows]
        if kind == "reshape2" else [],
        "row": ["{e}[None, :]", "np.expand_dims({e}, 0)", "{e}.reshape(1, -1)"],
        "col": ["{e}[:, None]", "np.expand_dims({e}, 1)", "{e}.reshape(-1, 1)",
                "{e}[:, np.newaxis]"],
        "unrow": ["{e}[0]", "{e}.ravel()", "{e}.reshape(-1)", "np.squeeze({e}, axis=0)"],
        "uncol": ["{e}[:, 0]", "{e}.ravel()", "{e}.reshape(-1)", "np.ravel({e})"],
        "ravel": ["{e}.ravel()", "{e}.reshape(-1)", "np.ravel({e})", "{e}.flatten()"],
    }[kind]
    return Expr(scope.pick(forms).format(e=e.atom()), shape, owned=False, atomic=True)


def _product_dim(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    return f"{dim_text(a)} * {dim_text(b)}"


def read(scope, shape, depth):
    """Reads by index, slice, negative index and fancy index that give this shape."""
    options = []
    for v in scope.arrays(1):
        s = v.shape
        if v.py:
            continue
        first = scope.min_size(s[0])
        if s[1:] == shape:
            options += [("index", v, i) for i in range(min(first, 3))] + [("index", v, -1)]
            if isinstance(s[0], str) and s[0] in scope.ints.values():
                options += [("loop_index", v, name) for name, d in scope.ints.items()
                            if d == s[0]]
        if len(s) == 2 and (s[0],) == shape:
            options += [("column", v, j) for j in range(min(scope.min_size(s[1]), 2))]
        if len(s) == 2 and shape == ():
            options.append(("element", v, (0, scope.min_size(s[1]) - 1)))
        if shape and shape[0] == minus(s[0], 1) and s[1:] == shape[1:]:
            options += [("tail", v, None), ("head", v, None)]
        if len(s) == 2 and shape == (s[0], minus(s[1], 1)):
            options.append(("column_tail", v, None))
        if shape and shape[0] == 3 and s[1:] == shape[1:] and first >= 3:
            options.append(("fancy", v, None))
        if shape == s and len(s) == 1:
            options.append(("reverse", v, None))
    if not options:
        return None
    kind, v, detail = scope.pick(options)
    base = v.name
    if scope.chance(0.2) and kind in ("index", "column", "tail"):
        base = operand(scope, v.shape, depth).atom()
    scope.tags.add(f"read_{kind}")
    if kind == "index":
        text = f"{base}[{detail}]"
    elif kind == "loop_index":
        text = f"{base}[{detail}]"
    elif kind == "column":
        text = f"{base}[:, {detail}]"
    elif kind == "element":
        text = f"{base}[{detail[0]}, {detail[1]}]"
    elif kind == "tail":
        text = f"{base}[1:]"
    elif kind == "head":
        text = f"{base}[:-1]"
    elif kind == "column_tail":
        text = f"{base}[:, 1:]"
    elif kind == "fancy":
        index = scope.pick(["np.array([0, 2, 0])", "np.array([2, 0, 1])", "[0, 2, 0]",
                            "np.array([1, 1, 0])"])
        text = f"{base}[{index}]"
    else:
        text = f"{base}[::-1]"
    return Expr(text, shape, owned=kind == "fancy" or shape == (), atomic=True)


def call(scope, shape, depth):
    from .helpers import call_expr
    if scope.helper_depth >= 2:
        return None
    return call_expr(scope, shape, depth)


WEIGHTS = [(leaf, 2.5), (negation, 1.2), (arithmetic, 4), (power, 1), (smooth, 2.5),
           (kinked, 1.5), (select, 0.6), (reduction, 1.5), (product, 1.2), (reshaping, 1),
           (read, 1.5), (call, 0.35), (library, 1.0)]
