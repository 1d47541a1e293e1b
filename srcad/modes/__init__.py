"""Layer 7, modes: the derivatives themselves. forward writes tangent code, reverse the primal
sweep, the tape and the adjoint sweep."""
