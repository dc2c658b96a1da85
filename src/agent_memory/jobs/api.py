"""The client surface of automatic processing (mixed into ``AsyncMemory``): the
``_after_turns`` hook called by ``add_turns`` and the memory keeper, ``jobs``, ``run_jobs``,
``start_worker`` and ``stop_worker``."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .. import validation as check
from ..jobqueue import Job, JobState, Thresholds, count_turns
from ..models import Turn
from .worker import JobOutcome, Worker, WorkerConfig

if TYPE_CHECKING:
    from ..config import Settings
    from ..pipeline import Components
    from ..stores.base import MemoryStore


class JobsAPI:
    """Mixin of :class:`~agent_memory.client.AsyncMemory`; see the module docstring."""

    settings: Settings
    store: MemoryStore

    if TYPE_CHECKING:
        @property
        def components(self) -> Components: ...

        async def connect(self) -> None: ...

    # -- automatic processing --------------------------------------------------------------

    async def _after_turns(self, turns: Sequence[Turn]) -> None:
        """Hook of ``add_turns``: advance the turn counters, enqueue crossed thresholds
        (unless a change-feed worker counts them: ``turn_counting="change_feed"``)."""
        thresholds = Thresholds.from_settings(self.settings)
        if thresholds.enabled and turns and self.settings.turn_counting == "writer":
            await count_turns(self.store, self.store.job_queue(), turns, thresholds)

    async def jobs(self, user_id: str | None = None,
                   states: Sequence[JobState | str] | None = None) -> list[Job]:
        """Stored jobs (optionally of one user, in some states), in queue order.

        Raises:
            InvalidScopeError: a bad ``user_id``. UnknownOptionError: an unknown state.
        """
        check.optional_scope(user_id, "user_id")
        wanted = sorted(check.options(JobState, states, "job state")) if states else None
        await self.connect()
        return await self.store.job_queue().jobs(user_id, wanted)

    async def run_jobs(self, *, max_jobs: int | None = None,
                       config: WorkerConfig | None = None) -> list[JobOutcome]:
        """Run queued jobs in this process until none is runnable (or ``max_jobs``).

        Raises:
            InvalidNumberError: ``max_jobs`` below 1.
        """
        if max_jobs is not None:
            check.count(max_jobs, "max_jobs", maximum=2**62)
        await self.connect()
        worker = Worker(self.components, self.store.job_queue(), config=config)
        return await worker.run(until_idle=True, max_jobs=max_jobs)

    async def start_worker(self, config: WorkerConfig | None = None) -> None:
        """Start a background worker task on the running event loop (in-process option);
        stop it with :meth:`stop_worker` before closing."""
        await self.connect()
        state: dict[str, Any] = self.__dict__.setdefault("_worker_state", {})
        if state.get("task") and not state["task"].done():
            return
        stop = asyncio.Event()
        worker = Worker(self.components, self.store.job_queue(), config=config)
        state.update(stop=stop, task=asyncio.create_task(worker.run(stop=stop)))

    async def stop_worker(self) -> list[JobOutcome]:
        """Stop the background worker after its current job; returns its outcomes."""
        state: dict[str, Any] = self.__dict__.get("_worker_state", {})
        task = state.pop("task", None)
        if task is None:
            return []
        state.pop("stop").set()
        return await task
