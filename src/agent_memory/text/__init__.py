"""Text utilities shared by the stores and the pipeline: the words of a query that count
(:mod:`.terms`), reciprocal rank fusion (:mod:`.fusion`) and the detection of text that
addresses the model or the memory system (:mod:`.injection`).

A leaf: nothing here imports another part of ``agent_memory``, so any layer may use it.
"""
