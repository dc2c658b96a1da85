"""The client surface of consistency (mixed into ``AsyncMemory``).

Reconciliation (``reconcile_memories``), the audit trail (``history``, ``restore``) and
forgetting (``forget_records``, ``forget_thread``, ``forget_user``, ``expire_turns``).
Automatic processing is :mod:`agent_memory.jobs.api`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from .. import validation as check
from ..errors import ConfigError, InvalidInputError
from ..models import Fact, require_scope
from . import audit, forget
from .audit import FactHistory
from .forget import ForgetReport
from .reconcile import ReconcileResult, reconcile_memories

if TYPE_CHECKING:
    from ..config import Settings
    from ..embedders.base import Embedder
    from ..jobqueue.base import JobQueue
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
            return self.store.job_queue()
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
