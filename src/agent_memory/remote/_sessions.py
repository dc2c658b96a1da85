"""Sessions, reflection and contextual fact retrieval of :class:`~agent_memory.remote.
RemoteMemory` (``/v1/users/{user_id}/sessions/...``, ``/retrieve-facts``, ``/profile/reflect``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, TypeAdapter

from ..errors import ConfigError, SessionNotFoundError
from ..models import Role, SessionStatus, ThreadSummary, Turn
from ..reasoners.sessions_models import FactRetrieval
from ..sessions import cfr
from ..sessions.keeper import SessionEnd, SessionState
from ..sessions.profile import ProfileUpdate
from ..sessions.reflection import ReflectionResult
from ._http import Routes

SESSIONS = TypeAdapter(list[ThreadSummary])
REFLECTIONS = TypeAdapter(list[ReflectionResult])


class SessionsRoutes(Routes):
    """The session methods of :class:`~agent_memory.AsyncMemory`, over the service. A
    session's state lives in the service's store, so any client (or worker process) may
    continue a session another one started."""

    async def list_sessions(self, user_id: str) -> list[ThreadSummary]:
        """The user's session records, oldest start first."""
        return await self.http.call("GET", self.user_path(user_id, "sessions"),
                                    idempotent=True, into=SESSIONS)

    async def open_session_ids(self, user_id: str) -> list[str]:
        """Ids of the user's sessions that are started and not ended, oldest start first."""
        return [s.thread_id or "" for s in await self.list_sessions(user_id)
                if s.status == SessionStatus.ACTIVE and s.init_block is not None]

    async def start_session(
        self, user_id: str, session_id: str | None = None, *, agent_id: str | None = None
    ) -> str:
        """Start a session (or resume it) and return its id (a new ``session_<hex>`` from
        the service when ``session_id`` is omitted; retried after a transport error only
        with an explicit id).

        Raises:
            InvalidInputError: the session already ended.
        """
        body = await self.http.call(
            "POST", self.user_path(user_id, "sessions"),
            json={"session_id": session_id, "agent_id": agent_id},
            idempotent=session_id is not None)
        return body["session_id"]

    async def session_state(self, user_id: str, session_id: str) -> SessionState:
        """The session as stored now: its record, buffered and active turns.

        Raises:
            SessionNotFoundError: no such session for the user.
        """
        body = await self.http.call("GET", self.user_path(user_id, "sessions", session_id),
                                    idempotent=True, not_found=SessionNotFoundError)
        return SessionState.model_validate(body)

    async def add_session_turn(
        self, user_id: str, session_id: str, role: str | Role, content: str, *,
        speaker: str | None = None, created_at: datetime | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Turn:
        """Add a turn to a session (a session not started yet is started). Not retried
        after the request was sent."""
        body = {"role": getattr(role, "value", role), "content": content, "speaker": speaker,
                "created_at": created_at, "metadata": metadata}
        found = await self.http.call(
            "POST", self.user_path(user_id, "sessions", session_id, "turns"), json=body,
            idempotent=False, not_found=SessionNotFoundError)
        return Turn.model_validate(found)

    async def get_current_context(self, user_id: str, session_id: str) -> str:
        """The session's context: init block + cumulative summary + active turns.

        Raises:
            SessionNotFoundError: no such session for the user.
        """
        body = await self.http.call(
            "GET", self.user_path(user_id, "sessions", session_id, "context"),
            idempotent=True, not_found=SessionNotFoundError)
        return body["context"]

    async def end_session(self, user_id: str, session_id: str) -> SessionEnd:
        """End a session: flush, complete the summary, reflect.

        Raises:
            SessionNotFoundError: no such session for the user.
        """
        body = await self.http.call(
            "POST", self.user_path(user_id, "sessions", session_id, "end"),
            idempotent=False, not_found=SessionNotFoundError)
        return SessionEnd.model_validate(body)

    async def reflect_pending_sessions(self, user_id: str) -> list[ReflectionResult]:
        """Reflect on completed sessions still pending, then aggregate no-insight sessions."""
        return await self.http.call("POST", self.user_path(user_id, "sessions", "reflect"),
                                    idempotent=True, into=REFLECTIONS)

    async def run_longterm_reflection(
        self, user_id: str, profile_model: type[BaseModel] | None = None
    ) -> ProfileUpdate:
        """Merge unprocessed insights into the profile (with the service's profile model).

        Raises:
            ConfigError: ``profile_model`` given (a Python type cannot be sent; configure
                it where the service runs).
        """
        if profile_model is not None:
            raise ConfigError("profile_model cannot be sent to the service; the service "
                              "validates with its own configured model")
        body = await self.http.call("POST", self.user_path(user_id, "profile", "reflect"),
                                    idempotent=True)
        return ProfileUpdate.model_validate(body)

    async def retrieve_facts_detailed(
        self, user_id: str, query: str, *, max_rounds: int = cfr.DEFAULT_MAX_ROUNDS
    ) -> FactRetrieval:
        """Contextual fact retrieval: the facts, the records found and the searches made."""
        body = await self.http.call(
            "POST", self.user_path(user_id, "retrieve-facts"),
            json={"query": query, "max_rounds": max_rounds}, idempotent=True)
        return FactRetrieval.model_validate(body)

    async def retrieve_facts(
        self, user_id: str, query: str, *, max_rounds: int = cfr.DEFAULT_MAX_ROUNDS
    ) -> str:
        """The facts about the user relevant to ``query``, rendered with their sources
        (record ids, sessions, dates) exactly as the Python API renders them."""
        return cfr.render(await self.retrieve_facts_detailed(user_id, query,
                                                             max_rounds=max_rounds))
