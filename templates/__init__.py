"""srcad's built-in derivative templates, one module per namespace or family (installed as
srcad.templates).

Importing this package registers every template of numpy, math, operator and Python's builtins
with srcad.REGISTRY. The modules are imported in this order because the runtime helpers they
define are registered as they are imported, and a generated module writes the helpers it uses in
that order.

SciPy's templates are registered when the registry is first looked at after the user's program
has imported that part of SciPy (REGISTRY.when_imported): importing scipy.stats takes about half
a second, which srcad's own import would otherwise cost every program. They come after numpy's,
in the order written below.
"""
import importlib

from srcad.rules.registry import REGISTRY

from . import numpy_elementwise, numpy_selections, operators, math  # noqa: F401
from . import numpy_reductions, numpy_nan_reductions, numpy_scans, numpy_shapes  # noqa: F401
from . import numpy_products, numpy_linalg, numpy_linalg_api, runtime  # noqa: F401
from . import nondifferentiable, builtins, numpy_sorting, numpy_calculus  # noqa: F401
from . import numpy_signal, numpy_polynomial, numpy_statistics, numpy_layout  # noqa: F401
from . import numpy_fft  # noqa: F401


def _loader(*names):
    def load():
        for name in names:
            importlib.import_module(f"{__name__}.{name}")
    return load


REGISTRY.when_imported("scipy.special", _loader("scipy_special"))
REGISTRY.when_imported("scipy.stats", _loader(
    "scipy_special", "scipy_stats", "scipy_stats_families", "scipy_stats_discrete",
    "scipy_stats_multivariate"))
REGISTRY.when_imported("scipy.signal", _loader("scipy_signal"))
REGISTRY.when_imported("scipy.linalg", _loader("scipy_linalg"))
