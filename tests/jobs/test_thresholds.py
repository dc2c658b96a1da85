"""Counters and thresholds: a job at exactly every N turns per scope; 0 never fires."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent_memory import AsyncMemory, Settings
from agent_memory.jobs import JobKind, crossings, queue_for

T0 = datetime(2024, 1, 1, tzinfo=UTC)


@pytest.fixture
async def auto(tmp_path, local_embedder):
    settings = Settings.load(store=str(tmp_path / "m.db"), thread_summary_every_n=3,
                             fact_extraction_every_n=0, user_summary_every_n=4,
                             dedup_every_n=0)
    async with AsyncMemory.open(settings, embedder=local_embedder) as mem:
        yield mem


def keys(jobs, kind: JobKind) -> list[str]:
    return [j.key for j in jobs if j.kind is kind]


def test_crossings_are_the_multiples_in_the_interval() -> None:
    assert [j.upto for j in crossings(JobKind.THREAD_SUMMARY, 5, 3, 12, "u", "t")] == [5, 10]
    assert crossings(JobKind.THREAD_SUMMARY, 5, 5, 9, "u", "t") == []
    assert crossings(JobKind.THREAD_SUMMARY, 0, 0, 100, "u", "t") == []


async def test_thread_threshold_fires_every_n_turns_per_thread(auto) -> None:
    fired = []
    for i in range(7):
        await auto.add_turn("ana", "t1", "user", f"turn {i}", created_at=T0 + timedelta(hours=i))
        fired.append(len(keys(await auto.jobs("ana"), JobKind.THREAD_SUMMARY)))
    assert fired == [0, 0, 1, 1, 1, 2, 2]
    for i in range(2):
        await auto.add_turn("ana", "t2", "user", f"other {i}")
    jobs = await auto.jobs("ana")
    assert keys(jobs, JobKind.THREAD_SUMMARY) == [
        "thread_summary:ana:t1:1", "thread_summary:ana:t1:2"]  # t2 has only 2 turns
    # the user scope counts every thread: 9 turns -> crossings at 4 and 8
    assert [j.upto for j in jobs if j.kind is JobKind.USER_SUMMARY] == [4, 8]
    assert keys(jobs, JobKind.EXTRACT_FACTS) == keys(jobs, JobKind.RECONCILE) == []


async def test_a_batch_crossing_twice_enqueues_both_and_readding_counts_nothing(auto) -> None:
    turns = await auto.add_turns([{"user_id": "ana", "thread_id": "t1", "role": "user",
                                   "content": f"line {i}", "id": f"turn_{i}"} for i in range(7)])
    assert [j.upto for j in await auto.jobs("ana") if j.kind is JobKind.THREAD_SUMMARY] == [3, 6]
    await auto.add_turns(turns)  # the same turns again (same ids and seqs)
    (counter,) = await queue_for(auto.store).counters("ana", ["t1"])
    assert counter.seen == 7
    assert len(await auto.jobs("ana")) == 3  # two thread summaries, one user summary


async def test_disabled_thresholds_never_fire(memory) -> None:
    for i in range(12):
        await memory.add_turn("ana", "t1", "user", f"turn {i}")
    assert await memory.jobs() == []


async def test_counter_write_with_a_stale_version_is_refused(auto) -> None:
    from agent_memory.jobs import CounterUpdate, JobSpec

    queue = queue_for(auto.store)
    await auto.add_turn("ana", "t1", "user", "hello there")
    (counter,) = await queue.counters("ana", ["t1"])
    spec = JobSpec(key="x", kind=JobKind.THREAD_SUMMARY, user_id="ana", thread_id="t1")
    stale = CounterUpdate(user_id="ana", thread_id="t1", expected_version=counter.version - 1
                          if counter.version > 1 else counter.version + 5, seen=99)
    assert await queue.advance([stale], [spec]) is False
    assert (await queue.counters("ana", ["t1"]))[0] == counter
    assert [j.key for j in await queue.jobs("ana")] == []  # the job was not enqueued either
    fresh = CounterUpdate(user_id="ana", thread_id="t1", expected_version=counter.version,
                          seen=2)
    assert await queue.advance([fresh], [spec]) is True
    assert (await queue.counters("ana", ["t1"]))[0].version == counter.version + 1
