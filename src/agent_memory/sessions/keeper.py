"""The memory keeper: the context of one live session (seed 001 section 4.2).

A session is a thread: ``session_id == thread_id``, and the session record is the thread's
:class:`~agent_memory.models.ThreadSummary` (``summary_{user_id}_{session_id}``).

- :meth:`MemoryKeeper.add_turn` stores the turn before it returns, full-text indexed but not
  yet embedded (one write transaction, no model call): the turn is durable and found by
  full-text search at once. Its vector comes later, in one batch with the other pending turns
  (see "Deferred embedding" below).
- Every ``k`` (``Settings.k_turn_buffer``) turns not yet folded, the keeper *prunes*: the k
  turns become an :class:`~agent_memory.models.Interaction` (``author: text`` lines, summary,
  topics, entities, two vectors, the k turn ids as evidence; id
  ``interaction_{session_id}_{first seq}``) and the cumulative summary (the session record's
  ``content``) is updated from the old summary plus those k turns. The pending turns (now
  embedded), the interaction and the record are written in one atomic batch, and the record's
  ``watermark_seq`` moves to the last folded turn.
- The active turns are every turn not yet folded, and never fewer than the last ``N``
  (``Settings.n_active_turns``): right after a prune exactly N turns stay verbatim.
- :meth:`get_current_context` renders init block + summary + active turns
  (:mod:`.context`).

Suspend / resume (seed 002): everything the context depends on is in the store (the init
block, the summary, the watermark, the turns), so :meth:`MemoryKeeper.open` in a new process
rebuilds the same context; a prune that a crash interrupted is redone on open (the
interaction id is deterministic, so nothing is duplicated).

Deferred embedding. Invariant: every turn at or before the watermark has its vector (a prune
embeds its turns in the same transaction that moves the watermark). The turns after the
watermark may not; the keeper embeds its pending turns in one batch (the same index text and
vectors as :func:`~agent_memory.indexing.build_indexed` gives any turn) when it prunes, when
the session ends, and on demand (:meth:`MemoryKeeper.embed_pending`, which the client calls
before a vector or hybrid search of that user). :meth:`MemoryKeeper.open` embeds the turns
after the watermark of a resumed session, so a crash leaves no turn without a vector once the
session is resumed (a session never resumed keeps them full-text searchable only).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..errors import InvalidInputError
from ..indexing import build_indexed, index_text, previous_turns
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
from .context import flatten, init_block, render_context
from .reflection import ReflectionResult, aggregate_no_insight, reflect_session

if TYPE_CHECKING:
    from ..client import AsyncMemory


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
    """The live context of one session. Build with :meth:`open` (starts or resumes).

    Attributes:
        user_id / session_id: the scope.
        record: the session record as last written.
    """

    def __init__(
        self, memory: AsyncMemory, record: ThreadSummary, buffer: Sequence[Turn],
        recent: Sequence[Turn], last: Turn | None,
    ) -> None:
        self._memory = memory
        self.record = record
        self.user_id = record.user_id
        self.session_id = record.thread_id or ""
        self._buffer: list[Turn] = list(buffer)
        # turns after the watermark may lack vectors (a crash, or a previous process)
        self._pending: list[Turn] = list(buffer)
        n = memory.settings.n_active_turns
        self._recent: deque[Turn] = deque(recent, maxlen=n)
        self._last = last
        self._next_seq = last.seq + 1 if last is not None else 0
        self._lock = asyncio.Lock()

    @classmethod
    async def open(
        cls, memory: AsyncMemory, user_id: str, session_id: str, *, agent_id: str | None = None
    ) -> MemoryKeeper:
        """Start the session, or resume it from the store when its record exists.

        Raises:
            MissingScopeError: blank ids.
            InvalidInputError: the session was already ended.
        """
        user_id = require_scope(user_id)
        session_id = require_scope(session_id, "session_id")
        await memory.connect()
        store = memory.store
        sid = summary_id(user_id, session_id)
        found = await store.get(user_id, [sid])
        record = found[0] if found and isinstance(found[0], ThreadSummary) else None
        if record is not None and record.status == SessionStatus.COMPLETED:
            raise InvalidInputError(
                f"session {session_id!r} of user {user_id!r} has ended; start a new session id"
            )
        watermark = record.watermark_seq if record else -1
        turn_q = RecordQuery(kinds=frozenset({RecordKind.TURN}), thread_id=session_id)
        buffer = [t for t in await store.list(user_id, turn_q.model_copy(
            update={"after_seq": watermark})) if isinstance(t, Turn)]
        n = memory.settings.n_active_turns
        recent: list[Turn] = []
        if n:
            newest = await store.list(user_id, turn_q.model_copy(
                update={"newest_first": True, "limit": n}))
            recent = sorted((t for t in newest if isinstance(t, Turn)), key=lambda t: t.seq)
        newest_one = await store.list(user_id, turn_q.model_copy(
            update={"newest_first": True, "limit": 1}))
        last = newest_one[0] if newest_one and isinstance(newest_one[0], Turn) else None
        if record is None or record.init_block is None:
            block = await build_init_block(memory, user_id, session_id)
            now = utcnow()
            if record is None:
                first = buffer[0].created_at if buffer else now
                record = ThreadSummary(
                    id=sid, user_id=user_id, thread_id=session_id, agent_id=agent_id,
                    content=f"Session {session_id} started {first:%Y-%m-%d %H:%M} UTC.",
                    start_time=first, status=SessionStatus.ACTIVE, init_block=block,
                    created_at=first, updated_at=now,
                )
                await memory.components.write([record])
            else:
                record = record.model_copy(update={"init_block": block, "updated_at": now})
                await store.update([record])
        keeper = cls(memory, record, buffer, recent, last)
        k = memory.settings.k_turn_buffer
        while len(keeper._buffer) >= k:  # a prune interrupted by a crash
            await keeper._prune(keeper._buffer[:k])
        await keeper.embed_pending()  # turns a previous process stored without vectors
        return keeper

    # -- turns ------------------------------------------------------------------------------

    @property
    def active_turns(self) -> list[Turn]:
        """The turns shown verbatim: the unfolded ones, at least the last N."""
        if len(self._buffer) >= len(self._recent):
            return list(self._buffer)
        return list(self._recent)

    @property
    def buffered(self) -> int:
        """Turns stored but not yet folded into an interaction."""
        return len(self._buffer)

    @property
    def pending_embeddings(self) -> int:
        """Turns this keeper stored (or found after the watermark) not yet embedded."""
        return len(self._pending)

    @property
    def summary(self) -> str | None:
        """The cumulative summary, ``None`` before the first prune."""
        return self.record.content if self.record.watermark_seq >= 0 else None

    async def add_turn(
        self,
        role: str | Role,
        content: str,
        *,
        speaker: str | None = None,
        created_at: datetime | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Turn:
        """Store one turn durably (full-text indexed, embedded later); prune when k turns
        are waiting.

        Without a prune this is one write transaction and no model call: the session state
        (next ``seq``, previous turn, record) is kept in memory, not read back.

        Returns:
            The stored :class:`Turn`.

        Raises:
            InvalidInputError (and subclasses): bad role/content, or the session has ended;
                nothing is written.
            EmbedderError / ReasonerError: the prune failed; the turn itself is stored and
                the prune is retried on the next turn, at end or on resume.
        """
        from ..client import TurnInput

        async with self._lock:
            if self.record.status == SessionStatus.COMPLETED:
                raise InvalidInputError(f"session {self.session_id!r} has ended")
            item = TurnInput(
                user_id=self.user_id, thread_id=self.session_id, role=role, content=content,
                speaker=speaker, agent_id=self.record.agent_id, created_at=created_at,
                metadata=metadata or {}, seq=self._next_seq,
            )
            self._memory._validate(item)
            turn = item.to_turn(self._next_seq)
            await self._memory.store.put([Indexed(record=turn, text=await self._text(turn))])
            self._next_seq += 1
            self._last = turn
            self._buffer.append(turn)
            self._pending.append(turn)
            self._recent.append(turn)
            after = getattr(self._memory, "_after_turns", None)
            if after is not None:  # the client's automatic-processing hook, as add_turns
                await after([turn])
            if len(self._buffer) >= self._memory.settings.k_turn_buffer:
                await self._prune(self._buffer[: self._memory.settings.k_turn_buffer])
            return turn

    async def _text(self, turn: Turn) -> str:
        """The turn's full-text entry: the product's index text, with its previous turn as
        :func:`~agent_memory.indexing.previous_turns` picks it (here from memory, no read)."""
        batch = [self._last, turn] if self._last is not None else [turn]
        return index_text(turn, (await previous_turns(batch)).get(turn.id),
                          self._memory.settings.turn_context_tokens)

    async def embed_pending(self) -> int:
        """Embed the pending turns now, in one batch (a cheap no-op when there are none).

        Returns:
            How many turns were embedded.

        Raises:
            EmbedderError: the model failed; the turns stay pending (and full-text indexed).
        """
        if not self._pending:
            return 0
        async with self._lock:
            turns = await self._pending_records()
            if turns:
                await self._memory.store.put(await self._index(turns))
            self._pending = []
            return len(turns)

    async def _pending_records(self) -> list[Turn]:
        """The pending turns as stored now (deleted ones skipped, later updates kept)."""
        if not self._pending:
            return []
        found = await self._memory.store.get(self.user_id, [t.id for t in self._pending])
        return [t for t in found if isinstance(t, Turn)]

    async def _index(self, records: Sequence[Any]) -> list[Indexed]:
        """Index text and vectors exactly as every other write path (one embedding call)."""
        c = self._memory.components
        return await build_indexed(records, c.embedder, store=c.store,
                                   context_tokens=c.settings.turn_context_tokens)

    async def _prune(self, chunk: Sequence[Turn]) -> Interaction:
        """Fold ``chunk`` (the oldest unfolded turns) into an interaction and the summary."""
        c = self._memory.components
        draft = await c.reasoner.describe_interaction(chunk)
        folded = await c.reasoner.summarize_thread(self.summary, chunk,
                                                   c.settings.summary_max_tokens)
        ids = [t.id for t in chunk]
        interaction = Interaction(
            id=f"interaction_{self.session_id}_{chunk[0].seq}",
            user_id=self.user_id, thread_id=self.session_id, agent_id=self.record.agent_id,
            content=flatten(chunk), summary=draft.summary, topics=draft.topics,
            entities=draft.entities, evidence=ids, created_at=chunk[0].created_at,
            metadata={"first_seq": chunk[0].seq, "last_seq": chunk[-1].seq},
        )
        record = self.record.model_copy(update={
            "content": folded.text,
            "key_topics": folded.key_topics[:5],
            "watermark_seq": chunk[-1].seq,
            "turn_count": self.record.turn_count + len(chunk),
            # the session's time is conversation time (replays may carry past dates)
            "start_time": (chunk[0].created_at if self.record.watermark_seq < 0
                           else self.record.start_time),
            "end_time": chunk[-1].created_at,
            "evidence": merge_ids(self.record.evidence, ids),
            "updated_at": utcnow(),
        })
        # the pending turns get their vectors in the transaction that moves the watermark
        turns = await self._pending_records()
        await c.store.put(await self._index([*turns, interaction, record]))
        self._pending = []
        self.record = record
        self._buffer = [t for t in self._buffer if t.seq > chunk[-1].seq]
        return interaction

    # -- context and end ----------------------------------------------------------------------

    def get_current_context(self) -> str:
        """The context: init block + cumulative summary + active turns (see :mod:`.context`)."""
        return render_context(self.record.init_block or "", self.summary, self.active_turns)

    async def end_session(self) -> SessionEnd:
        """Flush the buffer (a partial interaction), complete the record, run session
        reflection, then aggregation of no-insight sessions when enough have gathered.

        Raises:
            InvalidInputError: the session has already ended.
            ReasonerError: reflection failed (the session stays completed with reflection
                ``pending``; :func:`.reflection.reflect_pending` retries it).
        """
        async with self._lock:
            if self.record.status == SessionStatus.COMPLETED:
                raise InvalidInputError(f"session {self.session_id!r} has already ended")
            if self._buffer:
                await self._prune(list(self._buffer))
            now = utcnow()
            self.record = self.record.model_copy(update={
                "status": SessionStatus.COMPLETED,
                "end_time": self.record.end_time or now,
                "updated_at": now,
            })
            await self._memory.store.update([self.record])
        c = self._memory.components
        reflection = await reflect_session(c, self.user_id, self.session_id)
        aggregation = None
        if reflection.reflection_flag == "no-insight":
            aggregation = await aggregate_no_insight(c, self.user_id)
        found = await self._memory.store.get(self.user_id, [self.record.id])
        if found and isinstance(found[0], ThreadSummary):
            self.record = found[0]
        return SessionEnd(session=self.record, reflection=reflection, aggregation=aggregation)
