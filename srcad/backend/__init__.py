"""Layer 2, backend: code out of the compiler. emit prints gast as readable Python and assembles
self-contained modules; files keeps them (private cache directory, compile, linecache).
Imports only syntax and runtime, so every layer above may print code."""
