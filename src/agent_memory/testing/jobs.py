"""Conformance of the job queue (:class:`~agent_memory.jobs.JobQueue`): conditional counters,
idempotent enqueue, per-user FIFO leases, retries, watermarks, purge, and concurrent workers.

The queue lives beside the records, so the suite builds it from an opened store: the
``queue_factory`` fixture (default :func:`agent_memory.jobs.queue_for`) maps a store to its
queue. Every test needs :attr:`Capability.JOB_QUEUE`.

To add a test: write an ``async def test_...(self, queue)`` method in
:class:`JobQueueConformance`; ``await self.second_queue(connect, queue_factory)`` gives a
queue on a second client of the same storage.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from ..errors import MissingScopeError
from ..jobs import CounterUpdate, JobKind, JobQueue, JobSpec, JobState, queue_for
from ..stores.base import Capability, MemoryStore
from ._harness import Connect, StoreHarness, requires

QueueFactory = Callable[[MemoryStore], JobQueue]
"""Maps an opened store to the job queue kept beside its records."""


def job(key: str, user: str = "ana", thread: str | None = "t1") -> JobSpec:
    """A thread-summary job spec of ``user`` in ``thread``."""
    return JobSpec(key=key, kind=JobKind.THREAD_SUMMARY, user_id=user, thread_id=thread)


def update(thread: str | None, expected: int, seen: int, user: str = "ana") -> CounterUpdate:
    """Set ``user``'s counter of ``thread`` to ``seen`` if its version is ``expected``."""
    return CounterUpdate(user_id=user, thread_id=thread, expected_version=expected, seen=seen)


def now_plus(seconds: float) -> datetime:
    """The current UTC time plus ``seconds``."""
    return datetime.now(UTC) + timedelta(seconds=seconds)


