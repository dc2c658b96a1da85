"""Automatic processing: the worker that runs the jobs of the durable queue (the queue's records
and interface are :mod:`agent_memory.jobqueue`, re-exported here).

Flow: ``AsyncMemory.add_turns`` stores turns, then :func:`.counters.count_turns` advances the
counters and enqueues a job at every threshold crossing (``THREAD_SUMMARY_EVERY_N``,
``FACT_EXTRACTION_EVERY_N``, ``USER_SUMMARY_EVERY_N``, ``DEDUP_EVERY_N``; 0 disables). A
:class:`.worker.Worker` (``agent-memory worker``, or in-process) claims and runs them.
"""

from __future__ import annotations

from ..jobqueue import (
    Counter,
    CounterUpdate,
    Job,
    JobKind,
    JobQueue,
    JobSpec,
    JobState,
    Thresholds,
    count_lengths,
    count_turns,
    crossings,
    job_key,
)
from ..stores.base import MemoryStore
from .worker import JobOutcome, Worker, WorkerConfig, run_job, run_until_signalled


def queue_for(store: MemoryStore) -> JobQueue:
    """The job queue kept in ``store``: ``store.job_queue()``.

    Raises:
        ConfigError: the store backend has no job queue.
    """
    return store.job_queue()


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
