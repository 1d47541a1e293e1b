"""emit: gast -> Python source (the only module that uses astor), and the module around it.

A generated module is self-contained: a header naming what it differentiates, the imports it
needs (numpy, math), the source of the runtime helpers it calls, and the derivative function.
Comment markers placed by the passes (`__srcad_comment__("...")`) become real `# ...` lines.

Text from the user (file names, function names, statements, docstrings) goes into the module
escaped: in comments, every character that could end the line (or is not printable) is written
as its escape (`\\n`, `\\x0c`, `\\u2028`); the header is a string literal whose backslashes and
quotes are escaped (what a module reads of the user's modules: api/modules.py). Docstrings of generated functions are string constants, which astor writes as literals.
"""
import ast
import math
import re
import threading

import astor
import gast

from .. import runtime
from ..syntax.convert import gast_to_ast
from ..syntax.naming import walk
from ..syntax.source import text_as_run

_COMMENT = re.compile(r"^(\s*)__srcad_comment_(\d+)__\s*$")


def _prepare(fdef):
    """One walk of the function before it is written: each comment marker gets a unique name
    (its text is put back after astor), a block left with comments only gets a `pass` (the
    passes may have emptied it: dead code, a propagated copy; once the comments are comments
    it would be empty), and the names the code reads are collected (the runtime helpers it
    calls). Returns (the comments' texts by number, the names)."""
    texts, names = [], set()
    for node in walk(fdef):
        kind = type(node)
        if kind is gast.Name:
            names.add(node.id)
        elif hasattr(node, "comment"):
            node.value.id = f"__srcad_comment_{len(texts)}__"
            texts.append(node.comment)
        elif kind is gast.If or kind is gast.For or kind is gast.While:
            if all(hasattr(stmt, "comment") for stmt in node.body):
                node.body.append(gast.Pass())
            if node.orelse and all(hasattr(stmt, "comment") for stmt in node.orelse):
                node.orelse.append(gast.Pass())
    return texts, names


def function_source(fdef):
    """Python source of a gast FunctionDef, with comment markers turned into comments."""
    texts, names = _prepare(fdef)
    module = gast_to_ast(gast.Module(body=[fdef], type_ignores=[]), constant=_signed_number)
    # (no ast.fix_missing_locations: the tree is never compiled, astor writes no line numbers
    # and _same_tree compares fields only; a walk of every node saved)
    text = astor.to_source(module, pretty_source=_one_line_per_statement)
    if not _same_tree(ast.parse(text), module):  # the text must mean the code (precedence)
        raise AssertionError(f"srcad internal error: the source written for {fdef.name} does not "
                             f"read back as the code it was written from:\n{text}")
    lines = []
    for line in text.splitlines():
        match = _COMMENT.match(line)
        if match:
            lines.append(f"{match.group(1)}# {comment_text(texts[int(match.group(2))])}")
        else:
            lines.append(line)
    out = "\n".join(lines) + "\n"
    _remember_helpers(out, names & set(runtime.HELPERS))
    return out


def _signed_number(node):
    """A negative number (a folded constant) as the negation of a number: astor writes
    Constant(-0.6) as `-0.6`, and `-0.6 ** 2` is -(0.6 ** 2); `(-0.6) ** 2` is what it means.
    (A constant tuple, as a tuple display of constants: what its text reads back as.) Applied
    to every constant as the tree is converted for astor."""
    value = node.value
    if type(value) in (int, float) and math.copysign(1.0, value) < 0:
        return ast.copy_location(ast.UnaryOp(op=ast.USub(), operand=ast.Constant(
            value=-value)), node)
    if type(value) is tuple:
        return ast.copy_location(ast.Tuple(elts=[_signed_number(ast.Constant(value=v))
                                                 for v in value], ctx=ast.Load()), node)
    return node


_IGNORED_FIELDS = {"ctx", "type_comment", "kind"}


def _same_tree(a, b):
    """Whether two ASTs are the same program (contexts and type comments aside)."""
    todo = [(a, b)]
    pop, push, node = todo.pop, todo.append, ast.AST
    while todo:
        a, b = pop()
        if type(a) is not type(b):
            return False
        if type(a) is list:
            if len(a) != len(b):
                return False
            todo.extend(zip(a, b))
        elif isinstance(a, node):
            for field in a._fields:
                if field not in _IGNORED_FIELDS:
                    push((getattr(a, field, None), getattr(b, field, None)))
        elif not (a == b or (a != a and b != b)):  # (nan == nan)
            return False
    return True


