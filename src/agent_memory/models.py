"""The records agent-memory keeps, as pydantic models.

Every record belongs to exactly one ``user_id`` (its partition). Conversation records also carry
a ``thread_id``; ``agent_id`` optionally scopes a record to one agent. Derived records (summaries,
facts, insights, interactions, profiles) list the turns they came from in ``evidence``.

Kinds (``RecordKind``)::

    turn         one raw message (short-term memory)
    interaction  k consecutive turns flattened as ``role: text`` lines, with summary/topics/entities
    summary      the incremental recap of one thread (id ``summary_{user_id}_{thread_id}``)
    fact         one self-contained assertion extracted from turns
    insight      a fact produced by session reflection (category, confidence, importance)
    profile      a person's cross-thread profile (id ``user_summary_{user_id}``, see profile_id)

Ids and hashes follow the "Concepts" seed (000): deterministic ids for summaries and profiles so a
re-run updates instead of duplicating, and ``content_hash`` = first 32 hex chars of the SHA-256
of the lower-cased, whitespace-collapsed text.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from enum import StrEnum
from itertools import chain
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from .errors import EmptyContentError, UnknownRoleError
from .validation import moment, scope

PROFILE_THREAD_ID = "__user_summary__"
"""``thread_id`` given to the user profile, which spans every thread (seed 000)."""


def utcnow() -> datetime:
    """Return the current time as a timezone-aware UTC datetime."""
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """Return ``value`` as an aware UTC datetime (naive values are taken to be UTC)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def new_id(prefix: str) -> str:
    """Return a fresh random id ``{prefix}_{32 hex chars}``."""
    return f"{prefix}_{uuid.uuid4().hex}"


_WS = re.compile(r"\s+")
_SLUG = re.compile(r"[\W_]+")


def normalize_text(text: str) -> str:
    """Lower-case ``text`` and collapse every run of whitespace to one space (stripped)."""
    return _WS.sub(" ", text.strip().lower())


def content_hash(text: str) -> str:
    """Exact-dedup key of a fact: SHA-256 of :func:`normalize_text`, first 32 hex chars (seed 000)."""
    return hashlib.sha256(normalize_text(text).encode("utf-8")).hexdigest()[:32]


def merge_ids(existing: Iterable[str], *more: Iterable[str]) -> list[str]:
    """Ordered union of id lists: ``existing`` first, then each new id once (evidence, sources).

    Example: ``merge_ids(["t1", "t2"], ["t2", "t3"]) == ["t1", "t2", "t3"]``.
    """
    return list(dict.fromkeys(chain(existing, *more)))


def summary_id(user_id: str, thread_id: str) -> str:
    """Deterministic id of a thread summary: ``summary_{user_id}_{thread_id}`` (seed 000)."""
    return f"summary_{user_id}_{thread_id}"


def subject_slug(subject: str) -> str:
    """The id-safe form of a person's name: lower-case letters and digits (any script), runs of
    anything else as one ``-`` (``"Mary-Jane O'Neil"`` -> ``"mary-jane-o-neil"``,
    ``"Élodie"`` -> ``"élodie"``); ``"person"`` when nothing is left."""
    return _SLUG.sub("-", normalize_text(subject)).strip("-") or "person"


def profile_id(user_id: str, subject: str | None = None) -> str:
    """Deterministic id of a profile (seed 000).

    ``user_summary_{user_id}`` is the user's own profile (``subject`` ``None``); another person
    of the user's threads (the second speaker of a two-person conversation) gets
    ``user_summary_{user_id}__{slug}`` with :func:`subject_slug` of their name.
    """
    base = f"user_summary_{user_id}"
    return base if subject is None else f"{base}__{subject_slug(subject)}"


def require_scope(value: str | None, name: str = "user_id") -> str:
    """Return the scope id ``value`` unchanged (never stripped); see
    :func:`agent_memory.validation.scope`.

    Raises:
        MissingScopeError: ``value`` is missing or blank.
        InvalidScopeError: not a string, surrounding whitespace, a control character or a
            lone surrogate.
    """
    return scope(value, name)


