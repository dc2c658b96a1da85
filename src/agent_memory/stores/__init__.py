"""Store backends behind one contract (:class:`MemoryStore`).

``open_store("memory.db")`` / ``open_store("sqlite:memory.db")`` gives the SQLite store (the
default); ``open_store("cosmos://host[:port][/database]?key=...")`` the Azure Cosmos DB store
(``pip install agent-memory[cosmos]``).
"""

from __future__ import annotations

from .base import CONTENT, Capability, EmbeddingSpec, Indexed, MemoryStore, RecordQuery, Scored


def open_store(
    spec: str, vector_index: str = "pca", text_match_budget: int | None = None
) -> MemoryStore:
    """Build (not yet open) the store named by ``spec``.

    Args:
        spec: a file path, ``sqlite:PATH``, or a Cosmos DB URL (``cosmos://...``,
            :mod:`agent_memory.stores.cosmos.settings`).
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
    elif backend.lower() in {"cosmos", "cosmos+https", "cosmos+http", "azure-cosmos"}:
        return _cosmos(spec)
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


def _cosmos(spec: str) -> MemoryStore:
    """The Cosmos DB store named by ``spec``.

    Raises:
        ConfigError: azure-cosmos is not installed, or the URL is malformed.
    """
    from ..errors import ConfigError

    try:
        import azure.cosmos.aio  # noqa: F401
    except ImportError:
        raise ConfigError("the Cosmos DB store needs the azure-cosmos SDK: "
                          "pip install 'agent-memory[cosmos]'") from None
    from .cosmos import CosmosStore

    return CosmosStore(spec)


__all__ = ["CONTENT", "Capability", "EmbeddingSpec", "Indexed", "MemoryStore", "RecordQuery", "Scored",
           "open_store"]
