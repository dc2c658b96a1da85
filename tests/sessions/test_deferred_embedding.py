"""Deferred embedding in the memory keeper: a turn is stored (full-text indexed) at once and
embedded in a batch at the next prune, at session end, before a vector search, or on resume."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from agent_memory import AsyncMemory
from agent_memory.errors import EmptyContentError
from agent_memory.indexing import build_indexed
from agent_memory.models import RecordKind, Turn
from agent_memory.stores.base import CONTENT, RecordQuery

from .conftest import ADVISOR_TURNS, K, settings_for

T0 = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)


async def add(memory, sid: str, indices) -> list[Turn]:
    turns = []
    for i in indices:
        role, text = ADVISOR_TURNS[i]
        turns.append(await memory.add_session_turn("u1", sid, role, text,
                                                   created_at=T0 + timedelta(minutes=i)))
    return turns


async def embedded(memory, sid: str) -> set[str]:
    """Ids of the session's turns that have a content vector in the store."""
    probe = np.zeros(memory.embedder.dim, dtype=np.float32)
    probe[0] = 1.0
    query = RecordQuery(kinds=frozenset({RecordKind.TURN}), thread_id=sid)
    return {h.record.id for h in await memory.store.vector_search("u1", probe, query, 100)}


async def assert_product_vectors(memory, turns: list[Turn]) -> None:
    """Each turn's stored vector is the one the product's indexing gives it."""
    expected = await build_indexed(turns, memory.embedder, store=memory.store)
    for item in expected:
        query = RecordQuery(kinds=frozenset({RecordKind.TURN}), ids=frozenset({item.record.id}))
        hits = await memory.store.vector_search("u1", item.vectors[CONTENT], query, 1)
        assert [h.record.id for h in hits] == [item.record.id]
        assert hits[0].score == pytest.approx(1.0, abs=1e-4)


async def test_a_turn_is_durable_and_text_searchable_before_it_is_embedded(
    tmp_path, local_embedder
):
    path = tmp_path / "memory.db"
    async with AsyncMemory.open(settings_for(path), embedder=local_embedder) as memory:
        sid = await memory.start_session("u1", "s1")
        turns = await add(memory, sid, range(K - 1))
        keeper = await memory.session_keeper("u1", sid)
        assert (await keeper.state()).pending_embeddings == K - 1
        assert await embedded(memory, sid) == set()
        # another client on the same file sees the turn, by full-text search, right away
        async with AsyncMemory.open(settings_for(path), embedder=local_embedder) as other:
            assert [t.id for t in await other.get_thread("u1", sid)] == [t.id for t in turns]
            hits = await other.search("u1", "401k", mode="text", kinds=["turn"])
            assert turns[2].id in {h.record.id for h in hits}
        # a vector (or hybrid) search through the client embeds the pending turns first
        hits = await memory.search("u1", "how much is in the 401k?", mode="vector",
                                   kinds=["turn"], thread_id=sid)
        assert turns[2].id in {h.record.id for h in hits}
        assert (await keeper.state()).pending_embeddings == 0
        assert await embedded(memory, sid) == {t.id for t in turns}
        await assert_product_vectors(memory, turns)


async def test_a_rejected_turn_writes_nothing(keeper_memory):
    sid = await keeper_memory.start_session("u1", "s1")
    with pytest.raises(EmptyContentError):
        await keeper_memory.add_session_turn("u1", sid, "user", "   ")
    assert await keeper_memory.get_thread("u1", sid) == []
    turn = (await add(keeper_memory, sid, [0]))[0]
    assert turn.seq == 0


async def test_a_prune_embeds_the_pruned_turns_with_the_product_index_text(keeper_memory):
    memory = keeper_memory
    sid = await memory.start_session("u1", "s1")
    turns = await add(memory, sid, range(K - 1))
    assert await embedded(memory, sid) == set()
    turns += await add(memory, sid, [K - 1])  # the k-th turn prunes
    assert await embedded(memory, sid) == {t.id for t in turns}
    await assert_product_vectors(memory, turns)
    record = await memory.get_summary("u1", sid)
    assert record is not None and record.watermark_seq == K - 1


async def test_end_session_embeds_the_unfolded_turns(keeper_memory):
    memory = keeper_memory
    sid = await memory.start_session("u1", "s1")
    turns = await add(memory, sid, range(K + 2))
    assert await embedded(memory, sid) == {t.id for t in turns[:K]}
    await memory.end_session("u1", sid)
    assert await embedded(memory, sid) == {t.id for t in turns}
    await assert_product_vectors(memory, turns)


async def test_a_crash_leaves_no_turn_unembedded_after_resume(tmp_path, local_embedder):
    path = tmp_path / "memory.db"
    async with AsyncMemory.open(settings_for(path), embedder=local_embedder) as first:
        sid = await first.start_session("u1", "s1")
        turns = await add(first, sid, range(K + 2))
        context = await first.get_current_context("u1", sid)
        # the process dies: no end_session, two turns stored without vectors
    async with AsyncMemory.open(settings_for(path), embedder=local_embedder) as second:
        assert await embedded(second, sid) == {t.id for t in turns[:K]}
        await second.start_session("u1", sid)  # resume
        assert await embedded(second, sid) == {t.id for t in turns}
        await assert_product_vectors(second, turns)
        assert await second.get_current_context("u1", sid) == context
        more = await add(second, sid, range(K + 2, 2 * K))  # the second chunk prunes
        assert await embedded(second, sid) == {t.id for t in turns + more}
        assert [t.seq for t in await second.get_thread("u1", sid)] == list(range(2 * K))
