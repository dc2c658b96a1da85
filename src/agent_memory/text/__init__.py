"""Text utilities shared by the stores and the pipeline: the words of a query that count
(:mod:`.terms`) and reciprocal rank fusion (:mod:`.fusion`).

A leaf: nothing here imports another part of ``agent_memory``, so any layer may use it.
"""
