"""Store backends behind one contract (:class:`MemoryStore`)."""

from .base import CONTENT, EmbeddingSpec, Indexed, MemoryStore, RecordQuery, Scored

__all__ = ["CONTENT", "EmbeddingSpec", "Indexed", "MemoryStore", "RecordQuery", "Scored"]
