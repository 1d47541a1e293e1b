"""Deterministic names for generated code: temporaries t1, t2, ..., adjoints bx, tangents dx.

Every name is checked against the names the user's function, its globals and the generated
module already use, so a user variable called `bx` never collides with the adjoint of `x`.
(Also the small AST utilities the passes share: clone, walk, names, called_names,
load_counts, parents, loaded_names, names_in, bound_counts, binds, number_value, Rename,
Substitute.)
"""
import collections

import gast

from .nodes import dotted_parts
from .visitor import Transformer


def clone(node):
    """A deep copy of an AST (lists of nodes too), several times faster than copy.deepcopy: only
    nodes and lists are copied; the other attributes (names, numbers, line numbers, the
    markers passes attach) are immutable or shared on purpose."""
    if type(node) is list:
        return [clone(n) for n in node]
    if not isinstance(node, gast.AST):
        return node
    kind = type(node)
    new = kind.__new__(kind)
    attributes = new.__dict__
    for key, value in node.__dict__.items():
        if type(value) in _PLAIN:  # (most attributes: line numbers, names; tested first)
            attributes[key] = value
        elif type(value) is list or isinstance(value, gast.AST):
            attributes[key] = clone(value)
        else:
            attributes[key] = value
    return new


_PLAIN = frozenset({int, str, float, bool, type(None)})  # attribute values clone keeps as they are


def walk(node):
    """Every node of an AST (node first, then the rest depth-first): gast.walk's nodes, in
    another order, several times faster (the passes call it on every statement)."""
    out = []
    stack = [node]
    pop, push, append = stack.pop, stack.append, out.append
    ast_node, name = gast.AST, gast.Name
    while stack:
        n = pop()
        append(n)
        if type(n) is name:
            continue
        for field in n._fields:
            value = getattr(n, field, None)
            if type(value) is list:
                for item in value:  # (a loop: faster than extend of a generator here)
                    if isinstance(item, ast_node):
                        push(item)
            elif isinstance(value, ast_node):
                push(value)
    return out


def walk_breadth(node):
    """gast.walk (ast.walk): every node, breadth first, lazily (a node's children are queued
    before it is yielded, so what the caller changes in it does not change what is walked);
    the same nodes in the same order, several times faster (ast.walk runs two generators per
    node, iter_child_nodes over iter_fields). For the passes whose first match is what they
    report (an error at the first unsupported construct) or whose rewrites of a node must not
    change the walk: the order of naming.walk differs."""
    ast_node = gast.AST
    todo = collections.deque([node])
    popleft, push = todo.popleft, todo.append
    while todo:
        node = popleft()
        for field in node._fields:
            value = getattr(node, field, None)  # (iter_fields skips a missing field)
            if isinstance(value, ast_node):
                push(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast_node):
                        push(item)
        yield node


def shared_nodes(node):
    """Expression and statement nodes that occur twice in the tree. The passes rewrite nodes in
    place, so a node in two places would be rewritten for both by a rewrite meant for one: a
    pass that copies an expression must clone it."""
    seen, shared = set(), []
    for n in walk(node):
        if isinstance(n, (gast.expr, gast.stmt)):
            if id(n) in seen:
                shared.append(n)
            seen.add(id(n))
    return shared


def names(node):
    """The Name nodes in an AST, in walk's order: walk's traversal, keeping only Name nodes
    (the passes ask for the names of every statement, often several times: the list of all
    nodes is not built)."""
    out = []
    stack = [node]
    pop, push, append = stack.pop, stack.append, out.append
    ast_node, name = gast.AST, gast.Name
    while stack:
        n = pop()
        if type(n) is name:
            append(n)
            continue
        for field in n._fields:
            value = getattr(n, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast_node):
                        push(item)
            elif isinstance(value, ast_node):
                push(value)
    return out


def called_names(tree):
    """The functions a tree calls that are names or attribute chains of names, dotted
    ("np.linalg.solve", "safe_mul"): a pass that rewrites calls of some functions has nothing
    to do where none of them is called."""
    out = set()
    for node in walk(tree):
        if type(node) is gast.Call:
            parts = dotted_parts(node.func)
            if parts is not None:
                out.add(".".join(parts))
    return out


def load_counts(node):
    """name -> how many times an AST node reads it."""
    counts = {}
    for n in names(node):
        if type(n.ctx) is gast.Load:
            counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def parents(root):
    """id(node) -> its parent node, over an AST. The receiver of a method call, x in
    x.sum(...), has the call as its parent (the attribute between them is skipped): what reads
    x is the call."""
    out = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if type(node) is gast.Name:
            continue
        for field in node._fields:
            value = getattr(node, field, None)
            children = value if type(value) is list else [value]
            for child in children:
                if isinstance(child, gast.AST):
                    out.setdefault(id(child), node)  # (a call's receiver is set below first)
                    stack.append(child)
        if type(node) is gast.Call and type(node.func) is gast.Attribute:
            out[id(node.func.value)] = node
    return out


