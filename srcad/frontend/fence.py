"""check: the fence. Reject what srcad does not differentiate, before any rewriting.

Every construct srcad refuses is listed once, in UNSUPPORTED, with what to write instead; the
docs' table of unsupported constructs is generated from it. Later passes may assume the rest.
"""
import gast

from ..syntax.naming import walk_breadth

# node type -> (what it is, what to do instead)
UNSUPPORTED = {
    gast.With: ("with statements other than np.errstate (not raising) and "
                "warnings.catch_warnings()", "move the context manager outside the "
                                             "differentiated function"),
    gast.Global: ("global declarations of names the function assigns",
                  "pass the value in as an argument and return results"),
    gast.Nonlocal: ("nonlocal declarations of names the function assigns",
                    "pass the value in as an argument and return it"),
    gast.Delete: ("del of items or attributes (a change to a container)",
                  "build a new container without the item"),
    gast.Yield: ("a differentiated function that yields (a generator)",
                 "return a value; a helper generator it calls is differentiated"),
    gast.YieldFrom: ("a differentiated function that yields (yield from)",
                     "return a value; a helper generator it calls is differentiated"),
    gast.Await: ("await", "differentiate a synchronous function"),
    gast.ListComp: ("list comprehensions under a lambda, a conditional expression, and/or or a "
                    "while's test", "compute the list on a line of its own first"),
    gast.SetComp: ("set comprehensions under a lambda, a conditional expression, and/or or a "
                   "while's test", "compute the set on a line of its own first"),
    gast.DictComp: ("dict comprehensions under a lambda, a conditional expression, and/or or "
                    "a while's test", "compute the dict on a line of its own first"),
    gast.GeneratorExp: ("generator expressions under a lambda, a conditional expression, "
                        "and/or or a while's test", "compute the list on a line of its own "
                                                    "first"),
    gast.Lambda: ("lambdas inside expressions", "bind the lambda to a name first (f = lambda "
                                                "x: ...), or define the helper with def"),
    gast.FunctionDef: ("function definitions inside blocks", "define the helper at the top of "
                                                             "the function or at module level"),
    gast.ClassDef: ("class definitions", "define the class at module level"),
    gast.NamedExpr: ("assignment expressions (:=)", "assign on a separate line"),
    gast.Dict: ("dicts built with ** unpacking", "name the keys: {'W': W, 'b': b}"),
    gast.AsyncFunctionDef: ("async functions", "differentiate a synchronous function"),
    # (refused as the function is parsed: frontend/forms.py)
    gast.AsyncFor: ("async for", "differentiate a synchronous function"),
    gast.AsyncWith: ("async with", "differentiate a synchronous function"),
    gast.Match: ("match statements with sequence, mapping or class patterns",
                 "match values (case 'a' | 'b':, case None:, case n if ...:), or write if/elif"),
}
if hasattr(gast, "TryStar"):  # (Python 3.11)
    UNSUPPORTED[gast.TryStar] = ("try/except* (exception groups)",
                                 "catch the exceptions with try/except")
if hasattr(gast, "TypeAlias"):  # (Python 3.12)
    UNSUPPORTED[gast.TypeAlias] = ("type aliases (type X = ...)",
                                   "define the alias at module level")


def unsupported_table():
    """Rows (construct, what to do) for the docs."""
    return sorted(set(UNSUPPORTED.values()))


def _names_only(target):
    """Whether a tuple target holds names and tuples of names only: (a, b), c = p."""
    return all(isinstance(e, gast.Name) or (isinstance(e, (gast.Tuple, gast.List))
                                            and _names_only(e)) for e in target.elts)


def check(fdef, info):
    """Raise SrcadError at the first construct srcad does not support."""
    for stmt in fdef.body:
        for node in walk_breadth(stmt):
            entry = UNSUPPORTED.get(type(node))
            if entry is not None:
                what, hint = entry
                raise info.error(node, f"srcad does not differentiate {what}", hint=hint)
            if isinstance(node, gast.Call) and any(isinstance(a, gast.Starred) and not getattr(
                    a, "whole", False) and not getattr(a, "as_written", False)
                                                   for a in node.args):
                zip_ = isinstance(node.func, gast.Name) and node.func.id == "zip"
                raise info.error(next(a for a in node.args if isinstance(a, gast.Starred)),
                                 "srcad does not differentiate calls with *args unpacking "
                                 "where it cannot tell how many items they pass",
                                 hint="for zip(*pairs), take the items by position: "
                                      "[p[0] for p in pairs], [p[1] for p in pairs]" if zip_
                                 else "pass the arguments one by one")
            if isinstance(node, gast.Starred) and not getattr(node, "whole", False) and (
                    not getattr(node, "as_written", False)):
                raise info.error(node, "srcad does not differentiate * unpacking here",
                                 hint="write the items out one by one")
            if isinstance(node, gast.keyword) and node.arg == "out":
                raise info.error(node.value, "srcad does not differentiate out= (it writes the "
                                             "result into an existing array)",
                                 hint="assign the result: y = np.multiply(x, 2.0)")
            if isinstance(node, gast.keyword) and node.arg is None:
                raise info.error(node.value, "srcad does not differentiate calls with **kwargs "
                                             "unpacking of a dict whose keys it cannot know",
                                 hint="pass keyword arguments by name, or unpack a dict the "
                                      "function builds once from a display ({'s': s}) and "
                                      "does not change")
            if isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Store):
                raise info.error(node, "srcad does not differentiate assignment to attributes",
                                 hint="keep the value in a local name and return it")
            if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Store) and (
                    not isinstance(node.value, gast.Name)):
                raise info.error(node, "srcad differentiates stores into a named array "
                                       "(y[i, j] = v), not into an expression (y[i][j] = v)",
                                 hint="index once: y[i, j] = v")
            if isinstance(node, (gast.For, gast.While)) and node.orelse:
                raise info.error(node, "srcad does not differentiate loops with an else clause",
                                 hint="set a flag before break and test it after the loop")
            if isinstance(node, (gast.Assign, gast.AugAssign)):
                targets = node.targets if isinstance(node, gast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, (gast.Tuple, gast.List)) and not _names_only(target):
                        raise info.error(target, "srcad unpacks tuples into plain names only",
                                         hint="unpack into names, then store them")
    last = fdef.body[-1] if fdef.body else None
    if last is None or not any(isinstance(n, gast.Return) and n.value is not None and not (
            isinstance(n.value, gast.Constant) and n.value.value is None)
                               for n in walk_breadth(fdef)):
        raise info.error(last or fdef, "the differentiated function must return a value",
                         hint="return the value to differentiate")
