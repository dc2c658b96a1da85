"""Routes over sessions, contextual fact retrieval, reconciliation, jobs, collections and
forgetting (``/v1/users/...``; ``/v1/jobs`` across users for admin scopes)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ..consistency.forget import ForgetReport
from ..consistency.reconcile import ReconcileResult
from ..jobs import Job
from ..models import ThreadSummary, Turn
from ..reasoners.sessions_models import FactRetrieval
from ..sessions.keeper import SessionEnd, SessionState
from ..sessions.reflection import ReflectionResult
from .auth import Admin, Caller, User
from .deps import ERRORS, Memory
from .keys import Scope
from .schemas import (
    Changed,
    Collections,
    ExpireBody,
    ForgetRecordsBody,
    ReconcileBody,
    RetrieveFactsBody,
    SessionContext,
    SessionStart,
    SessionStarted,
    SessionTurnBody,
)

router = APIRouter(prefix="/v1/users/{user_id}", responses=ERRORS)
admin_router = APIRouter(prefix="/v1", responses=ERRORS)

States = Annotated[list[str] | None, Query(description="Job states (repeatable): queued, "
                                           "running, done, failed.")]


@router.get("/sessions", tags=["sessions"])
async def list_sessions(user_id: User, memory: Memory) -> list[ThreadSummary]:
    """The user's session records, oldest start first."""
    return await memory.list_sessions(user_id)


@router.post("/sessions", status_code=201, tags=["sessions"])
async def start_session(user_id: User, body: SessionStart, memory: Memory) -> SessionStarted:
    """Start a session (or resume it from the store): its init block is built now."""
    sid = await memory.start_session(user_id, body.session_id, agent_id=body.agent_id)
    return SessionStarted(session_id=sid)


@router.post("/sessions/reflect", tags=["sessions"])
async def reflect_sessions(user_id: User, memory: Memory) -> list[ReflectionResult]:
    """Reflect on completed sessions still pending, then aggregate no-insight sessions."""
    return await memory.reflect_pending_sessions(user_id)


@router.get("/sessions/{session_id}", tags=["sessions"])
async def session_state(user_id: User, session_id: str, memory: Memory) -> SessionState:
    """The session as stored now: its record, buffered and active turns."""
    return await memory.session_state(user_id, session_id)


@router.post("/sessions/{session_id}/turns", status_code=201, tags=["sessions"])
async def add_session_turn(user_id: User, session_id: str, body: SessionTurnBody,
                           memory: Memory) -> Turn:
    """Add a turn to a session (durable at once; embedded in a batch later; a session not
    started yet is started)."""
    return await memory.add_session_turn(user_id, session_id, **body.model_dump())


@router.get("/sessions/{session_id}/context", tags=["sessions"])
async def session_context(user_id: User, session_id: str, memory: Memory) -> SessionContext:
    """The session's context: init block + cumulative summary + active turns."""
    return SessionContext(context=await memory.get_current_context(user_id, session_id))


@router.post("/sessions/{session_id}/end", tags=["sessions"])
async def end_session(user_id: User, session_id: str, memory: Memory) -> SessionEnd:
    """End a session: flush, complete the summary, reflect."""
    return await memory.end_session(user_id, session_id)


@router.post("/retrieve-facts", tags=["search"])
async def retrieve_facts(user_id: User, body: RetrieveFactsBody,
                         memory: Memory) -> FactRetrieval:
    """Contextual fact retrieval: the facts about the user relevant to ``query``, compiled
    with their sources (``answer``), the records found and the searches made."""
    return await memory.retrieve_facts_detailed(user_id, body.query,
                                                max_rounds=body.max_rounds)


@router.post("/reconcile", tags=["memories"])
async def reconcile(user_id: User, body: ReconcileBody, memory: Memory) -> ReconcileResult:
    """Merge duplicates and retire contradicted facts among the ``n`` most recent."""
    return await memory.reconcile_memories(user_id, body.n)


@router.get("/jobs", tags=["jobs"])
async def user_jobs(user_id: User, memory: Memory, state: States = None) -> list[Job]:
    """The user's automatic-processing jobs, in queue order."""
    return await memory.jobs(user_id, state)


@admin_router.get("/me", tags=["auth"])
async def whoami(scope: Caller) -> Scope:
    """The caller's own scope (tenant, user ids or prefix, admin): what this key may touch.
    The web inspector uses it to offer the key's users."""
    return scope


@admin_router.get("/jobs", tags=["jobs"])
async def all_jobs(_: Admin, memory: Memory, state: States = None) -> list[Job]:
    """Every user's jobs, in queue order (admin scopes only; 404 for others)."""
    return await memory.jobs(None, state)


@router.get("/agents/{agent_id}/collections", tags=["memories"])
async def agent_collections(user_id: User, agent_id: str, memory: Memory) -> list[str]:
    """The collections the agent recalls from."""
    return await memory.agent_collections(user_id, agent_id)


@router.put("/agents/{agent_id}/collections", tags=["memories"])
async def bind_collections(user_id: User, agent_id: str, body: Collections,
                           memory: Memory) -> Changed:
    """Bind the agent to collections (idempotent); ``changed``: bindings added."""
    return Changed(changed=await memory.bind_collections(user_id, agent_id, body.collections))


@router.delete("/agents/{agent_id}/collections", tags=["memories"])
async def unbind_collections(user_id: User, agent_id: str, body: Collections,
                             memory: Memory) -> Changed:
    """Remove bindings; ``changed``: bindings that existed."""
    return Changed(changed=await memory.unbind_collections(user_id, agent_id,
                                                           body.collections))


@router.delete("/threads/{thread_id}", tags=["forget"])
async def forget_thread(user_id: User, thread_id: str, memory: Memory) -> ForgetReport:
    """Hard-delete a thread's records, jobs, counters and watermarks."""
    return await memory.forget_thread(user_id, thread_id)


@router.post("/forget-records", tags=["forget"])
async def forget_records(user_id: User, body: ForgetRecordsBody, memory: Memory) -> ForgetReport:
    """Hard-delete the user's records with these ids; ids the user has no record with are
    listed in ``missing`` and delete nothing."""
    return await memory.forget_records(user_id, body.ids)


@router.post("/expire-turns", tags=["forget"])
async def expire_turns(user_id: User, body: ExpireBody, memory: Memory) -> ForgetReport:
    """Hard-delete the user's raw turns older than a time-to-live (or a cut-off)."""
    return await memory.expire_turns(user_id, older_than=body.older_than_seconds,
                                     before=body.before)


@router.delete("", tags=["forget"])
async def forget_user(user_id: User, memory: Memory) -> ForgetReport:
    """Hard-delete everything of the user."""
    return await memory.forget_user(user_id)
