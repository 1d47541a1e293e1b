"""The `srcad` command: print, write or survey generated derivatives from the shell.

    srcad show examples/quickstart.py:f --wrt 0,1        # the generated gradient source
    srcad show mypkg.model:loss --mode forward --wrt 0   # a forward-mode (JVP) module
    srcad show mypkg.model:loss --stage anf              # the function after one compiler pass
    srcad show --html model.py:loss --wrt 0,1 -o loss.html   # f and its derivative side by side
    srcad show model.py:loss --args "np.ones((5, 4)), 3"   # specialized to example arguments
    srcad emit mypkg.model:loss -o loss_grad.py          # write a module that needs only numpy
    srcad coverage                                       # which callables have templates

A target is `module:function` (a dotted module importable from the current directory or the
installed packages) or `path/to/file.py:function`; the function may be a dotted attribute path
(`module:Model.loss`). Anything srcad cannot differentiate is reported as on the Python API, with
file, line, column and a caret, and the command exits with status 2 (as for usage errors).
"""
import argparse
import importlib
import importlib.util
import os
import sys
import traceback

import numpy as np

from . import api
from .api.text import show_html
from .errors import SrcadError
from .pipeline import KINDS, STAGES
from .version import __version__

MODES = tuple(KINDS)

EXIT_OK = 0
EXIT_ERROR = 2


class TargetError(Exception):
    """The target named on the command line could not be found or loaded."""


# ---------------------------------------------------------------------------------------------
# arguments

def _wrt(text):
    """'0' -> 0 (an int: a single gradient); '0,1' or '0,' -> (0, 1) / (0,) (a tuple)."""
    parts = [p.strip() for p in text.split(",")]
    try:
        if len(parts) == 1:
            return int(parts[0])
        values = tuple(int(p) for p in parts if p != "")
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an argument position or a comma-separated list of them "
            f"(0 or 0,1), got {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError(f"no argument position in {text!r}")
    return values


def _add_build_options(parser, stages):
    parser.add_argument("target", help="module:function or path/to/file.py:function")
    parser.add_argument("--mode", choices=MODES,
                        help="reverse (adjoint, the default) or forward (tangent); implied by "
                             "--kind jvp")
    parser.add_argument("--wrt", type=_wrt, default=0, metavar="POSITIONS",
                        help="argument position(s) to differentiate with respect to: 0 "
                             "(the default) or a comma-separated tuple such as 0,1 or 0,")
    parser.add_argument("--kind", choices=sorted({k for ks in KINDS.values() for k in ks}),
                        help="what to generate: grad (reverse default), value_and_grad, vjp "
                             "(reverse) or jvp (forward default)")
    if stages:
        parser.add_argument("--stage", choices=STAGES,
                            help="stop after this compiler pass and show the function there")


def make_parser():
    parser = argparse.ArgumentParser(
        prog="srcad",
        description="srcad: source-to-source automatic differentiation for Python and NumPy.",
        epilog="Examples:\n"
               "  srcad show examples/quickstart.py:f --wrt 0,1\n"
               "  srcad show examples/quickstart.py:f --mode forward\n"
               "  srcad show --html examples/quickstart.py:f --wrt 0,1 -o f.html\n"
               "  srcad emit examples/quickstart.py:f --wrt 0,1 -o f_grad.py\n"
               "  srcad coverage",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"srcad {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    show = commands.add_parser("show", help="print the generated derivative source",
                               description="Print the generated source of a derivative of "
                                           "the target function, or (--html) write a page "
                                           "with the function and its derivative side by "
                                           "side, their lines linked.")
    _add_build_options(show, stages=True)
    show.add_argument("--args", metavar="EXPR",
                      help="example arguments, a Python expression evaluated with numpy as np "
                           "(e.g. \"np.ones((5, 4)), 0.5, 10\"): the code specialized to "
                           "their shapes, as calls run it")
    show.add_argument("--html", action="store_true",
                      help="write a self-contained HTML page: the function and its "
                           "derivative side by side, lines linked both ways")
    show.add_argument("-o", "--output", metavar="FILE",
                      help="where to write (default: standard output)")

    emit = commands.add_parser("emit", help="write the generated derivative as a .py module",
                               description="Write the generated derivative of the target "
                                           "function to a Python module that needs only numpy.")
    _add_build_options(emit, stages=False)
    emit.add_argument("-o", "--output", required=True, metavar="FILE.py",
                      help="where to write the module")

    cover = commands.add_parser("coverage", help="print which callables srcad differentiates",
                                description="Print the callables srcad has derivative "
                                            "templates for, and in which modes.")
    cover.add_argument("--missing", action="store_true",
                       help="list only callables lacking a forward or a reverse template")
    return parser


def _resolve_mode_and_kind(parser, args):
    """Fill in --mode from --kind (jvp -> forward) and reject combinations that do not exist."""
    if args.kind is not None and args.mode is None:
        args.mode = next(m for m, kinds in KINDS.items() if args.kind in kinds)
    args.mode = args.mode or "reverse"
    args.kind = args.kind or KINDS[args.mode][0]
    if args.kind not in KINDS[args.mode]:
        parser.error(f"--kind {args.kind} is not available in {args.mode} mode "
                     f"(choose one of: {', '.join(KINDS[args.mode])})")


# ---------------------------------------------------------------------------------------------
# targets

def _split_target(target):
    module, sep, attr = target.rpartition(":")
    if not sep or not module or not attr:
        raise TargetError(f"target {target!r} must look like module:function or "
                          f"path/to/file.py:function")
    return module, attr


