"""Routes over turns, search, recall, memories, summaries and the profile (``/v1/users/...``).

Every route takes the user from the path through :data:`.auth.User`, so a caller acts only
inside its scope.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from .. import validation as check
from ..consistency.audit import FactHistory
from ..errors import RecordNotFoundError
from ..models import AnyRecord, Fact, ThreadSummary, Turn, UserProfile
from ..pipeline import StepResult
from ..recall.api import RecallResult
from ..recall.collections import BulkAddResult
from ..retrieval.hits import Hit
from ..sessions.profile import ProfileUpdate
from .auth import User
from .deps import ERRORS, Memory
from .schemas import (
    MemoriesBody,
    MemoriesQuery,
    MemoryPage,
    RecallBody,
    SearchBody,
    TurnBatch,
    TurnBody,
)

router = APIRouter(prefix="/v1/users/{user_id}", responses=ERRORS)


@router.post("/threads/{thread_id}/turns", status_code=201, tags=["turns"])
async def add_turn(user_id: User, thread_id: str, body: TurnBody, memory: Memory) -> Turn:
    """Store one turn, embedded and indexed (``seq`` assigned where the write commits)."""
    return await memory.add_turn(user_id, thread_id, **body.model_dump(exclude_unset=True))


@router.post("/turns", status_code=201, tags=["turns"])
async def add_turns(user_id: User, body: TurnBatch, memory: Memory) -> list[Turn]:
    """Store turns of one user (any threads) in one atomic batch; nothing is written when
    one of them is bad."""
    items = [{**t.model_dump(exclude_unset=True), "user_id": user_id} for t in body.turns]
    return await memory.add_turns(items)


@router.get("/threads/{thread_id}/turns", tags=["turns"])
async def get_thread(user_id: User, thread_id: str, memory: Memory,
                     k: int | None = None) -> list[Turn]:
    """The thread's turns in order; with ``k``, only the last ``k`` (1-1,000)."""
    return await memory.get_thread(user_id, thread_id, k)


@router.get("/threads", tags=["turns"])
async def threads(user_id: User, memory: Memory) -> list[str]:
    """Ids of the user's threads that have turns, in order of first turn."""
    return await memory.threads(user_id)


@router.post("/search", tags=["search"])
async def search(user_id: User, body: SearchBody, memory: Memory) -> list[Hit]:
    """Vector, full-text (BM25) or hybrid (RRF) search; each hit carries its score per
    signal and its provenance."""
    return await memory.search(user_id, **body.model_dump())


@router.post("/recall", tags=["search"])
async def recall(user_id: User, body: RecallBody, memory: Memory) -> RecallResult:
    """Recall memories for a context: relevance, importance and recency scored and
    explained, kept by a strategy (seed 004)."""
    return await memory.recall(user_id, **body.model_dump())


@router.get("/memories", tags=["memories"])
async def list_memories(user_id: User, memory: Memory,
                        params: Annotated[MemoriesQuery, Query()]) -> MemoryPage:
    """One page of the user's records (keyset paging: pages never shift when records are
    written meanwhile); ``limit`` 1-1,000."""
    page = await memory.get_memories_page(
        user_id, filter=params.filter(), newest_first=params.newest_first,
        limit=params.limit, cursor=params.cursor)
    return MemoryPage(records=page.records, cursor=page.cursor)  # type: ignore[arg-type]


@router.post("/memories", tags=["memories"])
async def add_memories(user_id: User, body: MemoriesBody, memory: Memory) -> BulkAddResult:
    """Add facts or insights in bulk (items as ``MemoryInput``: content, collection, kind,
    importance, retrieval_key, ...); a bad item is reported in ``failed``."""
    return await memory.add_memories(user_id, body.items)


@router.get("/memories/{record_id}", tags=["memories"])
async def get_memory(user_id: User, record_id: str, memory: Memory) -> AnyRecord:
    """One record by id (superseded facts included)."""
    record_id = check.record_id(record_id, "record_id")
    await memory.connect()
    found = await memory.store.get(user_id, [record_id])
    if not found:
        raise RecordNotFoundError(f"no record {record_id!r}")
    return found[0]


@router.get("/facts/{fact_id}/history", tags=["memories"])
async def history(user_id: User, fact_id: str, memory: Memory) -> FactHistory:
    """What a fact replaced, what replaced it, and its audit events."""
    return await memory.history(user_id, fact_id)


@router.post("/facts/{fact_id}/restore", tags=["memories"])
async def restore(user_id: User, fact_id: str, memory: Memory) -> Fact:
    """Undo the decision that retired a fact (pinned against later reconciliation)."""
    return await memory.restore(user_id, fact_id)


@router.get("/threads/{thread_id}/summary", tags=["summaries"])
async def get_summary(user_id: User, thread_id: str, memory: Memory) -> ThreadSummary:
    """The thread's summary (404 before one was generated)."""
    found = await memory.get_summary(user_id, thread_id)
    if found is None:
        raise RecordNotFoundError("no summary")
    return found


@router.post("/threads/{thread_id}/summary", tags=["summaries"])
async def generate_summary(user_id: User, thread_id: str, memory: Memory) -> StepResult:
    """Run the incremental thread-summary step."""
    return await memory.generate_thread_summary(user_id, thread_id)


@router.post("/threads/{thread_id}/facts", tags=["summaries"])
async def extract_facts(user_id: User, thread_id: str, memory: Memory) -> StepResult:
    """Run fact extraction over the thread's new turns (exact dedup by content hash)."""
    return await memory.extract_facts(user_id, thread_id)


@router.get("/profile", tags=["summaries"])
async def get_profile(
    user_id: User, memory: Memory,
    subject: Annotated[str | None, Query(
        min_length=1, max_length=200,
        description="A person of the user's threads (e.g. the other speaker); omit for the "
                    "user.")] = None,
) -> UserProfile:
    """A person's cross-thread profile, per field (404 when there is none)."""
    found = await memory.get_profile(user_id, subject=subject)
    if found is None:
        raise RecordNotFoundError("no profile" + (f" for {subject!r}" if subject else ""))
    return found


@router.post("/profile", tags=["summaries"])
async def generate_profile(user_id: User, memory: Memory) -> StepResult:
    """Run the incremental cross-thread profile step."""
    return await memory.generate_user_summary(user_id)


@router.post("/profile/reflect", tags=["summaries"])
async def longterm_reflection(user_id: User, memory: Memory) -> ProfileUpdate:
    """Merge unprocessed insights into the profile (long-term reflection)."""
    return await memory.run_longterm_reflection(user_id)


