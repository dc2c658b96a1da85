"""The job-queue contract: job and counter records, the :class:`JobQueue` interface every store's
queue implements, and the per-scope turn counters that enqueue jobs at every threshold
crossing (``THREAD_SUMMARY_EVERY_N``, ``FACT_EXTRACTION_EVERY_N``, ``USER_SUMMARY_EVERY_N``,
``DEDUP_EVERY_N``; 0 disables).

Records and the interface only: the worker that runs the jobs is :mod:`agent_memory.jobs`.
A store's queue is ``store.job_queue()``.
"""

from .base import JobQueue
from .counters import count_lengths, count_turns, crossings
from .models import Counter, CounterUpdate, Job, JobKind, JobSpec, JobState, Thresholds, job_key

__all__ = [
    "Counter", "CounterUpdate", "Job", "JobKind", "JobQueue", "JobSpec", "JobState", "Thresholds",
    "count_lengths", "count_turns", "crossings", "job_key",
]