class EmbeddingSpec(BaseModel):
    """Which embedding model a store's vectors come from.

    Attributes:
        model: the embedder's name, e.g. ``local:all-MiniLM-L6-v2``.
        dim: vector length (dimensions).
    """

    model_config = ConfigDict(frozen=True)

    model: str
    dim: int = Field(gt=0)


class Role(StrEnum):
    """Who produced a turn. ``agent`` is accepted on input as an alias of ``assistant``."""

    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    SYSTEM = "system"

    @classmethod
    def parse(cls, value: str | Role) -> Role:
        """Return the role named by ``value``; raises :class:`UnknownRoleError` otherwise."""
        if isinstance(value, Role):
            return value
        text = str(value).strip().lower()
        if text == "agent":
            return cls.ASSISTANT
        try:
            return cls(text)
        except ValueError:
            raise UnknownRoleError(
                f"unknown role {value!r}; expected one of user, assistant, tool, system"
            ) from None


class RecordKind(StrEnum):
    """The kind of a stored record (see the module docstring)."""

    TURN = "turn"
    INTERACTION = "interaction"
    SUMMARY = "summary"
    FACT = "fact"
    INSIGHT = "insight"
    PROFILE = "profile"


DERIVED_KINDS = frozenset(
    {RecordKind.INTERACTION, RecordKind.SUMMARY, RecordKind.FACT, RecordKind.INSIGHT,
     RecordKind.PROFILE}
)


class SessionStatus(StrEnum):
    """Whether a thread (session) is still going on."""

    ACTIVE = "active"
    COMPLETED = "completed"


class ReflectionStatus(StrEnum):
    """Where a thread stands in session reflection (seed 001)."""

    PENDING = "pending"
    NO_INSIGHT = "no-insight"
    PROCESSED = "processed"


class SupersedeReason(StrEnum):
    """Why a fact was retired by reconciliation."""

    DUPLICATE = "duplicate"
    CONTRADICT = "contradict"


class MemoryRecord(BaseModel):
    """Fields shared by every record.

    Attributes:
        id: unique within the user's partition.
        user_id: the partition; required, never blank.
        thread_id: the conversation (session) the record belongs to, if any.
        agent_id: scopes the record to one agent; ``None`` shares it across the user's agents.
        content: the main text payload.
        created_at / updated_at: aware UTC datetimes.
        evidence: ids of the turns the record was derived from (empty for turns).
        metadata: free-form extra context (tool_name, tool_call_id, source ids, ...).
        collection: the memory collection the record belongs to (seed 004), if any; agents
            bound to a collection recall from it (:mod:`agent_memory.recall`).
        etag: the stored version of the record (an opaque token; an ETag in Azure Cosmos DB
            terms), set by the store on every read and write; ``None`` for a record never
            stored. Writing back a record that carries an etag is conditional on it: the store
            raises :class:`~agent_memory.errors.ConflictError` when the stored version moved.
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str
    kind: RecordKind
    user_id: str
    thread_id: str | None = None
    agent_id: str | None = None
    content: str
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    evidence: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    collection: str | None = None
    etag: str | None = None

    @field_validator("user_id", mode="before")
    @classmethod
    def _user_id(cls, value: Any) -> str:
        return require_scope(value, "user_id")

    @field_validator("content")
    @classmethod
    def _content(cls, value: str) -> str:
        if not value or not value.strip():
            raise EmptyContentError("content must not be empty")
        return value

    @field_validator("created_at", "updated_at")
    @classmethod
    def _utc(cls, value: datetime, info: Any) -> datetime:
        return moment(value, info.field_name)  # InvalidTimeError when UTC overflows


class Turn(MemoryRecord):
    """One raw message.

    Attributes:
        role: user, assistant, tool or system.
        speaker: the speaker's name (in multi-party data both speakers are people).
        seq: 0-based position within the thread, assigned on write.
    """

    kind: Literal[RecordKind.TURN] = RecordKind.TURN
    role: Role
    speaker: str | None = None
    seq: int = -1

    @field_validator("role", mode="before")
    @classmethod
    def _role(cls, value: Any) -> Role:
        return Role.parse(value)

    @property
    def author(self) -> str:
        """The speaker's name when known, else the role."""
        return self.speaker or self.role.value


