"""srcad's built-in derivative templates, one module per namespace or family (installed as
srcad.templates).

Importing this package registers every template with srcad.REGISTRY. The modules are imported
in this order because the runtime helpers they define are registered as they are imported, and
a generated module writes the helpers it uses in that order.
"""
from . import numpy_elementwise, numpy_selections, operators, math  # noqa: F401
from . import numpy_reductions, numpy_nan_reductions, numpy_scans, numpy_shapes  # noqa: F401
from . import numpy_products, numpy_linalg, numpy_linalg_api, runtime  # noqa: F401
from . import nondifferentiable, builtins, numpy_sorting, numpy_calculus  # noqa: F401
from . import numpy_signal, numpy_polynomial, numpy_statistics, numpy_layout  # noqa: F401
from . import scipy_special  # noqa: F401  (registers templates only if scipy imports)
from . import scipy_stats, scipy_stats_families, scipy_stats_discrete  # noqa: F401  (the same)
from . import scipy_stats_multivariate, scipy_signal  # noqa: F401  (the same)
from . import numpy_fft  # noqa: F401
