"""The job-queue contract: counters with optimistic concurrency and a leased, durable queue.

A backend keeps the queue next to the memories (SQLite: tables in the same file,
:mod:`agent_memory.stores.sqlite.jobs`). Everything else (threshold arithmetic, retries, the
worker loop) lives above this seam: :mod:`.counters` and the worker, :mod:`agent_memory.jobs.worker`.

Claim order: jobs of one user run one at a time, in enqueue order (per-user FIFO), so two
workers never run steps on the same user's records at once and a re-run after a crash happens
before anything later. Different users run in parallel.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import datetime

from .models import Counter, CounterUpdate, Job, JobSpec, JobState


class JobQueue(ABC):
    """Durable per-scope counters, a job queue with leases, and per-step watermarks."""

    @abstractmethod
    async def counters(self, user_id: str, thread_ids: Sequence[str | None]) -> list[Counter]:
        """The counters of these scopes of one user (``None`` = the user scope); a missing
        counter is returned with ``seen=0, version=0``, in the order asked."""

    @abstractmethod
    async def advance(self, updates: Sequence[CounterUpdate], jobs: Sequence[JobSpec]) -> bool:
        """Atomically apply every counter update and enqueue ``jobs``, or do nothing.

        Each update applies only if the stored version equals ``expected_version`` (0: the
        counter must not exist yet); the write sets ``version = expected_version + 1``. Jobs
        whose key is already stored are skipped.

        Returns:
            True when applied; False on a version conflict (nothing written; re-read, retry).
        """

    @abstractmethod
    async def enqueue(self, jobs: Sequence[JobSpec]) -> int:
        """Enqueue jobs (keys already stored are skipped); returns how many were added."""

    @abstractmethod
    async def claim(self, worker_id: str, lease_seconds: float, now: datetime | None = None
                    ) -> Job | None:
        """Lease the next runnable job to ``worker_id``, or return ``None``.

        Runnable: the oldest unfinished job of its user, either ``queued`` with
        ``available_at <= now`` or ``running`` with an expired lease (its worker died).
        The claim sets ``running``, the lease and ``attempts + 1`` in one transaction.
        """

    @abstractmethod
    async def renew(self, job: Job, worker_id: str, lease_seconds: float) -> bool:
        """Extend the lease; False when ``worker_id`` no longer holds it."""

    @abstractmethod
    async def complete(self, job: Job, worker_id: str) -> bool:
        """Mark the job ``done``; False when ``worker_id`` no longer holds the lease."""

    @abstractmethod
    async def fail(self, job: Job, worker_id: str, error: str, retry_at: datetime | None) -> bool:
        """Record a failed attempt: back to ``queued`` until ``retry_at``, or ``failed`` for
        good when ``retry_at`` is ``None``. False when the lease was lost."""

    @abstractmethod
    async def release(self, job: Job, worker_id: str) -> bool:
        """Give a claimed job back unfinished (its worker is stopping): ``queued`` again,
        runnable at once, lease cleared and the claim not counted in ``attempts`` (it is not
        a failure). False when ``worker_id`` no longer holds the lease."""

    @abstractmethod
    async def jobs(self, user_id: str | None = None, states: Sequence[JobState] | None = None
                   ) -> list[Job]:
        """Stored jobs (optionally of one user / in these states), in queue order."""

    @abstractmethod
    async def get_mark(self, user_id: str, thread_id: str | None, step: str) -> int:
        """A step's watermark in a scope (the last turn ``seq`` it consumed; -1 when none)."""

    @abstractmethod
    async def set_mark(self, user_id: str, thread_id: str | None, step: str, mark: int) -> None:
        """Raise a step's watermark to ``mark`` (never lowers it)."""

    @abstractmethod
    async def purge(self, user_id: str, thread_id: str | None = None) -> dict[str, int]:
        """Delete the user's (or one thread's) jobs, counters and marks.

        Returns:
            Counts removed per kind: ``{"jobs": n, "counters": n, "marks": n}``.
        """
