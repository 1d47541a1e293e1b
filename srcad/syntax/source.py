"""Whether a text is the code Python runs: a function's source compared with its code object.

Source files change under a running process (a module edited and not reloaded, srcad upgraded
in place): the text at a function's line is then another function's. srcad reads the source of
user functions, templates and runtime helpers, and takes a text only if it compiles to the code
that runs (compiles_to); text_as_run picks, of the file's lines as they were when the function
was registered and the file as it is now, the one that does.
"""
import __future__
import dis
import inspect
import keyword
import linecache
import re
import textwrap
import tokenize
import types

# a line where a function's block starts (what inspect.findsource looks back for)
_BLOCK_START = re.compile(r"^(\s*def\s)|(\s*async\s+def\s)|(.*(?<!\w)lambda(:|\s))|^(\s*@)")


def source_lines(code, module_globals=None):
    """inspect.getsourcelines(code) of a code object: the lines of its block and the number of
    the first, from linecache; OSError where there is no source, as inspect raises. Without
    inspect.getmodule, which findsource calls to find the module whose loader linecache may ask
    (module_globals: the function's globals serve for that): it looks through every module
    loaded, and in a process that imported torch and jax (2,300 modules) took 1-3 ms of each
    build's first look at a function, a sixth of a cold build."""
    filename = inspect.getsourcefile(code)
    if filename:
        linecache.checkcache(filename)
    else:
        filename = inspect.getfile(code)
        if not (filename.startswith("<") and filename.endswith(">")):
            raise OSError("source code not available")
    lines = linecache.getlines(filename, module_globals)
    if not lines:
        raise OSError("could not get source code")
    first = code.co_firstlineno - 1
    while first > 0:
        if first >= len(lines):
            raise OSError("lineno is out of bounds")
        if _BLOCK_START.match(lines[first]):
            break
        first -= 1
    return inspect.getblock(lines[first:]), first + 1


def text_as_run(func, lines=None):
    """func's source as the code Python runs: its block in `lines` (its file's lines as they
    were when it was registered), else in its file as it is now; None if neither compiles to
    func's code."""
    code = func.__code__
    texts = []
    if lines:
        try:
            texts.append("".join(inspect.getblock(lines[code.co_firstlineno - 1:])))
        except (IndexError, SyntaxError, tokenize.TokenError):
            pass
    try:
        texts.append(inspect.getsource(func))
    except (OSError, TypeError):
        pass
    names = module_names(func, code)
    return next((text for text in texts if compiles_to(code, text, names)), None)


def compiles_to(code, text, module_names=()):
    """Whether text compiles to code. module_names: the names the function reads that its
    module binds to modules: declared imported (`import np`, never run), since the compiler
    calls a method of an imported name with LOAD_ATTR and of any other with LOAD_METHOD, and the
    bytes are then the same (compared at once; else operation by operation)."""
    # the text as written, under a block where it is indented (a method, a closure): dedented,
    # the later lines of a docstring would be other constants
    indent = text[:len(text) - len(text.lstrip(" \t"))]
    if code.co_freevars:  # as a nested function: its free names are an enclosing function's
        body = text if indent else textwrap.indent(text, "    ")
        source = (f"def __srcad_enclosing__():\n{indent or '    '}"
                  f"{' = '.join(code.co_freevars)} = None\n{body}")
    else:
        source = f"if 1:\n{text}" if indent else text
    source = "".join(f"import {name}\n" for name in module_names) + source
    try:
        module = compile(source, code.co_filename, "exec", dont_inherit=True,
                         flags=code.co_flags & _FUTURE_FLAGS)
    except (SyntaxError, ValueError):
        return False
    return any(_same_code(candidate, code) for candidate in _code_objects(module)
               if candidate.co_name == code.co_name)


def module_names(func, code):
    """The global names code (and the code nested in it) reads that are bound to modules."""
    names = set(code.co_names)
    for inner in _code_objects(code):
        names.update(inner.co_names)
    return sorted(n for n in names if n.isidentifier() and not keyword.iskeyword(n)
                  and isinstance(func.__globals__.get(n), types.ModuleType))


_FUTURE_FLAGS = 0  # (the compiler flags a `from __future__ import` sets)
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag


def _code_objects(code):
    for const in code.co_consts:
        if isinstance(const, type(code)):
            yield const
            yield from _code_objects(const)


def _operations(code):
    """The operations of a code object, as the compiler's choices between equivalent forms do
    not change them: code compiled from a tool's AST (pytest, IPython) calls methods with
    LOAD_ATTR where code compiled from text uses LOAD_METHOD; jump offsets move with that."""
    out = []
    for instruction in dis.get_instructions(code):
        name = _SAME_OPERATION.get(instruction.opname, instruction.opname)
        if name in _NO_OPERATION:
            continue
        argument = "" if "JUMP" in name or name.startswith("FOR_ITER") else str(
            instruction.argrepr).replace("NULL + ", "")
        if isinstance(instruction.argval, type(code)):  # (compared as a constant: _same_code)
            argument = instruction.argval.co_name
        out.append((name, argument))
    return out


_SAME_OPERATION = {"LOAD_METHOD": "LOAD_ATTR", "CALL_METHOD": "CALL"}
_NO_OPERATION = {"PRECALL", "NOP", "RESUME", "CACHE", "PUSH_NULL", "EXTENDED_ARG"}


def _same_code(a, b):
    """The same operations, names and constants (line numbers aside)."""
    if (a.co_names != b.co_names or a.co_varnames != b.co_varnames
            or a.co_freevars != b.co_freevars or a.co_cellvars != b.co_cellvars
            or a.co_argcount != b.co_argcount or a.co_kwonlyargcount != b.co_kwonlyargcount
            or len(a.co_consts) != len(b.co_consts)
            or (a.co_code != b.co_code and _operations(a) != _operations(b))):
        return False
    for x, y in zip(a.co_consts, b.co_consts):
        if isinstance(x, type(a)) and isinstance(y, type(a)):
            if not _same_code(x, y):
                return False
        elif type(x) is not type(y) or repr(x) != repr(y):
            return False
    return True
