"""html: a generated module and the user's functions it comes from, side by side, as HTML.

    highlight_lines(text)   -> one HTML string per line: keywords, strings, numbers, comments,
                               builtins and defined names as <span class=...>, from the stdlib
                               tokenizer (no pygments)
    view(...)               -> a <div> with its own <style>: the user's functions on the left, the
                               generated module on the right, the runtime helpers folded away
                               (<details>), each generated line whose comment points at a user
                               line (`# grad of: ...  (model.py:12)`) linked to it, and each user
                               line linked to the first generated line for it
    page(title, fragment)   -> a whole self-contained HTML page around a view (no scripts, no
                               outside files)

Everything that comes from the user or from generated code is HTML-escaped (html.escape with
quotes), so a name, a string or a comment holding `<script>` or `&` is shown as text. Ids are
made of a prefix (letters and digits) and numbers only.
"""
import ast
import builtins
import html
import io
import keyword
import re
import tokenize

from .. import runtime

_ORIGIN = re.compile(r"^(.*  )\(([^()\n]+):(\d+)\)$")  # `# grad of: ...  (file.py:12)`
_BUILTINS = frozenset(name for name in dir(builtins) if not name.startswith("_"))

STYLE = """
.srcad-view{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#1f2328;
background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:0;margin:4px 0;
text-align:left}
.srcad-view .srcad-head{font:13px/1.5 system-ui,sans-serif;padding:8px 12px;background:#f6f8fa;
border-bottom:1px solid #d0d7de}
.srcad-view .srcad-head h1{font-size:15px;margin:0 0 4px 0}
.srcad-view .srcad-head dl{display:grid;grid-template-columns:max-content 1fr;gap:0 12px;
margin:0}
.srcad-view .srcad-head dt{font-weight:600}.srcad-view .srcad-head dd{margin:0}
.srcad-view .srcad-panes{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,3fr)}
.srcad-view .srcad-pane{overflow:auto;padding:6px 0;border-right:1px solid #d0d7de}
.srcad-view .srcad-pane:last-child{border-right:none}
.srcad-view h2{font:600 13px/1.5 system-ui,sans-serif;margin:6px 12px}
.srcad-view pre{margin:0 0 8px 0;padding:0}
.srcad-view .ln{display:block;white-space:pre;padding:0 12px 0 0}
.srcad-view .ln:target{background:#fff3b0}
.srcad-view .no{display:inline-block;width:4.5em;padding-right:1em;text-align:right;
color:#8c959f;user-select:none}
.srcad-view a{color:inherit}.srcad-view a.no{color:#0969da;text-decoration:none}
.srcad-view .mapped{background:#eef6ff}
.srcad-view details{margin:4px 12px}.srcad-view summary{cursor:pointer;color:#57606a;
font:13px system-ui,sans-serif}
.srcad-view .k{color:#cf222e}.srcad-view .s{color:#0a3069}.srcad-view .n{color:#0550ae}
.srcad-view .c{color:#6e7781;font-style:italic}.srcad-view .c a{color:#0969da}
.srcad-view .b{color:#8250df}.srcad-view .f{color:#8250df;font-weight:600}
@media (max-width:900px){.srcad-view .srcad-panes{grid-template-columns:1fr}}
"""


def escape(text):
    return html.escape(str(text), quote=True)


def _span(cls, text):
    return f'<span class="{cls}">{escape(text)}</span>' if text else ""


def highlight_lines(text, comment_link=None):
    """One HTML string per line of text (Python source), highlighted. comment_link(comment,
    line number): (text before the link, linked text, href) for a comment to link, or None.
    Text the tokenizer cannot read (a fragment) is escaped without colors."""
    lines = text.splitlines()
    out = [[] for _ in lines]
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return [escape(line) for line in lines]
    row, col = 1, 0  # where the text written so far ends
    previous = None
    for token in tokens:
        (srow, scol), (erow, ecol) = token.start, token.end
        if srow > len(lines):
            break
        if (srow, scol) > (row, col):  # the gap: spaces, a line continuation
            _write_plain(out, lines, (row, col), (srow, scol))
        cls = _token_class(token, previous)
        if token.type == tokenize.COMMENT and comment_link is not None:
            link = comment_link(token.string, srow)
            if link is not None:
                before, linked, href = link
                out[srow - 1].append(f'<span class="c">{escape(before)}<a href="{escape(href)}">'
                                     f'{escape(linked)}</a></span>')
                row, col = erow, ecol
                previous = token
                continue
        pieces = token.string.split("\n") if token.type != tokenize.NL and token.type != \
            tokenize.NEWLINE else [""]
        for offset, piece in enumerate(pieces):
            if srow - 1 + offset < len(out):
                out[srow - 1 + offset].append(_span(cls, piece) if cls else escape(piece))
        row, col = erow, ecol
        if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT,
                              tokenize.DEDENT):
            previous = token
    return ["".join(parts) for parts in out]


def _write_plain(out, lines, start, end):
    (row, col), (erow, ecol) = start, end
    while row < erow:
        if row - 1 < len(lines):
            out[row - 1].append(escape(lines[row - 1][col:]))
        row, col = row + 1, 0
    if row - 1 < len(lines):
        out[row - 1].append(escape(lines[row - 1][col:ecol]))


