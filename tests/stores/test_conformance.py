"""The shipped conformance suite (:mod:`agent_memory.testing`) on every SQLite index variant."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from agent_memory.stores.sqlite import SQLiteStore
from agent_memory.testing import StoreConformance, StoreFactory

_NO_USEARCH = importlib.util.find_spec("usearch") is None

# ``ann_min_rows=1``: every search of the pca and hnsw variants goes through their index
# (a projected scan re-scored exactly; the approximate graph), so the contract is checked
# on the index and not only on the exact fallback of small partitions.
VARIANTS = [
    pytest.param({"vector_index": "exact"}, id="sqlite"),
    pytest.param({"vector_index": "pca", "ann_min_rows": 1}, id="sqlite-pca"),
    pytest.param({"vector_index": "hnsw", "ann_min_rows": 1}, id="sqlite-hnsw",
                 marks=pytest.mark.skipif(_NO_USEARCH, reason="usearch (ann extra) absent")),
]


@pytest.fixture(params=VARIANTS)
def store_factory(request: pytest.FixtureRequest, tmp_path: Path) -> StoreFactory:
    """Clients on one SQLite file in a directory that does not exist yet."""
    return lambda: SQLiteStore(tmp_path / "stores" / "memory.db", **request.param)


class TestSQLiteStore(StoreConformance):
    pass
