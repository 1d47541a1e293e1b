"""parse: a Python function's source -> a gast FunctionDef that remembers where it came from.

    def f(x):                 FunctionDef(name='f', ...) with every node's lineno/col_offset
        return np.sin(x)  ->  rebased onto the user's file, plus a SourceInfo that renders errors
                              (file:line:col, the line, a caret) for any node.
"""
import ast
import inspect
import linecache
import textwrap

import gast

from ..errors import SrcadError
from .deep import split_deep
from .forms import plain_forms
from ..syntax.convert import ast_to_gast
from ..syntax.source import compiles_to, module_names, source_lines
from ..syntax.naming import walk, walk_breadth


class SourceInfo:
    """Where a function's source lives: file name, absolute first line, the file's lines."""

    def __init__(self, filename, first_line, lines, col_shift=0):
        self.filename = filename
        self.first_line = first_line
        self.lines = lines
        self.col_shift = col_shift

    def line(self, lineno):
        index = lineno - self.first_line
        if 0 <= index < len(self.lines):
            return self.lines[index]
        return None

    def error(self, node, message, hint=None):
        """A SrcadError pointing at `node` (a gast node with rebased position, or None)."""
        lineno = getattr(node, "lineno", None) if node is not None else None
        if lineno is None:
            return SrcadError(message, filename=self.filename, lineno=self.first_line, col=0,
                              line=self.line(self.first_line), hint=hint)
        col = getattr(node, "col_offset", 0) or 0
        return SrcadError(message, filename=self.filename, lineno=lineno, col=col,
                          line=self.line(lineno), hint=hint)

    def statement_text(self, node):
        """The user's source text of a statement node, on one line (for generated comments)."""
        lineno = getattr(node, "lineno", None)
        end = getattr(node, "end_lineno", None) or lineno
        if lineno is None:
            return None
        first = (self.line(lineno) or "").strip()
        if first.endswith(":"):  # a block header (for ...:, if ...:) stands for its block
            return first
        return " ".join(self.line(n).strip() for n in range(lineno, end + 1) if self.line(n))


def function_source(func):
    """(source text, SourceInfo) of `func`, or a SrcadError saying why there is none."""
    name = getattr(func, "__qualname__", repr(func))
    try:
        code = getattr(func, "__code__", func)  # (inspect would read a functools.wraps
        lines, first_line = source_lines(code, getattr(func, "__globals__", None))  # wrapper
        filename = inspect.getsourcefile(code) or inspect.getfile(code)  # as what it wraps)
    except (OSError, TypeError) as exc:
        raise SrcadError(
            f"srcad cannot read the source of {name} ({exc})",
            hint="define the function in a file (a module or a script), not in an interactive "
                 "string or exec(); srcad reads the source to differentiate it") from None
    if first_line == 0:  # a module object or similar
        first_line = 1
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    col_shift = _indent_of(lines[0]) - _indent_of(dedented.splitlines(True)[0])
    info = SourceInfo(filename, first_line, lines, col_shift)
    linecache.checkcache(filename)
    return dedented, info


def _indent_of(line):
    return len(line) - len(line.lstrip())


