"""The client surface of consistency and automatic processing (mixed into ``AsyncMemory``).

Reconciliation (``reconcile_memories``), the audit trail (``history``, ``restore``),
forgetting (``forget_records``, ``forget_thread``, ``forget_user``, ``expire_turns``) and automatic processing
(the ``_after_turns`` hook called by ``add_turns``, ``run_jobs``, ``start_worker``,
``stop_worker``, ``jobs``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from .. import validation as check
from ..errors import ConfigError, InvalidInputError
from ..jobs import (
    Job,
    JobOutcome,
    JobQueue,
    JobState,
    Thresholds,
    Worker,
    WorkerConfig,
    count_turns,
    queue_for,
)
from ..models import Fact, Turn, require_scope
from . import audit, forget
from .audit import FactHistory
from .forget import ForgetReport
from .reconcile import ReconcileResult, reconcile_memories

if TYPE_CHECKING:
    from ..config import Settings
    from ..embedders.base import Embedder
    from ..pipeline import Components
    from ..reasoners.base import Reasoner
    from ..stores.base import MemoryStore


class ConsistencyAPI:
    """Mixin of :class:`~agent_memory.client.AsyncMemory`; see the module docstring."""

    settings: Settings
    store: MemoryStore
    embedder: Embedder
    reasoner: Reasoner

    if TYPE_CHECKING:
        @property
        def components(self) -> Components: ...

        async def connect(self) -> None: ...

    # -- reconciliation and audit ----------------------------------------------------------

    async def reconcile_memories(self, user_id: str, n: int = 50) -> ReconcileResult:
        """Merge duplicates and retire contradicted facts among the ``n`` most recent active
        facts; ``result.model_dump()`` is ``{"kept", "merged", "contradicted"}``. See
        :mod:`agent_memory.consistency.reconcile`.

        Raises:
            MissingScopeError / InvalidScopeError: a bad ``user_id``.
            InvalidNumberError: ``n`` is not from 1 to ``MAX_K`` (1,000).
        """
        require_scope(user_id)
        check.count(n, "n")
        await self.connect()
        return await reconcile_memories(self.components, user_id, n)

    async def history(self, user_id: str, fact_id: str) -> FactHistory:
        """What a fact replaced, what replaced it, and its audit events (one call).

        Raises:
            RecordNotFoundError: no such fact for the user.
            InvalidInputError: a bad ``user_id`` or ``fact_id``.
        """
        require_scope(user_id)
        check.record_id(fact_id, "fact_id")
        await self.connect()
        return await audit.history(self.store, user_id, fact_id)

    async def restore(self, user_id: str, fact_id: str) -> Fact:
        """Undo the decision that retired a fact (recorded in the audit trail; the fact is
        pinned against later reconciliation).

        Raises:
            RecordNotFoundError: no such fact. InvalidInputError: the fact is active, or a bad
                ``user_id`` / ``fact_id``.
        """
        require_scope(user_id)
        check.record_id(fact_id, "fact_id")
        await self.connect()
        return await audit.restore(self.store, user_id, fact_id)

    # -- forgetting ------------------------------------------------------------------------

    def _queue_or_none(self) -> JobQueue | None:
        try:
            return queue_for(self.store)
        except ConfigError:  # a backend without a queue has no jobs to purge
            return None

    async def forget_records(self, user_id: str, ids: Sequence[str]) -> ForgetReport:
        """Hard-delete the user's records with these ids (any kind); ids the user has no
        record with are listed in ``report.missing`` and delete nothing.

        Raises:
            MissingScopeError / InvalidScopeError: a bad ``user_id``.
            InvalidInputError: a blank or malformed id, or none at all.
            InvalidNumberError: more than ``MAX_K`` (1,000) ids.
        """
        require_scope(user_id)
        if isinstance(ids, str) or not ids:
            raise InvalidInputError("give a non-empty list of record ids to forget")
        check.count(len(ids), "number of ids")
        wanted = [check.record_id(i, "record id") for i in ids]
        await self.connect()
        return await forget.forget_records(self.store, user_id, wanted)

    async def forget_thread(self, user_id: str, thread_id: str) -> ForgetReport:
        """Hard-delete a thread's records, jobs, counters and watermarks; returns counts.

        Raises:
            MissingScopeError / InvalidScopeError: a bad ``user_id`` or ``thread_id``.
        """
        require_scope(user_id)
        require_scope(thread_id, "thread_id")
        await self.connect()
        return await forget.forget_thread(self.store, self._queue_or_none(), user_id, thread_id)

    async def forget_user(self, user_id: str) -> ForgetReport:
        """Hard-delete everything of a user (all records, jobs, counters, watermarks).

        Raises:
            MissingScopeError / InvalidScopeError: a bad ``user_id``.
        """
        require_scope(user_id)
        await self.connect()
        return await forget.forget_user(self.store, self._queue_or_none(), user_id)

    async def expire_turns(self, user_id: str, *, older_than: timedelta | float | None = None,
                           before: datetime | None = None) -> ForgetReport:
        """Hard-delete the user's raw turns older than a time-to-live (or a cut-off).

        Args:
            older_than: the time-to-live, a ``timedelta`` or seconds (finite, >= 0).
            before: an explicit cut-off instead (exclusive).

        Raises:
            MissingScopeError / InvalidScopeError: a bad ``user_id``.
            InvalidNumberError: a NaN, infinite or negative ``older_than``.
            InvalidTimeError: a cut-off out of range (before year 1, or overflowing in UTC).
            InvalidInputError: neither or both of ``older_than`` / ``before``.
        """
        require_scope(user_id)
        if older_than is not None:
            older_than = check.age(older_than, "older_than")
        before = check.optional_moment(before, "before")
        await self.connect()
        return await forget.expire_turns(self.store, user_id, older_than=older_than,
                                         before=before)

    # -- automatic processing --------------------------------------------------------------

    async def _after_turns(self, turns: Sequence[Turn]) -> None:
        """Hook of ``add_turns``: advance the turn counters, enqueue crossed thresholds
        (unless a change-feed worker counts them: ``turn_counting="change_feed"``)."""
        thresholds = Thresholds.from_settings(self.settings)
        if thresholds.enabled and turns and self.settings.turn_counting == "writer":
            await count_turns(self.store, queue_for(self.store), turns, thresholds)

    async def jobs(self, user_id: str | None = None,
                   states: Sequence[JobState | str] | None = None) -> list[Job]:
        """Stored jobs (optionally of one user, in some states), in queue order.

        Raises:
            InvalidScopeError: a bad ``user_id``. UnknownOptionError: an unknown state.
        """
        check.optional_scope(user_id, "user_id")
        wanted = sorted(check.options(JobState, states, "job state")) if states else None
        await self.connect()
        return await queue_for(self.store).jobs(user_id, wanted)

    async def run_jobs(self, *, max_jobs: int | None = None,
                       config: WorkerConfig | None = None) -> list[JobOutcome]:
        """Run queued jobs in this process until none is runnable (or ``max_jobs``).

        Raises:
            InvalidNumberError: ``max_jobs`` below 1.
        """
        if max_jobs is not None:
            check.count(max_jobs, "max_jobs", maximum=2**62)
        await self.connect()
        worker = Worker(self.components, queue_for(self.store), config=config)
        return await worker.run(until_idle=True, max_jobs=max_jobs)

    async def start_worker(self, config: WorkerConfig | None = None) -> None:
        """Start a background worker task on the running event loop (in-process option);
        stop it with :meth:`stop_worker` before closing."""
        await self.connect()
        state: dict[str, Any] = self.__dict__.setdefault("_worker_state", {})
        if state.get("task") and not state["task"].done():
            return
        stop = asyncio.Event()
        worker = Worker(self.components, queue_for(self.store), config=config)
        state.update(stop=stop, task=asyncio.create_task(worker.run(stop=stop)))

    async def stop_worker(self) -> list[JobOutcome]:
        """Stop the background worker after its current job; returns its outcomes."""
        state: dict[str, Any] = self.__dict__.get("_worker_state", {})
        task = state.pop("task", None)
        if task is None:
            return []
        state.pop("stop").set()
        return await task
