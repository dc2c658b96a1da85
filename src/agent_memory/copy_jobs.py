"""Copying a user's automatic-processing state between job queues (part of
:mod:`agent_memory.copy`): turn counters, step watermarks and unfinished jobs.

Why they are copied: a thread's counter is the number of its turns already counted against the
every-N thresholds. A destination without it would count the copied history again on the next
turn and enqueue up to :data:`~agent_memory.jobqueue.counters.MAX_CROSSINGS` jobs per step; without
the watermarks every step would start over from the thread's first turn. Unfinished jobs
(``queued``, ``running``) are enqueued again under their deterministic keys, so a crossing the
source had not processed yet is processed in the destination. Finished jobs are history and stay
behind.

Every write only moves state forward, so copying twice is a no-op: a counter is raised to the
source's ``seen`` with a conditional write on its version (re-read and retried when a
concurrent writer moved it), a watermark is raised with ``set_mark`` (which never lowers one),
and a job whose key the destination holds is skipped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import ConfigError, StoreError
from .jobqueue.base import JobQueue
from .jobqueue.models import CounterUpdate, JobKind, JobSpec, JobState
from .stores.base import Capability, MemoryStore

if TYPE_CHECKING:
    from .copy import CopyReport

MAX_CONFLICT_RETRIES = 20
"""Re-reads of the destination's counters after a version conflict before giving up."""


@dataclass
class JobStateCopier:
    """Copies job-queue state from one store's queue to another's.

    Attributes:
        source / target: the two queues, or ``None`` when a store has none.
        unavailable: why nothing is copied (``None`` when both queues exist).
    """

    source: JobQueue | None
    target: JobQueue | None
    unavailable: str | None = None

    @classmethod
    def between(cls, src: MemoryStore, dst: MemoryStore) -> JobStateCopier:
        """The copier for two opened stores; a store without a job queue disables it (with
        the reason in :attr:`unavailable`)."""
        from .jobs import queue_for

        queues: list[JobQueue] = []
        for store, role in ((src, "source"), (dst, "destination")):
            if Capability.JOB_QUEUE not in store.capabilities:
                return cls(None, None, f"the {role} ({type(store).__name__}) has no job queue")
            try:
                queues.append(queue_for(store))
            except ConfigError as exc:
                return cls(None, None, f"the {role}: {exc}")
        return cls(queues[0], queues[1])

    async def copy_user(self, user_id: str, threads: Sequence[str], report: CopyReport) -> None:
        """Raise the destination's counters and marks of the user's scopes (each thread and
        the user) to the source's and enqueue the source's unfinished jobs; adds what changed
        to ``report`` (``counters``, ``marks``, ``jobs``).

        Raises:
            StoreError: the destination's counters kept changing under concurrent writers.
        """
        if self.source is None or self.target is None:
            return
        scopes: list[str | None] = [*threads, None]
        open_jobs = await self.source.jobs(user_id, [JobState.QUEUED, JobState.RUNNING])
        specs = [JobSpec(key=j.key, kind=j.kind, user_id=j.user_id, thread_id=j.thread_id,
                         upto=j.upto) for j in open_jobs]
        have = await self.source.counters(user_id, scopes)
        for attempt in range(MAX_CONFLICT_RETRIES):
            held = await self.target.counters(user_id, scopes)
            updates = [CounterUpdate(user_id=user_id, thread_id=s.thread_id,
                                     expected_version=h.version, seen=s.seen)
                       for s, h in zip(have, held, strict=True) if s.seen > h.seen]
            if not updates:
                break
            if await self.target.advance(updates, []):
                report.counters += len(updates)
                break
            await asyncio.sleep(0.005 * (attempt + 1))
        else:
            raise StoreError(f"the destination's turn counters of user {user_id!r} kept "
                             f"changing; gave up after {MAX_CONFLICT_RETRIES} attempts")
        report.jobs += await self.target.enqueue(specs) if specs else 0
        for scope in scopes:
            for kind in JobKind:
                mark = await self.source.get_mark(user_id, scope, kind.value)
                if mark > await self.target.get_mark(user_id, scope, kind.value):
                    await self.target.set_mark(user_id, scope, kind.value, mark)
                    report.marks += 1
