"""SQLite store features for large partitions: the full-text match budget and the speaker index."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agent_memory.errors import ConfigError
from agent_memory.models import Turn
from agent_memory.stores.base import EmbeddingSpec, Indexed, RecordQuery
from agent_memory.stores.sqlite import SCHEMA_VERSION, SQLiteStore
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


async def test_term_budget_orders_by_frequency_and_refreshes_when_the_table_grows(
    tmp_path: Path,
) -> None:
    store = await store_with(tmp_path / "m.db", budget=20)
    conn = store._conn
    assert conn is not None
    budget = TermBudget(20)
    assert budget.select(conn, ["weather", "kayak", "paddle"]) == ["kayak", "paddle"]
    assert budget.frequency(conn, "kayak") == 3
    await store.put([turn(100 + i, f"kayak club meeting {i}") for i in range(10)])
    # The table grew by a third: frequencies are counted again.
    budget.select(conn, ["weather", "kayak"])
    assert budget.frequency(conn, "kayak") == 13
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
    conn = store._conn
    assert conn is not None
    plan = " ".join(row[3] for row in conn.execute(
        "EXPLAIN QUERY PLAN SELECT min(json_extract(doc, '$.speaker')) FROM records "
        "WHERE user_id = 'alice' AND kind = 'turn'"))
    assert "records_by_speaker" in plan
    await store.close()


async def test_a_version_3_file_gains_the_speaker_index(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = SQLiteStore(path)
    await store.open(SPEC)
    await store.put([turn(0, "hi", speaker="Ann"), turn(1, "hey", speaker="Bo")])
    await store.close()
    with sqlite3.connect(path) as conn:  # roll the file back to migration 3
        conn.execute("DROP INDEX records_by_speaker")
        conn.execute("PRAGMA user_version = 3")
    conn.close()
    store = SQLiteStore(path)
    await store.open(SPEC)
    assert await store.speakers("alice") == ["Ann", "Bo"]
    await store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    conn.close()
    assert "records_by_speaker" in names


def test_settings_default_matches_the_store_default() -> None:
    from agent_memory.config import Settings
    from agent_memory.stores.sqlite.store import TEXT_MATCH_BUDGET

    assert Settings.model_fields["text_match_budget"].default == TEXT_MATCH_BUDGET
