"""Counting new turns per scope and enqueueing a job at every threshold crossing.

After turns are stored, :func:`count_turns` advances, for each user in the batch, the counter of
every touched thread and the user's own counter, and enqueues one job per multiple of a
threshold crossed, all in one conditional write (:meth:`JobQueue.advance`). A concurrent
writer that moved a counter first makes the write fail; the counters are re-read and the plan
recomputed (optimistic concurrency with retries, as seed 000 does with ETags).

What a thread counter counts: turns are numbered by ``seq`` within their thread, so a thread's
counter moves to ``max(seq) + 1`` of the turns seen, but by at most the number of turns of that
thread in the batch. Re-adding a turn (same seq) therefore counts nothing, a crash between the
turn write and the count is caught up by the next batch of the thread, and an explicit large
``seq`` cannot fire a burst of jobs. The user counter moves by the sum of its threads' moves.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence

from ..errors import StoreError
from ..models import Turn
from .models import CounterUpdate, JobKind, JobSpec, Thresholds, job_key
from .queue import JobQueue

MAX_CONFLICT_RETRIES = 50
"""Re-reads after a version conflict before giving up (each conflict means another writer
made progress, so this bounds contention, not correctness)."""


def crossings(kind: JobKind, every: int, before: int, after: int, user_id: str,
              thread_id: str | None) -> list[JobSpec]:
    """The jobs for every multiple of ``every`` in ``(before, after]`` (none when ``every`` is 0).

    Example: ``every=5``, counter 3 -> 12 gives the jobs of crossings 5 and 10 (ordinals 1, 2).
    """
    if every <= 0 or after <= before:
        return []
    first = before // every + 1
    return [
        JobSpec(key=job_key(kind, user_id, thread_id, n), kind=kind, user_id=user_id,
                thread_id=thread_id, upto=n * every)
        for n in range(first, after // every + 1)
    ]


def _batch_extent(turns: Sequence[Turn]) -> dict[str, dict[str, tuple[int, int]]]:
    """user -> thread -> (max seq + 1, number of turns in the batch)."""
    out: dict[str, dict[str, tuple[int, int]]] = {}
    for turn in turns:
        if not turn.thread_id:
            continue
        threads = out.setdefault(turn.user_id, {})
        high, n = threads.get(turn.thread_id, (0, 0))
        threads[turn.thread_id] = (max(high, turn.seq + 1), n + 1)
    return out


async def count_turns(queue: JobQueue, turns: Sequence[Turn], thresholds: Thresholds
                      ) -> list[JobSpec]:
    """Advance the counters for stored ``turns`` and enqueue the jobs whose threshold they cross.

    Returns:
        The jobs planned (already-stored keys among them are skipped by the queue).

    Raises:
        StoreError: the counters kept conflicting (:data:`MAX_CONFLICT_RETRIES`) or the store
            failed.
    """
    if not thresholds.enabled:
        return []
    planned: list[JobSpec] = []
    for user_id, threads in _batch_extent(turns).items():
        planned += await _count_user(queue, user_id, threads, thresholds)
    return planned


async def _count_user(queue: JobQueue, user_id: str, threads: dict[str, tuple[int, int]],
                      thresholds: Thresholds) -> list[JobSpec]:
    names = sorted(threads)
    for attempt in range(MAX_CONFLICT_RETRIES):
        *per_thread, user = await queue.counters(user_id, [*names, None])
        updates: list[CounterUpdate] = []
        jobs: list[JobSpec] = []
        moved = 0
        for counter in per_thread:
            high, n = threads[counter.thread_id or ""]
            after = max(counter.seen, min(high, counter.seen + n))
            if after == counter.seen:
                continue
            moved += after - counter.seen
            updates.append(CounterUpdate(user_id=user_id, thread_id=counter.thread_id,
                                         expected_version=counter.version, seen=after))
            for kind in (JobKind.THREAD_SUMMARY, JobKind.EXTRACT_FACTS):
                jobs += crossings(kind, thresholds.every(kind), counter.seen, after, user_id,
                                  counter.thread_id)
        if not updates:
            return []
        updates.append(CounterUpdate(user_id=user_id, thread_id=None,
                                     expected_version=user.version, seen=user.seen + moved))
        for kind in (JobKind.USER_SUMMARY, JobKind.RECONCILE):
            jobs += crossings(kind, thresholds.every(kind), user.seen, user.seen + moved,
                              user_id, None)
        if await queue.advance(updates, jobs):
            return jobs
        await asyncio.sleep(random.uniform(0, 0.005 * (attempt + 1)))
    raise StoreError(
        f"turn counters of user {user_id!r} kept changing under concurrent writers; "
        f"gave up after {MAX_CONFLICT_RETRIES} attempts"
    )
