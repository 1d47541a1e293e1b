"""What a derivative shows: its whole generated module as text (Derivative.source) and, in
Jupyter, as HTML beside the user's functions it comes from (Derivative._repr_html_); the same
view as a page for `srcad show --html` (cli.py). The HTML itself is backend/html.py's.

    df = srcad.grad(loss)
    df                      # in a notebook: loss and loss_grad side by side, lines linked
    print(df.source)        # the module srcad.source(loss) writes
    srcad.hvp(loss).source  # forward mode over the generated gradient
"""
import hashlib

import numpy as np

from . import cache
from .modules import builts_of, module_text
from ..backend import html
from ..errors import SrcadError
from ..frontend.parse import function_source
from ..version import __version__

_WHAT = {"grad": "gradient", "value_and_grad": "value and gradient",
         "vjp": "vector-Jacobian product", "jvp": "Jacobian-vector product"}


def source_of(func, mode, kind, wrt, disabled=frozenset()):
    """The generated module of a derivative, for any shapes (what srcad.source writes)."""
    built = cache.compiled(func, mode, kind, wrt, disabled=disabled).built
    return module_text(built, disabled)


def derivative_source(derivative):
    return source_of(derivative.target, derivative.mode, derivative.built_kind, derivative.wrt,
                     derivative.disabled)


def listings(builts):
    """The user's functions the module's derivatives come from, each once, in module order."""
    out, seen = [], set()
    for built in builts:
        code = getattr(built.func, "__code__", None)
        if code is None or code in seen:
            continue
        seen.add(code)
        try:
            text, info = function_source(built.func)
        except SrcadError:
            continue
        out.append(html.Listing(built.func.__qualname__, info.filename, info.first_line, text))
    return out


def _positions(wrt):
    return wrt if isinstance(wrt, tuple) else (wrt,)


def facts(built, mode, kind, wrt, example=None):
    """(label, value) rows of the view's header."""
    names = built.wrt_names
    with_respect = ", ".join(f"{name} (argument {position})"
                             for name, position in zip(names, _positions(wrt)))
    rows = [("function", f"{built.func.__qualname__} "
                         f"({built.filename.replace(chr(92), '/').rsplit('/', 1)[-1]}:"
                         f"{built.lineno})"),
            ("derivative", f"{_WHAT.get(kind, kind)}, {mode} mode"),
            ("with respect to", with_respect)]
    if example is None:
        rows.append(("shapes", "any (code for every shape; give example arguments to "
                               "specialize it)"))
    else:
        args, kwargs = example
        rows.append(("shapes", ", ".join(_shape_text(a) for a in args) + "".join(
            f", {k}={_shape_text(v)}" for k, v in kwargs.items()) + " (specialized)"))
    rows.append(("srcad", __version__))
    return rows


def _shape_text(value):
    if isinstance(value, np.ndarray):
        return f"{value.dtype}{list(value.shape)}"
    return type(value).__name__


def render(built, mode, kind, wrt, disabled=frozenset(), example=None, title=None):
    """(module text, HTML fragment) of a built derivative (example=(args, kwargs): the
    arguments it was specialized to)."""
    text = module_text(built, disabled)
    builts = builts_of(built, disabled)
    title = title or f"{_WHAT.get(kind, kind)} of {built.func.__qualname__}"
    uid = "s" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]
    fragment = html.view(title, facts(built, mode, kind, wrt, example), listings(builts), text,
                         uid)
    return text, fragment


def derivative_html(derivative, title=None):
    """The HTML a notebook shows for a Derivative (or what it cannot build, as text)."""
    try:
        built = cache.compiled(derivative.target, derivative.mode, derivative.built_kind,
                               derivative.wrt, disabled=derivative.disabled).built
        return render(built, derivative.mode, derivative.built_kind, derivative.wrt,
                      derivative.disabled, title=title)[1]
    except SrcadError as exc:
        return (f'<pre class="srcad-error">{html.escape(repr(derivative))}: '
                f'{html.escape(str(exc))}</pre>')


def page(built, mode, kind, wrt, disabled=frozenset(), example=None):
    """A self-contained HTML page (srcad show --html)."""
    _, fragment = render(built, mode, kind, wrt, disabled, example)
    return html.page(f"srcad: {_WHAT.get(kind, kind)} of {built.func.__qualname__}", fragment)


class Shown:
    """A function the API returns that is built on another derivative (hessian, hvp): called as
    the function, with the source and the notebook view of the code it runs."""

    def __init__(self, function, what, func, wrt, inner, recipe=None):
        self.function = function
        self.what = what
        self.func = func
        self.wrt = wrt
        self.inner = inner  # () -> the Derivative whose code it runs
        self.recipe = recipe  # (maker, args): what pickle calls to make it again
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self.__doc__ = function.__doc__

    def __call__(self, *args, **kwargs):
        return self.function(*args, **kwargs)

    def __reduce__(self):  # (by reference to the function and the options, as Derivative)
        if self.recipe is None:
            raise TypeError(f"cannot pickle {self!r}")
        return self.recipe

    @property
    def source(self):
        return derivative_source(self.inner())

    def __repr__(self):
        return f"<srcad {self.what} of {getattr(self.func, '__qualname__', self.func)} " \
               f"wrt {self.wrt}>"

    def _repr_html_(self):
        try:
            inner = self.inner()
        except SrcadError as exc:
            return f'<pre class="srcad-error">{html.escape(repr(self))}: ' \
                   f'{html.escape(str(exc))}</pre>'
        return derivative_html(inner, title=f"{self.what} of "
                                            f"{getattr(self.func, '__qualname__', self.func)}: "
                                            f"the derivative of a generated derivative")
