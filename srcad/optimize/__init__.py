"""Layer 6, optimize: rewrites of generated code that keep its numbers, one pass per module
(passes.py declares them, in order; manager.py runs them with the facts they need; algebra.py
reads and writes the products they rewrite). Every pass can be switched off by the name
pipeline.PASSES gives it, and verify mode checks them against the unoptimized build."""
