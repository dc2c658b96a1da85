"""The optional approximate index of the SQLite store (``vector_index="hnsw"``, stores/sqlite/ann.py).

Real SQLite files and the real usearch graph; skipped when the ``ann`` extra is absent. The whole
conformance suite also runs through the graph (``sqlite-hnsw`` in conftest.py).
"""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from agent_memory.config import Settings
from agent_memory.errors import ConfigError
from agent_memory.models import Fact, RecordKind, Turn
from agent_memory.stores import open_store
from agent_memory.stores.base import EmbeddingSpec, Indexed, RecordQuery
from agent_memory.stores.sqlite import SQLiteStore

pytest.importorskip("usearch")

DIM = 32
N = 3_000
SPEC = EmbeddingSpec(model="test:clustered", dim=DIM)
START = datetime(2024, 1, 1, tzinfo=UTC)


def clustered(rng: np.random.Generator, n: int, centres: int = 60) -> np.ndarray:
    """Unit vectors around ``centres`` random directions (text embeddings cluster by topic)."""
    c = rng.standard_normal((centres, DIM))
    v = c[rng.integers(0, centres, n)] + 0.35 * rng.standard_normal((n, DIM))
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def items(vectors: np.ndarray, offset: int = 0) -> list[Indexed]:
    out = []
    for i, v in enumerate(vectors):
        j = offset + i
        if j % 3 == 0:
            record = Fact(id=f"r{j}", user_id="u", content=f"fact {j}", category="work",
                          created_at=START + timedelta(hours=j))
        else:
            record = Turn(id=f"r{j}", user_id="u", thread_id=f"t{j % 7}", role="user",
                          content=f"turn {j}", seq=j, created_at=START + timedelta(hours=j))
        out.append(Indexed(record=record, vectors={"content": v}))
    return out


async def opened(path: Path, index: str) -> SQLiteStore:
    store = SQLiteStore(path, vector_index=index, ann_min_rows=1_000)
    await store.open(SPEC)
    return store


async def top_ids(store: SQLiteStore, q: np.ndarray, query: RecordQuery, k: int = 10) -> list[str]:
    return [s.record.id for s in await store.vector_search("u", q, query, k)]


@pytest.fixture
async def pair(tmp_path: Path):
    """The same file opened twice: exactly and through the graph."""
    rng = np.random.default_rng(0)
    path = tmp_path / "m.db"
    exact = await opened(path, "exact")
    await exact.put(items(clustered(rng, N)))
    approx = await opened(path, "hnsw")
    yield exact, approx, rng
    await approx.close()
    await exact.close()


async def test_recall_against_exact_search(pair) -> None:
    exact, approx, _ = pair
    queries = clustered(np.random.default_rng(1), 100)
    recall = []
    for q in queries:
        want = await top_ids(exact, q, RecordQuery())
        got = await top_ids(approx, q, RecordQuery())
        recall.append(len(set(want) & set(got)) / 10)
    assert np.mean(recall) >= 0.95
    assert approx.snapshots.view("u").base.ann is not None  # the graph was really used


async def test_scores_are_exact_cosines(pair) -> None:
    exact, approx, _ = pair
    q = clustered(np.random.default_rng(2), 1)[0]
    want = {s.record.id: s.score for s in await exact.vector_search("u", q, RecordQuery(), 10)}
    for hit in await approx.vector_search("u", q, RecordQuery(), 10):
        if hit.record.id in want:
            assert hit.score == pytest.approx(want[hit.record.id], abs=1e-6)


@pytest.mark.parametrize(
    "query",
    [
        RecordQuery(kinds=frozenset({RecordKind.TURN})),
        RecordQuery(kinds=frozenset({RecordKind.FACT}), categories=frozenset({"work"})),
        RecordQuery(since=START + timedelta(hours=1_000)),
        RecordQuery(thread_id="t3"),  # selective (1/7 of the turns): exact fall-back
        RecordQuery(ids=frozenset({"r5", "r10", "r2999"})),  # very selective
    ],
    ids=["turns", "facts-in-category", "since", "thread", "ids"],
)
async def test_filters_apply_exactly(pair, query: RecordQuery) -> None:
    exact, approx, _ = pair
    allowed = {r.id for r in await exact.list("u", query)}
    for q in clustered(np.random.default_rng(3), 20):
        got = await top_ids(approx, q, query)
        want = await top_ids(exact, q, query)
        assert set(got) <= allowed
        assert len(got) == len(want)  # the graph never returns fewer than exact search
        if len(allowed) * 10 < N:  # selective filters are answered exactly
            assert got == want