def parse_function(func):
    """gast FunctionDef of `func` (decorators removed) and its SourceInfo."""
    text, info = function_source(func)
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise SrcadError(f"srcad could not parse the source of {func.__qualname__}: {exc.msg}",
                         filename=info.filename, lineno=info.first_line, col=0,
                         line=info.line(info.first_line),
                         hint="srcad differentiates functions written with def") from None
    _check_current(func, text, info)
    module = ast_to_gast(split_deep(tree, info))  # (expressions too deep to walk: cut)
    node = module.body[0]
    if not isinstance(node, gast.FunctionDef):
        lambdas = [n for n in walk_breadth(module) if isinstance(n, gast.Lambda)]
        if len(lambdas) > 1:
            raise info.error(None, "srcad cannot tell which of the lambdas on this line to "
                                   "differentiate", hint="put the lambda on a line of its own, "
                                                         "or define the function with def")
        if lambdas:
            target = node.targets[0] if isinstance(node, gast.Assign) else None
            label = target.id if isinstance(target, gast.Name) else "lambda"
            node = _lambda_as_def(lambdas[0], node, label)
    if not isinstance(node, gast.FunctionDef):
        raise info.error(None, f"srcad can only differentiate functions defined with def or "
                               f"lambda, not {type(node).__name__}",
                         hint="wrap the computation in a def")
    node.decorator_list = []
    node.returns = None
    lines, columns, name = info.first_line - 1, info.col_shift, gast.Name
    for sub in walk(node):
        if getattr(sub, "lineno", None) is not None:
            sub.lineno += lines
            if getattr(sub, "end_lineno", None) is not None:
                sub.end_lineno += lines
            if getattr(sub, "col_offset", None) is not None:
                sub.col_offset += columns
            if getattr(sub, "end_col_offset", None) is not None:  # (a range compile() accepts:
                sub.end_col_offset += columns  # the shape probe compiles these nodes)
            if type(sub) is name:
                sub.annotation = None
        elif type(sub) is name:
            sub.annotation = None
    for arg in node.args.args + node.args.kwonlyargs + node.args.posonlyargs:
        arg.annotation = None
    origin = getattr(func, "__srcad_lifted_from__", None)
    if origin is not None:
        node, info = _at_origin(node, info, *origin)
    return plain_forms(node, info), info


def _at_origin(node, info, outer, written):
    """A nested function lift.py compiled from a file of its own: its nodes at their places in
    the user's file (written: the def lift wrote out, with those places), and the SourceInfo of
    the user's lines from the def on, so that errors and comments point at the user's code, not
    at the cache file. The text lift wrote reads back as written (emit checks it), so the two
    trees walk alike; if they did not, the written file's places stay."""
    ours, theirs = walk(node), walk(written)
    if len(ours) != len(theirs) or any(type(a) is not type(b) for a, b in zip(ours, theirs)):
        return node, info
    first = getattr(written, "lineno", None)
    if first is None or outer.line(first) is None:
        return node, info
    fields = ("lineno", "col_offset", "end_lineno", "end_col_offset")
    for mine, theirs_node in zip(ours, theirs):
        if getattr(mine, "lineno", None) is None:
            continue
        if getattr(theirs_node, "lineno", None) is None:  # (a parameter lift added)
            theirs_node = written
        for field in fields:
            setattr(mine, field, getattr(theirs_node, field, None))
    start = first - outer.first_line
    return node, SourceInfo(outer.filename, first, outer.lines[start:], outer.col_shift)


_CURRENT = {}  # (code object, source text) -> whether the text compiles to that code


def _check_current(func, text, info):
    """Refuse a function whose source on disk is not the code Python runs: a module edited after
    it was imported (a notebook without autoreload) would otherwise be differentiated as the
    new text, or as another function where lines moved. The text is compiled as the function
    was (in a function that gives it its closure variables) and the code objects compared."""
    code = getattr(func, "__code__", None)
    if code is None or not hasattr(func, "__globals__"):
        return
    if "@pytest_ar" in func.__globals__ and "assert" in text:
        return  # pytest rewrote the asserts of this test module: its code is not the text's
    key = (code, text)
    current = _CURRENT.get(key)
    if current is None:
        current = _CURRENT[key] = compiles_to(code, "".join(info.lines),  # (as written:
                                              module_names(func, code))  # a method's
        # docstring dedented would be another constant)
        if len(_CURRENT) > 4096:
            _CURRENT.pop(next(iter(_CURRENT)))
    if not current:
        raise info.error(None, f"the source of {func.__qualname__} in {info.filename} is not the "
                               f"code Python is running: the file changed after it was loaded",
                         hint="reload the module (importlib.reload) or run the cell or script "
                              "again, then differentiate the function anew")


def _lambda_as_def(lam, statement, name):
    """`f = lambda x: e` -> `def f(x): return e` (a lambda alone on its line, maybe in a call)."""
    ret = gast.Return(value=lam.body)
    gast.copy_location(ret, lam.body)
    fdef = gast.FunctionDef(name=name, args=lam.args, body=[ret], decorator_list=[],
                            returns=None, type_comment=None, type_params=[])
    return gast.copy_location(fdef, statement)
