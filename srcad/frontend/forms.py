"""forms: statements written in another form, rewritten as the ones srcad differentiates when a
function is parsed (so every function srcad reads gets them: f, the helpers it writes in, the
callees it builds derivatives of):

    y: float = x * 2.0            ->   y = x * 2.0        (in a function an annotation is never
    z: float                      ->   (nothing)           evaluated: it only names a type)

    match kind:                   ->   if kind == 'sq':
        case 'sq':                         ...
            ...                        elif kind == 'abs' or kind == 'l1':
        case 'abs' | 'l1':                 ...
            ...                        elif kind is None:
        case None:                         ...
            ...                        else:
        case n if n > 3:                   n = kind
            ...                            if n > 3:
        case _:                                ...
            ...                            else:
                                               ...

A match statement's patterns may be values, None/True/False, alternatives of those,
captures and the wildcard (with `as` names and guards); its subject is read once (a name for it
where it is not one). Any other statement kind srcad does not know (try/except*, async for and
with, type aliases, sequence, mapping and class patterns) is refused here, at the user's line,
before a later pass could mistake it: an annotated assignment the reverse sweep did not know
was dropped from the gradient (a zero where the derivative is 8x).
"""
import gast

from .fence import UNSUPPORTED
from ..syntax.naming import walk
from ..syntax.nodes import name

# the statement kinds the passes know (the fence refuses some of them later, saying what to
# write instead); any other kind is refused here with UNSUPPORTED's words
KNOWN = (gast.FunctionDef, gast.Return, gast.Assign, gast.AugAssign, gast.For, gast.While,
         gast.If, gast.Raise, gast.Try, gast.Assert, gast.Expr, gast.Pass, gast.Break,
         gast.Continue, gast.Import, gast.ImportFrom, gast.With, gast.Global, gast.Nonlocal,
         gast.Delete, gast.ClassDef, gast.AsyncFunctionDef)


def plain_forms(fdef, info):
    """fdef with annotated assignments and match statements in their plain forms (see the
    module docstring); a SrcadError at the first statement of a kind srcad does not know."""
    taken = {n.id for n in walk(fdef) if isinstance(n, gast.Name)}
    fdef.body = _block(fdef.body, info, taken)
    return fdef


def _block(stmts, info, taken):
    out = []
    for stmt in stmts:
        kind = type(stmt)
        if kind is gast.AnnAssign:
            if stmt.value is not None:
                out.append(gast.copy_location(gast.Assign(
                    targets=[stmt.target], value=stmt.value, type_comment=None), stmt))
            continue
        if kind is gast.Match:
            out += _match(stmt, info, taken)
            continue
        if not isinstance(stmt, KNOWN):
            what, hint = UNSUPPORTED.get(kind, (f"{kind.__name__} statements", "write it as "
                                                "assignments, if and for"))
            raise info.error(stmt, f"srcad does not differentiate {what}", hint=hint)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if isinstance(block, list):
                setattr(stmt, field, _block(block, info, taken))
        for handler in getattr(stmt, "handlers", None) or ():
            handler.body = _block(handler.body, info, taken)
        out.append(stmt)
    return out


def _match(stmt, info, taken):
    """The if/elif chain of a match statement (its subject bound to a name first, unless it is
    one)."""
    out = []
    subject = stmt.subject
    if not isinstance(subject, gast.Name):
        holder = _fresh("matched", taken)
        out.append(gast.copy_location(gast.Assign(
            targets=[name(holder, gast.Store())], value=subject, type_comment=None), stmt))
        subject = name(holder)
    return out + _cases(stmt.cases, subject, info, taken, stmt)


def _cases(cases, subject, info, taken, at):
    if not cases:
        return []
    case, rest = cases[0], cases[1:]
    test, names = _pattern(case.pattern, subject, info)
    body = _block(case.body, info, taken)
    later = _cases(rest, subject, info, taken, at)
    if case.guard is not None:  # (its names are bound before it is tested, as Python does)
        body = [gast.copy_location(gast.If(test=case.guard, body=body, orelse=later),
                                   case.guard)]
    binds = [gast.copy_location(gast.Assign(targets=[name(n, gast.Store())],
                                            value=name(subject.id), type_comment=None),
                                case.pattern) for n in names]
    if test is None:  # (irrefutable: the wildcard or a capture, the last case)
        return binds + body or [gast.copy_location(gast.Pass(), at)]
    return [gast.copy_location(gast.If(test=test, body=binds + body or [gast.Pass()],
                                       orelse=later), case.pattern)]


def _pattern(pattern, subject, info):
    """(the test of pattern against subject, None if it always matches; the names it binds)."""
    kind = type(pattern)
    if kind is gast.MatchValue:
        return _compare(subject, gast.Eq(), pattern.value), []
    if kind is gast.MatchSingleton:
        return _compare(subject, gast.Is(), gast.Constant(value=pattern.value, kind=None)), []
    if kind is gast.MatchOr:
        tests = []
        for option in pattern.patterns:
            test, names = _pattern(option, subject, info)
            if names or test is None:
                break
            tests.append(test)
        else:
            return gast.BoolOp(op=gast.Or(), values=tests), []
    elif kind is gast.MatchAs:
        if pattern.pattern is None:
            return None, [pattern.name] if pattern.name is not None else []
        test, names = _pattern(pattern.pattern, subject, info)
        return test, names + ([pattern.name] if pattern.name is not None else [])
    what, hint = UNSUPPORTED[gast.Match]
    raise info.error(pattern, f"srcad does not differentiate {what}", hint=hint)


def _compare(left, op, right):
    return gast.copy_location(gast.Compare(left=name(left.id), ops=[op], comparators=[right]),
                              right)


def _fresh(stem, taken):
    ident, count = stem, 0
    while ident in taken:
        count += 1
        ident = f"{stem}_{count}"
    taken.add(ident)
    return ident
