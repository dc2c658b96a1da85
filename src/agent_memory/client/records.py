"""Reads of :class:`~agent_memory.AsyncMemory`: records by filter
(:class:`~agent_memory.filters.MemoryFilter`), one page at a time or all, thread summaries,
profiles and the user's threads (:class:`RecordsAPI`)."""

from __future__ import annotations

from typing import Unpack

from .. import validation as check
from ..filters import FilterArgs, MemoryFilter
from ..models import (
    MemoryRecord,
    RecordKind,
    ThreadSummary,
    UserProfile,
    profile_id,
    require_scope,
    subject_slug,
    summary_id,
)
from ..stores.base import RecordQuery
from ..stores.paging import Page
from .core import MemoryCore


def record_query(selected: MemoryFilter, *, newest_first: bool = False,
                 limit: int | None = None) -> RecordQuery:
    """The store query of a filter, in ``created_at`` order (``newest_first``: descending),
    at most ``limit`` records.

    Raises:
        InvalidNumberError: ``limit`` is not from 1 to ``MAX_K`` (1,000).
    """
    return RecordQuery(**selected.values(), newest_first=newest_first,
                       limit=check.optional_count(limit, "limit"))


class RecordsAPI(MemoryCore):
    """Part of :class:`~agent_memory.AsyncMemory`: reads by filter, summaries, profiles."""

    async def get_memories(
        self,
        user_id: str,
        *,
        filter: MemoryFilter | None = None,
        newest_first: bool = False,
        limit: int | None = None,
        **filters: Unpack[FilterArgs],
    ) -> list[MemoryRecord]:
        """The user's records matching the filters, ordered by ``created_at``.

        Args:
            user_id: whose records.
            filter: a :class:`~agent_memory.filters.MemoryFilter`; the keyword ``filters``
                (``kinds``, ``thread_id``, ``agent_id``, ``since``, ``until``,
                ``include_superseded``, ``as_of``: its fields) are the same, and override it.
                ``as_of`` reads the facts valid at that time (``valid_from <= as_of <
                valid_until``: facts a later contradiction retired are included for the time
                they held, duplicates merged away are represented by their merged fact); by
                default only current facts. Other kinds are not filtered by it.
            newest_first: descending ``created_at`` order.
            limit: at most this many records (default all).

        Raises:
            MissingScopeError / InvalidScopeError: bad scope ids.
            UnknownOptionError: an unknown kind. InvalidTimeError: a bad ``since``/``until``/
                ``as_of``.
            InvalidNumberError: ``limit`` is not from 1 to ``MAX_K`` (1,000).
            TypeError: a keyword that is not a filter.
        """
        user_id = require_scope(user_id)
        query = record_query(MemoryFilter.build(filter, filters), newest_first=newest_first,
                             limit=limit)
        await self.connect()
        return await self.store.list(user_id, query)

    async def get_memories_page(
        self,
        user_id: str,
        *,
        filter: MemoryFilter | None = None,
        newest_first: bool = False,
        limit: int = 100,
        cursor: str | None = None,
        **filters: Unpack[FilterArgs],
    ) -> Page:
        """One page of :meth:`get_memories` (``limit`` records after ``cursor``); pass
        ``page.cursor`` back for the next one (``None`` on the last page). Pages never shift
        when records are written meanwhile (keyset paging, :mod:`agent_memory.stores.paging`).

        Raises:
            The errors of :meth:`get_memories`; InvalidInputError: a malformed cursor.
        """
        user_id = require_scope(user_id)
        query = record_query(MemoryFilter.build(filter, filters), newest_first=newest_first,
                             limit=limit)
        if cursor is not None:
            check.text(cursor, "cursor")
        await self.connect()
        return await self.store.page(user_id, query, cursor)

    async def get_summary(self, user_id: str, thread_id: str) -> ThreadSummary | None:
        """The thread's summary, or ``None`` before ``generate_thread_summary`` ran."""
        user_id = require_scope(user_id)
        await self.connect()
        found = await self.store.get(
            user_id, [summary_id(user_id, require_scope(thread_id, "thread_id"))])
        return found[0] if found and isinstance(found[0], ThreadSummary) else None

    async def get_profile(self, user_id: str, subject: str | None = None) -> UserProfile | None:
        """A person's profile, or ``None`` before ``generate_user_summary`` made one.

        Args:
            user_id: the user whose threads the person is in.
            subject: the person's name (case-insensitive); ``None`` for the user. In a thread
                with several human speakers each has a profile
                (:func:`~agent_memory.models.profile_id`); the user's own name gives the
                user's profile.

        Raises:
            MissingScopeError / InvalidScopeError: bad ``user_id``.
            InvalidTextError / EmptyContentError: ``subject`` is not a string or is blank.
        """
        user_id = require_scope(user_id)
        if subject is not None:
            subject = check.text(subject, "subject", required=True).strip()
        await self.connect()
        ids = [profile_id(user_id)] + ([profile_id(user_id, subject)] if subject else [])
        found = {r.id: r for r in await self.store.get(user_id, ids)
                 if isinstance(r, UserProfile)}
        mine = found.get(ids[0])
        if subject is None or (mine is not None and mine.subject is not None
                               and subject_slug(mine.subject) == subject_slug(subject)):
            return mine
        return found.get(ids[1])

    async def threads(self, user_id: str) -> list[str]:
        """Ids of the user's threads that have turns, in order of first turn."""
        turns = await self.get_memories(user_id, kinds=[RecordKind.TURN])
        return list(dict.fromkeys(t.thread_id for t in turns if t.thread_id))


__all__ = ["RecordsAPI", "record_query"]
