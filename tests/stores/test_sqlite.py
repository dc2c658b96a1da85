"""Behaviour of the SQLite store beyond the shared contract: the file, its schema, its cache."""

from __future__ import annotations

import asyncio
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from agent_memory.errors import (
    EmbeddingMismatchError,
    NotAStoreError,
    SchemaVersionError,
    StoreError,
)
from agent_memory.models import Fact, Turn
from agent_memory.stores.base import EmbeddingSpec, Indexed, RecordQuery
from agent_memory.stores.sqlite import SCHEMA_VERSION, SQLiteStore, fts_query

SPEC = EmbeddingSpec(model="test:hand-built", dim=4)
ALL = RecordQuery()


def unit(*components: float) -> np.ndarray:
    vec = np.zeros(4, dtype=np.float32)
    vec[: len(components)] = components
    return vec / np.linalg.norm(vec)


def turn(rid: str, user: str = "alice", content: str | None = None) -> Indexed:
    record = Turn(
        id=rid, user_id=user, thread_id="th", role="user", content=content or f"say {rid}"
    )
    return Indexed(record, vectors={"content": unit(1, len(rid))})


async def opened(path: Path, spec: EmbeddingSpec = SPEC) -> SQLiteStore:
    store = SQLiteStore.from_path(path)
    await store.open(spec)
    return store


