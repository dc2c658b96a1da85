"""Fixtures of the store conformance suite: one ``store`` fixture per backend factory.

A backend joins the suite by appending a factory to :data:`STORE_FACTORIES`: an async function
``(tmp_path, spec) -> MemoryStore`` returning an opened store built with ``spec``, empty and
private to the test (a fresh file, a fresh Cosmos DB container, ...). A test that needs an
optional behaviour is marked ``@pytest.mark.requires("capability")`` and is skipped for a
store whose ``capabilities`` lack it.
"""

from __future__ import annotations

import importlib.util
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from agent_memory.stores.base import EmbeddingSpec, MemoryStore
from agent_memory.stores.sqlite import SQLiteStore

StoreFactory = Callable[[Path, EmbeddingSpec], Awaitable[MemoryStore]]


async def sqlite_store(tmp_path: Path, spec: EmbeddingSpec) -> MemoryStore:
    """A fresh SQLite store in ``tmp_path`` (in a directory that does not exist yet)."""
    store = SQLiteStore(tmp_path / "stores" / "memory.db", vector_index="exact")
    await store.open(spec)
    return store


async def sqlite_hnsw_store(tmp_path: Path, spec: EmbeddingSpec) -> MemoryStore:
    """A fresh SQLite store whose every search goes through the approximate graph
    (``ann_min_rows=1``): the contract holds with the optional index too."""
    store = SQLiteStore(tmp_path / "stores" / "memory.db", vector_index="hnsw", ann_min_rows=1)
    await store.open(spec)
    return store


async def sqlite_pca_store(tmp_path: Path, spec: EmbeddingSpec) -> MemoryStore:
    """A fresh SQLite store whose every search is a projected scan plus exact re-scoring
    (``ann_min_rows=1``)."""
    store = SQLiteStore(tmp_path / "stores" / "memory.db", vector_index="pca", ann_min_rows=1)
    await store.open(spec)
    return store


_NO_USEARCH = importlib.util.find_spec("usearch") is None

STORE_FACTORIES = [
    pytest.param(sqlite_store, id="sqlite"),
    pytest.param(sqlite_pca_store, id="sqlite-pca"),
    pytest.param(sqlite_hnsw_store, id="sqlite-hnsw",
                 marks=pytest.mark.skipif(_NO_USEARCH, reason="usearch (ann extra) absent")),
]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "requires(capability): skip for stores that do not declare the capability"
    )


@pytest.fixture
def spec() -> EmbeddingSpec:
    """Four-dimensional hand-built vectors, so the cosine order of every test is known."""
    return EmbeddingSpec(model="test:hand-built", dim=4)


@pytest.fixture(params=STORE_FACTORIES)
async def store(
    request: pytest.FixtureRequest, tmp_path: Path, spec: EmbeddingSpec
) -> AsyncIterator[MemoryStore]:
    """An opened, empty store of each backend; closed after the test."""
    factory: StoreFactory = request.param
    opened = await factory(tmp_path, spec)
    marker = request.node.get_closest_marker("requires")
    missing = [c for c in (marker.args if marker else ()) if c not in opened.capabilities]
    if missing:
        await opened.close()
        pytest.skip(f"{type(opened).__name__} lacks capabilities {missing}")
    try:
        yield opened
    finally:
        await opened.close()