def _token_class(token, previous):
    kind, text = token.type, token.string
    if kind == tokenize.NAME:
        if previous is not None and previous.type == tokenize.NAME and previous.string in (
                "def", "class"):
            return "f"
        if keyword.iskeyword(text) or keyword.issoftkeyword(text):
            return "k"
        if text in _BUILTINS:
            return "b"
        return None
    if kind == tokenize.STRING:
        return "s"
    if kind == tokenize.NUMBER:
        return "n"
    if kind == tokenize.COMMENT:
        return "c"
    return None


# ---------------------------------------------------------------------------------------------
# the view

class Listing:
    """A user's function as the left pane shows it: its text (dedented), where it is."""

    def __init__(self, label, filename, first_line, text):
        self.label = label
        self.filename = filename
        self.first_line = first_line
        self.text = text
        self.basename = filename.replace("\\", "/").rsplit("/", 1)[-1]
        self.last_line = first_line + max(len(text.splitlines()), 1) - 1


def _sections(module):
    """(kind, first line, last line) of the module's parts, in order: "top" (docstring,
    imports, values), "helpers" (the runtime helpers), "code" (the generated functions and
    what follows them). Lines count from 1."""
    lines = module.splitlines()
    try:
        body = ast.parse(module).body
    except SyntaxError:
        return [("code", 1, len(lines))]
    helpers = [node for node in body if isinstance(node, ast.FunctionDef)
               and node.name in runtime.HELPERS]
    first_def = next((node for node in body if isinstance(node, ast.FunctionDef)), None)
    if first_def is None:
        return [("code", 1, len(lines))]
    out = [("top", 1, first_def.lineno - 1)]
    if helpers:
        last = max(node.end_lineno for node in helpers)
        out.append(("helpers", first_def.lineno, last))
        out.append(("code", last + 1, len(lines)))
    else:
        out.append(("code", first_def.lineno, len(lines)))
    trimmed = []
    for kind, a, b in out:  # (blank lines at a section's edges are not shown)
        while a <= b and not lines[a - 1].strip():
            a += 1
        while b >= a and not lines[b - 1].strip():
            b -= 1
        if a <= b:
            trimmed.append((kind, a, b))
    return trimmed


def view(title, facts, listings, module, uid="s"):
    """The HTML fragment: a header (title, facts: (label, value) pairs), the listings on the
    left, the module on the right, linked both ways. uid: a prefix that keeps the ids of two
    views on one page (a notebook) apart."""
    uid = re.sub(r"[^A-Za-z0-9]", "", uid) or "s"
    targets = {}  # (listing index, user line) -> first generated line pointing at it

    def where(basename, line):
        for index, listing in enumerate(listings):
            if listing.basename == basename and listing.first_line <= line <= listing.last_line:
                return index
        return None

    def comment_link(comment, number):
        match = _ORIGIN.match(comment)
        if match is None:
            return None
        line = int(match.group(3))
        index = where(match.group(2), line)
        if index is None:
            return None
        targets.setdefault((index, line), number)
        return match.group(1), f"({match.group(2)}:{line})", f"#{uid}u{index}-{line}"

    highlighted = highlight_lines(module, comment_link)
    right = []
    for kind, first, last in _sections(module):
        rows = "".join(_row(f"{uid}g{n}", n, highlighted[n - 1]) for n in range(first, last + 1))
        block = f"<pre>{rows}</pre>"
        if kind == "helpers":
            names = [node.name for node in ast.parse(module).body
                     if isinstance(node, ast.FunctionDef) and node.name in runtime.HELPERS]
            block = (f"<details><summary>srcad's runtime helpers ({len(names)}): "
                     f"{escape(', '.join(names))}</summary>{block}</details>")
        right.append(block)
    left = []
    for index, listing in enumerate(listings):
        lines = highlight_lines(listing.text)
        rows = []
        for offset, line_html in enumerate(lines):
            n = listing.first_line + offset
            target = targets.get((index, n))
            rows.append(_row(f"{uid}u{index}-{n}", n, line_html,
                             href=f"#{uid}g{target}" if target is not None else None))
        left.append(f"<h2>{escape(listing.label)} <small>{escape(listing.basename)}:"
                    f"{listing.first_line}</small></h2><pre>{''.join(rows)}</pre>")
    head = "".join(f"<dt>{escape(label)}</dt><dd>{escape(value)}</dd>" for label, value in facts)
    return (f'<div class="srcad-view"><style>{STYLE}</style>'
            f'<div class="srcad-head"><h1>{escape(title)}</h1><dl>{head}</dl></div>'
            f'<div class="srcad-panes"><div class="srcad-pane"><h2>your code</h2>{"".join(left)}'
            f'</div><div class="srcad-pane"><h2>generated</h2>{"".join(right)}</div></div></div>')


def _row(anchor, number, line_html, href=None):
    number_html = (f'<a class="no" href="{escape(href)}" title="the generated code for this '
                   f'line">{number}</a>' if href else f'<span class="no">{number}</span>')
    cls = "ln mapped" if href else "ln"
    return f'<span class="{cls}" id="{escape(anchor)}">{number_html}{line_html}</span>'


def page(title, fragment):
    """A whole HTML page around a view."""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{escape(title)}</title>\n</head>\n<body>\n{fragment}\n</body>\n</html>\n")
