"""Layer 1, syntax: the AST toolkit every other layer writes code with (names and fresh names,
node builders, statement queries). Imports nothing of srcad."""
