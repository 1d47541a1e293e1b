"""srcad: source-to-source automatic differentiation for Python and NumPy.

    import srcad
    df = srcad.grad(f)                 # reverse mode, generated as readable Python
    print(srcad.source(f))             # the generated gradient
"""
from .version import __version__  # noqa: F401
from .errors import SrcadError, VerifyError  # noqa: E402
from .rules.registry import adjoint, d, non_differentiable, REGISTRY, tangent  # noqa: E402
from . import templates as _templates  # noqa: E402,F401  (registers the built-in templates)
REGISTRY.sync_helpers()  # (and the tangents of the runtime helpers they declare linear)
from .pipeline import PASSES  # noqa: E402
from .api import (coverage, emit, grad, hessian, hessp, hvp, jacobian, jvp, source,  # noqa: E402
                  value_and_grad, vjp)
from .checking import check_grads  # noqa: E402
from .runtime import checkpoint, grad_hook, stop_gradient  # noqa: E402

__all__ = ["SrcadError", "VerifyError", "PASSES", "grad", "value_and_grad", "vjp", "jvp",
           "jacobian", "hessian", "hvp", "hessp", "source", "emit", "coverage", "check_grads",
           "stop_gradient", "grad_hook", "checkpoint",
           "adjoint", "tangent", "non_differentiable", "d", "REGISTRY", "__version__"]
