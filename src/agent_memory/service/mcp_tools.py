"""The memory tools an agent calls (MCP tools; the same shapes serve the REST API).

Each tool is a pydantic input model, a pydantic output model and an async operation over
:class:`~agent_memory.client.AsyncMemory` that takes the user id separately: the user scope is
never a field of an input model, so nothing a model writes can choose whose memory it touches.
Input models forbid unknown fields (an argument such as ``user_id`` is refused, not ignored).

Tools (:data:`TOOLS`, in this order):

- ``add_memories``: store facts or insights the agent wants kept.
- ``add_turns``: store conversation turns of one thread.
- ``search``: vector, full-text or hybrid (RRF) search with the Python API's filters; hits
  are compact (id, kind, date, text, score) unless ``detail`` is set.
- ``retrieve_facts``: contextual fact retrieval (the facts relevant to a question, with sources).
- ``get_profile``: the user's cross-thread profile.
- ``forget``: hard-delete records by id, or everything of the user with ``confirm``.

Descriptions of tools and fields are written for the model that calls them; the schemas the
server publishes are rewritten by :mod:`.mcp_schema` so no developer docstring reaches it.
Operations raise the library's typed errors (:mod:`agent_memory.errors`); the transport turns
them into tool errors.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidatorFunctionWrapHandler,
    field_validator,
)

from ..client import AsyncMemory
from ..consistency.forget import ForgetReport
from ..errors import InvalidInputError
from ..models import Fact, RecordKind, Role
from ..reasoners.sessions_models import RetrievedItem
from ..recall.collections import AddFailure, MemoryInput
from ..retrieval.hits import Hit, SearchMode, Signal
from ..sessions import cfr
from ..validation import MAX_K
from .schemas import Time

MAX_ITEMS = 100
"""Most memories or turns one ``add_memories`` / ``add_turns`` call takes."""


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- add_memories ------------------------------------------------------------------------


class AddMemoriesInput(_Input):
    """Facts or insights to keep (1 to :data:`MAX_ITEMS`), each checked on its own.

    The published schema of an item is :class:`MemoryInput`'s (what the model should send),
    but only the list is validated here: the items stay as sent and
    :meth:`AsyncMemory.add_memories` checks them one by one, as the REST route does, so a bad
    item is reported in ``failed`` and the others are stored.
    """

    memories: list[MemoryInput] = Field(
        min_length=1, max_length=MAX_ITEMS,
        description="The memories, each one self-contained statement, e.g. 'The user is "
                    "allergic to peanuts.'; category, importance (1-10) and collection are "
                    "optional.")

    @field_validator("memories", mode="wrap")
    @classmethod
    def _items_checked_one_by_one(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if isinstance(value, list) and 1 <= len(value) <= MAX_ITEMS:
            return value  # items as sent (JSON values): add_memories checks each
        return handler(value)  # not a list, or a bad length: pydantic's own error


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

    role: Role = Field(description="Who wrote it: user, assistant, tool or system.")
    content: str = Field(min_length=1, description="The message text.")
    speaker: str | None = Field(default=None, description="The speaker's name, if known.")
    agent_id: str | None = Field(default=None, description="Keep it for this agent only.")
    created_at: Time | None = Field(default=None,
                                    description="When it was said (default: now, UTC).")
    metadata: dict[str, Any] = Field(default_factory=dict)


class AddTurnsInput(_Input):
    """Turns of one thread (1 to :data:`MAX_ITEMS`), stored in order after its last turn."""

    thread_id: str = Field(min_length=1, description="The conversation's id; the same for "
                                                     "every call of one conversation.")
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

    query: str = Field(min_length=1, description="What to look for, in natural language, e.g. "
                                                 "'where the user lives'.")
    mode: SearchMode = Field(default=SearchMode.HYBRID,
                             description="hybrid (default: meaning and keywords), vector "
                                         "(meaning only) or text (exact keywords only).")
    k: int = Field(default=10, ge=1, le=MAX_K, description="How many memories to return.")
    kinds: list[RecordKind] | None = Field(
        default=None, description="Only these kinds, e.g. ['fact'] for stored facts or "
                                  "['turn'] for past messages; leave out for all.")
    thread_id: str | None = Field(default=None, description="Only this conversation.")
    agent_id: str | None = Field(default=None, description="Only this agent's memories.")
    since: Time | None = Field(default=None,
                               description="Only memories from this time on (ISO 8601).")
    until: Time | None = Field(default=None,
                               description="Only memories from before this time (ISO 8601).")
    include_superseded: bool = Field(
        default=False, description="Also facts replaced by newer ones (to see what changed).")
    as_of: Time | None = Field(
        default=None, description="Facts and insights: only those that were true at this time "
        "(ISO 8601), e.g. to answer where the user lived then; leave out for what holds now. "
        "It does not limit messages, summaries or the profile (later ones are returned too): "
        "add until, or kinds [fact, insight], to leave them out.")
    detail: bool = Field(
        default=False, description="Also return each memory's conversation, speaker, sources "
                                   "and per-method scores; leave false unless you need them.")


class MemoryHit(BaseModel):
    """One search hit: always its id, kind, date, text and score; with ``detail``, where it
    comes from and how each signal ranked it (fields left out are null, and are omitted from
    the tool's result)."""

    id: str = Field(description="The memory id (for forget).")
    kind: RecordKind
    date: datetime = Field(description="When it was said or written (UTC).")
    text: str = Field(description="What the memory says.")
    score: float = Field(description="Ranking score; higher is more relevant.")
    speaker: str | None = Field(default=None,
                                description="Who said it (a message) or whom it is about.")
    thread_id: str | None = Field(default=None, description="The conversation it belongs to.")
    agent_id: str | None = Field(default=None, description="The agent it belongs to.")
    category: str | None = Field(default=None, description="A fact's topic.")
    superseded_by: str | None = Field(default=None,
                                      description="The id of the newer fact that replaced it.")
    evidence: list[str] | None = Field(default=None,
                                       description="Ids of the messages it stands for.")
    signals: dict[str, Signal] | None = Field(
        default=None, description="Score and rank per method (vector, text).")
    valid_from: datetime | None = Field(default=None,
                                        description="When the fact became true.")
    valid_until: datetime | None = Field(
        default=None, description="When a newer fact replaced it (null while it holds).")


class SearchOutput(BaseModel):
    """Hits, best first."""

    hits: list[MemoryHit]


SCORE_DIGITS = 4
"""Decimals of a hit's score in a search result (more carry no ranking information)."""


def _hit(h: Hit, detail: bool) -> MemoryHit:
    record, where = h.record, h.provenance
    hit = MemoryHit(id=where.id, kind=where.kind, date=where.created_at, text=record.content,
                    score=round(h.score, SCORE_DIGITS), speaker=where.speaker)
    if not detail:
        return hit
    fact = record if isinstance(record, Fact) else None
    return hit.model_copy(update={
        "thread_id": where.thread_id, "agent_id": where.agent_id, "evidence": where.evidence,
        "signals": h.signals, "category": fact.category if fact else None,
        "superseded_by": fact.superseded_by if fact else None,
        "valid_from": fact.valid_from if fact else None,
        "valid_until": fact.valid_until if fact else None})


async def search(memory: AsyncMemory, user_id: str, request: SearchInput) -> SearchOutput:
    """Search ``user_id``'s records; see :meth:`AsyncMemory.search`. Hits are compact (id,
    kind, date, text, score, speaker) unless ``request.detail``."""
    hits = await memory.search(user_id, request.query,
                               **request.model_dump(exclude={"query", "detail"}))
    return SearchOutput(hits=[_hit(h, request.detail) for h in hits])


# -- retrieve_facts ----------------------------------------------------------------------


class RetrieveFactsInput(_Input):
    """A question about the user."""

    query: str = Field(min_length=1, description="The question, e.g. 'Where does the user "
                                                 "live?'.")
    max_rounds: int = Field(default=cfr.DEFAULT_MAX_ROUNDS, ge=1, le=20,
                            description="Most search rounds to run (more can find more; "
                                        "default is usually right).")


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
    """Whose profile: the server's user by default, or another person of their threads."""

    subject: str | None = Field(
        default=None, min_length=1, max_length=200,
        description="The person's name (e.g. the other speaker of a two-person thread); "
                    "omit for the user.")


class ProfileOutput(BaseModel):
    """A person's profile; ``found`` is false when there is none (yet).

    ``fields`` maps each profile field (``occupation``, ``family``, ...) to its statements;
    ``covers_from`` / ``covers_until`` are the conversation times of the facts it shows.
    """

    found: bool
    subject: str | None = None
    content: str | None = None
    fields: dict[str, str] = Field(default_factory=dict)
    structured: dict[str, Any] | None = None
    sources: list[str] = Field(default_factory=list)
    covers_from: datetime | None = None
    covers_until: datetime | None = None
    updated_at: datetime | None = None


async def get_profile(memory: AsyncMemory, user_id: str, request: GetProfileInput) -> ProfileOutput:
    """The profile of ``user_id`` or of ``request.subject``; see :meth:`AsyncMemory.get_profile`."""
    profile = await memory.get_profile(user_id, subject=request.subject)
    if profile is None:
        return ProfileOutput(found=False, subject=request.subject)
    return ProfileOutput(found=True, subject=profile.subject, content=profile.content,
                         fields={f.name: f.text for f in profile.fields},
                         structured=profile.structured, sources=profile.sources,
                         covers_from=profile.covers_from, covers_until=profile.covers_until,
                         updated_at=profile.updated_at)


# -- forget ------------------------------------------------------------------------------


class ForgetInput(_Input):
    """Records to delete for good: some by id, or (``everything`` and ``confirm``) all."""

    ids: list[str] = Field(default_factory=list, max_length=MAX_K,
                           description="Ids of the memories to delete (from search hits).")
    everything: bool = Field(default=False, description="Delete every memory of the user.")
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
        omit_nulls: null fields are left out of the result (its output model gives every
            nullable field a default).
    """

    name: str
    title: str
    description: str
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    run: Operation
    read_only: bool = False
    destructive: bool = False
    omit_nulls: bool = False


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("add_memories", "Remember facts",
             "Save facts about the user worth remembering in later conversations: preferences, "
             "plans, relationships, decisions, corrections. Call it when the user tells you "
             "something lasting or asks you to remember it. Pass one self-contained statement "
             "per memory ('The user's daughter Mia starts school in September 2025.'), not "
             "the conversation. Each memory is checked on its own: the valid ones are "
             "stored (their ids are returned), the others are listed in failed with their "
             "position and the reason.",
             AddMemoriesInput, AddMemoriesOutput, add_memories),
    ToolSpec("add_turns", "Store conversation turns",
             "Save messages of the current conversation (thread_id names it), oldest first, "
             "so later searches can find what was said. Facts are also extracted from them "
             "in the background.",
             AddTurnsInput, AddTurnsOutput, add_turns),
    ToolSpec("search", "Search memory",
             "Find memories of the user by meaning and keywords: past messages, conversation "
             "summaries, facts and insights. Call it before answering anything that depends "
             "on the user's past, preferences or plans. Each hit has id, kind, date, text and "
             "score; set detail=true only when you need its conversation, sources and "
             "per-method scores.",
             SearchInput, SearchOutput, search, read_only=True, omit_nulls=True),
    ToolSpec("retrieve_facts", "Retrieve facts about the user",
             "Answer a question about the user from memory: returns the relevant facts, each "
             "citing the memories and dates it comes from. Prefer it over search for a direct "
             "question ('Where does the user work?').",
             RetrieveFactsInput, RetrieveFactsOutput, retrieve_facts, read_only=True),
    ToolSpec("get_profile", "Get the user profile",
             "The user's profile compiled across all conversations (who they are, what they "
             "like, their circumstances). Call it at the start of a conversation for context.",
             GetProfileInput, ProfileOutput, get_profile, read_only=True),
    ToolSpec("forget", "Forget memories",
             "Delete memories for good. Pass ids (from search or add_memories) to delete those; "
             "only when the user asks to forget everything, pass everything=true and "
             "confirm=true. Cannot be undone.",
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
