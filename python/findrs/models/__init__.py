"""Layer 3, the one model type: :class:`~findrs.Model` (:mod:`.base`) and its kinds, rule sets
(:mod:`.model`, with :mod:`.multiclass`'s combinations), rules with exceptions
(:mod:`.exceptions`) and bagged votes (:mod:`.bagged`), and :func:`findrs.load`
(:mod:`.loader`). Only :mod:`.model` touches the Rust extension.

May import: the base modules, ``findrs.data``, ``findrs.export`` and ``findrs.select``.
"""