@requires(Capability.JOB_QUEUE)
class JobQueueConformance(StoreHarness):
    """The job-queue contract. Subclass it as ``Test<YourQueue>`` with a ``store_factory``
    fixture; override ``queue_factory`` when :func:`queue_for` does not know your store."""

    @pytest.fixture
    def queue_factory(self) -> QueueFactory:
        """The store -> queue mapping (default :func:`agent_memory.jobs.queue_for`)."""
        return queue_for

    @pytest.fixture
    def queue(self, store: MemoryStore, queue_factory: QueueFactory) -> JobQueue:
        """The queue of the test's opened, empty store."""
        return queue_factory(store)

    @staticmethod
    async def second_queue(connect: Connect, queue_factory: QueueFactory) -> JobQueue:
        """A queue on another client of the same storage."""
        return queue_factory(await connect())

    # -- counters ----------------------------------------------------------------------

    async def test_missing_counters_read_as_zero_in_the_order_asked(self, queue: JobQueue
                                                                    ) -> None:
        got = await queue.counters("ana", ["t2", None, "t1"])
        assert [(c.user_id, c.thread_id, c.seen, c.version) for c in got] == [
            ("ana", "t2", 0, 0), ("ana", None, 0, 0), ("ana", "t1", 0, 0)]

    async def test_advance_is_conditional_on_the_version(self, queue: JobQueue) -> None:
        assert await queue.advance([update("t1", 0, 3)], [job("a")])
        assert not await queue.advance([update("t1", 0, 9)], [job("b")])  # exists already
        assert not await queue.advance([update("t1", 5, 9)], [job("b")])  # wrong version
        (counter,) = await queue.counters("ana", ["t1"])
        assert (counter.seen, counter.version) == (3, 1)
        assert [j.key for j in await queue.jobs()] == ["a"]  # a conflict enqueues nothing
        assert await queue.advance([update("t1", 1, 6)], [])
        (counter,) = await queue.counters("ana", ["t1"])
        assert (counter.seen, counter.version) == (6, 2)

    async def test_advance_applies_every_update_or_none(self, queue: JobQueue) -> None:
        assert await queue.advance([update("t1", 0, 2), update(None, 0, 2)], [])
        # t1 is current (version 1), the user scope is stale (0): nothing is applied
        assert not await queue.advance([update("t1", 1, 4), update(None, 0, 4)], [job("x")])
        counters = await queue.counters("ana", ["t1", None])
        assert [(c.seen, c.version) for c in counters] == [(2, 1), (2, 1)]
        assert await queue.jobs() == []

    # -- enqueue and claim -------------------------------------------------------------

    async def test_enqueue_skips_stored_keys_and_keeps_queue_order(self, queue: JobQueue
                                                                   ) -> None:
        assert await queue.enqueue([job("a"), job("b", user="bo"), job("a")]) == 2
        assert await queue.enqueue([job("b", user="bo"), job("c")]) == 1
        stored = await queue.jobs()
        assert [j.key for j in stored] == ["a", "b", "c"]
        assert [j.seq for j in stored] == sorted({j.seq for j in stored})
        assert all(j.state is JobState.QUEUED and j.attempts == 0 and j.lease_owner is None
                   for j in stored)
        assert [j.key for j in await queue.jobs("ana")] == ["a", "c"]
        assert await queue.jobs(states=[JobState.DONE]) == []

    async def test_claim_runs_one_job_per_user_in_order_and_users_in_parallel(
        self, queue: JobQueue
    ) -> None:
        await queue.enqueue([job("a1"), job("b1", user="bo"), job("a2")])
        first = await queue.claim("w1", 30)
        second = await queue.claim("w2", 30)
        assert (first.key, second.key) == ("a1", "b1")
        assert first.state is JobState.RUNNING and first.lease_owner == "w1"
        assert first.attempts == 1 and first.lease_expires_at > now_plus(20)
        assert await queue.claim("w3", 30) is None  # a2 waits behind a1
        assert await queue.complete(first, "w1")
        assert (await queue.claim("w3", 30)).key == "a2"
        (done,) = await queue.jobs(states=[JobState.DONE])
        assert done.key == "a1" and done.finished_at is not None and done.lease_owner is None

    async def test_an_expired_lease_is_taken_over_and_the_old_owner_refused(
        self, queue: JobQueue
    ) -> None:
        await queue.enqueue([job("a1")])
        dead = await queue.claim("dead", 30)
        assert await queue.claim("w2", 30) is None
        taken = await queue.claim("w2", 30, now=now_plus(31))
        assert taken.key == "a1" and taken.attempts == 2 and taken.lease_owner == "w2"
        assert not await queue.complete(dead, "dead")
        assert not await queue.renew(dead, "dead", 30)
        assert not await queue.fail(dead, "dead", "late", retry_at=None)
        assert await queue.complete(taken, "w2")
        assert [j.state for j in await queue.jobs()] == [JobState.DONE]

    async def test_a_renewed_lease_is_not_taken_over(self, queue: JobQueue) -> None:
        await queue.enqueue([job("a1")])
        held = await queue.claim("w1", 30)
        start = datetime.now(UTC)
        assert await queue.renew(held, "w1", 120)
        assert await queue.claim("w2", 30, now=start + timedelta(seconds=60)) is None
        taken = await queue.claim("w2", 30, now=start + timedelta(seconds=600))
        assert taken.key == "a1" and taken.lease_owner == "w2"

    async def test_a_failed_attempt_waits_for_its_retry_then_fails_for_good(
        self, queue: JobQueue
    ) -> None:
        await queue.enqueue([job("a1"), job("a2")])
        attempt = await queue.claim("w", 30)
        retry_at = now_plus(60)
        assert await queue.fail(attempt, "w", "boom", retry_at=retry_at)
        head = (await queue.jobs(states=[JobState.QUEUED]))[0]
        assert head.key == "a1" and head.last_error == "boom" and head.lease_owner is None
        assert await queue.claim("w", 30) is None  # a1 waits out its backoff, a2 behind it
        again = await queue.claim("w", 30, now=retry_at + timedelta(seconds=1))
        assert again.key == "a1" and again.attempts == 2
        assert await queue.fail(again, "w", "boom twice", retry_at=None)
        (failed,) = await queue.jobs(states=[JobState.FAILED])
        assert failed.last_error == "boom twice" and failed.finished_at is not None
        assert (await queue.claim("w", 30)).key == "a2"  # a job failed for good holds nothing

    # -- watermarks, purge, scopes -----------------------------------------------------

    async def test_marks_start_at_minus_one_and_never_go_down(self, queue: JobQueue) -> None:
        assert await queue.get_mark("ana", "t1", "extract_facts") == -1
        for mark in (5, 3):
            await queue.set_mark("ana", "t1", "extract_facts", mark)
        assert await queue.get_mark("ana", "t1", "extract_facts") == 5
        await queue.set_mark("ana", "t1", "extract_facts", 9)
        assert await queue.get_mark("ana", "t1", "extract_facts") == 9
        assert await queue.get_mark("ana", None, "extract_facts") == -1
        assert await queue.get_mark("ana", "t1", "thread_summary") == -1
        assert await queue.get_mark("bo", "t1", "extract_facts") == -1

    async def test_purge_removes_one_threads_or_one_users_state_only(self, queue: JobQueue
                                                                     ) -> None:
        for user, thread in (("ana", "t1"), ("ana", "t2"), ("bo", "t1")):
            assert await queue.advance([update(thread, 0, 1, user=user)],
                                       [job(f"{user}-{thread}", user=user, thread=thread)])
            await queue.set_mark(user, thread, "extract_facts", 0)
        assert await queue.advance([update(None, 0, 2)], [])

        assert await queue.purge("ana", "t1") == {"jobs": 1, "counters": 1, "marks": 1}
        counters = await queue.counters("ana", ["t1", "t2", None])
        assert [c.version for c in counters] == [0, 1, 1]
        assert await queue.purge("ana") == {"jobs": 1, "counters": 2, "marks": 1}
        assert await queue.jobs("ana") == [] and await queue.get_mark("ana", "t2",
                                                                       "extract_facts") == -1
        assert [j.key for j in await queue.jobs("bo")] == ["bo-t1"]
        assert (await queue.counters("bo", ["t1"]))[0].version == 1
        assert await queue.get_mark("bo", "t1", "extract_facts") == 0

    @pytest.mark.parametrize("blank", ["", "   "])
    async def test_blank_user_id_is_refused(self, queue: JobQueue, blank: str) -> None:
        for call in (
            queue.counters(blank, ["t1"]),
            queue.jobs(blank),
            queue.get_mark(blank, "t1", "extract_facts"),
            queue.set_mark(blank, "t1", "extract_facts", 1),
            queue.purge(blank),
        ):
            with pytest.raises(MissingScopeError):
                await call

    # -- concurrency -------------------------------------------------------------------

    async def test_concurrent_advances_from_one_version_apply_once(
        self, queue: JobQueue, connect: Connect, queue_factory: QueueFactory
    ) -> None:
        other = await self.second_queue(connect, queue_factory)
        queues = [queue, other] * 4
        for expected in (0, 1):  # creating the counter, then moving it on
            results = await asyncio.gather(*(
                q.advance([update("t1", expected, 10 * expected + i)], [job(f"{expected}-{i}")])
                for i, q in enumerate(queues)))
            assert results.count(True) == 1
            winner = results.index(True)
            (counter,) = await other.counters("ana", ["t1"])
            assert (counter.seen, counter.version) == (10 * expected + winner, expected + 1)
            assert f"{expected}-{winner}" in [j.key for j in await queue.jobs()]
        assert len(await queue.jobs()) == 2

    async def test_concurrent_workers_lease_each_job_once_in_user_order(
        self, queue: JobQueue, connect: Connect, queue_factory: QueueFactory
    ) -> None:
        other = await self.second_queue(connect, queue_factory)
        users = ["u0", "u1", "u2", "u3"]
        await queue.enqueue([job(f"{u}-{n}", user=u) for n in range(3) for u in users])
        workers = [(f"w{i}", q) for i, q in enumerate([queue, other] * 4)]
        finished: list[str] = []
        for round_ in range(4):  # 3 rounds drain 4 users x 3 jobs; the 4th finds nothing
            claims = await asyncio.gather(*(q.claim(name, 30) for name, q in workers))
            leased = [(name, q, c) for (name, q), c in zip(workers, claims, strict=True) if c]
            assert len(leased) == (len(users) if round_ < 3 else 0)
            assert len({c.user_id for _, _, c in leased}) == len(leased)  # one per user
            assert all(await asyncio.gather(*(q.complete(c, name) for name, q, c in leased)))
            finished += [c.key for _, _, c in leased]
        assert sorted(finished) == sorted(f"{u}-{n}" for u in users for n in range(3))
        for u in users:
            assert [k for k in finished if k.startswith(u)] == [f"{u}-{n}" for n in range(3)]
        stored = await other.jobs()
        assert all(j.state is JobState.DONE and j.attempts == 1 for j in stored)