def _escape(char):
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def comment_text(text):
    """text for a `# ...` comment: one line, whatever it holds (a file name, a statement). A
    character that is not printable, and so every one that str.splitlines or the tokenizer
    would break a line at (\\n \\r \\x0b \\x0c \\x1c-\\x1e \\x85 \\u2028 \\u2029), is written as its
    escape (a tab stays). Printable text is written as it is."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() or char == "\t" else _escape(char)
                   for char in text)


def docstring_literal(text):
    """A triple-quoted string literal of text (a module's header): backslashes and quotes are
    escaped, so nothing in text can end it early, and other characters that are not printable
    (but newlines) are written as escapes. Text without them is written as it is."""
    out = []
    for char in text:
        if char in '\\"':
            out.append("\\" + char)
        elif char == "\n" or char.isprintable():
            out.append(char)
        else:
            out.append(_escape(char))
    return '"""' + "".join(out) + '\n"""'


def _one_line_per_statement(pieces):
    return "".join(pieces)


def _names_in_source(text):
    """The names the code in text reads (not words of its comments and docstrings)."""
    return _name_ids(ast.parse(text))


def _name_ids(tree):
    """The ids of the Name nodes of an ast (ast.walk's, without its generators: a large
    function's module is walked in a tenth of the time)."""
    names = set()
    stack = [tree]
    pop, extend, append, name, node_type = stack.pop, stack.extend, stack.append, ast.Name, ast.AST
    while stack:
        node = pop()
        if type(node) is name:
            names.add(node.id)
            continue
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                extend(v for v in value if isinstance(v, node_type))
            elif isinstance(value, node_type):
                append(value)
    return names


# function text -> the runtime helpers it names, for the texts function_source wrote last (so
# module_text does not parse a function's text again to find them)
_TEXT_HELPERS = {}
_TEXT_HELPERS_LOCK = threading.Lock()


def _remember_helpers(text, helpers):
    with _TEXT_HELPERS_LOCK:
        _TEXT_HELPERS[text] = frozenset(helpers)
        while len(_TEXT_HELPERS) > 16:
            _TEXT_HELPERS.pop(next(iter(_TEXT_HELPERS)))


def _helpers_named(text):
    with _TEXT_HELPERS_LOCK:
        found = _TEXT_HELPERS.get(text)
    return found if found is not None else _names_in_source(text) & set(runtime.HELPERS)


_SOURCES = {}  # helper name -> (the helper, its text)


def helper_source(name):
    """The source of runtime helper `name` without its registration decorator, as the code
    Python runs (syntax/source.py: the lines of its file as they were when it was registered,
    else as they are now): a file changed since, srcad upgraded in place under a running
    process, would give another function's text at the helper's old line, written into
    generated modules."""
    function = runtime.HELPERS[name]
    cached = _SOURCES.get(name)
    if cached is not None and cached[0] is function:
        return cached[1]
    registered = runtime.LINES.get(name)
    text = text_as_run(function, registered[1] if registered and registered[0] is function
                       else None)
    if text is None:
        code = function.__code__
        raise RuntimeError(f"srcad cannot read its runtime helper {name} "
                           f"({code.co_filename}:{code.co_firstlineno}): the file is not the "
                           f"code Python is running (it changed after it was imported); start "
                           f"the Python process again")
    lines = text.splitlines()
    while lines and lines[0].lstrip().startswith("@"):
        lines.pop(0)
    text = "\n".join(lines)
    _SOURCES[name] = (function, text)
    return text


_HELPER_CALLS = {}  # helper name -> (its source, the helpers it reads): parsed once, not per build


def _helper_calls(name):
    text = helper_source(name)
    cached = _HELPER_CALLS.get(name)
    if cached is None or cached[0] is not text:
        cached = _HELPER_CALLS[name] = (text, _names_in_source(text) & set(runtime.HELPERS))
    return cached[1]


def helpers_needed(text):
    """Runtime helpers the text calls, with the helpers they call in turn, in file order."""
    return _with_callees(_names_in_source(text) & set(runtime.HELPERS))


def _with_callees(frontier):
    """The helpers in frontier and those they call in turn, in file order."""
    needed = set()
    frontier = set(frontier)
    while frontier:
        name = frontier.pop()
        needed.add(name)
        frontier |= _helper_calls(name) - needed - {name}
    return [name for name in runtime.HELPERS if name in needed]


def imports_needed(text):
    """The import lines of a module whose text is text: numpy's, and those of the other modules
    it reads attributes of (found in one scan of the text)."""
    found = set(_IMPORTED.findall(text))
    return ["import numpy as np"] + [f"import {module}" for module in _IMPORTS if module in found]


_IMPORTS = ("math", "scipy.special", "scipy.stats", "scipy.signal", "scipy.linalg", "operator")
_IMPORTED = re.compile(r"\b(math|scipy\.special|scipy\.stats|scipy\.signal|scipy\.linalg|"
                       r"operator)\.")


def module_source(fdef, header, user_imports=()):
    """The whole generated module: header, imports, runtime helpers, the function."""
    return module_text([function_source(fdef)], header, user_imports)


def module_text(function_texts, header, user_imports=(), after=()):
    """A module of generated functions (the first is the main one; the others are the
    derivatives of the callees it calls), with the imports and runtime helpers they need.
    user_imports: the lines that bind what they read of the user's modules; after: lines
    after the functions (defaults set on them)."""
    body = "\n\n".join(text.rstrip() + "\n" for text in function_texts)
    helpers = _with_callees(set().union(*map(_helpers_named, function_texts)))  # (helpers_needed
    # of the body: each text is a whole function, read once by function_source)
    helper_text = "\n\n\n".join(helper_source(name).rstrip() for name in helpers)
    parts = [docstring_literal(header), "\n".join(imports_needed(body + helper_text))]
    if user_imports:
        parts.append("\n".join(user_imports))
    if helper_text:
        parts.append(helper_text)
    parts.append(body.rstrip())
    if after:
        parts.append("\n".join(after))
    return "\n\n\n".join(parts) + "\n"
