"""Layer 2, what a fit may choose: the parameters checked against their table
(:mod:`.params`) and the candidate settings the cross-validation of automatic settings scores
(:mod:`.auto`; the folds and the scoring run in the Rust core).

May import: the base modules (``findrs.errors``, ``findrs.settings``, ``findrs.config``).
"""
