"""Helpers of the tests that read generated code: its text and a check of its numbers, and
functions made from an expression (srcad reads source, so they live in real files)."""
import importlib.util

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


def function_of(expr, params, directory):
    """def f(<params>): return <expr>, written to a module file in directory and imported."""
    return module_function(f"import numpy as np\n\n\ndef f({params}):\n    return {expr}\n",
                           f"f_{abs(hash((expr, params)))}", directory)


def module_function(source, name, directory):
    """The function f of a module of this source, written to directory/<name>.py and
    imported."""
    path = directory / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f
