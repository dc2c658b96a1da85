"""SQLite store features for large partitions: the full-text match budget and the speaker index."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agent_memory.errors import ConfigError
from agent_memory.models import Turn
from agent_memory.stores.base import EmbeddingSpec, Indexed, RecordQuery
from agent_memory.stores.sqlite import SQLiteStore
from agent_memory.stores.sqlite.projection import Projection
from agent_memory.stores.sqlite.terms import TermBudget

SPEC = EmbeddingSpec(model="test:four", dim=4)
ALL = RecordQuery()


def turn(i: int, content: str, user: str = "alice", speaker: str | None = None) -> Indexed:
    return Indexed(Turn(id=f"t{i}", user_id=user, thread_id="th", role="user", seq=i,
                        speaker=speaker, content=content))


async def store_with(path: Path, budget: int) -> SQLiteStore:
    """30 turns say "weather"; two of them also say "kayak"; one says only "kayak"."""
    store = SQLiteStore(path, text_match_budget=budget)
    await store.open(SPEC)
    items = [turn(i, f"the weather today, note {i}") for i in range(30)]
    items[3] = turn(3, "the weather was fine for a kayak trip")
    items[7] = turn(7, "weather report before the kayak race")
    items.append(turn(30, "bought a new kayak paddle"))
    await store.put(items)
    return store


async def test_budget_leaves_out_the_frequent_term_in_a_large_store(tmp_path: Path) -> None:
    store = await store_with(tmp_path / "m.db", budget=10)
    hits = await store.text_search("alice", "kayak weather", ALL, k=50)
    # 31 rows > budget 10: "weather" (30 rows) does not fit beside "kayak" (3 rows).
    assert {h.record.id for h in hits} == {"t3", "t7", "t30"}
    await store.close()


async def test_budget_zero_and_small_stores_keep_every_term(tmp_path: Path) -> None:
    off = await store_with(tmp_path / "off.db", budget=0)
    assert len(await off.text_search("alice", "kayak weather", ALL, k=50)) == 31
    await off.close()
    small = await store_with(tmp_path / "small.db", budget=1_000)
    hits = await small.text_search("alice", "kayak weather", ALL, k=50)
    assert len(hits) == 31 and {h.record.id for h in hits[:3]} == {"t3", "t7", "t30"}
    await small.close()


async def test_budget_always_keeps_the_rarest_term(tmp_path: Path) -> None:
    store = await store_with(tmp_path / "m.db", budget=1)
    hits = await store.text_search("alice", "weather kayak", ALL, k=50)
    assert {h.record.id for h in hits} == {"t3", "t7", "t30"}
    assert len(await store.text_search("alice", "weather", ALL, k=50)) == 30
    await store.close()


def test_term_budget_keeps_the_rarest_terms_that_fit() -> None:
    budget = TermBudget(20)
    df = {"weather": 30, "kayak": 3, "paddle": 1}
    assert budget.select(["weather", "kayak", "paddle"], df, size=31) == ["kayak", "paddle"]
    assert budget.select(["weather", "kayak"], df, size=20) == ["weather", "kayak"]
    assert budget.select(["weather"], df, size=31) == ["weather"]
    assert TermBudget(0).select(["weather", "kayak"], df, size=10**6) == ["weather", "kayak"]


async def test_budget_counts_the_users_own_rows(tmp_path: Path) -> None:
    store = await store_with(tmp_path / "m.db", budget=10)
    before = await store.text_search("alice", "kayak weather", ALL, k=50)
    # Bob's 40 rows make "kayak" the table's most frequent word; alice's budget still keeps
    # her rare "kayak" and leaves out her frequent "weather".
    await store.put([turn(200 + i, f"kayak kayak {i}", user="bob") for i in range(40)])
    after = await store.text_search("alice", "kayak weather", ALL, k=50)
    assert [(h.record.id, h.score) for h in after] == [(h.record.id, h.score) for h in before]
    assert {h.record.id for h in after} == {"t3", "t7", "t30"}
    await store.close()


def test_negative_budget_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="text_match_budget"):
        SQLiteStore(tmp_path / "m.db", text_match_budget=-1)
    with pytest.raises(ValueError):
        TermBudget(-5)


async def test_speakers_come_from_the_index(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db")
    await store.open(SPEC)
    await store.put([turn(i, "hello", speaker=f"Speaker {i % 3}") for i in range(9)])
    assert await store.speakers("alice") == ["Speaker 0", "Speaker 1", "Speaker 2"]
    conn = store.database.conn
    assert conn is not None
    plan = " ".join(row[3] for row in conn.execute(
        "EXPLAIN QUERY PLAN SELECT min(json_extract(doc, '$.speaker')) FROM records "
        "WHERE user_id = 'alice' AND kind = 'turn'"))
    assert "records_by_speaker" in plan
    await store.close()


def test_settings_default_matches_the_store_default() -> None:
    from agent_memory.config import Settings
    from agent_memory.stores.sqlite.store import TEXT_MATCH_BUDGET

    assert Settings.model_fields["text_match_budget"].default == TEXT_MATCH_BUDGET


def anisotropic(n: int, dim: int, seed: int) -> np.ndarray:
    """Unit rows whose variance decays over the dimensions, like sentence embeddings."""
    rng = np.random.default_rng(seed)
    rows = rng.standard_normal((n, dim)).astype(np.float32) / np.arange(1, dim + 1) ** 0.75
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_projection_candidates_hold_the_exact_top_10() -> None:
    matrix = anisotropic(20_000, 96, seed=1)
    queries = anisotropic(50, 96, seed=2)
    projection = Projection(matrix, dims=24, sample=5_000)
    assert projection.basis.shape == (96, 24) and projection.reduced.shape == (20_000, 24)
    found = 0
    for q in queries:
        exact = set(np.argsort(-(matrix @ q))[:10].tolist())
        found += len(exact & set(projection.candidates(q, None, 500).tolist()))
    assert found / (10 * len(queries)) >= 0.99
    # Too few candidates asked for: the projected ranking alone misses neighbours.
    few = sum(len(set(np.argsort(-(matrix @ q))[:10].tolist())
                  & set(projection.candidates(q, None, 10).tolist())) for q in queries)
    assert few < found


def test_projection_respects_the_row_mask() -> None:
    matrix = anisotropic(2_000, 16, seed=3)
    mask = np.zeros(2_000, dtype=bool)
    mask[::7] = True
    rows = Projection(matrix, dims=4).candidates(matrix[0], mask, 50)
    assert rows.size == 50 and mask[rows].all()
    assert Projection(matrix, dims=4).candidates(matrix[0], mask, 5_000).size == mask.sum()
    with pytest.raises(ValueError):
        Projection(np.empty((0, 16), dtype=np.float32))


async def test_pca_store_returns_exact_cosines_and_matches_exact_search(tmp_path: Path) -> None:
    spec = EmbeddingSpec(model="test:96", dim=96)
    vectors = anisotropic(3_000, 96, seed=4)
    items = [Indexed(Turn(id=f"t{i}", user_id="alice", thread_id="th", role="user", seq=i,
                          content=f"turn {i}"), vectors={"content": vectors[i]})
             for i in range(3_000)]
    exact = SQLiteStore(tmp_path / "m.db")
    await exact.open(spec)
    await exact.put(items)
    pca = SQLiteStore(tmp_path / "m.db", vector_index="pca", ann_min_rows=1_000)
    await pca.open(spec)
    queries = anisotropic(20, 96, seed=5)
    agree = 0
    for q in queries:
        a = await exact.vector_search("alice", q, ALL, 10)
        b = await pca.vector_search("alice", q, ALL, 10)
        agree += len({h.record.id for h in a} & {h.record.id for h in b})
        for hit in b:  # scores are true cosines, not projected ones
            i = int(hit.record.id[1:])
            assert hit.score == pytest.approx(float(vectors[i] @ q), abs=1e-5)
    assert agree >= 0.99 * 10 * len(queries)
    assert pca.snapshots.view("alice").base.projection is not None
    await exact.close()
    await pca.close()
