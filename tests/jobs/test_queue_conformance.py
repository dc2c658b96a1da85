"""The shipped job-queue conformance suite (:mod:`agent_memory.testing.jobs`) on SQLite."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_memory.stores.sqlite import SQLiteStore
from agent_memory.testing import JobQueueConformance, StoreFactory


@pytest.fixture
def store_factory(tmp_path: Path) -> StoreFactory:
    """Clients on one SQLite file (the queue's tables live in it)."""
    return lambda: SQLiteStore(tmp_path / "memory.db", vector_index="exact")


class TestSQLiteJobQueue(JobQueueConformance):
    pass
