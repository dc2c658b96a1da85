"""Store backends behind one contract (:class:`MemoryStore`).

``open_store("memory.db")`` / ``open_store("sqlite:memory.db")`` gives the SQLite store (the
default); ``open_store("cosmos://host[:port][/database]?key=...")`` the Azure Cosmos DB store
(``pip install agent-memory[cosmos]``). Schemes are resolved through :data:`STORES`, filled from
the ``agent_memory.stores`` entry-point group, so a plugin's ``scheme://...`` opens its store
(:mod:`agent_memory.plugins`).
"""

from __future__ import annotations

from ..errors import ConfigError
from ..plugins import Registry
from .base import CONTENT, Capability, EmbeddingSpec, Indexed, MemoryStore, RecordQuery, Scored

BUILTIN = {
    "sqlite": "agent_memory.stores.builtin:sqlite",
    "cosmos": "agent_memory.stores.builtin:cosmos",
    "cosmos+https": "agent_memory.stores.builtin:cosmos",
    "cosmos+http": "agent_memory.stores.builtin:cosmos",
    "azure-cosmos": "agent_memory.stores.builtin:cosmos",
}
"""The package's own schemes, as declared under ``[project.entry-points."agent_memory.stores"]``."""

STORES = Registry("agent_memory.stores", "store scheme", BUILTIN)
"""Store factories by scheme: the built-ins and every ``agent_memory.stores`` entry point."""


def store_scheme(spec: str) -> str | None:
    """The registered scheme ``spec`` names, or ``None`` for a plain file path.

    ``scheme://...`` must name a registered scheme; ``scheme:...`` names one when it is
    registered (otherwise, like ``C:\\data\\memory.db``, it is a path).

    Raises:
        ConfigError: ``scheme://`` with an unknown scheme (the message lists the known ones).
    """
    head, sep, _ = spec.partition(":")
    if not sep or not head:
        return None
    if spec[len(head):].startswith("://"):
        STORES.get(head)  # raises ConfigError naming the known schemes
        return head.lower()
    return head.lower() if head in STORES else None


def open_store(
    spec: str, vector_index: str = "pca", text_match_budget: int | None = None
) -> MemoryStore:
    """Build (not yet open) the store named by ``spec``.

    The scheme is resolved through :data:`STORES` (entry-point group ``agent_memory.stores``),
    so a third-party backend is opened the same way as ours.

    Args:
        spec: a file path, ``sqlite:PATH``, a Cosmos DB URL (``cosmos://...``,
            :mod:`agent_memory.stores.cosmos.settings`), or ``scheme://...`` of a store
            registered by a plugin.
        vector_index: ``"pca"`` (default), ``"exact"`` or ``"hnsw"`` (needs the ``ann`` extra), see
            :class:`~agent_memory.stores.sqlite.SQLiteStore`.
        text_match_budget: rows one full-text query may match before its most frequent terms
            are left out (``None``: the store's default), see
            :mod:`agent_memory.stores.sqlite.terms`.

    Raises:
        ConfigError: the path is empty or holds a NUL byte, the spec names an unknown
            scheme, or ``vector_index`` is unknown or unavailable.
    """
    if not isinstance(spec, str):
        raise ConfigError(f"store spec must be a string, not {type(spec).__name__}")
    scheme = store_scheme(spec) or "sqlite"
    factory = STORES.get(scheme)
    return factory(spec, vector_index=vector_index, text_match_budget=text_match_budget)


__all__ = [
    "CONTENT",
    "STORES",
    "Capability",
    "EmbeddingSpec",
    "Indexed",
    "MemoryStore",
    "RecordQuery",
    "Scored",
    "open_store",
    "store_scheme",
]