async def test_a_record_twice_in_one_put_is_stored_as_its_last_copy(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = await opened(path)
    first = Indexed(Fact(id="f", user_id="alice", content="kayaking on Sunday"),
                    vectors={"content": unit(1, 0)})
    last = Indexed(Fact(id="f", user_id="alice", content="climbing on Monday"),
                   vectors={"content": unit(0, 1)})
    await store.put([first, turn("a"), last], overwrite=True)
    (fact,) = await store.get("alice", ["f"])
    assert fact.content == "climbing on Monday"
    assert [h.record.id for h in await store.text_search("alice", "climbing", ALL, 5)] == ["f"]
    assert await store.text_search("alice", "kayaking", ALL, 5) == []
    (hit,) = await store.vector_search("alice", unit(0, 1), RecordQuery(ids=frozenset({"f"})), 5)
    assert hit.score == pytest.approx(1.0)
    await store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM vectors WHERE record_id = 'f'").fetchone() == (1,)
    conn.close()


async def test_reopen_persists_records_vectors_and_text(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = await opened(path)
    await store.put([turn("a", content="kayaking on Sunday"), turn("bb")])
    await store.close()
    await store.close()  # twice is fine

    again = await opened(path)
    assert [r.id for r in await again.list("alice", ALL)] == ["a", "bb"]
    assert [h.record.id for h in await again.text_search("alice", "kayaking", ALL, 5)] == ["a"]
    assert [h.record.id for h in await again.vector_search("alice", unit(1, 1), ALL, 1)] == ["a"]
    assert again.embedding == SPEC
    await again.close()


@pytest.mark.parametrize(
    "other",
    [
        EmbeddingSpec(model="openai:text-embedding-3-small", dim=4),
        EmbeddingSpec(model="test:hand-built", dim=8),
    ],
)
async def test_other_embedding_spec_is_refused(tmp_path: Path, other: EmbeddingSpec) -> None:
    path = tmp_path / "m.db"
    store = await opened(path)
    await store.put([turn("a")])
    await store.close()

    with pytest.raises(EmbeddingMismatchError) as err:
        await opened(path, other)
    message = str(err.value)
    assert SPEC.model in message and other.model in message
    assert f"{SPEC.dim} dims" in message and f"{other.dim} dims" in message

    still = await opened(path)  # the file is unharmed and its spec unchanged
    assert await still.count("alice", ALL) == 1
    await still.close()


def foreign_db(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
        conn.execute("INSERT INTO users (name) VALUES ('someone')")
    conn.close()


def foreign_meta_db(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE meta (k TEXT, v TEXT)")
    conn.close()


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda p: p.write_text("name,age\nann,31\n"), id="text-file"),
        pytest.param(lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\x07" * 600), id="corrupt"),
        pytest.param(foreign_db, id="foreign-sqlite"),
        pytest.param(foreign_meta_db, id="foreign-meta-table"),
    ],
)
async def test_file_that_is_not_a_store_is_refused_and_untouched(tmp_path: Path, make) -> None:
    path = tmp_path / "data.db"
    make(path)
    before = path.read_bytes()
    with pytest.raises(NotAStoreError):
        await opened(path)
    assert path.read_bytes() == before


async def test_wal_and_pragmas(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = await opened(path)
    with sqlite3.connect(path) as other:
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert other.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    other.close()
    await store.close()


def schema(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name, sql FROM sqlite_master ORDER BY name").fetchall()
    conn.close()
    return rows


async def test_migrations_are_idempotent(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = await opened(path)
    await store.put([turn("a")])
    await store.close()
    first = schema(path)
    for _ in range(2):
        store = await opened(path)
        await store.close()
    assert schema(path) == first
    store = await opened(path)
    assert await store.count("alice", ALL) == 1
    await store.close()


async def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await (await opened(path)).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(SchemaVersionError):
        await opened(path)


async def test_second_store_on_the_same_file_sees_writes(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    writer, reader = await opened(path), await opened(path)
    await writer.put([turn("a")])
    assert [h.record.id for h in await reader.vector_search("alice", unit(1, 1), ALL, 5)] == ["a"]

    # The reader's vector cache now holds "a"; later writes elsewhere must invalidate it.
    await writer.put([turn("bb"), turn("c", user="bob")])
    hits = await reader.vector_search("alice", unit(1, 1), ALL, 5)
    assert [h.record.id for h in hits] == ["a", "bb"]
    await writer.put(
        [
            Indexed(
                Fact(id="a", user_id="alice", content="now a fact"),
                vectors={"content": unit(0, 0, 1)},
            )
        ],
        overwrite=True,  # a blind replace of the turn "a" by a fact with its id
    )
    [top] = await reader.vector_search("alice", unit(0, 0, 1), ALL, 1)
    assert (top.record.id, top.record.content) == ("a", "now a fact")
    assert await writer.delete("alice", ["bb"]) == 1
    assert [h.record.id for h in await reader.vector_search("alice", unit(1, 1), ALL, 5)] == ["a"]
    assert [h.record.id for h in await reader.text_search("alice", "fact", ALL, 5)] == ["a"]
    await writer.close()
    await reader.close()


async def test_cached_search_after_own_writes_matches_a_fresh_read(tmp_path: Path) -> None:
    """Writes layered onto the warm vector cache give what a cold store reads from the file."""
    rng = np.random.default_rng(11)
    path = tmp_path / "m.db"
    warm = await opened(path)
    queries = [
        RecordQuery(),
        RecordQuery(thread_id="th1"),
        RecordQuery(include_superseded=True),
        RecordQuery(kinds=frozenset({"fact"}), agent_id="ag"),
    ]

    def random_item(i: int) -> Indexed:
        vecs = {"content": rng.standard_normal(4)}
        if rng.random() < 0.3:
            vecs["summary"] = rng.standard_normal(4)
        vecs = {k: (v / np.linalg.norm(v)).astype(np.float32) for k, v in vecs.items()}
        if rng.random() < 0.5:
            record = Fact(
                id=f"r{i}",
                user_id="alice",
                thread_id=f"th{i % 2}",
                agent_id="ag" if rng.random() < 0.5 else None,
                content=f"fact {i}",
                superseded_by="x" if rng.random() < 0.3 else None,
            )
        else:
            record = Turn(
                id=f"r{i}",
                user_id="alice",
                thread_id=f"th{i % 2}",
                role="user",
                content=f"turn {i}",
            )
        return Indexed(record, vectors=vecs if rng.random() < 0.9 else {})

    await warm.put([random_item(i) for i in range(30)])  # random ids repeat: blind replaces
    for step in range(40):
        probe = unit(*rng.standard_normal(4))
        await warm.vector_search("alice", probe, ALL, 5)  # keep the cache warm
        action = rng.random()
        if action < 0.6:
            await warm.put([random_item(int(i)) for i in dict.fromkeys(rng.integers(0, 45, 3))],
                           overwrite=True)
        else:
            await warm.delete("alice", [f"r{int(i)}" for i in rng.integers(0, 45, 2)])
        cold = await opened(path)
        for query in queries:
            for fields in (("content",), ("content", "summary")):
                got = await warm.vector_search("alice", probe, query, 8, fields)
                want = await cold.vector_search("alice", probe, query, 8, fields)
                assert [(h.record, h.field) for h in got] == [(h.record, h.field) for h in want]
                assert [h.score for h in got] == pytest.approx([h.score for h in want], abs=1e-6)
        await cold.close()
    await warm.close()


async def test_small_cache_budget_still_answers_every_user(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db", cache_bytes=1)
    await store.open(SPEC)
    await store.put([turn("a"), turn("b", user="bob")])
    for _ in range(2):
        for user, rid in (("alice", "a"), ("bob", "b")):
            hits = await store.vector_search(user, unit(1, 1), ALL, 5)
            assert [h.record.id for h in hits] == [rid]
    await store.close()


async def test_calls_from_other_threads_are_safe(tmp_path: Path) -> None:
    store = await opened(tmp_path / "m.db")

    def work(worker: int) -> int:
        async def run() -> int:
            for i in range(20):
                await store.put([turn(f"w{worker}-{i}")])
                await store.vector_search("alice", unit(1, 2), ALL, 3)
                await store.text_search("alice", "say", ALL, 3)
            return await store.count("alice", ALL)

        return asyncio.run(run())

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(work, range(4)))
    assert await store.count("alice", ALL) == 80
    assert len(await store.vector_search("alice", unit(1, 2), ALL, 100)) == 80
    await store.close()


async def test_closed_store_raises_store_error(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db")
    with pytest.raises(StoreError):
        _ = store.embedding
    await store.open(SPEC)
    await store.close()
    with pytest.raises(StoreError):
        await store.list("alice", ALL)


def test_fts_query_quotes_words_and_drops_stop_words() -> None:
    assert fts_query('What did "Caroline" do AND NEAR(x*)?') == '"caroline" OR "near" OR "x"'
    assert fts_query("kayak, kayak; -kayak") == '"kayak"'
    assert fts_query("the and of it") is None
    assert fts_query("") is None