class Interaction(MemoryRecord):
    """k consecutive turns of a thread flattened as ``role: text`` lines (seed 001).

    ``content`` holds the flattened lines; ``evidence`` the covered turn ids in order.
    """

    kind: Literal[RecordKind.INTERACTION] = RecordKind.INTERACTION
    summary: str = ""
    topics: list[str] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)


class ThreadSummary(MemoryRecord):
    """The incremental recap of one thread; id ``summary_{user_id}_{thread_id}``.

    Attributes:
        key_topics: up to a handful of topic phrases.
        start_time / end_time: times of the first and last covered turns.
        watermark_seq: ``seq`` of the last turn folded into the summary (-1: none yet).
        turn_count: number of turns covered.
        insight_ids: ids of the insights session reflection extracted from it (seed 001).
        init_block: the session initialization block the memory keeper built at session start
            (kept so a resumed session shows the same context).
        folded_seq: ``seq`` of the last turn the memory keeper folded into an interaction
            (-1: none yet); the turns after it are the session's buffer.
        aggregated_at: when reflection gathered this no-insight session with others (seed
            001 aggregation); ``None`` while it may still be gathered.
    """

    kind: Literal[RecordKind.SUMMARY] = RecordKind.SUMMARY
    key_topics: list[str] = Field(default_factory=list)
    start_time: datetime | None = None
    end_time: datetime | None = None
    status: SessionStatus = SessionStatus.ACTIVE
    reflection_status: ReflectionStatus = ReflectionStatus.PENDING
    watermark_seq: int = -1
    turn_count: int = 0
    insight_ids: list[str] = Field(default_factory=list)
    init_block: str | None = None
    folded_seq: int = -1
    aggregated_at: datetime | None = None


class AuditEvent(BaseModel):
    """One reconciliation decision as recorded on a fact (see
    :mod:`agent_memory.consistency.audit`).

    Attributes:
        at: when it was decided (aware UTC).
        action: ``merged``, ``superseded``, ``replaced`` or ``restored``.
        by: the fact that replaced this one, when one did.
        ids: the other facts involved.
        reason: ``duplicate`` or ``contradict``.
        evidence: what decided it (reasoner, rationale, similarity, ...).
    """

    model_config = ConfigDict(extra="forbid")

    at: datetime
    action: Literal["merged", "superseded", "replaced", "restored"]
    by: str | None = None
    ids: list[str] = Field(default_factory=list)
    reason: str | None = None
    evidence: dict[str, Any] = Field(default_factory=dict)

    @field_validator("at")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        return as_utc(value)


