"""Building and reading gast nodes: the small vocabulary every pass writes code with.

    call(["np", "sum"], name("x"))       ->  np.sum(x)
    assign("t1", constant_node(2.0))     ->  t1 = 2.0
    comment("grad of: y = f(x)")         ->  # grad of: y = f(x)   (a marker emit prints)
    flatten(body)                        ->  every statement, those in blocks included
    assigned_name(`y[i] = e`)            ->  "y"

Imports nothing of srcad: every layer above may use it.
"""
import gast

# attributes of an array that describe it and do not depend on its values (x.shape is a
# constant for differentiation)
SHAPE_ATTRIBUTES = {"shape", "ndim", "size", "dtype", "itemsize", "nbytes", "strides", "flags"}


def name(ident, ctx=None):
    return gast.Name(id=ident, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def is_name(node, ident=None):
    """Whether node is a Name (of ident, if given)."""
    return isinstance(node, gast.Name) and (ident is None or node.id == ident)


def numpy_call(node, *names):
    """Whether node is a call np.<name>(...) of one of these names (of any, when none given)."""
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
            and is_name(node.func.value, "np") and (not names or node.func.attr in names))


def reversed_name(node):
    """R for R[::-1] (R a name; the step -1 as a number or as a negated 1), else None."""
    if not (isinstance(node, gast.Subscript) and is_name(node.value)
            and isinstance(node.slice, gast.Slice) and node.slice.lower is None
            and node.slice.upper is None):
        return None
    step, sign = node.slice.step, 1
    if isinstance(step, gast.UnaryOp) and isinstance(step.op, gast.USub):
        step, sign = step.operand, -1
    if isinstance(step, gast.Constant) and type(step.value) is int and sign * step.value == -1:
        return node.value.id
    return None


def constant_node(value):
    if isinstance(value, tuple):
        return gast.Tuple(elts=[constant_node(v) for v in value], ctx=gast.Load())
    return gast.Constant(value=value, kind=None)


def attribute_chain(parts):
    node = gast.Name(id=parts[0], ctx=gast.Load(), annotation=None, type_comment=None)
    for part in parts[1:]:
        node = gast.Attribute(value=node, attr=part, ctx=gast.Load())
    return node


def dotted_parts(node):
    """['np', 'linalg', 'inv'] for np.linalg.inv; None if not a plain attribute chain."""
    parts = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def assign(target, value, origin=None):
    stmt = gast.Assign(targets=[name(target, gast.Store())], value=value, type_comment=None)
    if origin is not None:
        gast.copy_location(stmt, origin)
    return stmt


def call(func_parts, *args):
    return gast.Call(func=attribute_chain(func_parts), args=list(args), keywords=[])


def comment(text):
    """A comment line in generated code (emit turns this marker into `# text`)."""
    marker = gast.Expr(value=name("__srcad_comment__"))
    marker.comment = text
    return marker


def is_comment(stmt):
    """Whether stmt is a comment marker (comment(text))."""
    return hasattr(stmt, "comment")


def origin_comment(info, stmt, prefix):
    text = info.statement_text(stmt)
    if text is None:
        return None
    filename = info.filename.replace("\\", "/").rsplit("/", 1)[-1]
    return comment(f"{prefix}: {text}  ({filename}:{stmt.lineno})")


def flatten(body):
    """Every statement of a body, blocks included, in source order."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (gast.If, gast.For, gast.While)):
            yield from flatten(stmt.body)
            yield from flatten(stmt.orelse)


# statements through which no derivative flows (a call for its effect, print(v); jumps; checks):
# the derivative builders copy them and write nothing for them; any kind neither this nor one
# they differentiate is an internal error (frontend/forms.py refuses unknown kinds first)
NO_DERIVATIVE = (gast.Expr, gast.Pass, gast.Return, gast.Raise, gast.Assert, gast.Break,
                 gast.Continue, gast.Import, gast.ImportFrom, gast.Global, gast.Nonlocal)


def not_differentiated(stmt):
    """stmt, which a derivative builder met and does not differentiate: one of NO_DERIVATIVE;
    any other kind is an internal error (a statement dropped from the derivative would make it
    wrong: an annotated assignment once was, and the gradient came out zero)."""
    if not isinstance(stmt, NO_DERIVATIVE):
        raise AssertionError(f"srcad internal error: a derivative builder met a statement it "
                             f"does not know ({type(stmt).__name__}, line "
                             f"{getattr(stmt, 'lineno', '?')})")
    return stmt


def list_op(stmt):
    """lst.append(v) as a statement, or v = lst.pop(), on a local list: a flow between them."""
    value = getattr(stmt, "value", None)
    return (isinstance(stmt, (gast.Expr, gast.Assign)) and isinstance(value, gast.Call)
            and isinstance(value.func, gast.Attribute) and isinstance(value.func.value, gast.Name)
            and ((value.func.attr == "append" and isinstance(stmt, gast.Expr)
                  and len(value.args) == 1) or (value.func.attr == "pop" and not value.args)))


def assigned_name(stmt):
    """The name an assignment defines or updates (y for y = e and for y[i] = e), else None."""
    if not isinstance(stmt, gast.Assign):
        return None
    target = stmt.targets[0]
    if isinstance(target, gast.Subscript):
        target = target.value
    return target.id if isinstance(target, gast.Name) else None


def parameter_ids(fdef):
    """The names of fdef's parameters: positional ones, *args, keyword-only ones."""
    args = fdef.args
    return [a.id for a in args.posonlyargs + args.args + [args.vararg] + args.kwonlyargs
            if a is not None]


def appended_names(body):
    """The names of the lists the statements grow with lst.append(v)."""
    return {s.value.func.value.id for s in flatten(body)
            if list_op(s) and s.value.func.attr == "append"}


def repeats(value, sequences):
    """Whether value is a * k or k * a with a a list or tuple display or one of the names in
    sequences (a list or tuple repeated; or numpy's product, when k is an array: the probe
    tells them apart)."""
    return isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult) and any(
        isinstance(side, (gast.List, gast.Tuple)) or (
            isinstance(side, gast.Name) and side.id in sequences)
        for side in (value.left, value.right))
