"""The records of automatic processing: jobs, per-scope turn counters and thresholds.

A *scope* is ``(user_id, thread_id)`` for per-thread counting or ``(user_id, None)`` for the
user as a whole (seed 000, "Automatic Processing"). A counter holds how many turns of its scope
have been counted (``seen``) and a ``version`` that every write bumps: writers read it, compute,
and write back only if the version is unchanged (optimistic concurrency, the role ETags play on
Cosmos DB).

A job is one run of a pipeline step over one scope. Its ``key`` is deterministic
(``{kind}:{user_id}:{thread_id}:{ordinal}``, ordinal = which multiple of the threshold was
crossed), so enqueueing the same crossing twice stores one job.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from ..config import Settings


class JobKind(StrEnum):
    """The pipeline step a job runs. Thread-scoped: thread_summary, extract_facts."""

    THREAD_SUMMARY = "thread_summary"
    EXTRACT_FACTS = "extract_facts"
    USER_SUMMARY = "user_summary"
    RECONCILE = "reconcile"

    @property
    def thread_scoped(self) -> bool:
        """True for kinds counted per ``(user_id, thread_id)``; False for per-user kinds."""
        return self in (JobKind.THREAD_SUMMARY, JobKind.EXTRACT_FACTS)


class JobState(StrEnum):
    """Where a job stands. ``queued`` -> ``running`` (leased) -> ``done`` or, after the last
    attempt, ``failed``; a failed attempt with attempts left goes back to ``queued``."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


def job_key(kind: JobKind, user_id: str, thread_id: str | None, ordinal: int) -> str:
    """The deterministic key of the ``ordinal``-th threshold crossing of ``kind`` in a scope."""
    return f"{kind.value}:{user_id}:{thread_id or ''}:{ordinal}"


class JobSpec(BaseModel):
    """A job to enqueue.

    Attributes:
        key: deterministic identity (see :func:`job_key`); a second enqueue is ignored.
        kind: the step to run.
        user_id / thread_id: its scope (``thread_id`` is ``None`` for per-user kinds).
        upto: the scope's turn counter value at the crossing (informative).
    """

    model_config = ConfigDict(frozen=True)

    key: str
    kind: JobKind
    user_id: str
    thread_id: str | None = None
    upto: int = 0


class Job(JobSpec):
    """A stored job.

    Attributes:
        seq: position in the queue (enqueue order; per-user FIFO follows it).
        state: see :class:`JobState`.
        attempts: how many times it was claimed (a claim after a crash counts).
        available_at: not claimable before this time (retry backoff).
        lease_owner / lease_expires_at: the worker holding it and until when; an expired lease
            makes a ``running`` job claimable again.
        last_error: the error of the last failed attempt.
    """

    seq: int
    state: JobState
    attempts: int = 0
    available_at: datetime
    lease_owner: str | None = None
    lease_expires_at: datetime | None = None
    last_error: str | None = None
    created_at: datetime
    finished_at: datetime | None = None


class Counter(BaseModel):
    """A per-scope turn counter.

    Attributes:
        user_id / thread_id: the scope (``thread_id`` ``None`` = the whole user).
        seen: turns counted so far.
        version: bumped by every write; 0 means the counter does not exist yet.
    """

    model_config = ConfigDict(frozen=True)

    user_id: str
    thread_id: str | None = None
    seen: int = 0
    version: int = 0


class CounterUpdate(BaseModel):
    """A conditional counter write: set ``seen`` if the stored version is ``expected_version``."""

    model_config = ConfigDict(frozen=True)

    user_id: str
    thread_id: str | None = None
    expected_version: int = Field(ge=0)
    seen: int = Field(ge=0)


class Thresholds(BaseModel):
    """Every how many new turns each step runs (0 disables it).

    Attributes:
        thread_summary / extract_facts: per ``(user_id, thread_id)``.
        user_summary / reconcile: per ``user_id`` across threads.
    """

    model_config = ConfigDict(frozen=True)

    thread_summary: int = Field(default=0, ge=0)
    extract_facts: int = Field(default=0, ge=0)
    user_summary: int = Field(default=0, ge=0)
    reconcile: int = Field(default=0, ge=0)

    @classmethod
    def from_settings(cls, settings: Settings) -> Thresholds:
        """THREAD_SUMMARY_EVERY_N, FACT_EXTRACTION_EVERY_N, USER_SUMMARY_EVERY_N,
        DEDUP_EVERY_N."""
        return cls(
            thread_summary=settings.thread_summary_every_n,
            extract_facts=settings.fact_extraction_every_n,
            user_summary=settings.user_summary_every_n,
            reconcile=settings.dedup_every_n,
        )

    def every(self, kind: JobKind) -> int:
        """The threshold of ``kind`` (0: disabled)."""
        return int(getattr(self, kind.value))

    @property
    def enabled(self) -> bool:
        """Whether any threshold is set."""
        return any(self.every(kind) for kind in JobKind)
