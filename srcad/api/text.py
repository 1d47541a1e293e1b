"""The generated text: srcad.source (the derivative's module, or the function after one pass),
srcad.emit (that module written to a file that needs only numpy), show_html (srcad show --html)
and srcad.coverage."""
import os

from ..analysis.shapes import signature_of
from . import cache, html
from .modules import module_text
from .derivatives import check_callable, check_wrt, runs
from ..errors import SrcadError
from ..pipeline import build, disabled_passes
from ..rules.registry import REGISTRY


_KIND_OF_MODE = {"reverse": "grad", "forward": "jvp"}


def _built(func, mode, wrt, kind, args, kwargs, disabled=frozenset()):
    """The Built module: generic, or specialized to the shapes of example arguments."""
    kind = kind or _KIND_OF_MODE.get(mode, "grad")
    if args is None or "specialize" in disabled:
        _needs_args(mode, kind)
        return cache.compiled(func, mode, kind, wrt, disabled=disabled).built
    mode, kind = runs(mode, kind, wrt, tuple(args), disabled)
    kwargs = kwargs or {}
    signature = signature_of(tuple(args), kwargs)
    if signature is None:
        raise SrcadError("srcad specializes to arrays, numbers, strings and None, and lists, "
                         "tuples and dicts of them; these example "
                         "arguments hold something else", hint="leave args out for code that "
                                                               "takes any shapes")
    return cache.compiled(func, mode, kind, wrt, example=(tuple(args), kwargs),
                          signature=signature, disabled=disabled).built


def _needs_args(mode, kind):
    if mode == "forward" and kind == "grad":
        raise SrcadError("the forward-mode gradient is built for a function of one float: pass "
                         "example arguments (args=...)",
                         hint="srcad.source(f, args=(0.5, ...)) shows the code srcad.grad runs")


def source(func, mode="reverse", wrt=0, kind=None, stage=None, args=None, kwargs=None, *,
           disable=None):
    """The generated Python source (or, with stage=..., the function after that pass).
    With example args (and kwargs): the code specialized to their shapes, as calls run it (for
    the gradient with respect to one float, that is forward mode: see Derivative.specialize).
    disable: optimization passes to leave out ("all": the unoptimized derivative)."""
    check_callable(func)
    func = getattr(func, "__srcad_function__", None) or func  # (a srcad derivative: compose.py)
    check_wrt(wrt)
    disabled = disabled_passes(disable)
    if stage is not None and stage != "emit":
        kind = kind or _KIND_OF_MODE.get(mode)
        if args is None or "specialize" in disabled:
            _needs_args(mode, kind)
            example = None
        else:
            mode, kind = runs(mode, kind, wrt, tuple(args), disabled)
            example = (tuple(args), kwargs or {})
        return build(func, mode, wrt, kind, stage=stage, example=example, disabled=disabled)
    return module_text(_built(func, mode, wrt, kind, args, kwargs, disabled), disabled,
                       specialized=args is not None and "specialize" not in disabled)


def show_html(func, mode="reverse", wrt=0, kind=None, args=None, kwargs=None, *,
              disable=None):
    """A self-contained HTML page: func and the derivative srcad.source writes side by side,
    their lines linked both ways (srcad show --html)."""
    check_callable(func)
    check_wrt(wrt)
    disabled = disabled_passes(disable)
    kind = kind or _KIND_OF_MODE.get(mode, "grad")
    built = _built(func, mode, wrt, kind, args, kwargs, disabled)
    example = None
    if args is not None and "specialize" not in disabled:
        mode, kind = runs(mode, kind, wrt, tuple(args), disabled)
        example = (tuple(args), kwargs or {})
    return html.page(built, mode, kind, wrt, disabled, example)


def emit(func, path, mode="reverse", wrt=0, kind=None, args=None, kwargs=None, *,
         disable=None):
    """Write the generated module to `path`: a file that needs only numpy. Returns the path.
    With example args (and kwargs): the code specialized to their shapes (it then assumes them)."""
    check_callable(func)
    check_wrt(wrt)
    disabled = disabled_passes(disable)
    built = _built(func, mode, wrt, kind, args, kwargs, disabled)
    text = module_text(built, disabled, carry=True)  # (or a SrcadError: what it cannot carry)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


def coverage():
    """One dict per differentiable callable:
    {'name': 'numpy.sin', 'forward': bool, 'reverse': bool}."""
    return REGISTRY.coverage()
