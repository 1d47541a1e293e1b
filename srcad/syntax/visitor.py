"""Visitor and Transformer: ast.NodeVisitor and ast.NodeTransformer, the same walk, faster.

Every pass of srcad that rewrites code is a NodeTransformer, and a build runs a few dozen of
them over trees of tens of thousands of nodes (the frontend's passes over the function, the
optimizer's over the derivative, the template instantiation over every call site). The
standard library's walk costs a few microseconds per node: per visit it builds the string
'visit_' + class name and looks it up; per node it walks the fields through a generator
(ast.iter_fields); it visits every expression context and operator node (Load, Store, Add,
...) only to find that they have no fields. Here, with the same result:

- the method for a node type is looked up once per visitor class and kept (_dispatch);
- fields are read directly (getattr with a default: iter_fields skips a missing field, and a
  missing field, like None, is neither a list nor a node);
- a child that has no fields and no visit_ method of its own is not visited at all: the
  plain generic_visit would return it unchanged (only where the class keeps the plain visit
  and generic_visit, which could otherwise do something with it).

What is called, and in what order, is otherwise what ast's classes call: visit(node) calls
visit_<class name> (a subclass of a node type has its own name: instantiate.Zero, a Name, is
visited by visit_Zero, else generic_visit), generic_visit visits the fields in order and, in
a Transformer, puts back what the visits return (None: removed; a list in a list: spliced).
ast.NodeVisitor's visit_Constant (which forwards to visit_Num, visit_Str, ... of old
visitors) is left out: no srcad visitor defines those.
"""
import ast

_LEAF = object()  # dispatch entry: a node type visiting which would do nothing


def _plain_method(method):
    """Marks visit and generic_visit as this module's (a class that overrides either may do
    something with a node that has no fields: its leaves are visited)."""
    method.srcad_plain = True
    return method


def _is_plain(method):
    return getattr(method, "srcad_plain", False)


class Visitor:
    """ast.NodeVisitor, faster (see the module docstring)."""

    _dispatch = {}  # node type -> the function that visits it, or _LEAF (one per class)
    _plain = False  # whether the class keeps the plain visit and generic_visit
    _leaf_result = None  # what visiting a _LEAF returns (a Transformer: the node)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._dispatch = {}
        cls._plain = _is_plain(cls.visit) and _is_plain(cls.generic_visit)

    @classmethod
    def _method(cls, kind):
        """The function visiting nodes of type kind (found once per class and type)."""
        method = getattr(cls, "visit_" + kind.__name__, None)
        if method is None:
            method = _LEAF if cls._plain and not kind._fields else cls.generic_visit
        cls._dispatch[kind] = method
        return method

    @_plain_method
    def visit(self, node):
        kind = type(node)
        method = self._dispatch.get(kind) or self._method(kind)
        if method is _LEAF:
            return node if self._leaf_result else None
        return method(self, node)

    @_plain_method
    def generic_visit(self, node):
        """Visit every node in node's fields, in order."""
        ast_node = ast.AST
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast_node):
                        self.visit(item)
            elif isinstance(value, ast_node):
                self.visit(value)


class Transformer(Visitor):
    """ast.NodeTransformer, faster (see the module docstring)."""

    _leaf_result = True

    @_plain_method
    def generic_visit(self, node):
        """Visit every node in node's fields, in order, and put back what the visits return:
        None drops the node, a list in a list is spliced in."""
        ast_node = ast.AST
        plain, dispatch, visit = self._plain, self._dispatch, self.visit
        for field in node._fields:
            old = getattr(node, field, None)
            if isinstance(old, list):
                new_values = []
                for value in old:
                    if isinstance(value, ast_node):
                        value = visit(value)
                        if value is None:
                            continue
                        if not isinstance(value, ast_node):
                            new_values.extend(value)
                            continue
                    new_values.append(value)
                old[:] = new_values
            elif isinstance(old, ast_node):
                if plain:  # (visit, inlined: the walk's hottest call)
                    kind = type(old)
                    method = dispatch.get(kind) or self._method(kind)
                    if method is _LEAF:
                        continue  # (it would be set back to itself)
                    new = method(self, old)
                else:
                    new = visit(old)
                if new is None:
                    delattr(node, field)
                else:
                    setattr(node, field, new)
        return node

