"""The memory tools an agent calls (MCP tools; the same shapes serve the REST API).

Each tool is a pydantic input model, a pydantic output model and an async operation over
:class:`~agent_memory.client.AsyncMemory` that takes the user id separately: the user scope is
never a field of an input model, so nothing a model writes can choose whose memory it touches.
Input models forbid unknown fields (an argument such as ``user_id`` is refused, not ignored).

Tools (:data:`TOOLS`, in this order):

- ``add_memories``: store facts or insights the agent wants kept.
- ``add_turns``: store conversation turns of one thread.
- ``search``: vector, full-text or hybrid (RRF) search with the Python API's filters.
- ``retrieve_facts``: contextual fact retrieval (the facts relevant to a question, with sources).
- ``get_profile``: the user's cross-thread profile.
- ``forget``: hard-delete records by id, or everything of the user with ``confirm``.

Operations raise the library's typed errors (:mod:`agent_memory.errors`); the transport turns
them into tool errors.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..client import AsyncMemory
from ..consistency.forget import ForgetReport
from ..errors import InvalidInputError
from ..models import Fact, RecordKind, Role
from ..reasoners.sessions_models import RetrievedItem
from ..recall.collections import AddFailure, MemoryInput
from ..retrieval.hits import Provenance, SearchMode, Signal
from ..sessions import cfr
from ..validation import MAX_K
from .schemas import Time

MAX_ITEMS = 100
"""Most memories or turns one ``add_memories`` / ``add_turns`` call takes."""


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- add_memories ------------------------------------------------------------------------


class AddMemoriesInput(_Input):
    """Facts or insights to keep (1 to :data:`MAX_ITEMS`), each checked on its own."""

    memories: list[MemoryInput] = Field(
        min_length=1, max_length=MAX_ITEMS,
        description="Self-contained statements to remember, e.g. 'The user is allergic to "
                    "peanuts.'; optional category, importance (1-10) and collection.")


class AddedMemory(BaseModel):
    """A memory that was stored: its position in the input and the stored record's id."""

    index: int
    id: str
    kind: RecordKind
    content: str


class AddMemoriesOutput(BaseModel):
    """What ``add_memories`` stored and what it refused (with the reason)."""

    added: list[AddedMemory] = Field(default_factory=list)
    failed: list[AddFailure] = Field(default_factory=list)


async def add_memories(memory: AsyncMemory, user_id: str,
                       request: AddMemoriesInput) -> AddMemoriesOutput:
    """Store the memories for ``user_id``; see :meth:`AsyncMemory.add_memories`."""
    result = await memory.add_memories(user_id, request.memories)
    return AddMemoriesOutput(
        added=[AddedMemory(index=i, id=f.id, kind=f.kind, content=f.content)
               for i, f in result.added],
        failed=result.failed)


# -- add_turns ---------------------------------------------------------------------------


class TurnItem(_Input):
    """One message of a conversation."""

    role: Role = Field(description="user, assistant, tool or system.")
    content: str = Field(min_length=1, description="The message text.")
    speaker: str | None = Field(default=None, description="The speaker's name.")
    agent_id: str | None = Field(default=None, description="Scope the turn to one agent.")
    created_at: Time | None = Field(default=None,
                                    description="When it was said (default: now, UTC).")
    metadata: dict[str, Any] = Field(default_factory=dict)


class AddTurnsInput(_Input):
    """Turns of one thread (1 to :data:`MAX_ITEMS`), stored in order after its last turn."""

    thread_id: str = Field(min_length=1, description="The conversation (thread) id.")
    turns: list[TurnItem] = Field(min_length=1, max_length=MAX_ITEMS)


class StoredTurn(BaseModel):
    """A stored turn: its id and its position (``seq``) in the thread."""

    id: str
    thread_id: str
    seq: int
    role: Role
    created_at: datetime


class AddTurnsOutput(BaseModel):
    """The turns stored, in input order."""

    turns: list[StoredTurn]


