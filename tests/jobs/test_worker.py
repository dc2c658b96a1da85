"""The worker: leases, retries with backoff, reclaiming a dead worker's job, per-user order."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from agent_memory import AsyncMemory, Settings
from agent_memory.jobs import (
    JobKind,
    JobSpec,
    JobState,
    Worker,
    WorkerConfig,
    queue_for,
    run_job,
)
from agent_memory.jobs.snapshot import derived_snapshot
from agent_memory.pipeline import extract_facts

T0 = datetime(2024, 1, 1, tzinfo=UTC)
LINES = ["I adopted a puppy named Rex.", "I work as a nurse at the clinic.",
         "I moved to Lisbon last month.", "I love painting landscapes.", "My sister is a pilot."]


@pytest.fixture
async def auto(tmp_path, local_embedder):
    settings = Settings.load(store=str(tmp_path / "m.db"), thread_summary_every_n=2,
                             fact_extraction_every_n=2, user_summary_every_n=5, dedup_every_n=5)
    async with AsyncMemory.open(settings, embedder=local_embedder) as mem:
        yield mem


async def feed(memory, user: str = "ana", n: int = 5) -> None:
    for i in range(n):
        await memory.add_turn(user, "t1", "user", LINES[i % len(LINES)], speaker="Ana",
                              id=f"{user}-{i}", created_at=T0 + timedelta(days=i))


async def test_jobs_run_once_in_order_and_every_turn_is_extracted_once(auto) -> None:
    await feed(auto)
    outcomes = await auto.run_jobs()
    assert [o.state for o in outcomes] == ["done"] * len(outcomes)
    assert [o.kind for o in outcomes][:2] == [JobKind.THREAD_SUMMARY, JobKind.EXTRACT_FACTS]
    summary = await auto.get_summary("ana", "t1")
    # the jobs ran after all five turns were stored: the first one folded in all of them
    assert summary.evidence == [f"ana-{i}" for i in range(5)]
    facts = await auto.get_memories("ana", kinds=["fact"])
    cited = [e for f in facts for e in f.evidence]
    assert len(cited) == len(set(cited))
    assert await queue_for(auto.store).get_mark("ana", "t1", "extract_facts") == 4
    assert await auto.run_jobs() == []


async def test_a_dead_workers_job_is_reclaimed_after_its_lease(auto) -> None:
    await feed(auto)
    queue = queue_for(auto.store)
    dead = await queue.claim("dead-worker", lease_seconds=30)
    assert dead is not None and dead.attempts == 1
    # other jobs of the same user wait behind it; nothing is runnable
    assert await queue.claim("w2", 30) is None
    later = datetime.now(UTC) + timedelta(seconds=31)
    taken = await queue.claim("w2", 30, now=later)
    assert taken.key == dead.key and taken.attempts == 2 and taken.lease_owner == "w2"
    assert await queue.complete(dead, "dead-worker") is False  # its lease is gone
    await queue.fail(taken, "w2", "handing back", retry_at=datetime.now(UTC))
    await auto.run_jobs()
    assert all(j.state is JobState.DONE for j in await queue.jobs("ana"))
    assert await derived_snapshot(auto.store, "ana")  # summaries, facts, profile


async def test_uninterrupted_and_reclaimed_runs_derive_the_same_records(tmp_path,
                                                                        local_embedder) -> None:
    snapshots = []
    for name, crash in (("plain", False), ("crashed", True)):
        settings = Settings.load(store=str(tmp_path / f"{name}.db"), thread_summary_every_n=2,
                                 fact_extraction_every_n=2, user_summary_every_n=5,
                                 dedup_every_n=5)
        async with AsyncMemory.open(settings, embedder=local_embedder) as mem:
            await feed(mem, n=10)
            queue = queue_for(mem.store)
            if crash:
                # a worker runs the head job three times over without ever completing it
                # (it dies after the step's writes each time; its lease expires)
                for _ in range(3):
                    job = await queue.claim("doomed", 0.01)
                    await run_job(mem.components, queue, job)
                    await asyncio.sleep(0.02)
                # and dies half-way through a fact extraction (facts written, no watermark)
                await extract_facts(mem.components, "ana", "t1")
            await Worker(mem.components, queue, config=WorkerConfig(poll_seconds=0.01)).run(
                until_idle=True)
            assert {j.state for j in await queue.jobs()} == {JobState.DONE}
            snapshots.append(await derived_snapshot(mem.store, "ana"))
    assert snapshots[0] == snapshots[1]


class Flaky:
    """A reasoner wrapper whose thread summaries fail ``failures`` times."""

    def __init__(self, inner, failures: int) -> None:
        self.inner, self.failures = inner, failures

    def __getattr__(self, name):
        return getattr(self.inner, name)

    async def summarize_thread(self, *args, **kwargs):
        if self.failures > 0:
            self.failures -= 1
            from agent_memory.errors import ReasonerError

            raise ReasonerError("endpoint down")
        return await self.inner.summarize_thread(*args, **kwargs)


async def test_failed_attempts_back_off_then_succeed_or_fail_for_good(auto) -> None:
    await feed(auto, n=2)
    queue = queue_for(auto.store)
    from agent_memory.pipeline import Components

    flaky = Flaky(auto.reasoner, failures=1)
    comps = Components(auto.store, auto.embedder, flaky, auto.settings)
    config = WorkerConfig(backoff_seconds=0.0, max_attempts=2, poll_seconds=0.01)
    outcomes = await Worker(comps, queue, config=config).run(until_idle=True)
    assert [o.state for o in outcomes][:2] == ["retry", "done"]
    assert "endpoint down" in outcomes[0].error

    await queue.enqueue([JobSpec(key="again", kind=JobKind.THREAD_SUMMARY, user_id="ana",
                                 thread_id="t1")])
    flaky.failures = 5
    await feed(auto, n=3)
    outcomes = await Worker(comps, queue, config=config).run(until_idle=True)
    failed = [j for j in await queue.jobs("ana") if j.state is JobState.FAILED]
    assert [j.key for j in failed] == ["again"] and failed[0].attempts == 2
    assert "endpoint down" in failed[0].last_error


async def test_backoff_delays_the_retry(auto) -> None:
    await feed(auto, n=2)
    queue = queue_for(auto.store)
    job = await queue.claim("w", 30)
    await queue.fail(job, "w", "boom", retry_at=datetime.now(UTC) + timedelta(seconds=60))
    assert await queue.claim("w", 30) is None  # the user's head job waits out its backoff
    later = await queue.claim("w", 30, now=datetime.now(UTC) + timedelta(seconds=61))
    assert later.key == job.key and later.last_error == "boom"


async def test_different_users_run_in_parallel(auto) -> None:
    await feed(auto, "ana", 2)
    await feed(auto, "bo", 2)
    queue = queue_for(auto.store)
    first = await queue.claim("w1", 30)
    second = await queue.claim("w2", 30)
    assert {first.user_id, second.user_id} == {"ana", "bo"}
