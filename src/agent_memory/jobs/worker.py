"""The worker: claims jobs with a lease, runs their pipeline step, retries with backoff.

Each job runs an idempotent step (:func:`run_job`):

==================  ===========================================================================
thread_summary      ``generate_thread_summary``: folds the turns after the summary's watermark
extract_facts       ``extract_facts`` over the turns after the ``extract_facts`` watermark of the
                    thread, up to the newest turn seen when the job started; then the watermark
                    moves there. A crash before it moves re-extracts the same turns, and the
                    exact dedup (content_hash) skips what was already written.
user_summary        ``generate_user_summary``: merges what changed after the profile's watermark
reconcile           ``reconcile_memories``: completes a half-applied earlier run, then decides
==================  ===========================================================================

So a job that is re-run after its worker died (lease expired) does no work twice, and since a
user's jobs run one at a time in enqueue order (:class:`~.queue.JobQueue`), the records derived
after a crash equal those of an uninterrupted run.

While a step runs, its lease is renewed every third of ``lease_seconds``. A failed attempt goes
back to the queue after ``backoff_seconds * 2 ** (attempts - 1)`` seconds (capped at
``max_backoff_seconds``; exponential backoff), and after ``max_attempts`` claims the job is
marked ``failed`` for good (a job whose worker keeps dying included).

Stopping: :meth:`Worker.interrupt` (what SIGINT / SIGTERM call under
:func:`run_until_signalled`, e.g. ``agent-memory worker``) cancels the job in progress and
releases its lease (:meth:`~.queue.JobQueue.release`: back to ``queued`` at once, the claim not
counted as an attempt), then :meth:`Worker.run` returns. The step is idempotent, so the next
worker redoes whatever part of it had been written.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import uuid
from collections.abc import Callable
from datetime import timedelta

from pydantic import BaseModel, ConfigDict, Field

from ..jobqueue.base import JobQueue
from ..jobqueue.models import Job, JobKind
from ..models import utcnow
from ..pipeline import Components, extract_facts, generate_thread_summary, generate_user_summary


class WorkerConfig(BaseModel):
    """How a worker leases, retries and polls.

    Attributes:
        lease_seconds: how long a claim is held without renewal (seconds).
        max_attempts: claims of one job before it is marked failed.
        backoff_seconds / max_backoff_seconds: first retry delay and its cap (seconds).
        poll_seconds: sleep when the queue has nothing runnable (seconds).
        reconcile_pool: ``n`` of the reconcile job (most recent active facts considered).
    """

    model_config = ConfigDict(frozen=True)

    lease_seconds: float = Field(default=60.0, gt=0)
    max_attempts: int = Field(default=5, ge=1)
    backoff_seconds: float = Field(default=1.0, ge=0)
    max_backoff_seconds: float = Field(default=300.0, ge=0)
    poll_seconds: float = Field(default=1.0, gt=0)
    reconcile_pool: int = Field(default=50, gt=0)


class JobOutcome(BaseModel):
    """What one claimed job came to.

    Attributes:
        key / kind: the job.
        state: ``done``, ``retry`` (back in the queue), ``failed`` (for good), ``lost`` (the
            lease passed to another worker before the result was recorded) or ``released``
            (the worker was interrupted; the job is queued again, the attempt not counted).
        attempts: claims so far.
        written: ids of records the step created or updated.
        error: the error of a failed attempt.
    """

    key: str
    kind: JobKind
    state: str
    attempts: int
    written: list[str] = Field(default_factory=list)
    error: str | None = None


def default_worker_id() -> str:
    """``host:pid:random``, unique per worker object."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


async def run_job(c: Components, queue: JobQueue, job: Job, *, reconcile_pool: int = 50
                  ) -> list[str]:
    """Run the step of ``job``; returns the ids written. Idempotent (see the module docstring).

    Raises:
        AgentMemoryError: the step failed (the worker retries it).
    """
    if job.kind is JobKind.THREAD_SUMMARY:
        assert job.thread_id is not None
        return (await generate_thread_summary(c, job.user_id, job.thread_id)).written
    if job.kind is JobKind.EXTRACT_FACTS:
        assert job.thread_id is not None
        mark = await queue.get_mark(job.user_id, job.thread_id, job.kind.value)
        upto = await c.store.next_seq(job.user_id, job.thread_id) - 1  # the newest turn's seq
        if upto <= mark:
            return []
        result = await extract_facts(c, job.user_id, job.thread_id, after_seq=mark,
                                     upto_seq=upto)
        await queue.set_mark(job.user_id, job.thread_id, job.kind.value, upto)
        return result.written
    if job.kind is JobKind.USER_SUMMARY:
        return (await generate_user_summary(c, job.user_id)).written
    from ..consistency.reconcile import reconcile_memories

    outcome = await reconcile_memories(c, job.user_id, n=reconcile_pool)
    return outcome.written


