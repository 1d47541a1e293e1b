"""Helpers of the tests that read generated code: its text and a check of its numbers."""
import srcad


def code(func, args, wrt=0):
    """The gradient function srcad generates for func, specialized to args (as calls run it),
    without the runtime helpers before it and without comment lines."""
    text = srcad.source(func, wrt=wrt, args=args)
    text = text[text.index(f"def {func.__name__}_grad"):]
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def check(func, args, wrt=0):
    """Central differences, the forward/reverse dot-product test, and second order."""
    srcad.check_grads(func, args, wrt=wrt)
    srcad.check_grads(func, args, wrt=wrt, modes=("reverse",), order=2)
