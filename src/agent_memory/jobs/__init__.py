"""Automatic processing: per-scope turn counters, a durable job queue and the worker.

Flow: ``AsyncMemory.add_turns`` stores turns, then :func:`.counters.count_turns` advances the
counters and enqueues a job at every threshold crossing (``THREAD_SUMMARY_EVERY_N``,
``FACT_EXTRACTION_EVERY_N``, ``USER_SUMMARY_EVERY_N``, ``DEDUP_EVERY_N``; 0 disables). A
:class:`.worker.Worker` (``agent-memory worker``, or in-process) claims and runs them.
"""

from __future__ import annotations

from ..errors import ConfigError
from ..stores.base import Capability, MemoryStore
from .counters import count_lengths, count_turns, crossings
from .models import Counter, CounterUpdate, Job, JobKind, JobSpec, JobState, Thresholds, job_key
from .queue import JobQueue
from .worker import JobOutcome, Worker, WorkerConfig, run_job, run_until_signalled


def queue_for(store: MemoryStore) -> JobQueue:
    """The job queue kept in ``store`` (SQLite: tables in the same file; a store declaring
    :attr:`Capability.JOB_QUEUE` with a ``job_queue()`` method, such as Cosmos DB: that).

    Raises:
        ConfigError: the store backend has no job queue.
    """
    from ..stores.sqlite import SQLiteStore

    if isinstance(store, SQLiteStore):
        from ..stores.sqlite.jobs import SQLiteJobQueue

        return SQLiteJobQueue(store)
    job_queue = getattr(store, "job_queue", None)
    if Capability.JOB_QUEUE in store.capabilities and callable(job_queue):
        return job_queue()
    raise ConfigError(f"{type(store).__name__} has no job queue; automatic processing needs one")


__all__ = [
    "Counter",
    "CounterUpdate",
    "Job",
    "JobKind",
    "JobOutcome",
    "JobQueue",
    "JobSpec",
    "JobState",
    "Thresholds",
    "Worker",
    "WorkerConfig",
    "count_lengths",
    "count_turns",
    "crossings",
    "job_key",
    "queue_for",
    "run_job",
    "run_until_signalled",
]