async def add_turns(memory: AsyncMemory, user_id: str, request: AddTurnsInput) -> AddTurnsOutput:
    """Store the turns atomically for ``user_id``; see :meth:`AsyncMemory.add_turns`."""
    stored = await memory.add_turns([
        {"user_id": user_id, "thread_id": request.thread_id, **t.model_dump(exclude_none=True)}
        for t in request.turns])
    return AddTurnsOutput(turns=[
        StoredTurn(id=t.id, thread_id=t.thread_id or request.thread_id, seq=t.seq, role=t.role,
                   created_at=t.created_at) for t in stored])


# -- search ------------------------------------------------------------------------------


class SearchInput(_Input):
    """A search over the user's records (the filters of :meth:`AsyncMemory.search`)."""

    query: str = Field(min_length=1, description="What to look for, in natural language.")
    mode: SearchMode = Field(default=SearchMode.HYBRID,
                             description="vector, text (BM25) or hybrid (both fused with RRF).")
    k: int = Field(default=10, ge=1, le=MAX_K, description="Number of hits.")
    kinds: list[RecordKind] | None = Field(default=None, description="Only these record kinds.")
    thread_id: str | None = Field(default=None, description="Only this thread.")
    agent_id: str | None = Field(default=None, description="Only this agent's records.")
    since: Time | None = Field(default=None, description="Created at or after (ISO 8601).")
    until: Time | None = Field(default=None, description="Created before (ISO 8601).")
    include_superseded: bool = Field(default=False,
                                     description="Also facts retired by reconciliation.")


class MemoryHit(BaseModel):
    """One search hit: the record's text, its score per signal and its provenance."""

    content: str
    score: float
    signals: dict[str, Signal]
    provenance: Provenance
    category: str | None = None
    superseded_by: str | None = None


class SearchOutput(BaseModel):
    """Hits, best first."""

    hits: list[MemoryHit]


async def search(memory: AsyncMemory, user_id: str, request: SearchInput) -> SearchOutput:
    """Search ``user_id``'s records; see :meth:`AsyncMemory.search`."""
    hits = await memory.search(user_id, request.query, **request.model_dump(exclude={"query"}))
    return SearchOutput(hits=[
        MemoryHit(content=h.record.content, score=h.score, signals=h.signals,
                  provenance=h.provenance,
                  category=h.record.category if isinstance(h.record, Fact) else None,
                  superseded_by=h.record.superseded_by if isinstance(h.record, Fact) else None)
        for h in hits])


# -- retrieve_facts ----------------------------------------------------------------------


class RetrieveFactsInput(_Input):
    """A question about the user."""

    query: str = Field(min_length=1, description="The question, e.g. 'Where does the user "
                                                 "live?'.")
    max_rounds: int = Field(default=cfr.DEFAULT_MAX_ROUNDS, ge=1, le=20,
                            description="Most search rounds (LLM reasoner only).")


class RetrieveFactsOutput(BaseModel):
    """The compiled facts (citing record ids, with a Sources list) and the records found."""

    answer: str
    items: list[RetrievedItem]


async def retrieve_facts(memory: AsyncMemory, user_id: str,
                         request: RetrieveFactsInput) -> RetrieveFactsOutput:
    """Contextual fact retrieval for ``user_id``; see :meth:`AsyncMemory.retrieve_facts`."""
    found = await memory.retrieve_facts_detailed(user_id, request.query,
                                                 max_rounds=request.max_rounds)
    return RetrieveFactsOutput(answer=cfr.render(found), items=found.items)


# -- get_profile -------------------------------------------------------------------------


class GetProfileInput(_Input):
    """No arguments: the profile of the server's user."""


class ProfileOutput(BaseModel):
    """The user's profile; ``found`` is false before the profile step ever ran."""

    found: bool
    content: str | None = None
    structured: dict[str, Any] | None = None
    sources: list[str] = Field(default_factory=list)
    updated_at: datetime | None = None


