"""Forgetting: hard-delete records by id, a thread, a whole user, or raw turns past a
time-to-live.

Unlike reconciliation (a soft delete kept for audit), these remove records for good: the
records themselves with their vectors and full-text entries (:meth:`MemoryStore.purge`), and,
for a thread or a user, the automatic-processing state kept for them (queued jobs, turn
counters, step watermarks). Each call returns what it removed, per kind.

Scope of each call:

- records by id: exactly those records of the user (ids of other users' records, or unknown
  ids, delete nothing and are reported as missing). Derived records keep citing a deleted
  turn's id as provenance; jobs and counters are left to run (they skip what is gone).
- a thread: every record with that ``thread_id`` (turns, interactions, the thread summary, the
  facts extracted from it) and the thread's jobs, counter and watermarks. The user profile spans
  every thread and is kept (run ``generate_user_summary`` again to rebuild it if needed).
- a user: every record of the user, every job, counter and watermark.
- a time-to-live: turns created before the cut-off (derived records keep citing their ids as
  provenance; the text is gone).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel, Field

from ..errors import InvalidInputError
from ..jobqueue.base import JobQueue
from ..models import RecordKind, as_utc, require_scope, utcnow
from ..stores.base import MemoryStore


class ForgetReport(BaseModel):
    """What a forget call removed.

    Attributes:
        records: records removed per kind (``{"turn": 40, "fact": 3, ...}``).
        missing: ids asked for that the user has no record with (records by id only).
        jobs / counters / marks: automatic-processing entries removed.
    """

    records: dict[str, int] = Field(default_factory=dict)
    missing: list[str] = Field(default_factory=list)
    jobs: int = 0
    counters: int = 0
    marks: int = 0

    @property
    def total(self) -> int:
        """Records removed, all kinds together."""
        return sum(self.records.values())


async def forget_records(store: MemoryStore, user_id: str, ids: Sequence[str]) -> ForgetReport:
    """Delete the user's records with these ids (any kind) and their vectors and index entries.

    Raises:
        MissingScopeError: blank user_id.
    """
    user_id = require_scope(user_id)
    wanted = list(dict.fromkeys(ids))
    found = await store.get(user_id, wanted)
    removed: dict[str, int] = {}
    if found:
        await store.delete(user_id, [r.id for r in found])
        for record in found:
            removed[str(record.kind)] = removed.get(str(record.kind), 0) + 1
    present = {r.id for r in found}
    return ForgetReport(records=removed, missing=[i for i in wanted if i not in present])


async def forget_thread(store: MemoryStore, queue: JobQueue | None, user_id: str,
                        thread_id: str) -> ForgetReport:
    """Delete one thread's records and its processing state.

    Raises:
        MissingScopeError: blank user_id or thread_id.
    """
    user_id = require_scope(user_id)
    thread_id = require_scope(thread_id, "thread_id")
    report = ForgetReport(records=await store.purge(user_id, thread_id=thread_id))
    if queue is not None:
        report = report.model_copy(update=await queue.purge(user_id, thread_id))
    return report


async def forget_user(store: MemoryStore, queue: JobQueue | None, user_id: str) -> ForgetReport:
    """Delete everything of one user: records of every kind and all processing state.

    Raises:
        MissingScopeError: blank user_id.
    """
    user_id = require_scope(user_id)
    report = ForgetReport(records=await store.purge(user_id))
    if queue is not None:
        report = report.model_copy(update=await queue.purge(user_id))
    return report


async def expire_turns(store: MemoryStore, user_id: str, *,
                       older_than: timedelta | float | None = None,
                       before: datetime | None = None) -> ForgetReport:
    """Delete the user's raw turns created before a cut-off (a time-to-live for turns).

    Args:
        older_than: the time-to-live, as a ``timedelta`` or seconds; the cut-off is now minus it.
        before: an explicit cut-off instead (exclusive).

    Raises:
        MissingScopeError: blank user_id.
        InvalidInputError: neither or both of ``older_than`` / ``before``, or a negative TTL.
    """
    user_id = require_scope(user_id)
    if (older_than is None) == (before is None):
        raise InvalidInputError("give exactly one of older_than (a TTL) or before (a cut-off)")
    if older_than is not None:
        ttl = older_than if isinstance(older_than, timedelta) else timedelta(seconds=older_than)
        if ttl < timedelta(0):
            raise InvalidInputError(f"the time-to-live must not be negative, got {ttl}")
        before = utcnow() - ttl
    assert before is not None
    removed = await store.purge(user_id, kinds=frozenset({RecordKind.TURN}),
                                before=as_utc(before))
    return ForgetReport(records=removed)
