"""Standalone reproduction scripts: a failing (shrunk) program as a few lines of Python that a
developer can paste, with its arguments written out and lines that print srcad's number next to
the right one (central differences of f, computed entry by entry in the script itself).
"""
import numpy as np

from .checker import Checker, _random_like
from .program import arguments_text, CALLS, literal, load

NUMERIC = '''

def flat(value):
    if isinstance(value, tuple):
        return np.concatenate([flat(v) for v in value])
    return np.ravel(np.asarray(value, dtype=float))


def numeric_vjp(f, args, i, dy, h=1e-6):
    """<dy, df/dargs[i]> by central differences, entry by entry (dy = [1.0]: the gradient)."""
    x = np.asarray(args[i], dtype=float)
    g = np.zeros(x.shape)
    for j in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[j] += h
        down[j] -= h
        a, b = list(args), list(args)
        a[i] = up if isinstance(args[i], np.ndarray) else float(up)
        b[i] = down if isinstance(args[i], np.ndarray) else float(down)
        g[j] = (flat(f(*a)) - flat(f(*b))) @ flat(dy) / (2 * h)
    return g


def numeric_jvp(f, args, wrt, tangents, h=1e-6):
    """J v by a central difference along the tangents."""
    a, b = list(args), list(args)
    for i, t in zip(wrt, tangents):
        a[i] = args[i] + h * t
        b[i] = args[i] - h * t
    return (flat(f(*a)) - flat(f(*b))) / (2 * h)
'''


def prepare(checker):
    """The directions and cotangents the checker draws, without running srcad."""
    checker.f = load(checker.program.source).f
    checker.direction, checker.cotangent = {}, {}
    for call in range(len(checker.program.sizes)):
        args = checker.program.arguments(call)
        with np.errstate(all="ignore"):
            out = checker.f(*args)
        rng = np.random.default_rng([checker.program.value_seed, 7, call])
        checker.direction[call] = {p: _random_like(args[p], rng) for p in checker.wrt}
        checker.cotangent[call] = _random_like(out, rng)
    return checker


def wrt_of(checker, mode):
    """The wrt the checker used for this mode: an int or a tuple."""
    if mode == "value_and_grad":
        return checker.wrt if (checker.program.seed or 0) % 2 else checker.single
    if mode in ("grad", "hvp", "hvp_reverse"):
        return checker.single
    return checker.wrt


def literal_tree(value):
    if isinstance(value, tuple):
        return "(" + ", ".join(literal_tree(v) for v in value) + ("," if len(value) == 1 else "") \
            + ")"
    if isinstance(value, np.generic):
        return repr(float(value))
    return literal(value)


def script(program, failure, calls=CALLS):
    """The text of a runnable script that shows failure on program."""
    checker = prepare(Checker(program, calls=calls))
    mode = failure.mode.split("[")[0]
    if mode == "vjp/jvp":
        mode = "dot"
    options = ', disable="all"' if failure.mode.endswith("[disable=all]") else ""
    if failure.kind == "verify":
        options += ", verify=True"
    wrt = wrt_of(checker, mode)
    names = [p.name for p in program.params]
    maker = {"grad_tuple": "grad", "float32": "grad" if program.output == "scalar" else "vjp",
             "dot": "vjp"}.get(mode, mode)
    if mode.startswith("jacobian_"):  # (srcad.jacobian(f, mode="forward" or "reverse"))
        maker, options = "jacobian", f', mode="{mode[len("jacobian_"):]}"' + options
    body = program.source.replace("import numpy as np\n", "").strip("\n")
    lines = [f'"""srcad fuzz failure: {failure.kind} in {failure.mode}.', "",
             _wrap(str(failure)), "", f"Generator seed {program.seed}; shrunk by tests/fuzz.",
             '"""', "import numpy as np", "", "import srcad", "", "", body, "", ""]
    if failure.kind in ("wrong", "dot"):
        lines += [NUMERIC.strip("\n"), "", ""]
    arg_names = []
    for k, call in enumerate(calls):
        suffix = f"_{k + 1}" if len(calls) > 1 else ""
        arg_lines, _ = arguments_text(program, call)
        lines.append("")
        if len(calls) > 1:
            lines.append(f"# call {k + 1}" + ({1: " (other shapes)", 5: " (other values)"}.get(
                call, "")))
        lines += [line.replace(" = ", f"{suffix} = ", 1) for line in arg_lines]
        arg_names.append("(" + ", ".join(n + suffix for n in names) +
                         ("," if len(names) == 1 else "") + ")")
    if mode == "hvp_reverse":  # reverse over reverse: vjp of the generated gradient
        lines += ["", f"d = srcad.vjp(srcad.grad(f, wrt={wrt!r}{options}), wrt={wrt!r}"
                      f"{options})"]
    else:
        lines += ["", f"d = srcad.{maker}(f, wrt={wrt!r}{options})"]

    def extra(call):
        if mode in ("vjp", "dot") or (mode == "float32" and maker == "vjp"):
            return ", " + literal_tree(checker.cotangent[call])
        if mode == "jvp":
            return ", " + ", ".join(literal_tree(checker.direction[call][p]) for p in wrt)
        if mode in ("hvp", "hvp_reverse"):
            return ", " + literal_tree(checker.direction[call][wrt])
        return ""

    if failure.kind == "cache":
        first, second = arg_names[0], arg_names[-1]
        lines += [f"first = d(*{first}{extra(calls[0])})",
                  f"d(*{second}{extra(calls[-1])})  # other shapes",
                  f"again = d(*{first}{extra(calls[0])})",
                  'print("first call:     ", first)', 'print("same args again:", again)']
        return "\n".join(lines) + "\n"
    for args, call in zip(arg_names[:-1], calls[:-1]):
        lines.append(f"d(*{args}{extra(call)})  # the first call specializes d")
    args, call = arg_names[-1], calls[-1]
    lines += _show(failure, mode, program, checker, wrt, args, call, extra(call), names,
                   options)
    return "\n".join(lines) + "\n"


