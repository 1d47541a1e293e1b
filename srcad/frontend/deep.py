"""deep: expressions nested deeper than the compiler's recursive walkers can follow are cut into
temporaries, in the Python AST, before anything else walks them.

gast's conversion, astor, and many of srcad's own passes recurse once (or a few times) per
level of an expression, so an expression nested a few hundred levels deep (a sum of 400 terms
is a BinOp 400 levels deep; np.sin(np.sin(...)) nests a Call per level) ran out of Python's
recursion limit. ANF names every operation later anyway; here an expression of more than LIMIT
levels is cut, bottom up, into pieces of at most PIECE levels, each assigned to a temporary
just before its statement:

    y = x + x * 2 + ... + x * 400      ->      deep1 = x + x * 2 + ... + x * 50
                                               deep2 = deep1 + x * 51 + ... + x * 100
                                               ...
                                               y = deep8 + x * 351 + ... + x * 400

Only what the statement evaluates first is cut (the spine: the first operand of each
operation that is not a name, attribute of a name or constant), so every piece is evaluated in
the order Python evaluates it in the statement, and a piece under a branch of evaluation (the
arms of `a if c else b`, the right of `and`/`or`, a lambda or comprehension body, a chained
comparison's later operands) is never hoisted out of it. Statements whose expressions are
within LIMIT (all ordinary code) are left exactly as they are. An expression that is too deep
and cannot be cut (under a branch, or in a while test) is refused with a SrcadError at its line.
"""
import ast

from ..errors import SrcadError
from ..syntax.naming import walk_breadth

LIMIT = 100  # levels an expression may have as written
PIECE = 50  # levels of each piece a deeper one is cut into
BLOCKS = 90  # blocks a statement may be nested in (an elif chain nests one per elif: the
# generated code writes it as nested blocks, and Python allows 100 levels of indentation)
_FIRST = object()  # (a pseudo-field: the positional arguments and keywords of a call, in order)


def too_deep(tree, depth=0):
    """Whether an expression in tree nests more than LIMIT levels (counted from its statement;
    depth: tree's own level, 1 for an expression counted by itself)."""
    stack = [(tree, depth)]
    pop, push, stmt = stack.pop, stack.append, ast.stmt
    while stack:
        node, depth = pop()
        if isinstance(node, stmt):
            depth = 0
        elif depth > LIMIT:
            return True
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for v in value:
                    if isinstance(v, ast.AST):
                        push((v, depth + 1))
            elif isinstance(value, ast.AST):
                push((value, depth + 1))
    return False


def _heights(root):
    """id(node) -> levels of the expression under node (1 for a leaf), for root and below."""
    heights = {}
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        children = list(ast.iter_child_nodes(node))
        if done:
            heights[id(node)] = 1 + max((heights[id(c)] for c in children), default=0)
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in children)
    return heights


def _pure(node):
    """A constant, a name or an attribute of one (or a slice or *unpacking of them): reading it
    has no effect to keep in order."""
    if isinstance(node, ast.Slice):
        return all(part is None or _pure(part) for part in (node.lower, node.upper, node.step))
    if isinstance(node, ast.Starred):
        return _pure(node.value)
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, (ast.Constant, ast.Name))


def _strict(node):
    """(parent, field, index) of node's operands Python evaluates whenever node is evaluated,
    in the order it evaluates them (the rest, under a branch of evaluation: none)."""
    def one(field):
        return [(node, field, None)] if getattr(node, field, None) is not None else []

    def each(field):
        return [(node, field, i) for i in range(len(getattr(node, field)))]
    kind = type(node)
    if kind is ast.BinOp:
        return one("left") + one("right")
    if kind in (ast.UnaryOp,):
        return one("operand")
    if kind in (ast.Attribute, ast.Starred):
        return one("value")
    if kind is ast.Subscript:
        return one("value") + one("slice")
    if kind is ast.Slice:
        return one("lower") + one("upper") + one("step")
    if kind in (ast.Tuple, ast.List, ast.Set):
        return each("elts")
    if kind is ast.BoolOp:
        return [(node, "values", 0)]
    if kind is ast.Compare:
        return one("left") + [(node, "comparators", 0)]
    if kind is ast.IfExp:
        return one("test")
    if kind is ast.Dict:
        out = []
        for i, key in enumerate(node.keys):
            if key is not None:
                out.append((node, "keys", i))
            out.append((node, "values", i))
        return out
    if kind is ast.Call:
        out = one("func") + each("args")
        last = max(((a.lineno, a.col_offset) for a in node.args), default=None)
        if all(last is None or (k.value.lineno, k.value.col_offset) > last
               for k in node.keywords):  # (keywords after the positional arguments)
            out += [(k, "value", None) for k in node.keywords]
        return out
    return []  # lambdas, comprehensions, f-strings, ...: not looked into


def _get(place):
    parent, field, index = place
    value = getattr(parent, field)
    return value if index is None else value[index]


def _put(place, new):
    parent, field, index = place
    if index is None:
        setattr(parent, field, new)
    else:
        getattr(parent, field)[index] = new


def _next_on_spine(node):
    """Where the first operand of node that is not pure is, if Python evaluates it before
    anything else of node that is not pure; else None."""
    for place in _strict(node):
        child = _get(place)
        if not _pure(child):
            return place
    return None


_UNSPLITTABLE = (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)


