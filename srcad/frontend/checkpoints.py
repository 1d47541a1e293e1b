"""checkpoints: loops marked with srcad.checkpoint, as loops over their own iterable that carry
the mark (run before control lowering, which then sees a plain range loop).

    for t in srcad.checkpoint(range(T), every=50):     for t in range(T):     (loop.checkpoint
        h = np.tanh(W @ h + xs[t])               ->        h = ...             = 50; "sqrt" for
                                                                               about sqrt(T))

Reverse mode reads the mark (modes/reverse.py: keep every k-th turn's state, run each stretch
again in the adjoint sweep); forward mode has no tape and ignores it. The mark is checked here,
where the user's line is at hand: a constant positive `every`, a plain for statement.
"""
import gast

from ..runtime import checkpoint
from ..syntax.naming import walk_breadth


def mark_checkpoints(fdef, scope, info):
    """Strip srcad.checkpoint(...) from loop heads, noting `every` on the loop (in place)."""
    for node in walk_breadth(fdef):
        if isinstance(node, gast.For) and isinstance(node.iter, gast.Call) and (
                scope.lookup(node.iter.func) is checkpoint):
            node.iter, node.checkpoint = _checked(node.iter, info)
    for node in walk_breadth(fdef):  # anywhere else it is the iterable itself, as when run
        if isinstance(node, gast.Call) and scope.lookup(node.func) is checkpoint:
            raise info.error(node, "srcad.checkpoint marks the iterable of a for statement",
                             hint="write it in the loop's head: for t in "
                                  "srcad.checkpoint(range(T)):")
    return fdef


def _checked(call_node, info):
    args = list(call_node.args)
    keywords = {k.arg: k.value for k in call_node.keywords}
    if len(args) == 2 and "every" not in keywords:
        keywords["every"] = args.pop()
    if len(args) != 1 or set(keywords) - {"every"}:
        raise info.error(call_node, "srcad.checkpoint takes the loop's iterable and every=k",
                         hint="for t in srcad.checkpoint(range(T), every=100):")
    every = keywords.get("every")
    if every is not None and not (isinstance(every, gast.Constant) and every.value is None):
        if not (isinstance(every, gast.Constant) and type(every.value) is int
                and every.value > 0):
            raise info.error(every, "srcad.checkpoint's every= must be a positive whole number "
                                    "written in the code",
                             hint="leave it out for about the square root of the number of "
                                  "turns, or write the number: every=100")
        return args[0], every.value
    return args[0], "sqrt"  # (about the square root of the number of turns, at run time)
