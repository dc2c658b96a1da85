"""Counting new turns per scope and enqueueing a job at every threshold crossing.

After turns are stored, :func:`count_turns` advances, for each user in the batch, the counter of
every touched thread and the user's own counter, and enqueues one job per multiple of a
threshold crossed, all in one conditional write (:meth:`JobQueue.advance`). A concurrent
writer that moved a counter first makes the write fail; the counters are re-read and the plan
recomputed (optimistic concurrency with retries, as seed 000 does with ETags).

What a thread counter counts: the store numbers a thread's turns ``0, 1, 2, ...`` where each
write commits, so the number of turns a thread holds is its next ``seq``
(:meth:`MemoryStore.next_seq`, read *after* the batch committed). A thread's counter moves up
to that value (never down). Under concurrent writers this is exact whatever order they count
in: the last writer to count sees every committed turn, and one that counts late finds its
turns already counted. Re-adding a turn counts nothing, and a crash between the turn write and
the count is caught up by the next batch of the thread. The user counter moves by the sum of
its threads' moves.

One move that crosses more than :data:`MAX_CROSSINGS` multiples of a threshold (an explicit,
far-off ``seq``) enqueues only the last of them: every step is incremental (it reads what is
new since its own watermark), so one job covers the turns of several crossings.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..errors import StoreError
from ..models import Turn
from .base import JobQueue
from .models import CounterUpdate, JobKind, JobSpec, Thresholds, job_key

if TYPE_CHECKING:
    from ..stores.base import MemoryStore

MAX_CROSSINGS = 10
"""Most jobs of one kind one counter move enqueues (the last crossings, see the module doc)."""

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
    first = max(before // every + 1, after // every + 1 - MAX_CROSSINGS)
    return [
        JobSpec(key=job_key(kind, user_id, thread_id, n), kind=kind, user_id=user_id,
                thread_id=thread_id, upto=n * every)
        for n in range(first, after // every + 1)
    ]


async def count_turns(store: MemoryStore, queue: JobQueue, turns: Sequence[Turn],
                      thresholds: Thresholds) -> list[JobSpec]:
    """Advance the counters for stored ``turns`` and enqueue the jobs whose threshold they cross.

    Args:
        store: where the turns were committed (their threads' lengths are read from it).
        queue: the job queue with the counters.
        turns: the turns just stored.
        thresholds: every how many turns each step runs.

    Returns:
        The jobs planned (already-stored keys among them are skipped by the queue).

    Raises:
        StoreError: the counters kept conflicting (:data:`MAX_CONFLICT_RETRIES`) or the store
            failed.
    """
    if not thresholds.enabled:
        return []
    scopes: dict[str, set[str]] = {}
    for turn in turns:
        if turn.thread_id:
            scopes.setdefault(turn.user_id, set()).add(turn.thread_id)
    planned: list[JobSpec] = []
    for user_id, names in scopes.items():
        planned += await _count_user(store.next_seq, queue, user_id, sorted(names), thresholds)
    return planned


async def count_lengths(queue: JobQueue, lengths: Mapping[tuple[str, str], int],
                        thresholds: Thresholds) -> list[JobSpec]:
    """:func:`count_turns` from known thread lengths instead of the store's.

    A change-feed reader sees every turn document; one past the largest ``seq`` it saw in a
    thread is the length :meth:`MemoryStore.next_seq` would report once those turns are
    stored, so counting from it moves the same counters and enqueues the same jobs. Counters
    never move down, so a turn seen twice counts once.

    Args:
        queue: the job queue with the counters.
        lengths: ``(user_id, thread_id) -> number of turns the thread holds at least``.
        thresholds: every how many turns each step runs.

    Returns:
        The jobs planned.

    Raises:
        StoreError: the counters kept conflicting or the queue failed.
    """
    if not thresholds.enabled:
        return []
    by_user: dict[str, dict[str, int]] = {}
    for (user_id, thread_id), length in lengths.items():
        by_user.setdefault(user_id, {})[thread_id] = length

    planned: list[JobSpec] = []
    for user_id, threads in by_user.items():
        async def known(_: str, thread_id: str, threads: dict[str, int] = threads) -> int:
            return threads[thread_id]

        planned += await _count_user(known, queue, user_id, sorted(threads), thresholds)
    return planned


async def _count_user(length: Callable[[str, str], Awaitable[int]], queue: JobQueue,
                      user_id: str, names: list[str], thresholds: Thresholds) -> list[JobSpec]:
    for attempt in range(MAX_CONFLICT_RETRIES):
        *per_thread, user = await queue.counters(user_id, [*names, None])
        updates: list[CounterUpdate] = []
        jobs: list[JobSpec] = []
        moved = 0
        for counter in per_thread:
            after = max(counter.seen, await length(user_id, counter.thread_id or ""))
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
