"""gast <-> ast conversions (gast.gast_to_ast, gast.ast_to_gast), the same trees, faster.

A build converts its function's tree three times (parsed: ast to gast; the shape probe and
emit: gast to ast), 50,000 nodes each for a function of 1,000 statements, and gast's
converters cost about five microseconds per node: they are ast.NodeTransformers (a string and
a lookup per visit) whose generic_visit finds the other module's class by name and builds a
dict of fields with hasattr per field, per node. Here gast's own converter classes do the
converting (their visit_* methods are what differs between gast and ast: names and
parameters, arguments, calls, ...) and only the generic parts are replaced: the method for a
node type and the other module's class, its fields and attributes, are found once per type.
What is built is what gast builds: a node of the other module's class of the same name
(None for a node without one), given every field the node has, converted (lists item by
item), then the location attributes it has. fill_locations is ast.fix_missing_locations,
without recursion, for the tree the shape probe compiles.
"""
import ast

import gast
from gast.ast3 import Ast3ToGAst, GAstToAst3

_MISSING = object()


class _Faster:
    """The generic parts of gast's translators (astn.Translator), with what they look up per
    node kept per node type. Mixed in before gast's classes, so their visit_* methods stay."""

    _target = None  # the module whose classes the translator builds (ast or gast)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._methods = {}  # node type -> the function converting it
        cls._classes = {}  # node type -> (the other module's class or None, fields, attributes)

    def visit(self, node):
        kind = type(node)
        method = self._methods.get(kind)
        if method is None:
            method = getattr(type(self), "visit_" + kind.__name__, None)
            if method is None or method is ast.NodeVisitor.visit_Constant:
                # (NodeVisitor's visit_Constant looks for visit_Num, visit_Str, ... which the
                # translators do not have, then calls generic_visit: called directly)
                method = type(self).generic_visit
            self._methods[kind] = method
        return method(self, node)

    def _visit(self, node):
        if isinstance(node, ast.AST):
            return self.visit(node)
        if isinstance(node, list):
            return [self._visit(n) for n in node]
        return node

    def generic_visit(self, node):
        kind = type(node)
        known = self._classes.get(kind)
        if known is None:
            known = self._classes[kind] = (getattr(self._target, kind.__name__, None),
                                           kind._fields, kind._attributes)
        cls, fields, attributes = known
        if cls is None:  # (a node that is not part of the other module's AST)
            return None
        values = {}
        for field in fields:
            value = getattr(node, field, _MISSING)
            if value is not _MISSING:
                values[field] = self._visit(value)
        new_node = cls(**values)
        for attr in attributes:
            value = getattr(node, attr, _MISSING)
            if value is not _MISSING:
                setattr(new_node, attr, value)
        return new_node


class _GastToAst(_Faster, GAstToAst3):
    _target = ast

    # the most common nodes, built directly (what gast's visit_Name and visit_Assign build,
    # without a visit of the context and ast.copy_location's loop); the contexts are one
    # instance each, as ast.parse makes them
    _CONTEXTS = {gast.Load: ast.Load(), gast.Store: ast.Store(), gast.Del: ast.Del()}

    def visit_Name(self, node):
        new_node = ast.Name(node.id, self._CONTEXTS[type(node.ctx)])
        _locate(new_node, node)
        return new_node

    def visit_Assign(self, node):
        new_node = ast.Assign([self.visit(t) for t in node.targets], self.visit(node.value))
        _locate(new_node, node)
        return new_node

    def __init__(self, constant=None):
        self.constant = constant

    def visit_Constant(self, node):
        new_node = self.generic_visit(node)
        return new_node if self.constant is None else self.constant(new_node)


_LOCATION = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def _locate(new_node, node):
    """ast.copy_location(new_node, node) for a Name or an Assign: a line or column that is not
    None, an end that node has (None too)."""
    for attr in _LOCATION:
        value = getattr(node, attr, None)
        if value is not None or (attr[0] == "e" and hasattr(node, attr)):
            setattr(new_node, attr, value)


class _AstToGast(_Faster, Ast3ToGAst):
    _target = gast


def gast_to_ast(node, constant=None):
    """gast.gast_to_ast(node), faster. constant: what each converted Constant becomes (called
    with it; emit writes a negative number as a negation)."""
    return _GastToAst(constant).visit(node)


def ast_to_gast(node):
    """gast.ast_to_gast(node), faster."""
    return _AstToGast().visit(node)


def fill_locations(tree):
    """ast.fix_missing_locations(tree): every node that has location attributes and lacks one
    takes its parent's (the root's parent is at line 1, column 0), so that compile() takes a
    tree the passes built; without recursion (a tree of tens of thousands of nodes: the shape
    probe compiles the whole function) and with the attributes found once per node type."""
    kinds = {}  # node type -> (whether it has locations, its fields)
    stack = [(tree, (1, 0, 1, 0))]  # (a node, its parent's location: _LOCATION's values)
    pop, push, ast_node = stack.pop, stack.append, ast.AST
    while stack:
        node, where = pop()
        kind = type(node)
        known = kinds.get(kind)
        if known is None:
            known = kinds[kind] = ("lineno" in kind._attributes, kind._fields)
        located, fields = known
        if located:
            own = []
            for attr, inherited in zip(_LOCATION, where):
                value = getattr(node, attr, None)
                if value is None:
                    setattr(node, attr, inherited)
                    value = inherited
                own.append(value)
            where = tuple(own)
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast_node):
                        push((item, where))
            elif isinstance(value, ast_node):
                push((value, where))
    return tree
