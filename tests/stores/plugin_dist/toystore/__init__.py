"""A third party's store package, as a plugin author writes it: a store class and a factory
that ``[project.entry-points."agent_memory.stores"]`` names (see ``../toystore-0.1.dist-info``).

The toy keeps its records in SQLite (it reuses the shipped store's engine) under a directory
given by its URL, ``toy://DIRECTORY``; what it tests is the registration path, not a new engine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_memory.errors import ConfigError
from agent_memory.stores.sqlite import SQLiteStore


class ToyStore(SQLiteStore):
    """The store of the ``toy`` scheme: ``DIRECTORY/toy.db`` with the exact vector scan."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        super().__init__(directory / "toy.db", vector_index="exact")


def open_toy_store(spec: str, /, **options: Any) -> ToyStore:
    """The factory of the ``toy`` scheme: ``toy://DIRECTORY``.

    Raises:
        ConfigError: the URL names no directory.
    """
    directory = spec.partition("://")[2]
    if not directory:
        raise ConfigError(f"toy store {spec!r} names no directory: use toy://DIRECTORY")
    return ToyStore(Path(directory))
