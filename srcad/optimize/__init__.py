"""Layer 6, optimize: rewrites of generated code that keep its numbers, one pass per module
(simplify holds the constants, copies and dead-code passes). Every pass can be switched off by
the name pipeline.PASSES gives it, and verify mode checks them against the unoptimized build."""
