"""Forgetting: records by id, a thread, a user (with jobs and counters), raw turns past a time-to-live."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent_memory import AsyncMemory, Settings
from agent_memory.errors import InvalidInputError, MissingScopeError
from agent_memory.models import RecordKind

T0 = datetime(2024, 1, 1, tzinfo=UTC)


async def fill(memory, user: str, thread: str, n: int, start: int = 0) -> None:
    for i in range(n):
        await memory.add_turn(user, thread, "user", f"I went hiking near lake {start + i}.",
                              speaker=user.title(), created_at=T0 + timedelta(days=start + i))


@pytest.fixture
async def auto(tmp_path, local_embedder):
    settings = Settings.load(store=str(tmp_path / "m.db"), thread_summary_every_n=2,
                             user_summary_every_n=3)
    async with AsyncMemory.open(settings, embedder=local_embedder) as mem:
        yield mem


async def test_forget_thread_removes_its_records_and_jobs_only(auto) -> None:
    await fill(auto, "ana", "t1", 4)
    await fill(auto, "ana", "t2", 2, start=10)
    await fill(auto, "bo", "t1", 2)
    await auto.run_jobs()
    report = await auto.forget_thread("ana", "t1")
    assert report.records == {"turn": 4, "summary": 1}
    assert report.jobs == 2 and report.counters == 1
    assert await auto.threads("ana") == ["t2"]
    assert len(await auto.get_thread("bo", "t1")) == 2
    assert all(j.thread_id != "t1" for j in await auto.jobs("ana"))


async def test_forget_user_removes_everything_of_that_user(auto) -> None:
    await fill(auto, "ana", "t1", 3)
    await fill(auto, "bo", "t1", 3)
    report = await auto.forget_user("ana")
    assert report.records == {"turn": 3}
    assert report.jobs == 2  # thread summary + user summary, still queued
    assert report.counters == 2
    assert await auto.get_memories("ana", include_superseded=True) == []
    assert await auto.jobs("ana") == []
    assert len(await auto.get_memories("bo")) == 3
    assert len(await auto.jobs("bo")) == 2
    again = await auto.forget_user("ana")
    assert again.total == 0 and again.jobs == 0


async def test_forget_records_deletes_only_the_users_records_with_those_ids(memory) -> None:
    await fill(memory, "ana", "t1", 3)
    await fill(memory, "bo", "t1", 2)
    added = await memory.add_memories("ana", [{"content": "Ana is allergic to peanuts."}])
    fact = added.added[0][1]
    ana_turns = await memory.get_thread("ana", "t1")
    bo_turns = await memory.get_thread("bo", "t1")
    report = await memory.forget_records(
        "ana", [fact.id, ana_turns[0].id, bo_turns[0].id, "fact_unknown", fact.id])
    assert report.records == {"fact": 1, "turn": 1}
    assert report.missing == [bo_turns[0].id, "fact_unknown"]  # bo's turn is not ana's
    assert [t.id for t in await memory.get_thread("ana", "t1")] == [t.id for t in ana_turns[1:]]
    assert len(await memory.get_thread("bo", "t1")) == 2
    assert await memory.store.get("ana", [fact.id]) == []
    for bad in ([], "fact_1", [" fact_1"], [None]):
        with pytest.raises(InvalidInputError):
            await memory.forget_records("ana", bad)


async def test_expire_turns_keeps_newer_turns_and_derived_records(memory) -> None:
    await fill(memory, "ana", "t1", 5)
    await memory.generate_thread_summary("ana", "t1")
    report = await memory.expire_turns("ana", before=T0 + timedelta(days=3))
    assert report.records == {"turn": 3}
    assert [t.seq for t in await memory.get_thread("ana", "t1")] == [3, 4]
    assert await memory.get_summary("ana", "t1") is not None
    ttl = await memory.expire_turns("ana", older_than=timedelta(days=1))
    assert ttl.records == {"turn": 2}  # everything dated 2024 is older than a day
    with pytest.raises(InvalidInputError):
        await memory.expire_turns("ana")
    with pytest.raises(InvalidInputError):
        await memory.expire_turns("ana", older_than=-5)
    with pytest.raises(MissingScopeError):
        await memory.forget_thread("ana", " ")
    assert await memory.store.count("ana", _turns()) == 0


def _turns():
    from agent_memory.stores.base import RecordQuery

    return RecordQuery(kinds=frozenset({RecordKind.TURN}))
