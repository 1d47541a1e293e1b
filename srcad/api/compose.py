"""compose: a srcad derivative as a Python function srcad can differentiate again.

srcad.grad(srcad.grad(f)) differentiates the generated gradient: its text is a Python function
like the user's, and every runtime helper it calls has templates of its own. A derivative is
differentiated, and called from a function that is differentiated, as the function it stands
for, with the calling convention of the API: where that differs from its generated function's
(a vjp's cotangent and a jvp's tangents come after the arguments, by position; a one-element
wrt tuple gives a one-element tuple), a small wrapper with the API's convention is written and
compiled as generated code is, so its text is there to read:

    def h_vjp(x, y, bout):                        # srcad.vjp(h, wrt=(0, 1)), called as
        return h_vjp_generated(x, y, bout=bout)   # vjp(x, y, dy)

The wrapper calls the generic generated function (the one that takes any shapes); srcad
specializes the derivative of the composition to the arguments as it does any function's.
"""
import inspect

from ..backend.files import compile_module
from ..errors import SrcadError


def composable(derivative, generated, extra_names, single_tuple):
    """The function srcad differentiates for `derivative` (kind grad, value_and_grad, vjp, jvp
    or a callee kind), whose generic generated function is `generated`; extra_names: the
    keyword-only parameters the API passes by position after f's arguments (cotangent,
    tangents). Made once per generated function (a callee redefined makes a new one)."""
    made = getattr(derivative, "_composed", None)
    if made is not None and made[0] is generated:
        return made[1]
    if not extra_names and not single_tuple:
        function = generated  # the same convention: the generated function itself
    else:
        function = _wrapper(derivative, generated, extra_names, single_tuple)
    derivative._composed = (generated, function)
    return function


def _wrapper(derivative, generated, extra_names, single_tuple):
    params = inspect.signature(generated).parameters.values()
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind == p.VAR_POSITIONAL for p in params) or any(
            p.default is not p.empty for p in positional):
        raise SrcadError(f"srcad differentiates a {derivative.kind} of a function with neither "
                         f"*args nor default values of positional parameters; "
                         f"{derivative.__qualname__} has them",
                         hint="differentiate a def that calls it with every argument given")
    keyword = [p for p in params if p.kind == p.KEYWORD_ONLY and p.name not in extra_names]
    name = generated.__name__
    inner = f"{name}_generated"
    heads = [p.name for p in positional] + list(extra_names)
    if keyword:
        heads += ["*"] + [p.name for p in keyword]
    passed = [p.name for p in positional] + [f"{k}={k}" for k in
                                             [p.name for p in keyword] + list(extra_names)]
    call = f"{inner}({', '.join(passed)})"
    if derivative.kind == "value_and_grad" and single_tuple:
        body = [f"value, grads = {call}", "return value, (grads,)"]
    elif single_tuple and derivative.kind != "jvp":
        body = [f"return ({call},)"]
    else:
        body = [f"return {call}"]
    source = "\n".join([f"def {name}({', '.join(heads)}):",
                        f'    """srcad.{derivative.kind} of {_plain(derivative.__qualname__)} '
                        f'as the API calls it (the generated function is {inner})."""'] +
                       ["    " + line for line in body]) + "\n"
    function = _compiled(source, name, {inner: generated})
    function.__kwdefaults__ = {p.name: p.default for p in keyword
                               if p.default is not p.empty} or None
    sync = getattr(generated, "__srcad_sync__", None)
    if sync is not None:  # (the generated function's globals, kept up to date)
        function.__srcad_sync__ = sync
    return function


def first_item(func):
    """A function srcad differentiates that returns func(...)[0], with func's parameters (the
    value of a function returning (value, aux): check_grads(has_aux=True))."""
    params = inspect.signature(func).parameters.values()
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        raise SrcadError(f"srcad checks has_aux functions with named parameters only; "
                         f"{func.__qualname__} takes *args or **kwargs",
                         hint="check a def that calls it with named parameters")
    inner = f"{func.__name__}_with_aux"
    heads, passed, keyword = [], [], False
    for p in params:
        if p.kind == p.KEYWORD_ONLY and not keyword:
            heads.append("*")
            keyword = True
        heads.append(p.name if p.default is p.empty else f"{p.name}=__defaults__[{p.name!r}]")
        passed.append(p.name if p.kind != p.KEYWORD_ONLY else f"{p.name}={p.name}")
    name = f"{func.__name__}_value"
    source = (f"def {name}({', '.join(heads)}):\n"
              f'    """The value of {_plain(func.__qualname__)}, which returns (value, aux)."""\n'
              f"    return {inner}({', '.join(passed)})[0]\n")
    return _compiled(source, name, {inner: func, "__defaults__": {
        p.name: p.default for p in params if p.default is not p.empty}})


def _compiled(source, name, namespace):
    """The function `name` of a wrapper's text, compiled as generated code is (written to the
    cache and linecache, so srcad reads its source) with the names it calls."""
    _, code, _ = compile_module(source, f"srcad_composed.{name}")  # (no helpers in it)
    namespace = dict(namespace, __name__=f"srcad_generated.{name}")
    exec(code, namespace)  # noqa: S102 - text written from identifiers by this module
    return namespace[name]


def _plain(text):
    """A qualified name as it may appear in a docstring (no quotes or backslashes)."""
    return "".join(c for c in text if c.isalnum() or c in "._<> ")
