"""The memory keeper: the context of one live session (seed 001 section 4.2), kept in the store.

A session is a thread: ``session_id == thread_id``, and the session record is the thread's
:class:`~agent_memory.models.ThreadSummary` (``summary_{user_id}_{session_id}``).

Nothing about a session lives in a process. :class:`MemoryKeeper` is a handle (the memory,
the user id, the session id); every call reads what it needs from the store and writes back
conditionally, so any process or client can continue any session, and two clients adding turns
to one session at once produce interactions that cover every turn exactly once.

- :meth:`MemoryKeeper.add_turn` stores the turn before it returns, full-text indexed but not
  yet embedded (one write, no model call): the turn is durable and found by full-text search at
  once; its ``seq`` is assigned where the write commits. Its vector comes later, in one batch
  with the other pending turns (see "Deferred embedding" below).
- Every ``k`` (``Settings.k_turn_buffer``) turns after the record's ``folded_seq``, the keeper
  *prunes*: the k oldest unfolded turns become an :class:`~agent_memory.models.Interaction`
  (``author: text`` lines, summary, topics, entities, two vectors, the k turn ids as evidence;
  id ``interaction_{session_id}_{first seq}``) and the cumulative summary (the record's
  ``content``) folds in those of them after its ``watermark_seq``. The pending turns (now
  embedded), the interaction and the record are written in one atomic batch, conditional on
  the record's version and creating the interaction: when another client pruned first, the
  batch fails whole with :class:`~agent_memory.errors.ConflictError` and the keeper reads the
  record again (the chunk is then gone or different).
- ``watermark_seq`` has one meaning for every writer (the last turn folded into ``content``),
  so the thread-summary step (:func:`~agent_memory.pipeline.generate_thread_summary`) and the
  keeper both move it forward, each conditionally, and neither overwrites the other.
- The active turns are every turn after ``folded_seq``, and never fewer than the last ``N``
  (``Settings.n_active_turns``): right after a prune exactly N turns stay verbatim.
- :meth:`MemoryKeeper.get_current_context` renders init block + summary + active turns
  (:mod:`.context`). It only reads: the context of an unknown session is a
  :class:`~agent_memory.errors.SessionNotFoundError`.

Deferred embedding. Invariant: every turn at or before ``folded_seq`` has its vector (a prune
embeds the pending turns in the transaction that moves it). Turns stored without vectors are
marked in the store (``RecordQuery(embedded=False)``), so any process finds them with one
index look-up: the keeper embeds them in one batch when it prunes, when the session ends or is
resumed, and on demand (:meth:`MemoryKeeper.embed_pending`, which the client runs before a
vector or hybrid search of that user).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..errors import ConflictError, SessionEndedError, SessionNotFoundError
from ..grounding import ground_summary, ground_topics, turn_sources
from ..indexing import build_indexed, index_text
from ..models import (
    Interaction,
    RecordKind,
    Role,
    SessionStatus,
    ThreadSummary,
    Turn,
    UserProfile,
    merge_ids,
    profile_id,
    require_scope,
    summary_id,
    utcnow,
)
from ..stores.base import Indexed, RecordQuery
from ..stores.conditional import backoff, modify
from ..turns import TurnInput
from .context import flatten, init_block, render_context
from .reflection import ReflectionResult, aggregate_no_insight, reflect_session

if TYPE_CHECKING:
    from ..client import AsyncMemory

MAX_CONFLICTS = 20
"""Conflicts with other clients tolerated by one call before it gives up (each means another
client made progress on the session)."""


class SessionEnd(BaseModel):
    """What ending a session did.

    Attributes:
        session: the final session record (status completed, reflection status set).
        reflection: the session's own reflection.
        aggregation: the reflection over gathered no-insight sessions, when it ran.
    """

    session: ThreadSummary
    reflection: ReflectionResult
    aggregation: ReflectionResult | None = None


class SessionState(BaseModel):
    """A session as stored at one moment (what the context is rendered from).

    Attributes:
        record: the session record.
        buffered: turns stored but not yet folded into an interaction (after ``folded_seq``).
        active_turns: the turns shown verbatim: the unfolded ones, at least the last N.
        pending_embeddings: the session's turns stored without vectors yet.
    """

    record: ThreadSummary
    buffered: list[Turn]
    active_turns: list[Turn]
    pending_embeddings: int

    @property
    def summary(self) -> str | None:
        """The cumulative summary, ``None`` before the first fold."""
        return self.record.content if self.record.watermark_seq >= 0 else None


async def build_init_block(memory: AsyncMemory, user_id: str, exclude: str | None) -> str:
    """The session initialization block: the profile and the
    ``Settings.num_recent_sessions_for_init`` most recently ended completed sessions."""
    store = memory.store
    found = await store.get(user_id, [profile_id(user_id)])
    profile = found[0] if found and isinstance(found[0], UserProfile) else None
    wanted = memory.settings.num_recent_sessions_for_init
    summaries = [
        s for s in await store.list(user_id, RecordQuery(kinds=frozenset({RecordKind.SUMMARY})))
        if isinstance(s, ThreadSummary) and s.status == SessionStatus.COMPLETED
        and s.thread_id != exclude and s.watermark_seq >= 0
    ]
    summaries.sort(key=lambda s: (s.end_time or s.updated_at, s.id))
    return init_block(profile, summaries[-wanted:] if wanted else [])


class MemoryKeeper:
    """A handle on one session, stateless: every call works from the store. Build with
    :meth:`open` (starts or resumes the session).

    Attributes:
        user_id / session_id: the scope.
    """

    def __init__(
        self, memory: AsyncMemory, user_id: str, session_id: str, *,
        on_turns: Callable[[Sequence[Turn]], Awaitable[None]] | None = None,
    ) -> None:
        self._memory = memory
        self._on_turns = on_turns
        self.user_id = require_scope(user_id)
        self.session_id = require_scope(session_id, "session_id")
        self.record_id = summary_id(self.user_id, self.session_id)

    @classmethod
    async def open(
        cls, memory: AsyncMemory, user_id: str, session_id: str, *, agent_id: str | None = None,
        on_turns: Callable[[Sequence[Turn]], Awaitable[None]] | None = None,
    ) -> MemoryKeeper:
        """Start the session, or resume it from the store when its record exists (a prune
        a crash interrupted is redone; turns stored without vectors are embedded).

        Raises:
            MissingScopeError: blank ids.
            SessionEndedError: the session was already ended.
        """
        keeper = cls(memory, user_id, session_id, on_turns=on_turns)
        await memory.connect()
        record = await keeper._find()
        if record is None:
            record = await keeper._create(agent_id)
        if record.status == SessionStatus.COMPLETED:
            raise SessionEndedError(
                f"session {keeper.session_id!r} of user {keeper.user_id!r} has ended; start a "
                "new session id"
            )
        if record.init_block is None:  # the thread was summarised before the session began
            block = await build_init_block(memory, keeper.user_id, keeper.session_id)
            await modify(memory.store, keeper.user_id, keeper.record_id,
                         lambda r: None if r.init_block is not None else r.model_copy(
                             update={"init_block": block, "updated_at": utcnow()}),
                         kind=ThreadSummary)
        await keeper._prune_due()
        await keeper.embed_pending()
        return keeper

    async def _find(self) -> ThreadSummary | None:
        found = await self._memory.store.get(self.user_id, [self.record_id])
        return found[0] if found and isinstance(found[0], ThreadSummary) else None

    async def record(self) -> ThreadSummary:
        """The session record as stored now.

        Raises:
            SessionNotFoundError: the session was never started (or was forgotten).
        """
        record = await self._find()
        if record is None:
            raise SessionNotFoundError(
                f"no session {self.session_id!r} for user {self.user_id!r}; start it first")
        return record

    async def _create(self, agent_id: str | None) -> ThreadSummary:
        """Create the session record; when another client created it first, read theirs."""
        memory = self._memory
        block = await build_init_block(memory, self.user_id, self.session_id)
        first = await memory.store.list(self.user_id, self._turns(limit=1))
        now = utcnow()
        start = first[0].created_at if first else now
        record = ThreadSummary(
            id=self.record_id, user_id=self.user_id, thread_id=self.session_id,
            agent_id=agent_id,
            content=f"Session {self.session_id} started {start:%Y-%m-%d %H:%M} UTC.",
            start_time=start, status=SessionStatus.ACTIVE, init_block=block,
            created_at=start, updated_at=now,
        )
        try:
            (stored,) = await memory.components.write([record])
        except ConflictError:
            return await self.record()
        assert isinstance(stored, ThreadSummary)
        return stored

    def _turns(self, **fields: Any) -> RecordQuery:
        return RecordQuery(kinds=frozenset({RecordKind.TURN}), thread_id=self.session_id,
                           **fields)

    # -- turns ------------------------------------------------------------------------------

    async def state(self) -> SessionState:
        """The session as stored now (record, buffered and active turns). Reads only.

        Raises:
            SessionNotFoundError: no such session.
        """
        store = self._memory.store
        record = await self.record()
        buffered = sorted((t for t in await store.list(
            self.user_id, self._turns(after_seq=record.folded_seq)) if isinstance(t, Turn)),
            key=lambda t: t.seq)
        n = self._memory.settings.n_active_turns
        recent: list[Turn] = []
        if n and len(buffered) < n:
            newest = await store.list(self.user_id, self._turns(newest_first=True, limit=n))
            recent = sorted((t for t in newest if isinstance(t, Turn)), key=lambda t: t.seq)
        pending = await store.count(self.user_id, self._turns(embedded=False))
        active = buffered if len(buffered) >= len(recent) else recent
        return SessionState(record=record, buffered=buffered, active_turns=active,
                            pending_embeddings=pending)

    async def add_turn(
        self,
        role: str | Role,
        content: str,
        *,
        speaker: str | None = None,
        created_at: datetime | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Turn:
        """Store one turn durably (full-text indexed, embedded later; ``seq`` assigned where
        the write commits); prune when k turns are waiting.

        Without a prune this is one write and no model call.

        Returns:
            The stored :class:`Turn`.

        Raises:
            SessionNotFoundError: the session was never started.
            InvalidInputError (and subclasses): bad role or content, or
                (:class:`SessionEndedError`) the session has ended; nothing is written.
            EmbedderError / ReasonerError: the prune failed; the turn itself is stored and
                the prune is retried on the next turn, at end or on resume.
        """
        memory = self._memory
        record = await self.record()
        if record.status == SessionStatus.COMPLETED:
            raise SessionEndedError(f"session {self.session_id!r} has ended")
        item = TurnInput(
            user_id=self.user_id, thread_id=self.session_id, role=role, content=content,
            speaker=speaker, agent_id=record.agent_id, created_at=created_at,
            metadata=metadata or {},
        )
        memory.validate_turn(item)
        turn = item.to_turn(-1)
        last = await memory.store.list(self.user_id, self._turns(newest_first=True, limit=1))
        previous = last[0] if last and isinstance(last[0], Turn) else None
        text = index_text(turn, previous, memory.settings.turn_context_tokens)
        (stored,) = await memory.store.put([Indexed(record=turn, text=text)])
        assert isinstance(stored, Turn)
        if self._on_turns is not None:
            await self._on_turns([stored])
        waiting = await memory.store.count(self.user_id, self._turns(after_seq=record.folded_seq))
        if waiting >= memory.settings.k_turn_buffer:
            await self._prune_due()
        return stored

    async def embed_pending(self) -> int:
        """Embed the session's turns stored without vectors, in one batch (one index look-up
        when there are none).

        Returns:
            How many turns were embedded (turns another client embedded meanwhile excluded).

        Raises:
            EmbedderError: the model failed; the turns stay pending (and full-text indexed).
        """
        return await embed_pending(self._memory, self.user_id, self.session_id)

    async def _index(self, records: Sequence[Any]) -> list[Indexed]:
        """Index text and vectors exactly as every other write path (one embedding call)."""
        c = self._memory.components
        return await build_indexed(records, c.embedder, store=c.store,
                                   context_tokens=c.settings.turn_context_tokens)

    async def _prune_due(self, *, final: bool = False) -> list[Interaction]:
        """Fold every full chunk of k unfolded turns (with ``final``, the rest as well),
        re-reading the record after a conflict with another client."""
        k = self._memory.settings.k_turn_buffer
        made: list[Interaction] = []
        conflicts = 0
        while True:
            record = await self.record()
            # in seq order (list order is created_at, which concurrent writers may interleave)
            unfolded = sorted((t for t in await self._memory.store.list(
                self.user_id, self._turns(after_seq=record.folded_seq)) if isinstance(t, Turn)),
                key=lambda t: t.seq)
            chunk = unfolded[:k]
            if not chunk or (len(chunk) < k and not final):
                return made
            try:
                made.append(await self._fold(record, chunk))
            except ConflictError:
                conflicts += 1
                if conflicts >= MAX_CONFLICTS:
                    raise
                await backoff(conflicts)

    async def _fold(self, record: ThreadSummary, chunk: Sequence[Turn]) -> Interaction:
        """Fold ``chunk`` (the oldest unfolded turns) into an interaction and the summary;
        one atomic, conditional write."""
        c = self._memory.components
        draft = await c.reasoner.describe_interaction(chunk)
        # the interaction's summary and the folded session summary are checked against the
        # turns like every derived text (grounding.ground_summary)
        sources = turn_sources(chunk)
        described, refused = await ground_summary(c.settings, draft.summary, chunk, None,
                                                  kind="interaction summary", sources=sources)
        stored = record.metadata.get("grounding_rejected")
        rejected = Counter({str(k): v for k, v in stored.items() if isinstance(v, int)}
                           if isinstance(stored, dict) else {})
        rejected["interaction summary"] += refused
        ids = [t.id for t in chunk]
        interaction = Interaction(
            id=f"interaction_{self.session_id}_{chunk[0].seq}",
            user_id=self.user_id, thread_id=self.session_id, agent_id=record.agent_id,
            content=flatten(chunk), summary=described,
            topics=ground_topics(draft.topics, sources.people, sources.tainted),
            entities=ground_topics(draft.entities, sources.people, sources.tainted), evidence=ids,
            created_at=chunk[0].created_at,
            metadata={"first_seq": chunk[0].seq, "last_seq": chunk[-1].seq},
        )
        update: dict[str, Any] = {"folded_seq": chunk[-1].seq, "updated_at": utcnow(),
                                  # the session's time is conversation time
                                  "end_time": max(chunk[-1].created_at,
                                                  record.end_time or chunk[-1].created_at)}
        new = [t for t in chunk if t.seq > record.watermark_seq]
        if new:
            summary = record.content if record.watermark_seq >= 0 else None
            folded = await c.reasoner.summarize_thread(summary, new,
                                                       c.settings.summary_max_tokens)
            folded_sources = sources if len(new) == len(chunk) else turn_sources(new)
            content, refused = await ground_summary(c.settings, folded.text, new, summary,
                                                    kind="session summary",
                                                    sources=folded_sources)
            rejected["session summary"] += refused
            update |= {
                "content": content or record.content,
                "key_topics": ground_topics(folded.key_topics, folded_sources.people,
                                            folded_sources.tainted)[:5],
                "watermark_seq": new[-1].seq,
                "turn_count": record.turn_count + len(new),
                "start_time": (new[0].created_at if record.watermark_seq < 0
                               else record.start_time),
                "evidence": merge_ids(record.evidence, (t.id for t in new)),
            }
        if +rejected:  # refused sentences are counted on the session, in the same write
            update["metadata"] = {**record.metadata, "grounding_rejected": dict(+rejected)}
        pending = [t for t in await c.store.list(
            self.user_id, self._turns(after_seq=record.folded_seq, embedded=False))
            if isinstance(t, Turn)]
        await c.store.put(await self._index([*pending, interaction,
                                             record.model_copy(update=update)]))
        return interaction

    # -- context and end ----------------------------------------------------------------------

    async def get_current_context(self) -> str:
        """The context: init block + cumulative summary + active turns (see :mod:`.context`).
        Reads only.

        Raises:
            SessionNotFoundError: no such session.
        """
        state = await self.state()
        return render_context(state.record.init_block or "", state.summary, state.active_turns)

    async def end_session(self) -> SessionEnd:
        """Flush the buffer (a partial interaction), complete the record, run session
        reflection, then aggregation of no-insight sessions when enough have gathered.

        Raises:
            SessionNotFoundError: no such session.
            SessionEndedError: the session has already ended (also when another client ended
                it during this call).
            ReasonerError: reflection failed (the session stays completed with reflection
                ``pending``; :func:`.reflection.reflect_pending` retries it).
        """
        record = await self.record()
        if record.status == SessionStatus.COMPLETED:
            raise SessionEndedError(f"session {self.session_id!r} has already ended")
        await self._prune_due(final=True)
        await self.embed_pending()
        ended: list[bool] = []

        def complete(r: ThreadSummary) -> ThreadSummary | None:
            ended.clear()
            if r.status == SessionStatus.COMPLETED:
                return None
            ended.append(True)
            now = utcnow()
            return r.model_copy(update={"status": SessionStatus.COMPLETED,
                                        "end_time": r.end_time or now, "updated_at": now})

        await modify(self._memory.store, self.user_id, self.record_id, complete,
                     kind=ThreadSummary)
        if not ended:
            raise SessionEndedError(f"session {self.session_id!r} has already ended")
        c = self._memory.components
        reflection = await reflect_session(c, self.user_id, self.session_id)
        aggregation = None
        if reflection.reflection_flag == "no-insight":
            aggregation = await aggregate_no_insight(c, self.user_id)
        return SessionEnd(session=await self.record(), reflection=reflection,
                          aggregation=aggregation)


async def embed_pending(memory: AsyncMemory, user_id: str, thread_id: str | None = None) -> int:
    """Embed the user's turns (of one thread, or all) stored without vectors, in one batch.

    A turn another client embedded meanwhile makes the conditional write fail; the look-up
    then runs again (at most :data:`MAX_CONFLICTS` times).

    Returns:
        How many turns this call embedded.

    Raises:
        EmbedderError: the model failed; the turns stay pending (and full-text indexed).
    """
    query = RecordQuery(kinds=frozenset({RecordKind.TURN}), thread_id=thread_id, embedded=False)
    c = memory.components
    for attempt in range(MAX_CONFLICTS):
        turns = [t for t in await c.store.list(user_id, query) if isinstance(t, Turn)]
        if not turns:
            return 0
        indexed = await build_indexed(turns, c.embedder, store=c.store,
                                      context_tokens=c.settings.turn_context_tokens)
        try:
            await c.store.put(indexed)
        except ConflictError:
            await backoff(attempt)
            continue
        return len(turns)
    raise ConflictError(f"pending turns of user {user_id!r} kept changing; gave up after "
                        f"{MAX_CONFLICTS} attempts")
