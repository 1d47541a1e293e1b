"""SrcadError: what srcad cannot differentiate, said at the user's own line.

Every error names the user's file, line and column, shows that line with a caret under the
offending expression, and says what to do instead:

    model.py:12:9: srcad cannot differentiate calls to numpy.fft.fft
        y = np.fft.fft(x)
            ^
    what to do: register templates with @srcad.adjoint(np.fft.fft) and @srcad.tangent(...)
"""


class SrcadError(Exception):
    """Raised at build time for anything srcad cannot differentiate (never a silent zero)."""

    def __init__(self, message, *, filename=None, lineno=None, col=None, line=None, hint=None):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.line = line
        self.hint = hint
        super().__init__(self.render())

    def render(self):
        where = ""
        if self.filename is not None:
            where = f"{self.filename}:{self.lineno}:{(self.col or 0) + 1}: "
        parts = [f"{where}{self.message}"]
        if self.line is not None:
            text = self.line.rstrip("\n")
            stripped = text.lstrip()
            indent = len(text) - len(stripped)
            parts.append("    " + stripped)
            parts.append("    " + " " * max(0, (self.col or 0) - indent) + "^")
        if self.hint:
            parts.append(f"what to do: {self.hint}")
        return "\n".join(parts)


class VerifyError(AssertionError):
    """Verify mode found an optimized derivative that disagrees with the unoptimized one, or a
    derivative call that changed its arguments: a bug in srcad (please report it), never in the
    user's code. The message names the function and, found by bisection, the guilty pass."""