def loaded_names(node):
    """The names an AST node reads."""
    return {n.id for n in names(node) if type(n.ctx) is gast.Load}


def names_in(node):
    """The names an AST node mentions (reads or binds)."""
    return {n.id for n in names(node)}


def stored_roots(node):
    """The names an AST node writes into (y for y[i] = v and y[i][j] = v): their values
    change without a binding."""
    return [n.value for n in walk(node) if type(n) is gast.Subscript
            and type(n.ctx) is gast.Store and type(n.value) is gast.Name]


def bound_counts(node):
    """How many times an AST node binds each name (assignment and loop targets, parameters;
    an augmented assignment's target is a stored name too). A store into an array (y[i] = v)
    counts as binding y: passes that read a name bound once as its value must not read y so."""
    return name_counts(node)[0]


def name_counts(node):
    """(bound_counts(node), load_counts(node)) in one walk (the optimizer's facts binds and
    loads: counted after every pass that changes the code), each in the order of the
    functions' own walks (names bound, then the roots of stores; names read)."""
    bound, loads, roots = {}, {}, []
    name, subscript, load, store, param = (gast.Name, gast.Subscript, gast.Load, gast.Store,
                                           gast.Param)
    for n in walk(node):
        kind = type(n)
        if kind is name:
            ctx = type(n.ctx)
            if ctx is load:
                loads[n.id] = loads.get(n.id, 0) + 1
            elif ctx is store or ctx is param:
                bound[n.id] = bound.get(n.id, 0) + 1
        elif kind is subscript and type(n.ctx) is store and type(n.value) is name:
            roots.append(n.value.id)
    for var in roots:
        bound[var] = bound.get(var, 0) + 1
    return bound, loads


def binds(node, var):
    """Whether an AST node binds var (or writes into it: y[i] = v)."""
    return any(n.id == var and type(n.ctx) is gast.Store for n in names(node)) or any(
        n.id == var for n in stored_roots(node))


def number_value(node):
    """The value of a numeric literal (-2.0 and +2.0 included), else None."""
    if isinstance(node, gast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        value = number_value(node.operand)
        if value is None or isinstance(node.op, gast.UAdd):
            return value
        return -value
    return None


class Rename(Transformer):
    """Each name in mapping (reads and binds) -> its new name, in place."""

    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if node.id in self.mapping:
            node.id = self.mapping[node.id]
        return node


class Substitute(Transformer):
    """Each read of a name in mapping -> a copy of the expression it maps to."""

    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if node.id in self.mapping and isinstance(node.ctx, gast.Load):
            return gast.copy_location(clone(self.mapping[node.id]), node)
        return node


class Namer:
    def __init__(self, taken=()):
        self.taken = set(taken)
        self.counters = {}
        self.adjoints = {}
        self.tangents = {}
        self.derived = set()  # the names of adjoints and tangents

    def reserve(self, *names):
        self.taken.update(names)

    def copy(self):
        """A Namer that goes on from this one's state (the same next fresh names)."""
        other = Namer()
        other.taken, other.counters = set(self.taken), dict(self.counters)
        other.adjoints, other.tangents = dict(self.adjoints), dict(self.tangents)
        other.derived = set(self.derived)
        return other

    def fresh(self, hint="t"):
        """t1, t2, ... for temporaries; name_1, name_2 for new versions of a user name."""
        base = hint or "t"
        sep = "" if base == "t" else "_"
        while True:
            self.counters[base] = self.counters.get(base, 0) + 1
            candidate = f"{base}{sep}{self.counters[base]}"
            if candidate not in self.taken:
                self.taken.add(candidate)
                return candidate

    def fresh_name(self, hint):
        """hint itself if it is free, else hint_1, hint_2, ..."""
        if hint not in self.taken:
            self.taken.add(hint)
            return hint
        return self.fresh(hint)

    def _derived(self, table, prefix, var):
        if var not in table:
            candidate = prefix + var.replace("[", "_").replace("]", "")  # items: t1[0] -> bt1_0
            while candidate in self.taken:
                candidate = prefix + "_" + candidate[len(prefix):]
            self.taken.add(candidate)
            self.derived.add(candidate)
            table[var] = candidate
        return table[var]

    def adjoint(self, var):
        """The adjoint (x-bar) of var: bx."""
        return self._derived(self.adjoints, "b", var)

    def tangent(self, var):
        """The tangent of var: dx."""
        return self._derived(self.tangents, "d", var)
