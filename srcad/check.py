"""Pass 3, check: the fence. Reject what srcad does not differentiate, before any rewriting.

Every construct srcad refuses is listed once, in UNSUPPORTED, with what to write instead; the
docs' table of unsupported constructs is generated from it. Later passes may assume the rest.
"""
import gast

# node type -> (what it is, what to do instead)
UNSUPPORTED = {
    gast.While: ("while loops", "not differentiated yet: write a for loop over range(n)"),
    gast.For: ("for loops", "not differentiated yet: unroll the loop or vectorise it"),
    gast.If: ("if statements", "not differentiated yet: use np.where(cond, a, b)"),
    gast.IfExp: ("conditional expressions (a if c else b)", "use np.where(c, a, b)"),
    gast.Try: ("try statements", "move error handling outside the differentiated function"),
    gast.With: ("with statements", "move the context manager outside the differentiated function"),
    gast.Global: ("global declarations", "pass the value in as an argument and return results"),
    gast.Nonlocal: ("nonlocal declarations", "pass the value in as an argument and return it"),
    gast.Delete: ("del statements", "remove the del; names go out of scope on return"),
    gast.Yield: ("generators (yield)", "return a value or a tuple of values"),
    gast.YieldFrom: ("generators (yield from)", "return a value or a tuple of values"),
    gast.Await: ("await", "differentiate a synchronous function"),
    gast.ListComp: ("list comprehensions", "write a for loop, or a vectorised numpy expression"),
    gast.SetComp: ("set comprehensions", "write a for loop"),
    gast.DictComp: ("dict comprehensions", "write a for loop"),
    gast.GeneratorExp: ("generator expressions", "write a for loop, or a numpy reduction"),
    gast.Lambda: ("lambdas inside the function", "define the helper with def at module level"),
    gast.FunctionDef: ("nested function definitions", "define the helper at module level"),
    gast.ClassDef: ("class definitions", "define the class at module level"),
    gast.NamedExpr: ("assignment expressions (:=)", "assign on a separate line"),
    gast.Raise: ("raise statements", "check inputs before calling the derivative"),
    gast.Assert: ("assert statements", "check inputs before calling the derivative"),
    gast.AsyncFunctionDef: ("async functions", "differentiate a synchronous function"),
}


def unsupported_table():
    """Rows (construct, what to do) for the docs."""
    return sorted(set(UNSUPPORTED.values()))


def check(fdef, info):
    """Raise SrcadError at the first construct srcad does not support."""
    for stmt in fdef.body:
        for node in gast.walk(stmt):
            entry = UNSUPPORTED.get(type(node))
            if entry is not None:
                what, hint = entry
                raise info.error(node, f"srcad does not differentiate {what}", hint=hint)
            if isinstance(node, gast.Starred):
                raise info.error(node, "srcad does not differentiate calls with *args unpacking",
                                 hint="pass the arguments one by one")
            if isinstance(node, gast.keyword) and node.arg is None:
                raise info.error(node.value, "srcad does not differentiate calls with **kwargs "
                                             "unpacking", hint="pass keyword arguments by name")
            if isinstance(node, (gast.Subscript, gast.Attribute)) and isinstance(
                    node.ctx, gast.Store):
                raise info.error(node, "srcad does not differentiate assignment into arrays or "
                                       "attributes yet",
                                 hint="build the result with np.concatenate/np.stack/np.where")
            if isinstance(node, gast.Return) and stmt is not fdef.body[-1]:
                raise info.error(node, "srcad differentiates one return at the end of the "
                                       "function", hint="assign the value and return it once")
    last = fdef.body[-1] if fdef.body else None
    if not isinstance(last, gast.Return) or last.value is None:
        raise info.error(last or fdef, "the differentiated function must end with "
                                       "`return <value>`", hint="return the value to differentiate")