def _cut(root_place, fresh):
    """Cut the expression at root_place into pieces until it is within LIMIT levels; returns
    the assignments of the pieces, in order, or None if it cannot be cut."""
    root = _get(root_place)
    if any(isinstance(n, _UNSPLITTABLE) for n in walk_breadth(root)):
        return None
    heights = _heights(root)
    pieces = []
    while heights[id(_get(root_place))] > LIMIT:
        path, place = [], root_place
        while True:  # down the spine to the first piece short enough
            node = _get(place)
            path.append(node)
            inner = _next_on_spine(node)
            if inner is None:
                return None  # (the deep part is under a branch of evaluation)
            child = _get(inner)
            if heights[id(child)] <= PIECE and not isinstance(child, (ast.Starred, ast.Slice)):
                break  # (*e and a:b are not values of their own: their parts are)
            place = inner
        name = fresh()
        pieces.append(ast.copy_location(ast.Assign(
            targets=[ast.copy_location(ast.Name(id=name, ctx=ast.Store()), child)], value=child,
            type_comment=None), child))
        replacement = ast.copy_location(ast.Name(id=name, ctx=ast.Load()), child)
        _put(inner, replacement)
        heights[id(replacement)] = 1
        for node in reversed(path):  # (the path's nodes are shorter now)
            heights[id(node)] = 1 + max((heights[id(c)] for c in ast.iter_child_nodes(node)),
                                          default=0)
    return pieces


def _roots(stmt):
    """The places of a statement's expressions that may be cut (evaluated once, first, before
    the statement does anything else)."""
    kind = type(stmt)
    if kind in (ast.Assign, ast.AnnAssign) and stmt.value is not None:
        return [(stmt, "value", None)]
    if kind is ast.AugAssign:  # (its target is evaluated first: only a name's is pure)
        return [(stmt, "value", None)] if isinstance(stmt.target, ast.Name) else []
    if kind in (ast.Return, ast.Expr) and stmt.value is not None:
        return [(stmt, "value", None)]
    if kind is ast.If:
        return [(stmt, "test", None)]
    if kind in (ast.For, ast.AsyncFor):
        return [(stmt, "iter", None)]
    return []


def split_deep(tree, info):
    """Cut the too-deep expressions of tree (a Python ast.Module) into temporaries, in place;
    returns tree. info: the SourceInfo for errors (tree's positions are not yet rebased). A
    statement nested in more than BLOCKS blocks is refused."""
    _check_blocks(tree, info)
    if not too_deep(tree):
        return tree
    taken = {n.id for n in walk_breadth(tree) if isinstance(n, ast.Name)} | {
        n.arg for n in walk_breadth(tree) if isinstance(n, ast.arg)}
    counter = [0]

    def fresh():
        while True:
            counter[0] += 1
            name = f"deep{counter[0]}"
            if name not in taken:
                taken.add(name)
                return name
    blocks = [tree]
    while blocks:
        node = blocks.pop()
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list and value and all(isinstance(s, ast.stmt) for s in value):
                out = []
                for stmt in value:
                    if _expressions_too_deep(stmt):
                        for place in _roots(stmt):
                            pieces = _cut(place, fresh) if too_deep(_get(place), 1) else []
                            if pieces is None:
                                break
                            out.extend(pieces)
                        if _expressions_too_deep(stmt):
                            raise _error(info, stmt)
                    out.append(stmt)
                    blocks.append(stmt)
                value[:] = out
            elif isinstance(value, ast.AST) and not isinstance(value, ast.expr):
                blocks.append(value)  # (an except handler, a match case: their bodies)
    return tree


def _expressions_too_deep(stmt):
    """Whether an expression of stmt itself (not of the statements in its blocks) is too deep."""
    for field in stmt._fields:
        value = getattr(stmt, field, None)
        parts = value if type(value) is list else [value]
        for part in parts:
            if isinstance(part, ast.AST) and not isinstance(part, ast.stmt) and too_deep(
                    part, 1):
                return True
    return False


def _check_blocks(tree, info):
    stack = [(tree, 0)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, ast.stmt):
            if level > BLOCKS:
                lineno = info.first_line + node.lineno - 1
                raise SrcadError(f"this statement is nested in more than {BLOCKS} blocks (each "
                                 f"elif of a chain is a block in the one before), more than "
                                 f"srcad's generated code can nest",
                                 filename=info.filename, lineno=lineno,
                                 col=(node.col_offset or 0) + info.col_shift,
                                 line=info.line(lineno),
                                 hint="look the case up in a dict or a list, or compute it with "
                                      "np.select, instead of a long if/elif chain")
            level += 1
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend((v, level) for v in value if isinstance(v, ast.AST)
                             and not isinstance(v, ast.expr))
            elif isinstance(value, ast.AST) and not isinstance(value, ast.expr):
                stack.append((value, level))


def _error(info, stmt):
    lineno = info.first_line + stmt.lineno - 1
    return SrcadError(f"this statement nests an expression more than {LIMIT} levels deep where "
                      f"srcad cannot split it (under a branch of evaluation: a conditional "
                      f"expression, and/or, a lambda or comprehension, or in a while test)",
                      filename=info.filename, lineno=lineno,
                      col=(stmt.col_offset or 0) + info.col_shift, line=info.line(lineno),
                      hint="assign parts of the expression to variables first")
