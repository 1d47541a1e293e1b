"""srcad's built-in derivative templates, one module per namespace (installed as srcad.templates).

Importing this package registers every template with srcad.REGISTRY.
"""
from . import operators, math, numpy_elementwise, numpy_reductions, numpy_shapes  # noqa: F401
from . import numpy_linalg, numpy_linalg_api, runtime, nondifferentiable, builtins  # noqa: F401
from . import numpy_sorting, numpy_calculus, numpy_signal, numpy_polynomial  # noqa: F401
from . import numpy_statistics, numpy_layout  # noqa: F401
from . import scipy_special  # noqa: F401  (registers templates only if scipy imports)
