"""Store backends behind one contract (:class:`MemoryStore`).

``open_store("memory.db")`` / ``open_store("sqlite:memory.db")`` gives the SQLite store (the
default); ``cosmos`` backends are resolved the same way once installed.
"""

from __future__ import annotations

from .base import CONTENT, Capability, EmbeddingSpec, Indexed, MemoryStore, RecordQuery, Scored


def open_store(
    spec: str, vector_index: str = "pca", text_match_budget: int | None = None
) -> MemoryStore:
    """Build (not yet open) the store named by ``spec``.

    Args:
        spec: a file path, or ``sqlite:PATH``.
        vector_index: ``"pca"`` (default), ``"exact"`` or ``"hnsw"`` (needs the ``ann`` extra), see
            :class:`~agent_memory.stores.sqlite.SQLiteStore`.
        text_match_budget: rows one full-text query may match before its most frequent terms
            are left out (``None``: the store's default), see
            :mod:`agent_memory.stores.sqlite.terms`.

    Raises:
        ConfigError: the path is empty or holds a NUL byte, the spec names an unknown
            backend, or ``vector_index`` is unknown or unavailable.
    """
    from ..errors import ConfigError

    backend, _, rest = spec.partition(":")
    if backend == "sqlite":
        path = rest
    elif backend in {"cosmos", "azure-cosmos"}:
        raise ConfigError("the cosmos store is not available in this version")
    else:
        path = spec
    if not path:
        raise ConfigError("store path is empty")
    if "\x00" in path:
        raise ConfigError(f"store path {path!r} holds a NUL byte")
    from .sqlite import SQLiteStore
    from .sqlite.store import TEXT_MATCH_BUDGET

    budget = TEXT_MATCH_BUDGET if text_match_budget is None else text_match_budget
    return SQLiteStore(path, vector_index=vector_index, text_match_budget=budget)


__all__ = ["CONTENT", "Capability", "EmbeddingSpec", "Indexed", "MemoryStore", "RecordQuery", "Scored",
           "open_store"]