async def get_profile(memory: AsyncMemory, user_id: str, request: GetProfileInput) -> ProfileOutput:
    """``user_id``'s profile; see :meth:`AsyncMemory.get_profile`."""
    profile = await memory.get_profile(user_id)
    if profile is None:
        return ProfileOutput(found=False)
    return ProfileOutput(found=True, content=profile.content, structured=profile.structured,
                         sources=profile.sources, updated_at=profile.updated_at)


# -- forget ------------------------------------------------------------------------------


class ForgetInput(_Input):
    """Records to delete for good: some by id, or (``everything`` and ``confirm``) all."""

    ids: list[str] = Field(default_factory=list, max_length=MAX_K,
                           description="Ids of the records to delete (from search hits).")
    everything: bool = Field(default=False, description="Delete every record of the user.")
    confirm: bool = Field(default=False, description="Must be true with everything=true: the "
                                                     "user asked to forget all their memories.")


async def forget(memory: AsyncMemory, user_id: str, request: ForgetInput) -> ForgetReport:
    """Hard-delete records by id (:meth:`AsyncMemory.forget_records`) or the whole user
    (:meth:`AsyncMemory.forget_user`).

    Raises:
        InvalidInputError: ``everything`` without ``confirm``, ids together with
            ``everything``, or neither.
    """
    if request.everything:
        if request.ids:
            raise InvalidInputError("give either ids or everything=true, not both")
        if not request.confirm:
            raise InvalidInputError("forgetting everything needs confirm=true; nothing was "
                                    "deleted")
        return await memory.forget_user(user_id)
    if request.confirm:
        raise InvalidInputError("confirm applies to everything=true only")
    return await memory.forget_records(user_id, request.ids)


# -- the tool table ----------------------------------------------------------------------

Operation = Callable[[AsyncMemory, str, Any], Awaitable[BaseModel]]


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, what it does, its schemas and its operation.

    Attributes:
        read_only: changes nothing (MCP ``readOnlyHint``).
        destructive: may delete data (MCP ``destructiveHint``).
    """

    name: str
    title: str
    description: str
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    run: Operation
    read_only: bool = False
    destructive: bool = False


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("add_memories", "Remember facts",
             "Store facts or insights about the user that should be remembered across "
             "conversations (one self-contained statement each).",
             AddMemoriesInput, AddMemoriesOutput, add_memories),
    ToolSpec("add_turns", "Store conversation turns",
             "Store messages of a conversation thread, in order.",
             AddTurnsInput, AddTurnsOutput, add_turns),
    ToolSpec("search", "Search memory",
             "Search the user's memories (turns, summaries, facts, insights, profile) by "
             "meaning and keywords; each hit has its scores and provenance.",
             SearchInput, SearchOutput, search, read_only=True),
    ToolSpec("retrieve_facts", "Retrieve facts about the user",
             "Answer a question about the user from memory: the relevant facts, citing the "
             "records, sessions and dates they come from.",
             RetrieveFactsInput, RetrieveFactsOutput, retrieve_facts, read_only=True),
    ToolSpec("get_profile", "Get the user profile",
             "The user's profile compiled across all conversations.",
             GetProfileInput, ProfileOutput, get_profile, read_only=True),
    ToolSpec("forget", "Forget memories",
             "Delete records for good by id, or every memory of the user when the user asks "
             "for it (everything=true and confirm=true).",
             ForgetInput, ForgetReport, forget, destructive=True),
)
"""Every tool, in the order they are listed."""


__all__ = [
    "MAX_ITEMS",
    "TOOLS",
    "AddMemoriesInput",
    "AddMemoriesOutput",
    "AddTurnsInput",
    "AddTurnsOutput",
    "ForgetInput",
    "ForgetReport",
    "GetProfileInput",
    "MemoryHit",
    "ProfileOutput",
    "RetrieveFactsInput",
    "RetrieveFactsOutput",
    "SearchInput",
    "SearchOutput",
    "ToolSpec",
    "TurnItem",
]
