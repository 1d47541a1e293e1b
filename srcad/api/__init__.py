"""Layer 9, api: derivatives as users call them. derivatives holds the public functions
(grad, vjp, jvp, ...) and the Derivative objects, cache the compiled builds in memory, diskcache
on disk, verify the comparison with the unoptimized build."""
from .derivatives import (coverage, emit, grad, hessian, hvp, jacobian, jvp, source,
                          value_and_grad, vjp)

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "jacobian", "hessian", "hvp", "source", "emit",
           "coverage"]