def _show(failure, mode, program, checker, wrt, args, call, extra, names, options):
    kind = failure.kind
    positions = wrt if isinstance(wrt, tuple) else (wrt,)
    lists = [p.name for p in program.params if p.kind in ("list", "dict")]
    if kind == "wrong" and mode in ("grad", "grad_tuple", "value_and_grad", "vjp"):
        dy = "[1.0]" if mode != "vjp" else literal_tree(checker.cotangent[call])
        lines = [f"got = d(*{args}{extra})"]
        if mode == "value_and_grad":
            lines.append("got = got[1]")
        if not isinstance(wrt, tuple):
            lines.append("got = (got,)")
        for k, p in enumerate(positions):
            lines += [f'print("srcad, {names[p]}:", got[{k}])',
                      f'print("right, {names[p]}:", numeric_vjp(f, {args}, {p}, {dy}))']
        return lines
    if kind == "wrong" and mode == "jvp":
        return [f"tangents = ({extra[2:]},)",
                f'print("srcad jvp:", flat(d(*{args}, *tangents)))',
                f'print("right jvp:", numeric_jvp(f, {args}, {positions}, tangents))']
    if kind == "wrong" and mode in ("hvp", "hvp_reverse"):
        p = wrt
        return [f"v = {extra[2:]}", f'print("srcad hvp:", d(*{args}, v))',
                f"g = srcad.grad(f, wrt={p})",
                f"a, b = list({args}), list({args})",
                f"a[{p}] = a[{p}] + 1e-5 * v", f"b[{p}] = b[{p}] - 1e-5 * v",
                'print("right hvp (central differences of the gradient):", '
                '(g(*a) - g(*b)) / 2e-5)']
    if kind == "dot":
        tangents = ", ".join(literal_tree(checker.direction[call][p]) for p in positions)
        return [f"v = ({tangents},)", f"w = {literal_tree(checker.cotangent[call])}",
                f"jv = srcad.jvp(f, wrt={positions!r}{options})(*{args}, *v)",
                f"jtw = srcad.vjp(f, wrt={positions!r}{options})(*{args}, w)",
                'print("<J v, w> (jvp):", flat(jv) @ flat(w))',
                'print("<v, J^T w> (vjp):", sum(flat(a) @ flat(b) for a, b in zip(jtw, v)))',
                f'print("numeric J v:   ", numeric_jvp(f, {args}, {positions!r}, v) @ flat(w))']
    if kind == "value":
        return [f'print("f:             ", repr(f(*{args})))',
                f'print("value_and_grad:", repr(d(*{args})[0]))']
    if kind == "mutation":
        return [f"before = [np.copy(a) for a in {args}]", f"d(*{args}{extra})",
                f"for name, a, b in zip({names!r}, before, {args}):",
                "    if not np.array_equal(a, b):", "        print(name, 'was', a, 'and is now', b)"]
    if kind == "side_effects":
        shown = ", ".join(lists)
        return [f"f(*{args})", f'print("after f:         ", {shown})',
                *[f"{name}.clear()" if program.params[names.index(name)].kind == "list"
                  else f'{name}["calls"] = 0' for name in lists],
                f"d(*{args}{extra})", f'print("after derivative:", {shown})']
    if mode == "float32":
        return [f"args32 = [np.asarray(a, dtype=np.float32) if isinstance(a, np.ndarray) else a "
                f"for a in {args}]", "args64 = [np.asarray(a, dtype=np.float64) if "
                "isinstance(a, np.ndarray) else a for a in args32]",
                f"g32 = d(*args32{extra})", f"g64 = d(*args64{extra})",
                'print("f\'s output dtype:", np.asarray(f(*args32)).dtype)',
                "for a, b in zip(g32, g64):",
                "    print('float32:', np.asarray(a).dtype, a, '| float64:', b)"]
    if kind == "structure":
        return [f"got = d(*{args}{extra})",
                "print(type(got).__name__, [np.shape(g) for g in got] if isinstance(got, tuple) "
                "else np.shape(got), got)", f"print('argument shapes:', [np.shape(a) for a in "
                                           f"{args}])"]
    return [f"print(d(*{args}{extra}))"]  # crash, verify


def _wrap(text, width=96):
    words, lines, line = text.split(), [], ""
    for word in words:
        if line and len(line) + len(word) + 1 > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return "\n".join(lines + [line]).replace('"""', "'''")
