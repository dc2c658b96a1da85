"""The client: one object for every operation, async core (:class:`AsyncMemory`).

The sync facade is :class:`agent_memory.Memory` (:mod:`._sync`). Example::

    async with AsyncMemory.open(store="memory.db") as memory:
        await memory.add_turn("u1", "t1", "user", "I moved to Lisbon last month.")
        await memory.extract_facts("u1", "t1")
        hits = await memory.search("u1", "where does the user live?")
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

from . import validation as check
from .config import Settings
from .consistency.api import ConsistencyAPI
from .embedders import get_embedder
from .embedders.base import Embedder
from .indexing import build_indexed, previous_turns
from .jobs.api import JobsAPI
from .models import (
    MemoryRecord,
    RecordKind,
    Role,
    ThreadSummary,
    Turn,
    UserProfile,
    profile_id,
    require_scope,
    subject_slug,
    summary_id,
)
from .pipeline import (
    Components,
    StepResult,
    extract_facts,
    generate_thread_summary,
    generate_user_summary,
)
from .reasoners import reasoner_from_settings
from .reasoners.base import Reasoner
from .recall.api import RecallAPI
from .retrieval.hits import Hit, SearchMode
from .retrieval.search import SearchFilters, SearchRequest, search
from .sessions.api import SessionsAPI
from .stores import open_store
from .stores.base import MemoryStore, RecordQuery
from .stores.paging import Page
from .turns import TurnInput, as_turn_input


def _shared_embedder(settings: Settings, embedder: Embedder) -> dict[str, Any]:
    """The offline reasoner embeds fact predicates with the local all-MiniLM-L6-v2 (its
    reconciliation thresholds were chosen with it): when the client's embedder is that model,
    the reasoner uses it instead of loading a second copy."""
    from .embedders.local import LOCAL_MODEL

    extractive = settings.reasoner.strip().lower() == "extractive"
    return {"embedder": embedder} if extractive and embedder.name == f"local:{LOCAL_MODEL}" else {}


class AsyncMemory(SessionsAPI, ConsistencyAPI, JobsAPI, RecallAPI):
    """Memory for agents, async API. Build with :meth:`open` (or pass components).

    Args:
        settings: configuration (default: :meth:`Settings.load`).
        store / embedder / reasoner: ready components overriding the settings' choice.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        store: MemoryStore | None = None,
        embedder: Embedder | None = None,
        reasoner: Reasoner | None = None,
    ) -> None:
        self.settings = settings or Settings.load()
        self._owns_embedder = embedder is None
        self.embedder = embedder or get_embedder(
            self.settings.embedder, batch_size=self.settings.embed_batch_size
        )
        self.reasoner = reasoner or reasoner_from_settings(
            self.settings, **_shared_embedder(self.settings, self.embedder))
        self.store = store or open_store(
            self.settings.store, self.settings.vector_index, self.settings.text_match_budget)
        self._opened = False

    @classmethod
    @asynccontextmanager
    async def open(cls, settings: Settings | None = None, **overrides: Any):
        """``async with AsyncMemory.open(store=..., ...) as memory``: open, yield, close.

        Keyword overrides are :class:`Settings` fields, or ``embedder`` / ``reasoner`` /
        ``store`` given as ready objects.
        """
        parts = {k: overrides.pop(k) for k in ("embedder", "reasoner", "store")
                 if k in overrides and not isinstance(overrides[k], str | None)}
        settings = settings.merged(**overrides) if settings else Settings.load(**overrides)
        memory = cls(settings, **parts)
        await memory.connect()
        try:
            yield memory
        finally:
            await memory.close()

    async def connect(self) -> None:
        """Open the store (schema, migrations, embedding check). Idempotent."""
        if not self._opened:
            await self.store.open(self.embedder.spec)
            self._opened = True

    async def close(self) -> None:
        """Close the store (and the embedder, when this object created it). Safe to call twice."""
        if self._opened:
            await self.store.close()
            self._opened = False
        if self._owns_embedder:
            await self.embedder.aclose()

    @property
    def components(self) -> Components:
        """The store, embedder, reasoner and settings the pipeline steps run with."""
        return Components(self.store, self.embedder, self.reasoner, self.settings)

    # -- turns ---------------------------------------------------------------------------

    def validate_turn(self, item: TurnInput) -> None:
        """Check a turn before it is written.

        Raises:
            MissingScopeError, UnknownRoleError, EmptyContentError, ContentTooLargeError.
        """
        require_scope(item.user_id)
        require_scope(item.thread_id, "thread_id")
        check.optional_scope(item.agent_id, "agent_id")
        Role.parse(item.role)
        check.content(item.content, self.settings.max_content_chars, "turn content")
        if item.speaker is not None:
            check.text(item.speaker, "speaker")
        check.optional_moment(item.created_at, "created_at")
        check.optional_record_id(item.id, "turn id")
        check.metadata(item.metadata)
        if item.seq is not None:
            check.count(item.seq, "seq", minimum=0, maximum=2**62)

    async def validate_turns(
        self, items: Iterable[TurnInput | Turn | Mapping[str, Any]]
    ) -> list[TurnInput]:
        """Check turns exactly as :meth:`add_turns` does, without writing anything (a bulk
        ingest checks every turn before its first write this way).

        Returns:
            The turns as :class:`TurnInput`, in order.

        Raises:
            InvalidInputError (subclasses): the first bad turn, as :meth:`add_turns` would.
        """
        inputs = [as_turn_input(item) for item in items]
        for item in inputs:
            self.validate_turn(item)
        return inputs

    async def add_turns(self, items: Iterable[TurnInput | Turn | Mapping[str, Any]]) -> list[Turn]:
        """Store turns durably, embedded and indexed, in one atomic batch.

        Each turn without an explicit ``seq`` gets its thread's next one where the write
        commits, so concurrent writers (tasks, threads, processes) never share a position.

        Returns:
            The stored :class:`Turn` records (ids and ``seq`` assigned).

        Raises:
            ConflictError: an explicit ``seq`` is already taken in its thread; nothing is
                written.
            MissingScopeError, EmptyContentError, ContentTooLargeError, UnknownRoleError:
                bad input; nothing is written (the whole batch is checked first).
        """
        inputs = [as_turn_input(item) for item in items]
        for item in inputs:
            self.validate_turn(item)
        await self.connect()
        existing: dict[tuple[str, str], Turn] = {}
        by_user: dict[str, list[str]] = {}
        for item in inputs:
            if item.id:
                by_user.setdefault(item.user_id, []).append(item.id)
        for user_id, ids in by_user.items():
            for record in await self.store.get(user_id, ids):
                if isinstance(record, Turn):
                    existing[(user_id, record.id)] = record
        turns: list[Turn] = []
        for item in inputs:
            prior = existing.get((item.user_id, item.id)) if item.id else None
            if prior is not None:  # an idempotent re-add: same position, conditional replace
                seq = item.seq if item.seq is not None else prior.seq
                turns.append(item.to_turn(seq).model_copy(update={"etag": prior.etag}))
            else:  # -1: the store assigns the thread's next seq where the write commits
                turns.append(item.to_turn(item.seq if item.seq is not None else -1))
        previous = await self._previous_turns(turns)
        indexed = await build_indexed(turns, self.embedder, previous=previous,
                                      context_tokens=self.settings.turn_context_tokens)
        stored = [t for t in await self.store.put(indexed) if isinstance(t, Turn)]
        await self._after_turns(stored)
        return stored

    async def _previous_turns(self, turns: Sequence[Turn]) -> dict[str, Turn]:
        """The turn each new turn is indexed with as its context (:mod:`.indexing`).

        Turns whose ``seq`` the store assigns at commit are placed, for this purpose only,
        after the thread's newest stored turn; under concurrent writers the context may be
        a turn committed just before or after (a retrieval aid, not the turn order).
        """
        if self.settings.turn_context_tokens <= 0:
            return {}
        tentative: list[Turn] = []
        next_seq: dict[tuple[str, str], int] = {}
        for turn in turns:
            if turn.seq >= 0:
                tentative.append(turn)
                continue
            key = (turn.user_id, turn.thread_id or "")
            if key not in next_seq:
                last = await self.store.list(turn.user_id, RecordQuery(
                    kinds=frozenset({RecordKind.TURN}), thread_id=turn.thread_id,
                    newest_first=True, limit=1))
                next_seq[key] = (last[0].seq + 1) if last else 0  # type: ignore[attr-defined]
            tentative.append(turn.model_copy(update={"seq": next_seq[key]}))
            next_seq[key] += 1
        return await previous_turns(tentative, self.store)

    async def add_turn(
        self,
        user_id: str,
        thread_id: str,
        role: str | Role,
        content: str,
        **fields: Any,
    ) -> Turn:
        """Store one turn; see :meth:`add_turns` (``fields``: speaker, agent_id, created_at,
        metadata, id, seq)."""
        return (await self.add_turns([dict(
            user_id=user_id, thread_id=thread_id, role=role, content=content, **fields
        )]))[0]

    async def get_thread(self, user_id: str, thread_id: str, k: int | None = None) -> list[Turn]:
        """The turns of a thread in order; with ``k``, only the last ``k``.

        Raises:
            MissingScopeError / InvalidScopeError: bad scope ids.
            InvalidNumberError: ``k`` is not from 1 to ``MAX_K`` (1,000).
        """
        user_id = require_scope(user_id)
        thread_id = require_scope(thread_id, "thread_id")
        k = check.optional_count(k, "k")
        await self.connect()
        query = RecordQuery(kinds=frozenset({RecordKind.TURN}), thread_id=thread_id,
                            newest_first=k is not None, limit=k)
        turns = [t for t in await self.store.list(user_id, query) if isinstance(t, Turn)]
        return sorted(turns, key=lambda t: (t.seq, t.created_at))

    async def get_memories(
        self,
        user_id: str,
        *,
        kinds: Sequence[RecordKind | str] | None = None,
        thread_id: str | None = None,
        agent_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        include_superseded: bool = False,
        newest_first: bool = False,
        limit: int | None = None,
        as_of: datetime | None = None,
    ) -> list[MemoryRecord]:
        """The user's records matching the filters, ordered by ``created_at``.

        ``as_of`` reads the facts valid at that time (``valid_from <= as_of < valid_until``:
        facts a later contradiction retired are included for the time they held, duplicates
        merged away are represented by their merged fact); by default only current facts.
        Other kinds are not filtered by it.

        Raises:
            MissingScopeError / InvalidScopeError: bad scope ids.
            UnknownOptionError: an unknown kind. InvalidTimeError: a bad ``since``/``until``/
                ``as_of``.
            InvalidNumberError: ``limit`` is not from 1 to ``MAX_K`` (1,000).
        """
        user_id = require_scope(user_id)
        query = self._memory_query(kinds, thread_id, agent_id, since, until,
                                   include_superseded, newest_first, limit, as_of)
        await self.connect()
        return await self.store.list(user_id, query)

    async def get_memories_page(
        self,
        user_id: str,
        *,
        kinds: Sequence[RecordKind | str] | None = None,
        thread_id: str | None = None,
        agent_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        include_superseded: bool = False,
        newest_first: bool = False,
        limit: int = 100,
        cursor: str | None = None,
        as_of: datetime | None = None,
    ) -> Page:
        """One page of :meth:`get_memories` (``limit`` records after ``cursor``); pass
        ``page.cursor`` back for the next one (``None`` on the last page). Pages never shift
        when records are written meanwhile (keyset paging, :mod:`agent_memory.stores.paging`).

        Raises:
            The errors of :meth:`get_memories`; InvalidInputError: a malformed cursor.
        """
        user_id = require_scope(user_id)
        query = self._memory_query(kinds, thread_id, agent_id, since, until,
                                   include_superseded, newest_first, limit, as_of)
        if cursor is not None:
            check.text(cursor, "cursor")
        await self.connect()
        return await self.store.page(user_id, query, cursor)

    @staticmethod
    def _memory_query(kinds: Sequence[RecordKind | str] | None, thread_id: str | None,
                      agent_id: str | None, since: datetime | None, until: datetime | None,
                      include_superseded: bool, newest_first: bool, limit: int | None,
                      as_of: datetime | None = None) -> RecordQuery:
        return RecordQuery(
            kinds=check.options(RecordKind, kinds, "kind") if kinds else None,
            thread_id=check.optional_scope(thread_id, "thread_id"),
            agent_id=check.optional_scope(agent_id, "agent_id"),
            since=check.optional_moment(since, "since"),
            until=check.optional_moment(until, "until"),
            include_superseded=include_superseded, newest_first=newest_first,
            limit=check.optional_count(limit, "limit"),
            as_of=check.optional_moment(as_of, "as_of"),
        )

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

    # -- search and pipeline -------------------------------------------------------------

    async def search(
        self,
        user_id: str,
        query: str,
        *,
        mode: SearchMode | str = SearchMode.HYBRID,
        k: int = 10,
        kinds: Sequence[RecordKind | str] | None = None,
        thread_id: str | None = None,
        agent_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        include_superseded: bool = False,
        as_of: datetime | None = None,
    ) -> list[Hit]:
        """Vector, full-text or hybrid (RRF) search over the user's records; see
        :func:`agent_memory.retrieval.search.search`. ``as_of`` searches the facts valid at
        that time instead of the current ones (as in :meth:`get_memories`).

        Raises:
            MissingScopeError / InvalidScopeError: bad scope ids.
            EmptyContentError / InvalidTextError: a blank query, or one with a lone surrogate.
            UnknownOptionError: an unknown mode or kind.
            InvalidNumberError: ``k`` is not from 1 to ``MAX_K`` (1,000).
            InvalidTimeError: a ``since``/``until``/``as_of`` out of range in UTC.
        """
        user_id = require_scope(user_id)
        filters = SearchFilters(
            as_of=check.optional_moment(as_of, "as_of"),
            kinds=check.options(RecordKind, kinds, "kind") if kinds else None,
            thread_id=check.optional_scope(thread_id, "thread_id"),
            agent_id=check.optional_scope(agent_id, "agent_id"),
            since=check.optional_moment(since, "since"),
            until=check.optional_moment(until, "until"),
            include_superseded=include_superseded,
        )
        request = SearchRequest(query=check.text(query, "search query", required=True),
                                mode=check.option(SearchMode, mode, "search mode"),
                                k=check.count(k, "k"), filters=filters)
        await self.connect()
        if request.mode != SearchMode.TEXT:  # live sessions' turns get their vectors
            await self.flush_session_embeddings(user_id, thread_id)
        return await search(self.store, self.embedder, user_id, request,
                            rrf_k=self.settings.rrf_k)

    async def generate_thread_summary(self, user_id: str, thread_id: str, **kw: Any) -> StepResult:
        """Run the incremental thread-summary step; see :mod:`agent_memory.pipeline`."""
        await self.connect()
        return await generate_thread_summary(self.components, user_id, thread_id, **kw)

    async def extract_facts(self, user_id: str, thread_id: str, **kw: Any) -> StepResult:
        """Run fact extraction with exact dedup; see :mod:`agent_memory.pipeline`."""
        await self.connect()
        return await extract_facts(self.components, user_id, thread_id, **kw)

    async def generate_user_summary(self, user_id: str) -> StepResult:
        """Run the incremental cross-thread profile step; see :mod:`agent_memory.pipeline`."""
        await self.connect()
        return await generate_user_summary(self.components, user_id)

    async def process_thread(self, user_id: str, thread_id: str) -> list[StepResult]:
        """Thread summary then fact extraction for one thread."""
        return [
            await self.generate_thread_summary(user_id, thread_id),
            await self.extract_facts(user_id, thread_id),
        ]

    async def threads(self, user_id: str) -> list[str]:
        """Ids of the user's threads that have turns, in order of first turn."""
        turns = await self.get_memories(user_id, kinds=[RecordKind.TURN])
        return list(dict.fromkeys(t.thread_id for t in turns if t.thread_id))


__all__ = ["AsyncMemory", "TurnInput"]
