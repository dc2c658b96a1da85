"""Conformance of versions and turn order: conditional writes, ``ConflictError``, turn ``seq``
assigned where the write commits, atomic access counts, and the incremental-read filters.

These are the behaviours a server-side store implements natively (Cosmos DB: ``_etag`` with
``If-Match``, a per-thread counter for ``seq``, patch ``incr``); run times are bounded by the
sizes here, never by a clock.

To add a test: write an ``async def test_...(self, store)`` (and ``connect`` for a second
client) method in :class:`VersionTests`.
"""

from __future__ import annotations

import asyncio

import pytest

from ..errors import ConflictError, InvalidInputError
from ..models import Fact, Interaction
from ..stores.base import Indexed, MemoryStore, RecordQuery
from ._harness import Connect, StoreHarness
from .corpus import ALL, EVERYTHING, at, turn, unit

TURNS = RecordQuery(kinds=frozenset({"turn"}))


class VersionTests(StoreHarness):
    """Optimistic concurrency and turn order, on one client and across clients."""

    async def test_a_stale_write_is_a_conflict_and_changes_nothing(
        self, store: MemoryStore
    ) -> None:
        (v1,) = await store.put([Indexed(Fact(id="f", user_id="alice", content="Ana is 30."),
                                         vectors={"content": unit(1)})])
        (v2,) = await store.update([v1.model_copy(update={"confidence": 0.5})])
        for stale in (v1.model_copy(update={"content": "Ana is 31."}),
                      v1.model_copy(update={"confidence": 0.1})):
            with pytest.raises(ConflictError) as caught:
                if stale.confidence == 0.1:
                    await store.update([stale])
                else:
                    await store.put([Indexed(stale, vectors={"content": unit(0, 1)})])
            assert caught.value.ids == ["f"]
        assert await store.get("alice", ["f"]) == [v2]
        [hit] = await store.vector_search("alice", unit(1), ALL, k=1)
        assert hit.score == pytest.approx(1.0, abs=1e-5)  # the stale put's vector is not in

    async def test_a_conflict_anywhere_in_a_batch_writes_none_of_it(
        self, store: MemoryStore
    ) -> None:
        (a, b) = await store.put([Indexed(Fact(id=i, user_id="alice", content=f"memo {i}"))
                                  for i in ("a", "b")])
        await store.update([b.model_copy(update={"confidence": 0.5})])
        with pytest.raises(ConflictError):
            await store.update([a.model_copy(update={"confidence": 0.2}),
                                b.model_copy(update={"confidence": 0.3})])
        with pytest.raises(ConflictError):
            await store.put([Indexed(turn("new")), Indexed(b.model_copy(update={"pinned": True}))])
        (a_now,) = await store.get("alice", ["a"])
        assert a_now == a and await store.get("alice", ["new"]) == []

    async def test_creating_an_existing_id_is_a_conflict_unless_overwriting(
        self, store: MemoryStore
    ) -> None:
        record = Interaction(id="x", user_id="alice", content="first words")
        await store.put([Indexed(record)])
        with pytest.raises(ConflictError):
            await store.put([Indexed(record.model_copy(update={"content": "second words"}))])
        (replaced,) = await store.put(
            [Indexed(record.model_copy(update={"content": "third words"}))], overwrite=True)
        assert await store.get("alice", ["x"]) == [replaced]
        assert replaced.content == "third words"

    async def test_an_update_needs_the_version_it_read(self, store: MemoryStore) -> None:
        await store.put([Indexed(Fact(id="f", user_id="alice", content="memo f"))])
        with pytest.raises(InvalidInputError):
            await store.update([Fact(id="f", user_id="alice", content="memo g")])
        assert (await store.get("alice", ["f"]))[0].content == "memo f"

    async def test_of_writers_holding_one_version_exactly_one_wins(
        self, store: MemoryStore, connect: Connect
    ) -> None:
        other = await connect()
        (base,) = await store.put([Indexed(Interaction(id="x", user_id="alice", content="v0"),
                                           text="base words", vectors={"content": unit(1)})])
        words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]

        async def write(client: MemoryStore, i: int) -> str:
            copy = base.model_copy(update={"content": f"written by {words[i]}"})
            try:
                await client.put([Indexed(copy, text=f"{words[i]} words",
                                          vectors={"content": unit(1, 0.25 * i)})])
            except ConflictError:
                return "conflict"
            return "won"

        outcomes = await asyncio.gather(*(write(store if i % 2 else other, i)
                                          for i in range(len(words))))
        assert sorted(outcomes) == ["conflict"] * (len(words) - 1) + ["won"]
        (stored,) = await store.list("alice", EVERYTHING)
        winner = words.index(stored.content.removeprefix("written by "))
        assert [h.record.id for h in await other.text_search("alice", words[winner], ALL, 5)
                ] == ["x"]
        for i, word in enumerate(words):
            if i != winner:
                assert await store.text_search("alice", word, ALL, k=5) == []
        [hit] = await other.vector_search("alice", unit(1, 0.25 * winner), ALL, k=5)
        assert hit.score == pytest.approx(1.0, abs=1e-5)

    async def test_turns_get_their_threads_next_seq_where_the_write_commits(
        self, store: MemoryStore
    ) -> None:
        stored = await store.put([Indexed(turn(f"{th}-{i}", thread_id=th))
                                  for i in range(3) for th in ("th1", "th2")])
        assert [(t.thread_id, t.seq) for t in stored] == [
            ("th1", 0), ("th2", 0), ("th1", 1), ("th2", 1), ("th1", 2), ("th2", 2)]
        (more,) = await store.put([Indexed(turn("th1-3", thread_id="th1"))])
        assert more.seq == 3
        assert [t.seq for t in await store.get("alice", ["th1-3", "th2-2"])] == [3, 2]

    async def test_an_explicit_seq_already_taken_is_a_conflict(self, store: MemoryStore) -> None:
        await store.put([Indexed(turn("a", seq=0))])
        with pytest.raises(ConflictError):
            await store.put([Indexed(turn("b", seq=0))])
        assert await store.get("alice", ["b"]) == []
        (c,) = await store.put([Indexed(turn("c", seq=0, thread_id="th2"))])  # other thread
        assert c.seq == 0

    async def test_concurrent_appends_from_tasks_and_clients_get_distinct_seqs(
        self, store: MemoryStore, connect: Connect
    ) -> None:
        other = await connect()

        async def append(client: MemoryStore, name: str) -> list[int]:
            seqs = []
            for i in range(5):
                (t,) = await client.put([Indexed(turn(f"{name}-{i}", content=f"memo {i}"))])
                seqs.append(t.seq)
            return seqs

        results = await asyncio.gather(*(append(c, f"{label}{w}")
                                         for label, c in (("a", store), ("b", other))
                                         for w in range(8)))
        for seqs in results:  # each writer's turns are in its own order
            assert seqs == sorted(seqs)
        stored = sorted(t.seq for t in await store.list("alice", TURNS))
        assert stored == list(range(80)) == sorted(s for r in results for s in r)

    async def test_touch_counts_every_access_and_moves_the_version(
        self, store: MemoryStore, connect: Connect
    ) -> None:
        other = await connect()
        (fact,) = await store.put([Indexed(Fact(id="f", user_id="alice", content="memo f"))])
        await store.put([Indexed(turn("t"))])
        await asyncio.gather(*(c.touch("alice", ["f", "t", "missing"], at(i))
                               for i in range(8) for c in (store, other)))
        (now,) = await store.get("alice", ["f"])
        assert isinstance(now, Fact) and now.access_count == 16
        assert now.last_accessed_at is not None and now.etag != fact.etag
        with pytest.raises(ConflictError):  # a copy read before the touches is stale
            await store.update([fact.model_copy(update={"pinned": True})])
        assert await store.touch("bob", ["f"], at(1)) == 0  # never across users

    async def test_incremental_reads_by_update_time_and_pending_embedding(
        self, store: MemoryStore
    ) -> None:
        old = Fact(id="old", user_id="alice", content="memo old", updated_at=at(1))
        new = Fact(id="new", user_id="alice", content="memo new", updated_at=at(5))
        await store.put([Indexed(old, vectors={"content": unit(1)}),
                         Indexed(new, vectors={"content": unit(1)}),
                         Indexed(turn("bare", updated_at=at(0)))])  # no vectors: pending
        after = RecordQuery(updated_after=at(2))
        assert [r.id for r in await store.list("alice", after)] == ["new"]
        assert await store.count("alice", after) == 1
        pending = await store.list("alice", RecordQuery(embedded=False))
        assert [r.id for r in pending] == ["bare"]
        (bare,) = pending
        await store.put([Indexed(bare, vectors={"content": unit(0, 1)})])
        assert await store.list("alice", RecordQuery(embedded=False)) == []
        assert sorted(r.id for r in await store.list("alice", RecordQuery(embedded=True))) == [
            "bare", "new", "old"]
