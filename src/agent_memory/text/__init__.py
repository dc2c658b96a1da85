"""Text utilities shared by the stores and the pipeline: the words of a query that count
(:mod:`.terms`), reciprocal rank fusion (:mod:`.fusion`), the detection of text that
addresses the model or the memory system (:mod:`.injection`) and relative dates made absolute
(:mod:`.dates`, shared by the offline and LLM reasoners and :mod:`agent_memory.timeref`).

A leaf: nothing here imports another part of ``agent_memory``, so any layer may use it.
"""
