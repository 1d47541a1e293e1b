"""Layer 3, frontend: the user's function as code srcad can differentiate. parse reads it, lift
inlines nested definitions, resolve binds names to objects, fence refuses what srcad does not
model, mutation refuses writes it cannot model, desugar/control/anf/unroll rewrite it into one
operation per line, keep_dtypes keeps in-place dtypes."""
