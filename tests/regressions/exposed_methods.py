"""A module that exposes an object's method as a module attribute, as the standard library's
random does (random.shuffle is random._inst.shuffle): test_module_attribute_methods.py."""
import numpy as np

factor = 3.0  # the module's own name: not the object's attribute of the same name


class Scaler:
    def __init__(self, factor):
        self.factor = factor

    def apply(self, x):
        return self.factor * np.sin(x)


_default = Scaler(2.0)
apply = _default.apply