class Worker:
    """Runs queued jobs against one set of components.

    Args:
        components: store, embedder, reasoner and settings of the steps.
        queue: the job queue (on the same store).
        worker_id: lease owner name (default :func:`default_worker_id`).
        config: leases, retries, polling.

    Example::

        worker = Worker(memory.components, queue_for(memory.store))
        await worker.run(until_idle=True)
    """

    def __init__(self, components: Components, queue: JobQueue, *,
                 worker_id: str | None = None, config: WorkerConfig | None = None) -> None:
        self.components = components
        self.queue = queue
        self.worker_id = worker_id or default_worker_id()
        self.config = config or WorkerConfig()
        self._interrupted = asyncio.Event()
        self._running: asyncio.Task[list[str]] | None = None

    def interrupt(self) -> None:
        """Stop soon: cancel the job in progress (its lease is released, see the module
        docstring) and make :meth:`run` return. Safe to call from a signal handler on the
        worker's event loop, and more than once."""
        self._interrupted.set()
        if self._running is not None:
            self._running.cancel()

    @property
    def interrupted(self) -> bool:
        """Whether :meth:`interrupt` was called."""
        return self._interrupted.is_set()

    async def run_once(self) -> JobOutcome | None:
        """Claim one runnable job and run it; ``None`` when nothing is runnable now."""
        cfg = self.config
        job = await self.queue.claim(self.worker_id, cfg.lease_seconds)
        if job is None:
            return None
        outcome = JobOutcome(key=job.key, kind=job.kind, state="done", attempts=job.attempts)
        if job.attempts > cfg.max_attempts:
            error = f"gave up after {cfg.max_attempts} attempts (last: {job.last_error})"
            await self.queue.fail(job, self.worker_id, error, None)
            return outcome.model_copy(update={"state": "failed", "error": error})
        renewer = asyncio.create_task(self._renew(job))
        self._running = asyncio.create_task(run_job(self.components, self.queue, job,
                                                    reconcile_pool=cfg.reconcile_pool))
        if self.interrupted:
            self._running.cancel()
        try:
            written = await self._running
        except asyncio.CancelledError:
            # Interrupted (or this task cancelled): give the job back before stopping.
            self._running.cancel()
            released = await asyncio.shield(self.queue.release(job, self.worker_id))
            if not self.interrupted:
                raise
            return outcome.model_copy(update={"state": "released" if released else "lost"})
        except Exception as exc:  # noqa: BLE001 - any step failure is retried; its message kept
            error = f"{type(exc).__name__}: {exc}"
            retry_at = None
            if job.attempts < cfg.max_attempts:
                delay = min(cfg.max_backoff_seconds, cfg.backoff_seconds * 2 ** (job.attempts - 1))
                retry_at = utcnow() + timedelta(seconds=delay)
            kept = await self.queue.fail(job, self.worker_id, error, retry_at)
            state = ("retry" if retry_at else "failed") if kept else "lost"
            return outcome.model_copy(update={"state": state, "error": error})
        finally:
            self._running = None
            renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewer
        kept = await self.queue.complete(job, self.worker_id)
        return outcome.model_copy(update={"written": written,
                                          "state": "done" if kept else "lost"})

    async def _renew(self, job: Job) -> None:
        every = self.config.lease_seconds / 3
        while True:
            await asyncio.sleep(every)
            if not await self.queue.renew(job, self.worker_id, self.config.lease_seconds):
                return

    async def run(self, *, until_idle: bool = False, max_jobs: int | None = None,
                  stop: asyncio.Event | None = None) -> list[JobOutcome]:
        """Process jobs until stopped.

        Args:
            until_idle: return as soon as no job is runnable now (jobs waiting out a retry
                backoff are not waited for).
            max_jobs: return after this many claimed jobs.
            stop: return when this event is set (checked between jobs and while polling).

        Returns:
            The outcomes, in order.
        """
        outcomes: list[JobOutcome] = []
        events = [e for e in (stop, self._interrupted) if e is not None]
        while (max_jobs is None or len(outcomes) < max_jobs) and not any(
                e.is_set() for e in events):
            outcome = await self.run_once()
            if outcome is not None:
                outcomes.append(outcome)
                continue
            if until_idle:
                break
            waiters = [asyncio.ensure_future(e.wait()) for e in events]
            try:
                await asyncio.wait(waiters, timeout=self.config.poll_seconds,
                                   return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiter in waiters:
                    waiter.cancel()
        return outcomes


async def run_until_signalled(worker: Worker, *, until_idle: bool = False,
                              max_jobs: int | None = None,
                              started: Callable[[], None] | None = None) -> list[JobOutcome]:
    """:meth:`Worker.run` with SIGINT and SIGTERM calling :meth:`Worker.interrupt`: the job in
    progress is released (queued again, the attempt not counted) and the outcomes so far are
    returned, so the process can exit normally (status 0).

    Where the event loop cannot take signal handlers (Windows, a thread other than the main
    one), the worker runs without them. ``started`` is called once the handlers are in place.
    """
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, worker.interrupt)
        except (NotImplementedError, RuntimeError, ValueError):
            continue
        installed.append(sig)
    if started is not None:
        started()
    try:
        return await worker.run(until_idle=until_idle, max_jobs=max_jobs)
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
