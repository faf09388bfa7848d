"""Layer 4, fitting: :func:`findrs.fit` (:mod:`.learn`: from a frame and settings to a model,
the automatic choices among candidates), the cross-validation of rules with exceptions
(:mod:`.exceptions_cv`), bagged votes (:mod:`.bagging`) and the progress line
(:mod:`.progress`).

May import: every layer below (the base modules, ``findrs.data``, ``findrs.export``,
``findrs.select``, ``findrs.models``).
"""
