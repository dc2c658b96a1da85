"""The SQLite store's thread pool: the event loop stays free, concurrent reads agree with
sequential ones, and close() stops the workers."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from agent_memory.errors import ConfigError, StoreError
from agent_memory.models import Turn
from agent_memory.stores.base import EmbeddingSpec, Indexed, RecordQuery
from agent_memory.stores.sqlite import SQLiteStore
from agent_memory.stores.sqlite.jobs import SQLiteJobQueue

DIM = 384
SPEC = EmbeddingSpec(model="test:random", dim=DIM)
ALL = RecordQuery()
WORDS = ["kayak", "weather", "sister", "garden", "piano", "marathon", "paint", "coast", "job",
         "dog", "book", "trip", "house", "march", "coffee", "river"]


def unit(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def items(user: str, start: int, n: int, rng: np.random.Generator) -> list[Indexed]:
    vectors = unit(rng, n)
    out = []
    for j in range(n):
        i = start + j
        words = " ".join(WORDS[(i * k) % len(WORDS)] for k in (1, 3, 7, 11))
        turn = Turn(id=f"t{i}", user_id=user, thread_id=f"th{i % 7}", role="user", seq=i,
                    speaker=f"speaker{i % 5}", content=f"note {i}: {words}")
        out.append(Indexed(turn, vectors={"content": vectors[j]}))
    return out


async def filled(path: Path, n: int, threads: int | None = None) -> SQLiteStore:
    store = SQLiteStore(path, threads=threads)
    await store.open(SPEC)
    rng = np.random.default_rng(7)
    for user in ("alice", "bob"):
        for lo in range(0, n, 1_000):
            await store.put(items(user, lo, min(1_000, n - lo), rng))
    return store


async def test_the_loop_keeps_ticking_while_searches_and_writes_run(tmp_path: Path) -> None:
    store = await filled(tmp_path / "m.db", 10_000)
    rng = np.random.default_rng(1)
    queries = unit(rng, 48)
    await store.vector_search("alice", queries[0], ALL, 10)  # loads the snapshot first
    ops = 48 + 16
    done = 0
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while done < ops:
            await asyncio.sleep(0.001)
            if 0 < done < ops:
                ticks += 1

    async def search(i: int) -> None:
        nonlocal done
        await store.vector_search("alice", queries[i], ALL, 10)
        await store.text_search("alice", f"{WORDS[i % 16]} {WORDS[(i + 5) % 16]}", ALL, 10)
        done += 1

    async def write(i: int) -> None:
        nonlocal done
        await store.put(items("alice", 20_000 + 10 * i, 10, rng))
        done += 1

    await asyncio.gather(ticker(), *(search(i) for i in range(48)),
                         *(write(i) for i in range(16)))
    # Run on the loop, the 64 calls would finish in one pass of the loop: no tick in between.
    assert ticks >= ops // 8, f"{ticks} ticks while {ops} calls ran"
    assert await store.count("alice", ALL) == 10_000 + 160
    await store.close()


async def test_concurrent_reads_return_what_sequential_reads_do(tmp_path: Path) -> None:
    store = await filled(tmp_path / "m.db", 2_000, threads=4)
    rng = np.random.default_rng(2)
    queries = unit(rng, 12)
    thread_query = RecordQuery(thread_id="th3")

    def calls(i: int):
        user = ("alice", "bob")[i % 2]
        return [
            store.vector_search(user, queries[i], ALL, 20),
            store.vector_search(user, queries[i], thread_query, 5),
            store.text_search(user, f"{WORDS[i]} {WORDS[i + 2]}", ALL, 20),
            store.list(user, RecordQuery(thread_id=f"th{i % 7}", limit=30)),
            store.get(user, [f"t{j}" for j in range(i, 2_000, 97)]),
            store.count(user, thread_query),
            store.speakers(user),
        ]

    def ids(result):
        if isinstance(result, int):
            return result
        return [r if isinstance(r, str) else (getattr(r, "record", r).id, getattr(r, "score", 0))
                for r in result]

    sequential = []
    for i in range(12):
        for call in calls(i):
            sequential.append(ids(await call))
    for _ in range(3):
        concurrent = await asyncio.gather(*(c for i in range(12) for c in calls(i)))
        assert [ids(r) for r in concurrent] == sequential
    await store.close()


async def test_close_while_idle_stops_the_workers_and_closes_their_connections(
    tmp_path: Path,
) -> None:
    store = await filled(tmp_path / "m.db", 500, threads=3)
    queue = SQLiteJobQueue(store)
    rng = np.random.default_rng(3)
    await asyncio.gather(*(store.vector_search("alice", q, ALL, 5) for q in unit(rng, 9)),
                         queue.get_mark("alice", None, "facts"))
    pool = store.pool
    assert pool is not None
    readers = list(pool._readers)
    # This pool's own threads (other stores of the session may share the name prefix).
    workers = list(pool._executor._threads)
    assert readers and workers
    await store.close()
    assert pool.closed and store.pool is None
    for worker in workers:
        worker.join(timeout=10)
        assert not worker.is_alive()
    for conn in readers:
        with pytest.raises(sqlite3.ProgrammingError):
            conn.execute("SELECT 1")
    with pytest.raises(StoreError, match="not open"):
        await store.count("alice", ALL)
    with pytest.raises(StoreError, match="not open"):
        await queue.get_mark("alice", None, "facts")
    await store.close()  # twice is fine
    await store.open(SPEC)  # and it opens again, with a new pool
    assert store.pool is not None and store.pool is not pool
    assert await store.count("alice", ALL) == 500
    await store.close()


async def test_one_thread_still_serves_every_call(tmp_path: Path) -> None:
    store = await filled(tmp_path / "m.db", 300, threads=1)
    rng = np.random.default_rng(4)
    hits = await asyncio.gather(*(store.vector_search("bob", q, ALL, 3) for q in unit(rng, 6)))
    assert all(len(h) == 3 for h in hits)
    await store.close()


def test_threads_below_one_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="threads"):
        SQLiteStore(tmp_path / "m.db", threads=0)
