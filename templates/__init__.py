"""srcad's built-in derivative templates, one module per namespace (installed as srcad.templates).

Importing this package registers every template with srcad.REGISTRY.
"""
from . import operators, math, numpy_elementwise, numpy_reductions, numpy_shapes  # noqa: F401
from . import numpy_linalg, runtime, nondifferentiable, builtins, numpy_extra  # noqa: F401
from . import scipy_special  # noqa: F401  (registers templates only if scipy imports)
