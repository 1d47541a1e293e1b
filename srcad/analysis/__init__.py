"""Layer 5, analysis: facts about the code, not rewrites. activity (which names carry
derivatives), shapes (the shape probe and shape algebra), invariance (names that never change)."""
