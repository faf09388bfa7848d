"""Layer 1, input: a frame becomes codes. Frames from any source (:mod:`.frames`), the target's
labels (:mod:`.target`), the encoders that learn each feature's domain and encode every frame
with the same Polars expressions, for fit and predict alike (:mod:`.encode`), a fold's own
codes for the cross-validation (:mod:`.fold_codes`) and the memory a fit will need
(:mod:`.memory`).

May import: ``findrs.errors``, ``findrs.settings``, ``findrs.config``; nothing of the other layers.
"""
