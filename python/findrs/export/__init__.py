"""Layer 2, reading a fitted model's public view: constraints and votes (:mod:`.view`), their
text (:mod:`.text`), SQL (:mod:`.sql`), Polars expressions (:mod:`.expressions`), printed
reports (:mod:`.report`) and the nearest rule a row misses (:mod:`.nearest`). Each prints the
same view; none has a formula of its own.

May import: the base modules (``findrs.errors``, ``findrs.settings``, ``findrs.config``) and
``findrs.data``.
"""
