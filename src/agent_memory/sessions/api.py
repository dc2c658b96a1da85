"""The client's session methods (:class:`SessionsAPI`, a mixin of ``AsyncMemory``).

Example::

    async with AsyncMemory.open(store="memory.db") as memory:
        sid = await memory.start_session("u1")
        await memory.add_session_turn("u1", sid, "user", "I want to retire at 60.")
        print(await memory.get_current_context("u1", sid))
        ended = await memory.end_session("u1", sid)          # flush, summary, reflection
        await memory.run_longterm_reflection("u1")            # insights -> profile
        print(await memory.retrieve_facts("u1", "retirement plans"))
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from .. import validation as check
from ..errors import SessionNotFoundError
from ..models import (
    RecordKind,
    Role,
    SessionStatus,
    ThreadSummary,
    Turn,
    UserProfile,
    require_scope,
)
from ..reasoners.sessions_models import FactRetrieval
from . import cfr
from .keeper import MemoryKeeper, SessionEnd, SessionState, embed_pending
from .profile import ProfileUpdate, run_longterm_reflection, set_structured_profile
from .reflection import ReflectionResult, reflect_pending

if TYPE_CHECKING:
    from ..pipeline.context import Components


class SessionsAPI:
    """Sessions (memory keeper), reflection, profile and contextual fact retrieval.

    Attributes:
        profile_model: the pydantic model of the structured profile (seed 003) used by
            :meth:`run_longterm_reflection` when none is passed; ``None`` for text only.
    """

    profile_model: type[BaseModel] | None = None

    if TYPE_CHECKING:
        @property
        def components(self) -> Components: ...

        async def connect(self) -> None: ...

    async def open_session_ids(self, user_id: str) -> list[str]:
        """Ids of the user's sessions that are started and not ended (from the store: any
        process or client may have started them), oldest start first."""
        return [s.thread_id or "" for s in await self.list_sessions(user_id)
                if s.status == SessionStatus.ACTIVE and s.init_block is not None]

    async def start_session(
        self, user_id: str, session_id: str | None = None, *, agent_id: str | None = None
    ) -> str:
        """Start a session (or resume it from the store) and return its id.

        Args:
            session_id: the session (= thread) id; a new ``session_<hex>`` when omitted.

        Raises:
            SessionEndedError: the session already ended (an InvalidInputError).
        """
        user_id = require_scope(user_id)
        session_id = require_scope(session_id if session_id is not None
                                   else f"session_{uuid.uuid4().hex[:16]}", "session_id")
        check.optional_scope(agent_id, "agent_id")
        await self.connect()
        await MemoryKeeper.open(self, user_id, session_id, agent_id=agent_id,  # type: ignore[arg-type]
                                 on_turns=self._after_turns)
        return session_id

    async def session_keeper(
        self, user_id: str, session_id: str, *, agent_id: str | None = None
    ) -> MemoryKeeper:
        """A :class:`MemoryKeeper` handle on a session, started first when it does not exist.
        The handle holds no state: every call reads the store."""
        require_scope(user_id)
        require_scope(session_id, "session_id")
        check.optional_scope(agent_id, "agent_id")
        await self.connect()
        keeper = self._keeper(user_id, session_id)
        try:
            await keeper.record()
        except SessionNotFoundError:
            return await MemoryKeeper.open(self, user_id, session_id, agent_id=agent_id,  # type: ignore[arg-type]
                                 on_turns=self._after_turns)
        return keeper

    def _keeper(self, user_id: str, session_id: str) -> MemoryKeeper:
        return MemoryKeeper(self, user_id, session_id,  # type: ignore[arg-type]
                            on_turns=self._after_turns)

    async def add_session_turn(
        self, user_id: str, session_id: str, role: str | Role, content: str, *,
        speaker: str | None = None, created_at: datetime | None = None,
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
        require_scope(user_id)
        require_scope(session_id, "session_id")
        Role.parse(role)
        check.content(content, self.components.settings.max_content_chars, "turn content")
        if speaker is not None:
            check.text(speaker, "speaker")
        check.optional_moment(created_at, "created_at")
        check.metadata(metadata)
        await self.connect()
        keeper = self._keeper(user_id, session_id)
        try:
            return await keeper.add_turn(role, content, speaker=speaker,
                                         created_at=created_at, metadata=metadata)
        except SessionNotFoundError:
            keeper = await self.session_keeper(user_id, session_id)
            return await keeper.add_turn(role, content, speaker=speaker,
                                         created_at=created_at, metadata=metadata)

    async def flush_session_embeddings(
        self, user_id: str, session_id: str | None = None
    ) -> int:
        """Embed the user's session turns stored without vectors yet (all of the user's, or
        one session's), in one batch. One index look-up when nothing is pending; the client
        runs it before every vector or hybrid search.

        Returns:
            How many turns were embedded.
        """
        user_id = require_scope(user_id)
        session_id = check.optional_scope(session_id, "session_id")
        await self.connect()
        return await embed_pending(self, user_id, session_id)  # type: ignore[arg-type]

    async def get_current_context(self, user_id: str, session_id: str) -> str:
        """The session's context: init block + cumulative summary + active turns. Reads only.

        Raises:
            SessionNotFoundError: no such session.
        """
        await self.connect()
        return await self._keeper(user_id, session_id).get_current_context()

    async def session_state(self, user_id: str, session_id: str) -> SessionState:
        """The session as stored now (record, buffered and active turns). Reads only.

        Raises:
            SessionNotFoundError: no such session.
        """
        await self.connect()
        return await self._keeper(user_id, session_id).state()

    async def end_session(self, user_id: str, session_id: str) -> SessionEnd:
        """End a session: flush, complete the summary, reflect (see :class:`MemoryKeeper`).

        Raises:
            SessionNotFoundError: no such session.
            SessionEndedError: it has already ended (an InvalidInputError).
        """
        await self.connect()
        return await self._keeper(user_id, session_id).end_session()

    async def list_sessions(self, user_id: str) -> list[ThreadSummary]:
        """The user's session records, oldest start first."""
        user_id = require_scope(user_id)
        await self.connect()
        from ..stores.base import RecordQuery

        found = await self.components.store.list(
            user_id, RecordQuery(kinds=frozenset({RecordKind.SUMMARY})))
        sessions = [s for s in found if isinstance(s, ThreadSummary)]
        return sorted(sessions, key=lambda s: (s.start_time or s.created_at, s.id))

    async def reflect_pending_sessions(self, user_id: str) -> list[ReflectionResult]:
        """Reflect on completed sessions still pending, then aggregate no-insight sessions."""
        await self.connect()
        return await reflect_pending(self.components, user_id)

    async def run_longterm_reflection(
        self, user_id: str, profile_model: type[BaseModel] | None = None
    ) -> ProfileUpdate:
        """Merge unprocessed insights into the profile (structured part validated against
        ``profile_model`` or :attr:`profile_model`)."""
        await self.connect()
        return await run_longterm_reflection(self.components, user_id,
                                             profile_model or self.profile_model)

    async def set_structured_profile(
        self, user_id: str, data: Mapping[str, Any],
        profile_model: type[BaseModel] | None = None,
    ) -> UserProfile:
        """Set the profile's structured part after validation (ProfileSchemaError if not)."""
        model = profile_model or self.profile_model
        if model is None:
            from ..errors import ConfigError

            raise ConfigError("no profile model: pass profile_model or set memory.profile_model")
        await self.connect()
        return await set_structured_profile(self.components, user_id, data, model)

    async def retrieve_facts_detailed(
        self, user_id: str, query: str, *, max_rounds: int = cfr.DEFAULT_MAX_ROUNDS
    ) -> FactRetrieval:
        """Contextual fact retrieval, as a structured result (answer, items, tool calls).

        Raises:
            MissingScopeError / InvalidScopeError: a bad ``user_id``.
            EmptyContentError / InvalidTextError: a blank query or a lone surrogate in it.
            InvalidNumberError: ``max_rounds`` is not from 1 to 20.
        """
        require_scope(user_id)
        check.text(query, "query", required=True)
        check.count(max_rounds, "max_rounds", maximum=20)
        await self.connect()
        return await cfr.retrieve(self.components, user_id, query, max_rounds)

    async def retrieve_facts(
        self, user_id: str, query: str, *, max_rounds: int = cfr.DEFAULT_MAX_ROUNDS
    ) -> str:
        """Contextual fact retrieval: the facts about the user relevant to ``query``, with
        their sources (record ids, sessions, dates)."""
        return cfr.render(await self.retrieve_facts_detailed(user_id, query,
                                                             max_rounds=max_rounds))
