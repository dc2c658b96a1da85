"""The sync facade: :class:`Memory` runs :class:`AsyncMemory` on a private event-loop thread.

Works from plain scripts, threads and notebooks (where an event loop may already be running).
Every public coroutine method of :class:`AsyncMemory` is available with the same signature.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Self, TypeVar

from ._threads import LoopThread
from .client import AsyncMemory
from .config import Settings
from .errors import ClientClosedError
from .recall.scoring import RelevanceSource
from .recall.strategies import Strategy
from .retrieval.hits import SearchMode
from .sessions import cfr

# -- imports of the generated methods (scripts/gen_sync.py) --
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from datetime import datetime, timedelta
    from typing import Unpack

    from pydantic import BaseModel

    from agent_memory.consistency.audit import FactHistory
    from agent_memory.consistency.forget import ForgetReport
    from agent_memory.consistency.reconcile import ReconcileResult
    from agent_memory.filters import FilterArgs, MemoryFilter
    from agent_memory.jobqueue.models import Job, JobState
    from agent_memory.jobs.worker import JobOutcome, WorkerConfig
    from agent_memory.models import (
        Fact,
        MemoryRecord,
        RecordKind,
        Role,
        ThreadSummary,
        Turn,
        UserProfile,
    )
    from agent_memory.pipeline.context import StepResult
    from agent_memory.reasoners.sessions_models import FactRetrieval
    from agent_memory.recall.api import RecallResult
    from agent_memory.recall.collections import BulkAddResult, MemoryInput
    from agent_memory.retrieval.hits import Hit
    from agent_memory.sessions.keeper import MemoryKeeper, SessionEnd, SessionState
    from agent_memory.sessions.profile import ProfileUpdate
    from agent_memory.sessions.reflection import ReflectionResult
    from agent_memory.stores.paging import Page
    from agent_memory.turns import TurnInput
# -- end of generated imports --

T = TypeVar("T")


class SyncFacade:
    """Shared part of the sync facades (:class:`Memory`, :class:`agent_memory.remote.Remote`):
    an async client (``_async``) driven on a private loop thread (``_loop``); ``close`` and
    the context manager. Subclasses list one blocking method per public coroutine method of
    their client, written by ``scripts/gen_sync.py``."""

    _loop: LoopThread
    _async: Any

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run one of the async client's coroutines on the loop thread and return its result.

        Raises:
            ClientClosedError: the facade was closed (the coroutine is discarded).
        """
        if not self._loop.started:
            coro.close()
            label = type(self).__name__
            raise ClientClosedError(
                f"{label}.{getattr(coro, '__name__', 'call')}() called after close(); open a new {label}"
            )
        return self._loop.call(coro)

    def close(self) -> None:
        """Close the client and stop the loop thread. Safe to call twice; any other call
        afterwards raises :class:`~agent_memory.errors.ClientClosedError`."""
        if self._loop.started:
            self._loop.call(self._async.close())
            self._loop.stop(timeout=5)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Memory(SyncFacade):
    """Memory for agents, sync API (same methods as :class:`AsyncMemory`).

    Example::

        with Memory(store="memory.db") as memory:
            memory.add_turn("u1", "t1", "user", "My daughter starts school in September.")
            memory.extract_facts("u1", "t1")
            for hit in memory.search("u1", "children"):
                print(hit.score, hit.record.content)

    Args:
        settings: configuration; keyword ``overrides`` are :class:`Settings` fields or ready
            ``store`` / ``embedder`` / ``reasoner`` objects.
    """

    def __init__(self, settings: Settings | None = None, **overrides: Any) -> None:
        parts = {
            k: overrides.pop(k)
            for k in ("embedder", "reasoner", "store")
            if k in overrides and not isinstance(overrides[k], str | None)
        }
        self._loop = LoopThread()
        self._loop.start()
        try:
            settings = settings.merged(**overrides) if settings else Settings.load(**overrides)
            self._async = AsyncMemory(settings, **parts)
            self._loop.call(self._async.connect())
        except BaseException:
            self._loop.stop(timeout=5)
            raise

    @property
    def aio(self) -> AsyncMemory:
        """The underlying :class:`AsyncMemory` (use only from this object's loop)."""
        return self._async

    @property
    def settings(self) -> Settings:
        """The settings in force."""
        return self._async.settings

    # -- generated by scripts/gen_sync.py from AsyncMemory: do not edit by hand --

    def add_memories(
        self, user_id: str, items: Iterable[MemoryInput | Mapping[str, Any]]
    ) -> BulkAddResult:
        """Add memories (facts or insights) in bulk, each optionally in a collection; see
        :func:`.collections.add_memories` (per-item success and failure: an item longer than
        ``Settings.max_content_chars``, with a lone surrogate or a bad time is reported in
        ``failed``, not written).

        Returns:
            A :class:`~agent_memory.recall.collections.BulkAddResult`: ``added`` holds
            ``(index, record)`` with each record as stored (its ``etag`` set, ready for a
            conditional ``store.update``), ``failed`` the items refused.

        Raises:
            MissingScopeError / InvalidScopeError: a bad ``user_id`` (nothing is written).
            InvalidInputError: ``items`` is a string or bytes, not a collection of items
                (nothing is written).
        """
        return self._run(self._async.add_memories(user_id, items))

    def add_session_turn(
        self,
        user_id: str,
        session_id: str,
        role: str | Role,
        content: str,
        *,
        speaker: str | None = None,
        created_at: datetime | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Turn:
        """Add a turn to a session (durable and full-text searchable on return, embedded
        in a batch later; prunes every k turns). A session not started yet is started.

        Raises:
            InvalidInputError (subclasses): bad scope ids, role, content (blank, a lone
                surrogate, longer than ``Settings.max_content_chars``), ``created_at`` or
                ``metadata``, checked before anything is written; or the session has ended
                (:class:`~agent_memory.errors.SessionEndedError`).
        """
        return self._run(
            self._async.add_session_turn(
                user_id,
                session_id,
                role,
                content,
                speaker=speaker,
                created_at=created_at,
                metadata=metadata,
            )
        )

    def add_turn(
        self, user_id: str, thread_id: str, role: str | Role, content: str, **fields: Any
    ) -> Turn:
        """Store one turn; see :meth:`add_turns` (``fields``: speaker, agent_id, created_at,
        metadata, id, seq).
        """
        return self._run(self._async.add_turn(user_id, thread_id, role, content, **fields))

    def add_turns(self, items: Iterable[TurnInput | Turn | Mapping[str, Any]]) -> list[Turn]:
        """Store turns durably, embedded and indexed, in one atomic batch.

        Each turn without an explicit ``seq`` gets its thread's next one where the write
        commits, so concurrent writers (tasks, threads, processes) never share a position.

        A turn given with the ``id`` of a stored turn is a re-add. With the same thread, role,
        agent (``agent_id``) and content, and the same ``seq`` when one is given, it is
        idempotent: the turn keeps its ``seq`` and is written again as given (a retried call
        stores no copy, nor does the same turn given twice in one batch; ``speaker``,
        ``created_at`` and ``metadata`` are taken from the re-add). With another thread,
        role, agent, content or ``seq`` it is refused: an acknowledged turn is never moved,
        given to another agent or rewritten; store the new turn under a new id. Two calls
        adding the same new id at once (a retry whose first attempt committed in the
        meantime) both succeed when they carry the same turn: the one that loses the race
        reads the store again, once, and is a re-add.

        Returns:
            The stored :class:`Turn` records (ids and ``seq`` assigned).

        Raises:
            ConflictError: an explicit ``seq`` is already taken in its thread, or an ``id``
                names a stored record that is not the same turn (another thread, role, agent,
                content or ``seq``, or another kind of record; also two turns of the batch
                with one id that differ so); ``ids`` lists those ids. Nothing is written.
            MissingScopeError, EmptyContentError, ContentTooLargeError, UnknownRoleError:
                bad input; nothing is written (the whole batch is checked first).
        """
        return self._run(self._async.add_turns(items))

    def agent_collections(self, user_id: str, agent_id: str) -> list[str]:
        """The collections the agent is bound to."""
        return self._run(self._async.agent_collections(user_id, agent_id))

    def bind_collections(self, user_id: str, agent_id: str, collections: Sequence[str]) -> int:
        """Bind an agent to collections (idempotent); returns how many bindings are new.

        Raises:
            InvalidInputError: a blank collection name.
        """
        return self._run(self._async.bind_collections(user_id, agent_id, collections))

    def end_session(self, user_id: str, session_id: str) -> SessionEnd:
        """End a session: flush, complete the summary, reflect (see :class:`MemoryKeeper`).

        Raises:
            SessionNotFoundError: no such session.
            SessionEndedError: it has already ended (an InvalidInputError).
        """
        return self._run(self._async.end_session(user_id, session_id))

    def expire_turns(
        self,
        user_id: str,
        *,
        older_than: timedelta | float | None = None,
        before: datetime | None = None,
    ) -> ForgetReport:
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
        return self._run(self._async.expire_turns(user_id, older_than=older_than, before=before))

    def extract_facts(self, user_id: str, thread_id: str, **kw: Any) -> StepResult:
        """Run fact extraction with exact dedup; see :mod:`agent_memory.pipeline`."""
        return self._run(self._async.extract_facts(user_id, thread_id, **kw))

    def flush_session_embeddings(self, user_id: str, session_id: str | None = None) -> int:
        """Embed the user's session turns stored without vectors yet (all of the user's, or
        one session's), in one batch. One index look-up when nothing is pending; the client
        runs it before every vector or hybrid search.

        Returns:
            How many turns were embedded.
        """
        return self._run(self._async.flush_session_embeddings(user_id, session_id))

    def forget_records(self, user_id: str, ids: Sequence[str]) -> ForgetReport:
        """Hard-delete the user's records with these ids (any kind); ids the user has no
        record with are listed in ``report.missing`` and delete nothing.

        Raises:
            MissingScopeError / InvalidScopeError: a bad ``user_id``.
            InvalidInputError: a blank or malformed id, or none at all.
            InvalidNumberError: more than ``MAX_K`` (1,000) ids.
        """
        return self._run(self._async.forget_records(user_id, ids))

    def forget_thread(self, user_id: str, thread_id: str) -> ForgetReport:
        """Hard-delete a thread's records, jobs, counters and watermarks; returns counts.

        Raises:
            MissingScopeError / InvalidScopeError: a bad ``user_id`` or ``thread_id``.
        """
        return self._run(self._async.forget_thread(user_id, thread_id))

    def forget_user(self, user_id: str) -> ForgetReport:
        """Hard-delete everything of a user (all records, jobs, counters, watermarks).

        Raises:
            MissingScopeError / InvalidScopeError: a bad ``user_id``.
        """
        return self._run(self._async.forget_user(user_id))

    def generate_thread_summary(self, user_id: str, thread_id: str, **kw: Any) -> StepResult:
        """Run the incremental thread-summary step; see :mod:`agent_memory.pipeline`."""
        return self._run(self._async.generate_thread_summary(user_id, thread_id, **kw))

    def generate_user_summary(self, user_id: str) -> StepResult:
        """Run the incremental cross-thread profile step; see :mod:`agent_memory.pipeline`."""
        return self._run(self._async.generate_user_summary(user_id))

    def get_current_context(self, user_id: str, session_id: str) -> str:
        """The session's context: init block + cumulative summary + active turns. Reads only.

        Raises:
            SessionNotFoundError: no such session.
        """
        return self._run(self._async.get_current_context(user_id, session_id))

    def get_memories(
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
        return self._run(
            self._async.get_memories(
                user_id, filter=filter, newest_first=newest_first, limit=limit, **filters
            )
        )

    def get_memories_page(
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
        return self._run(
            self._async.get_memories_page(
                user_id,
                filter=filter,
                newest_first=newest_first,
                limit=limit,
                cursor=cursor,
                **filters,
            )
        )

    def get_profile(self, user_id: str, subject: str | None = None) -> UserProfile | None:
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
        return self._run(self._async.get_profile(user_id, subject))

    def get_summary(self, user_id: str, thread_id: str) -> ThreadSummary | None:
        """The thread's summary, or ``None`` before ``generate_thread_summary`` ran."""
        return self._run(self._async.get_summary(user_id, thread_id))

    def get_thread(self, user_id: str, thread_id: str, k: int | None = None) -> list[Turn]:
        """The turns of a thread in order; with ``k``, only the last ``k``.

        Raises:
            MissingScopeError / InvalidScopeError: bad scope ids.
            InvalidNumberError: ``k`` is not from 1 to ``MAX_K`` (1,000).
        """
        return self._run(self._async.get_thread(user_id, thread_id, k))

    def history(self, user_id: str, fact_id: str) -> FactHistory:
        """What a fact replaced, what replaced it, and its audit events (one call).

        Raises:
            RecordNotFoundError: no such fact for the user.
            InvalidInputError: a bad ``user_id`` or ``fact_id``.
        """
        return self._run(self._async.history(user_id, fact_id))

    def jobs(
        self, user_id: str | None = None, states: Sequence[JobState | str] | None = None
    ) -> list[Job]:
        """Stored jobs (optionally of one user, in some states), in queue order.

        Raises:
            InvalidScopeError: a bad ``user_id``. UnknownOptionError: an unknown state.
        """
        return self._run(self._async.jobs(user_id, states))

    def list_sessions(self, user_id: str) -> list[ThreadSummary]:
        """The user's session records, oldest start first."""
        return self._run(self._async.list_sessions(user_id))

    def open_session_ids(self, user_id: str) -> list[str]:
        """Ids of the user's sessions that are started and not ended (from the store: any
        process or client may have started them), oldest start first.
        """
        return self._run(self._async.open_session_ids(user_id))

    def process_thread(self, user_id: str, thread_id: str) -> list[StepResult]:
        """Thread summary then fact extraction for one thread."""
        return self._run(self._async.process_thread(user_id, thread_id))

    def recall(
        self,
        user_id: str,
        context: str,
        *,
        agent_id: str | None = None,
        collections: Sequence[str] | None = None,
        kinds: Sequence[RecordKind | str] | None = None,
        top_k_vectors: int = 10,
        relevance_alpha: float = 1.0,
        importance_alpha: float = 1.0,
        recency_alpha: float = 1.0,
        min_score: float = 0.0,
        max_memories: int = 10,
        strategy: Strategy | str = Strategy.HARD_LIMIT,
        relevance: RelevanceSource | str = RelevanceSource.COSINE,
        default_importance: int = 5,
        update_access: bool = True,
        reduce_batch_size: int = 10,
        summary_max_tokens: int = 300,
    ) -> RecallResult:
        """Recall memories for ``context`` (seed 004 ``get_memories_for_agent``).

        Args:
            agent_id: recall for this agent: its bound collections, or, when it has none, its
                own and shared records.
            collections: search these collections (overrides the agent's bindings).
            kinds: record kinds to consider (default: every kind).
            top_k_vectors: hits per context chunk per collection.
            relevance_alpha / importance_alpha / recency_alpha: signal weights (>= 0, not all 0).
            min_score: drop memories scoring below this (0-1).
            max_memories: most memories kept (HARD_LIMIT, COLLECTION_LIMIT).
            strategy: HARD_LIMIT, COLLECTION_LIMIT or SUMMARY.
            relevance: ``cosine`` (default, seed 004: one vector search per collection,
                ``(cos + 1) / 2``) or ``fused`` (one hybrid search over all the collections,
                its RRF score divided by the best candidate's).
            default_importance: importance (1-10) of records without one.
            update_access: record the access on recalled facts/insights.
            reduce_batch_size / summary_max_tokens: SUMMARY map-reduce batch and budget.

        Returns:
            A :class:`RecallResult`.

        Raises:
            MissingScopeError / EmptyContentError / InvalidInputError: bad arguments (nothing
                changes); among them UnknownOptionError (strategy, relevance, kind),
                InvalidNumberError (a NaN, infinite or negative alpha, ``min_score`` outside
                0-1, a count outside 1-1,000) and InvalidTextError (a lone surrogate).
            ReasonerError: SUMMARY failed (access is then not updated).
        """
        return self._run(
            self._async.recall(
                user_id,
                context,
                agent_id=agent_id,
                collections=collections,
                kinds=kinds,
                top_k_vectors=top_k_vectors,
                relevance_alpha=relevance_alpha,
                importance_alpha=importance_alpha,
                recency_alpha=recency_alpha,
                min_score=min_score,
                max_memories=max_memories,
                strategy=strategy,
                relevance=relevance,
                default_importance=default_importance,
                update_access=update_access,
                reduce_batch_size=reduce_batch_size,
                summary_max_tokens=summary_max_tokens,
            )
        )

    def reconcile_memories(self, user_id: str, n: int = 50) -> ReconcileResult:
        """Merge duplicates and retire contradicted facts among the ``n`` most recent active
        facts; ``result.model_dump()`` is ``{"kept", "merged", "contradicted"}``. See
        :mod:`agent_memory.consistency.reconcile`.

        Raises:
            MissingScopeError / InvalidScopeError: a bad ``user_id``.
            InvalidNumberError: ``n`` is not from 1 to ``MAX_K`` (1,000).
        """
        return self._run(self._async.reconcile_memories(user_id, n))

    def reflect_pending_sessions(self, user_id: str) -> list[ReflectionResult]:
        """Reflect on completed sessions still pending, then aggregate no-insight sessions."""
        return self._run(self._async.reflect_pending_sessions(user_id))

    def restore(self, user_id: str, fact_id: str) -> Fact:
        """Undo the decision that retired a fact (recorded in the audit trail; the fact is
        pinned against later reconciliation).

        Raises:
            RecordNotFoundError: no such fact. InvalidInputError: the fact is active, or a bad
                ``user_id`` / ``fact_id``.
        """
        return self._run(self._async.restore(user_id, fact_id))

    def retrieve_facts(
        self, user_id: str, query: str, *, max_rounds: int = cfr.DEFAULT_MAX_ROUNDS
    ) -> str:
        """Contextual fact retrieval: the facts about the user relevant to ``query``, with
        their sources (record ids, sessions, dates).
        """
        return self._run(self._async.retrieve_facts(user_id, query, max_rounds=max_rounds))

    def retrieve_facts_detailed(
        self, user_id: str, query: str, *, max_rounds: int = cfr.DEFAULT_MAX_ROUNDS
    ) -> FactRetrieval:
        """Contextual fact retrieval, as a structured result (answer, items, tool calls).

        Raises:
            MissingScopeError / InvalidScopeError: a bad ``user_id``.
            EmptyContentError / InvalidTextError: a blank query or a lone surrogate in it.
            InvalidNumberError: ``max_rounds`` is not from 1 to 20.
        """
        return self._run(self._async.retrieve_facts_detailed(user_id, query, max_rounds=max_rounds))

    def run_jobs(
        self, *, max_jobs: int | None = None, config: WorkerConfig | None = None
    ) -> list[JobOutcome]:
        """Run queued jobs in this process until none is runnable (or ``max_jobs``).

        Raises:
            InvalidNumberError: ``max_jobs`` below 1.
        """
        return self._run(self._async.run_jobs(max_jobs=max_jobs, config=config))

    def run_longterm_reflection(
        self, user_id: str, profile_model: type[BaseModel] | None = None
    ) -> ProfileUpdate:
        """Merge unprocessed insights into the profile (structured part validated against
        ``profile_model`` or :attr:`profile_model`).
        """
        return self._run(self._async.run_longterm_reflection(user_id, profile_model))

    def search(
        self,
        user_id: str,
        query: str,
        *,
        mode: SearchMode | str = SearchMode.HYBRID,
        k: int = 10,
        filter: MemoryFilter | None = None,
        **filters: Unpack[FilterArgs],
    ) -> list[Hit]:
        """Vector, full-text or hybrid (RRF) search over the user's records; see
        :func:`agent_memory.retrieval.search.search`.

        Args:
            user_id: whose records.
            query: what to look for.
            mode: ``hybrid`` (default), ``vector`` or ``text``.
            k: hits to return (1-1,000).
            filter / filters: which records to search, as in :meth:`get_memories` (a
                :class:`~agent_memory.filters.MemoryFilter`, its fields as keywords over it);
                ``as_of`` searches the facts and insights valid at that time instead of the
                current ones; it does not bound other kinds (turns, summaries, profiles after
                that time are still found: add ``until`` to leave them out).

        Raises:
            MissingScopeError / InvalidScopeError: bad scope ids.
            EmptyContentError / InvalidTextError: a blank query, or one with a lone surrogate.
            UnknownOptionError: an unknown mode or kind.
            InvalidNumberError: ``k`` is not from 1 to ``MAX_K`` (1,000).
            InvalidTimeError: a ``since``/``until``/``as_of`` out of range in UTC.
            TypeError: a keyword that is not a filter.
        """
        return self._run(
            self._async.search(user_id, query, mode=mode, k=k, filter=filter, **filters)
        )

    def session_keeper(
        self, user_id: str, session_id: str, *, agent_id: str | None = None
    ) -> MemoryKeeper:
        """A :class:`MemoryKeeper` handle on a session, started first when it does not exist.
        The handle holds no state: every call reads the store.
        """
        return self._run(self._async.session_keeper(user_id, session_id, agent_id=agent_id))

    def session_state(self, user_id: str, session_id: str) -> SessionState:
        """The session as stored now (record, buffered and active turns). Reads only.

        Raises:
            SessionNotFoundError: no such session.
        """
        return self._run(self._async.session_state(user_id, session_id))

    def set_structured_profile(
        self, user_id: str, data: Mapping[str, Any], profile_model: type[BaseModel] | None = None
    ) -> UserProfile:
        """Set the profile's structured part after validation (ProfileSchemaError if not)."""
        return self._run(self._async.set_structured_profile(user_id, data, profile_model))

    def start_session(
        self, user_id: str, session_id: str | None = None, *, agent_id: str | None = None
    ) -> str:
        """Start a session (or resume it from the store) and return its id.

        Args:
            session_id: the session (= thread) id; a new ``session_<hex>`` when omitted.

        Raises:
            SessionEndedError: the session already ended (an InvalidInputError).
        """
        return self._run(self._async.start_session(user_id, session_id, agent_id=agent_id))

    def start_worker(self, config: WorkerConfig | None = None) -> None:
        """Start a background worker task on the running event loop (in-process option);
        stop it with :meth:`stop_worker` before closing.
        """
        return self._run(self._async.start_worker(config))

    def stop_worker(self) -> list[JobOutcome]:
        """Stop the background worker after its current job; returns its outcomes."""
        return self._run(self._async.stop_worker())

    def threads(self, user_id: str) -> list[str]:
        """Ids of the user's threads that have turns, in order of first turn."""
        return self._run(self._async.threads(user_id))

    def unbind_collections(self, user_id: str, agent_id: str, collections: Sequence[str]) -> int:
        """Remove bindings; returns how many existed."""
        return self._run(self._async.unbind_collections(user_id, agent_id, collections))

    def validate_turns(
        self, items: Iterable[TurnInput | Turn | Mapping[str, Any]]
    ) -> list[TurnInput]:
        """Check turns exactly as :meth:`add_turns` does, without writing anything (a bulk
        ingest checks every turn before its first write this way).

        Returns:
            The turns as :class:`TurnInput`, in order.

        Raises:
            InvalidInputError (subclasses): the first bad turn, as :meth:`add_turns` would.
        """
        return self._run(self._async.validate_turns(items))

    # -- end of generated methods --
