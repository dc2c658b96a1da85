"""Sessions hold no process state: any client continues any session, two clients on one
session fold every turn exactly once, and reads never write."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from agent_memory import AsyncMemory
from agent_memory.errors import SessionNotFoundError
from agent_memory.models import Interaction, RecordKind, SessionStatus, Turn

from .conftest import ADVISOR_TURNS, K, settings_for


def dump(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return list(conn.iterdump())


async def test_two_clients_on_one_session_fold_every_turn_exactly_once(
    tmp_path, local_embedder
) -> None:
    path = tmp_path / "memory.db"
    settings = settings_for(path, thread_summary_every_n=3)
    async with (AsyncMemory.open(settings, embedder=local_embedder) as first,
                AsyncMemory.open(settings, embedder=local_embedder) as second):
        sid = await first.start_session("u1", "s1")

        async def talk(client: AsyncMemory, name: str) -> list[Turn]:
            return [await client.add_session_turn("u1", sid, "user", f"{name} says {text}")
                    for _, text in ADVISOR_TURNS]

        worker_runs = asyncio.ensure_future(first.run_jobs())
        added = await asyncio.gather(talk(first, "ann"), talk(second, "bo"),
                                     talk(second, "cy"))
        await worker_runs
        await first.run_jobs()  # the thread-summary jobs enqueued after the first pass
        turns = [t for batch in added for t in batch]
        assert sorted(t.seq for t in turns) == list(range(len(turns)))
        ended = await second.end_session("u1", sid)

        interactions = sorted((r for r in await first.get_memories("u1", kinds=["interaction"])
                               if isinstance(r, Interaction)),
                              key=lambda r: r.metadata["first_seq"])
        folded = [turn_id for r in interactions for turn_id in r.evidence]
        assert sorted(folded) == sorted(t.id for t in turns)  # every turn exactly once
        assert all(len(r.evidence) == K for r in interactions[:-1])
        record = ended.session
        assert record.status == SessionStatus.COMPLETED
        # the keeper and the thread-summary step share one watermark: nothing folded twice
        assert record.watermark_seq == len(turns) - 1
        assert record.turn_count == len(turns) == len(set(record.evidence))
        listed = await first.get_memories("u1", kinds=["turn"], thread_id=sid)
        assert sorted(t.id for t in listed) == sorted(t.id for t in await second.get_thread(
            "u1", sid))
        assert (await first.session_state("u1", sid)).pending_embeddings == 0


async def test_any_client_continues_a_session_another_started(tmp_path, local_embedder) -> None:
    path = tmp_path / "memory.db"
    async with AsyncMemory.open(settings_for(path), embedder=local_embedder) as first:
        sid = await first.start_session("u1")
        for role, text in ADVISOR_TURNS[:K + 1]:
            await first.add_session_turn("u1", sid, role, text)
        context_first = await first.get_current_context("u1", sid)
    async with AsyncMemory.open(settings_for(path), embedder=local_embedder) as second:
        assert await second.get_current_context("u1", sid) == context_first
        assert await second.open_session_ids("u1") == [sid]
        for role, text in ADVISOR_TURNS[K + 1:]:
            await second.add_session_turn("u1", sid, role, text)
        state = await second.session_state("u1", sid)
        turns = await second.get_thread("u1", sid)
        assert [t.seq for t in turns] == list(range(len(ADVISOR_TURNS)))
        assert state.record.folded_seq == (len(ADVISOR_TURNS) // K) * K - 1
        await second.end_session("u1", sid)
        assert await second.open_session_ids("u1") == []


async def test_reads_of_unknown_sessions_are_typed_errors_and_write_nothing(
    keeper_memory
) -> None:
    memory = keeper_memory
    sid = await memory.start_session("u1", "s1")
    await memory.add_session_turn("u1", sid, "user", "I live in Lisbon.")
    before = dump(Path(memory.settings.store))
    for i in range(3_000):
        with pytest.raises(SessionNotFoundError):
            await memory.get_current_context("u1", f"nosuch-{i}")
    for call in (memory.session_state("u1", "nosuch"), memory.end_session("u1", "nosuch"),
                 memory.get_current_context("u2", sid)):  # another user's session id
        with pytest.raises(SessionNotFoundError):
            await call
    assert dump(Path(memory.settings.store)) == before
    assert await memory.list_sessions("u1") == await memory.list_sessions("u1")
    assert [s.thread_id for s in await memory.list_sessions("u1")] == [sid]
    assert await memory.get_memories("u2", kinds=[RecordKind.SUMMARY]) == []


async def test_ending_a_session_twice_from_two_clients_reflects_once(
    tmp_path, local_embedder
) -> None:
    path = tmp_path / "memory.db"
    async with (AsyncMemory.open(settings_for(path), embedder=local_embedder) as first,
                AsyncMemory.open(settings_for(path), embedder=local_embedder) as second):
        sid = await first.start_session("u1")
        for role, text in ADVISOR_TURNS:
            await first.add_session_turn("u1", sid, role, text)
        outcomes = await asyncio.gather(first.end_session("u1", sid),
                                        second.end_session("u1", sid),
                                        return_exceptions=True)
        errors = [o for o in outcomes if isinstance(o, Exception)]
        assert len(errors) == 1 and "already ended" in str(errors[0])
        insights = await first.get_memories("u1", kinds=["insight"])
        ended = next(o for o in outcomes if not isinstance(o, Exception))
        assert sorted(f.id for f in insights) == sorted(ended.session.insight_ids)


async def test_turns_are_folded_in_seq_order_whatever_their_times(keeper_memory) -> None:
    from datetime import UTC, datetime, timedelta

    memory = keeper_memory
    sid = await memory.start_session("u1", "replay")
    t0 = datetime(2024, 1, 1, tzinfo=UTC)
    # a replay whose timestamps run backwards: list order (created_at) is the reverse of seq
    turns = [await memory.add_session_turn("u1", sid, "user", text,
                                           created_at=t0 - timedelta(minutes=i))
             for i, (_, text) in enumerate(ADVISOR_TURNS[:2 * K])]
    interactions = sorted((r for r in await memory.get_memories("u1", kinds=["interaction"])
                           if isinstance(r, Interaction)), key=lambda r: r.metadata["first_seq"])
    assert [r.evidence for r in interactions] == [[t.id for t in turns[:K]],
                                                  [t.id for t in turns[K:2 * K]]]
