"""The package's own store factories, registered in the ``agent_memory.stores`` entry-point
group (see :mod:`agent_memory.plugins`): ``sqlite`` and the Cosmos DB schemes.

A factory takes the whole store spec and the options of
:func:`~agent_memory.stores.open_store` (``vector_index``, ``text_match_budget``) and returns
an unopened store; options a backend has no use for are ignored.
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError
from .base import MemoryStore


def sqlite_path(spec: str) -> str:
    """The file path of a SQLite store spec: ``spec`` without a leading ``sqlite:`` (any
    case), else ``spec`` itself (a bare path)."""
    return spec[len("sqlite:"):] if spec[:7].lower() == "sqlite:" else spec


def sqlite(spec: str, /, *, vector_index: str = "pca", text_match_budget: int | None = None,
           **_: Any) -> MemoryStore:
    """The SQLite store at ``spec`` (a file path, or ``sqlite:PATH``).

    Raises:
        ConfigError: the path is empty or holds a NUL byte, or ``vector_index`` is unknown
            or unavailable.
    """
    path = sqlite_path(spec)
    if not path:
        raise ConfigError("store path is empty")
    if "\x00" in path:
        raise ConfigError(f"store path {path!r} holds a NUL byte")
    from .sqlite import SQLiteStore
    from .sqlite.store import TEXT_MATCH_BUDGET

    budget = TEXT_MATCH_BUDGET if text_match_budget is None else text_match_budget
    return SQLiteStore(path, vector_index=vector_index, text_match_budget=budget)


def cosmos(spec: str, /, **_: Any) -> MemoryStore:
    """The Azure Cosmos DB store named by the URL ``spec`` (``cosmos://host[:port][/db]?key=``).

    Raises:
        ConfigError: azure-cosmos is not installed, or the URL is malformed.
    """
    try:
        import azure.cosmos.aio  # noqa: F401
    except ImportError:
        raise ConfigError("the Cosmos DB store needs the azure-cosmos SDK: "
                          "pip install 'agent-memory[cosmos]'") from None
    from .cosmos import CosmosStore

    return CosmosStore(spec)
