"""Layer 9, api: derivatives as users call them. derivatives holds the public functions
(grad, vjp, jvp, ...) and the Derivative objects, matrices the Jacobians, Hessians and their
products, cache the compiled builds in memory, diskcache on disk, verify the comparison with
the unoptimized build."""
from .derivatives import grad, jvp, value_and_grad, vjp
from .matrices import hessian, hessp, hvp, jacobian
from .text import coverage, emit, source

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "jacobian", "hessian", "hvp", "hessp", "source", "emit",
           "coverage"]