async def test_writes_after_the_graph_is_built(pair, tmp_path: Path) -> None:
    exact, approx, _ = pair
    q = clustered(np.random.default_rng(4), 1)[0]
    await top_ids(approx, q, RecordQuery())  # builds the graph
    # This connection's writes: a new record right on the query, and a deletion.
    await approx.put(items(q[None, :], offset=N))
    assert (await top_ids(approx, q, RecordQuery(), 1)) == [f"r{N}"]
    await approx.delete("u", [f"r{N}"])
    assert f"r{N}" not in await top_ids(approx, q, RecordQuery())
    # Another connection's write: the snapshot is re-read and the graph synced, not rebuilt.
    graph = approx.snapshots.view("u").base.ann
    await exact.put(items(q[None, :], offset=N + 1))
    assert (await top_ids(approx, q, RecordQuery(), 1)) == [f"r{N + 1}"]
    assert approx.snapshots.view("u").base.ann is graph
    assert len(graph) == N + 1


async def test_reused_rowid_with_a_new_vector_is_re_added(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    path = tmp_path / "m.db"
    store = await opened(path, "hnsw")
    vectors = clustered(rng, 1_200)
    await store.put(items(vectors))
    await store.vector_search("u", vectors[0], RecordQuery(), 5)  # graph built
    other = await opened(path, "exact")
    # Re-putting the last record deletes and re-inserts its vector row: SQLite reuses the rowid.
    # Its new vector is the opposite of its old one, so a graph still holding the old vector
    # under that key would never propose it.
    far = -vectors[-1]
    await other.put(items(far[None, :], offset=1_199), overwrite=True)
    hits = await store.vector_search("u", far, RecordQuery(), 1)
    assert [h.record.id for h in hits] == ["r1199"]
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    await other.close()
    await store.close()


async def test_graph_is_saved_and_restored(pair, tmp_path: Path) -> None:
    _, approx, _ = pair
    q = clustered(np.random.default_rng(6), 1)[0]
    first = await top_ids(approx, q, RecordQuery())
    saved = list((tmp_path / "m.db.hnsw").iterdir())
    assert {p.suffix for p in saved} == {".usearch", ".npz"}
    again = await opened(tmp_path / "m.db", "hnsw")
    assert await top_ids(again, q, RecordQuery()) == first
    assert again.snapshots.view("u").base.ann._unsaved == 0  # restored, nothing re-added
    await again.close()


async def test_small_partitions_stay_exact(tmp_path: Path) -> None:
    store = await opened(tmp_path / "m.db", "hnsw")
    vectors = clustered(np.random.default_rng(7), 100)
    await store.put(items(vectors))
    await store.vector_search("u", vectors[0], RecordQuery(), 5)
    assert store.snapshots.view("u").base.ann is None
    assert not (tmp_path / "m.db.hnsw").exists()
    await store.close()


def test_unknown_index_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        SQLiteStore(tmp_path / "m.db", vector_index="ivf")


def test_setting_reaches_the_store(tmp_path: Path) -> None:
    settings = Settings(store=str(tmp_path / "m.db"), vector_index="hnsw")
    store = open_store(settings.store, settings.vector_index)
    assert isinstance(store, SQLiteStore) and store.vector_index == "hnsw"
    with pytest.raises(ConfigError):
        Settings.load(store=str(tmp_path / "m.db"), vector_index="ivf")


def test_usearch_then_onnxruntime_import_in_one_process() -> None:
    """usearch 2.26.6 made a later ``import onnxruntime`` crash the process (pyproject pins
    below it); a store opened with ``vector_index="hnsw"`` imports usearch before the local
    embedder loads onnxruntime."""
    pytest.importorskip("onnxruntime")
    done = subprocess.run(
        [sys.executable, "-c", "import usearch.index, onnxruntime"], check=False, timeout=120
    )
    assert done.returncode == 0