def _looks_like_path(module):
    return module.endswith(".py") or os.sep in module or "/" in module


def _load_file(path):
    """Import a .py file as a module named after it (its directory first on sys.path, as for
    `python file.py`), so its functions' globals live in a real module."""
    if not os.path.isfile(path):
        raise TargetError(f"no such file: {path}")
    path = os.path.abspath(path)
    name = os.path.splitext(os.path.basename(path))[0]
    existing = sys.modules.get(name)
    if existing is not None:
        if os.path.abspath(getattr(existing, "__file__", "") or "") == path:
            return existing
        raise TargetError(f"{path} would be imported as module {name!r}, which is already "
                          f"the module {getattr(existing, '__file__', None) or name}; rename "
                          f"the file or give its dotted module path instead")
    directory = os.path.dirname(path)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot import {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _load_module(dotted):
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # as `python -m` does: modules of the current directory
    try:
        return importlib.import_module(dotted)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (dotted == exc.name or dotted.startswith(exc.name + ".")):
            raise TargetError(f"no module named {dotted!r} (run from the directory that "
                              f"contains it, or give a file path: path/to/file.py:function)"
                              ) from None
        raise


def load_target(target):
    """The function named by `module:function` or `file.py:function`."""
    module_name, attr = _split_target(target)
    try:
        if _looks_like_path(module_name):
            module = _load_file(module_name)
        else:
            module = _load_module(module_name)
    except TargetError:
        raise
    except SystemExit as exc:
        raise TargetError(f"importing {module_name} called sys.exit({exc.code!r}); guard its "
                          f"script part with `if __name__ == \"__main__\":`") from None
    except Exception as exc:  # the user's module itself failed: show where
        detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        raise TargetError(f"importing {module_name} failed:\n{detail.rstrip()}") from None
    obj = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise TargetError(f"{module_name} has no attribute {attr!r}") from None
    if not callable(obj):
        raise TargetError(f"{target} is a {type(obj).__name__}, not a function")
    return obj


# ---------------------------------------------------------------------------------------------
# commands

def example_arguments(text):
    """The tuple of example arguments an --args expression gives (numpy as np)."""
    try:
        value = eval(compile(text, "<--args>", "eval"), {"np": np, "numpy": np})  # noqa: S307
    except Exception as exc:  # (the user's own expression, like the module it imports)
        raise TargetError(f"--args {text!r} is not a Python expression srcad can evaluate "
                          f"with numpy as np: {type(exc).__name__}: {exc}") from None
    return value if isinstance(value, tuple) else (value,)


def _show(args, out):
    func = load_target(args.target)
    example = example_arguments(args.args) if args.args is not None else None
    if args.html:
        if args.stage is not None and args.stage != "emit":
            raise TargetError("--html shows the generated module: leave --stage out")
        text = show_html(func, mode=args.mode, wrt=args.wrt, kind=args.kind, args=example)
    elif args.stage is not None and args.stage != "emit":
        text = api.source(func, mode=args.mode, wrt=args.wrt, kind=args.kind, stage=args.stage,
                          args=example)
    else:  # the last stage is the emitted module itself
        text = api.source(func, mode=args.mode, wrt=args.wrt, kind=args.kind, args=example)
    text = text if text.endswith("\n") else text + "\n"
    if args.output is None:
        out.write(text)
        return EXIT_OK
    directory = os.path.dirname(os.path.abspath(args.output))
    os.makedirs(directory, exist_ok=True)
    with open(args.output, "w", encoding="utf-8") as handle:
        handle.write(text)
    out.write(f"wrote {args.output}\n")
    return EXIT_OK


def _emit(args, out):
    func = load_target(args.target)
    path = api.emit(func, args.output, mode=args.mode, wrt=args.wrt, kind=args.kind)
    out.write(f"wrote {path}\n")
    return EXIT_OK


def coverage_table(rows, missing_only=False):
    """The coverage rows as an aligned text table with a one-line summary."""
    if missing_only:
        rows = [r for r in rows if not (r["forward"] and r["reverse"])]
    width = max([len("callable")] + [len(r["name"]) for r in rows])
    mark = {True: "yes", False: "-"}
    lines = [f"{'callable':<{width}}  forward  reverse", f"{'-' * width}  -------  -------"]
    for row in rows:
        lines.append(f"{row['name']:<{width}}  {mark[bool(row['forward'])]:<7}  "
                     f"{mark[bool(row['reverse'])]:<7}".rstrip())
    both = sum(1 for r in rows if r["forward"] and r["reverse"])
    lines.append(f"{len(rows)} callables, {both} with both forward and reverse templates")
    return "\n".join(lines) + "\n"


def _coverage(args, out):
    out.write(coverage_table(api.coverage(), missing_only=args.missing))
    return EXIT_OK


COMMANDS = {"show": _show, "emit": _emit, "coverage": _coverage}


def main(argv=None):
    """Run the srcad command line; returns the exit status (0 ok, 2 error)."""
    parser = make_parser()
    args = parser.parse_args(argv)
    if args.command in ("show", "emit"):
        _resolve_mode_and_kind(parser, args)
    try:
        return COMMANDS[args.command](args, sys.stdout)
    except SrcadError as exc:  # it names the user's file:line:col itself when it has one
        prefix = "" if exc.filename is not None else "srcad: error: "
        sys.stderr.write(f"{prefix}{exc}\n")
        return EXIT_ERROR
    except TargetError as exc:
        sys.stderr.write(f"srcad: error: {exc}\n")
        return EXIT_ERROR
    except BrokenPipeError:  # `srcad coverage | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
