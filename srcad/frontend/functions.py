"""functions: copies of the user's functions that carry what srcad specialized them to.

A copy shares the function's code, globals, defaults and closure (it is the same function for
Python), and carries attributes that later builds read: __srcad_bindings__ (the functions a call
passes it, rules/calls.py), __srcad_call_shape__ (its *args and **kwargs at one call),
__srcad_classes__ (the class of its self, object_loops.py), and __signature__ where the shape
changes its parameters. Each is built once per callee and specialization by its maker, so its
derivatives are built and cached once.
"""
import types


def function_copy(func, **attributes):
    """A copy of func with func's own attributes and then `attributes` set on it."""
    copy = types.FunctionType(func.__code__, func.__globals__, func.__name__,
                              func.__defaults__, func.__closure__)
    copy.__kwdefaults__ = func.__kwdefaults__
    copy.__qualname__, copy.__module__ = func.__qualname__, func.__module__
    copy.__dict__.update(func.__dict__)  # (a lifted function's text, earlier specializations)
    copy.__dict__.update(attributes)
    return copy