class Fact(MemoryRecord):
    """One self-contained assertion about the user or the world.

    Attributes:
        category: a label such as ``preference`` or ``financial_goals``.
        subject: whom or what the fact is about (e.g. the speaker's name).
        confidence: 0-1.
        importance: 1-10 (seed 004), ``None`` when not scored.
        content_hash: :func:`content_hash` of ``content``; exact-dedup key.
        retrieval_key: the text the fact is indexed by when it differs from ``content``
            (seed 004 ``vector_txt``).
        occurred_at: the absolute date the fact refers to, when one was stated or resolved.
        valid_from: when the fact became true (valid time, as in Zep/Graphiti's bi-temporal
            edges): the date the text states when it is not after the evidence turn (a past
            event or state change), else the evidence turn's time; defaults to ``created_at``
            (extraction sets ``created_at`` to the evidence turn's time). Duplicates merge into
            the earliest ``valid_from``.
        valid_until: when it stopped being true: set by reconciliation when a later fact
            contradicts it (the winner's ``valid_from``); ``None`` while it still holds.
            ``as_of`` reads (:attr:`~agent_memory.stores.base.RecordQuery.as_of`) return the
            facts with ``valid_from <= as_of < valid_until``.
        processed: whether long-term reflection has consumed it.
        access_count / last_accessed_at: recall statistics.
        superseded_by / supersede_reason / superseded_at: set when reconciliation retires it.
        supersede_evidence: what decided its retirement (reasoner, rationale, similarity,
            winner rule).
        merged_from: ids of the facts merged into this one by reconciliation.
        pinned: restored by hand; reconciliation never retires it again.
        audit: the reconciliation events that touched it, oldest first.

    The last four are control fields written by reconciliation and restore only; records
    added through the API (``add_memories``) cannot set them.
    """

    kind: Literal[RecordKind.FACT, RecordKind.INSIGHT] = RecordKind.FACT
    category: str | None = None
    subject: str | None = None
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    importance: int | None = Field(default=None, ge=1, le=10)
    content_hash: str = ""
    retrieval_key: str | None = None
    occurred_at: datetime | None = None
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    processed: bool = False
    access_count: int = 0
    last_accessed_at: datetime | None = None
    superseded_by: str | None = None
    supersede_reason: SupersedeReason | None = None
    superseded_at: datetime | None = None
    supersede_evidence: dict[str, Any] | None = None
    merged_from: list[str] = Field(default_factory=list)
    pinned: bool = False
    audit: list[AuditEvent] = Field(default_factory=list)

    def model_post_init(self, context: Any, /) -> None:
        if not self.content_hash:
            object.__setattr__(self, "content_hash", content_hash(self.content))
        if self.valid_from is None:
            object.__setattr__(self, "valid_from", self.created_at)

    @field_validator("valid_from", "valid_until", "occurred_at")
    @classmethod
    def _utc_optional(cls, value: datetime | None) -> datetime | None:
        return None if value is None else as_utc(value)

    @property
    def active(self) -> bool:
        """True unless reconciliation has superseded the fact."""
        return self.superseded_by is None


class ProfileField(BaseModel):
    """One field of a profile (``occupation``, ``family``, ...): what holds now, and from where.

    Attributes:
        name: the field's name in the profile schema.
        text: the field's rendered statements (one or more sentences).
        facts: ids of the current facts the statements came from.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    text: str
    facts: list[str] = Field(default_factory=list)


class UserProfile(MemoryRecord):
    """The cross-thread profile of one person; id :func:`profile_id`.

    ``content`` is the rendered profile, one ``"Label: statements"`` line per field within
    ``Settings.profile_max_tokens``.

    Attributes:
        subject: whom the profile is about (the person's name), ``None`` when unknown.
        fields: the profile per field, in schema order, each with its source facts.
        structured: optional structured part, validated against a user-supplied pydantic model.
        sources: ids of the records (facts, insights) it was built from.
        watermark: ``updated_at`` of the newest source already merged (incremental updates).
        covers_from / covers_until: conversation time covered: the earliest and latest
            ``created_at`` of the turns its facts cite (not when they were ingested).
    """

    kind: Literal[RecordKind.PROFILE] = RecordKind.PROFILE
    thread_id: str | None = PROFILE_THREAD_ID
    subject: str | None = None
    fields: list[ProfileField] = Field(default_factory=list)
    structured: dict[str, Any] | None = None
    sources: list[str] = Field(default_factory=list)
    watermark: datetime | None = None
    covers_from: datetime | None = None
    covers_until: datetime | None = None

    @field_validator("covers_from", "covers_until")
    @classmethod
    def _utc_cover(cls, value: datetime | None) -> datetime | None:
        return None if value is None else as_utc(value)

    def field(self, name: str) -> ProfileField | None:
        """The field called ``name``, or ``None``."""
        return next((f for f in self.fields if f.name == name), None)


AnyRecord = Annotated[
    Turn | Interaction | ThreadSummary | Fact | UserProfile, Field(discriminator="kind")
]
"""Any stored record, discriminated by ``kind``."""

RECORD_ADAPTER: TypeAdapter[Any] = TypeAdapter(AnyRecord)
"""Parses a stored JSON document back into its record class."""

KIND_MODELS: dict[RecordKind, type[MemoryRecord]] = {
    RecordKind.TURN: Turn,
    RecordKind.INTERACTION: Interaction,
    RecordKind.SUMMARY: ThreadSummary,
    RecordKind.FACT: Fact,
    RecordKind.INSIGHT: Fact,
    RecordKind.PROFILE: UserProfile,
}
