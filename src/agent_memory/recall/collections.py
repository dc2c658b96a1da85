"""Memories added in bulk into collections (seed 004 ``add_memories``).

Each item is validated on its own: the valid ones are embedded and written in one atomic batch,
the invalid ones are reported by position with the reason and write nothing. If the write
itself fails (embedder or store), nothing is written and the error propagates.

Agents are bound to collections in the store (``MemoryStore.bind_collections``; in SQLite the
``agent_collections`` table of migration 2), so a binding is shared by every process using the
store and is scoped to the user like every record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .. import validation as check
from ..errors import AgentMemoryError, ContentTooLargeError, InvalidInputError
from ..models import Fact, RecordKind, as_utc, new_id, require_scope, utcnow
from ..pipeline.context import Components


class MemoryInput(BaseModel):
    """One memory to add (seed 004 ``AddMemoryRequest``).

    Attributes:
        content: the memory text (non-empty).
        collection: the collection it belongs to (recommended; agents recall by collection).
        kind: ``fact`` (default) or ``insight``.
        importance: 1-10 (seed 004), or ``None`` when not scored.
        retrieval_key: the text to index it by instead of ``content`` (seed 004
            ``vector_txt``: the situation in which it should be recalled).
        agent_id / thread_id: optional scopes.
        category / subject / confidence / evidence / metadata / created_at / id: as on
            :class:`~agent_memory.models.Fact`.
        valid_from / valid_until: the fact's valid time (default: from ``created_at``, still
            valid); ``valid_until`` must be after ``valid_from``.
    """

    model_config = ConfigDict(extra="forbid")

    content: str = Field(min_length=1)
    collection: str | None = None
    kind: Literal["fact", "insight"] = "fact"
    importance: int | None = Field(default=None, ge=1, le=10)
    retrieval_key: str | None = None
    agent_id: str | None = None
    thread_id: str | None = None
    category: str | None = None
    subject: str | None = None
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    evidence: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime | None = None
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    id: str | None = None

    # Before pydantic's coercion: bytes are not text, "7" is not an importance, a number is
    # not a time; metadata holds JSON values only.
    @field_validator("content", "collection", "retrieval_key", "agent_id", "thread_id",
                     "category", "subject", mode="before")
    @classmethod
    def _text(cls, value: Any, info: Any) -> Any:
        return check.strict_text(value, info.field_name)

    @field_validator("importance", mode="before")
    @classmethod
    def _importance(cls, value: Any) -> Any:
        return check.strict_int(value, "importance")

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, value: Any) -> Any:
        return check.number(value, "confidence", minimum=0.0, maximum=1.0)

    @field_validator("metadata", mode="before")
    @classmethod
    def _metadata(cls, value: Any) -> Any:
        return check.metadata(value)

    @field_validator("created_at", mode="before")
    @classmethod
    def _time(cls, value: Any) -> Any:
        return None if value is None else check.moment_input(value, "created_at")

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, value: Any) -> Any:
        return check.optional_record_id(value, "id")

    @field_validator("evidence", mode="before")
    @classmethod
    def _evidence(cls, value: Any) -> Any:
        if not isinstance(value, list):
            raise InvalidInputError("evidence must be a list of turn ids")
        return [check.record_id(v, "evidence id") for v in value]


class AddFailure(BaseModel):
    """An item that was not added: its position in the input, the item as given (as JSON
    values: a :class:`MemoryInput` as its fields) and why."""

    index: int
    item: Any
    error: str


class BulkAddResult(BaseModel):
    """What :func:`add_memories` did.

    Attributes:
        added: ``(index, stored record)`` for each item written, as the store returned it
            (with its ``etag``, so a conditional update can follow).
        failed: one :class:`AddFailure` per item rejected (nothing of it was written).
    """

    added: list[tuple[int, Fact]] = Field(default_factory=list)
    failed: list[AddFailure] = Field(default_factory=list)


def _build(user_id: str, item: MemoryInput, now: datetime, max_chars: int) -> Fact:
    check.text(item.content, "content")
    if not item.content.strip():
        raise InvalidInputError("content must not be blank")
    if len(item.content) > max_chars:
        raise ContentTooLargeError(f"content is {len(item.content)} characters; the limit is "
                                   f"{max_chars} (Settings.max_content_chars)")
    for name in ("retrieval_key", "collection", "category", "subject"):
        if getattr(item, name) is not None:
            check.text(getattr(item, name), name)
    check.optional_scope(item.agent_id, "agent_id")
    check.optional_scope(item.thread_id, "thread_id")
    check.optional_moment(item.created_at, "created_at")
    start = check.optional_moment(item.valid_from, "valid_from") or item.created_at or now
    end = check.optional_moment(item.valid_until, "valid_until")
    if end is not None and end <= as_utc(start):
        raise InvalidInputError(f"valid_until ({end.isoformat()}) must be after valid_from "
                                f"({as_utc(start).isoformat()})")
    if item.retrieval_key is not None and not item.retrieval_key.strip():
        raise InvalidInputError("retrieval_key must not be blank when given")
    if item.collection is not None and not item.collection.strip():
        raise InvalidInputError("collection must not be blank when given")
    return Fact(
        id=item.id or new_id(item.kind),
        kind=RecordKind(item.kind),
        user_id=user_id,
        thread_id=item.thread_id,
        agent_id=item.agent_id,
        content=item.content,
        collection=item.collection.strip() if item.collection else None,
        importance=item.importance,
        retrieval_key=item.retrieval_key,
        category=item.category,
        subject=item.subject,
        confidence=item.confidence,
        evidence=item.evidence,
        metadata=item.metadata,
        created_at=item.created_at or now,
        updated_at=now,
        valid_from=item.valid_from,
        valid_until=item.valid_until,
    )


def _echo(item: Any) -> Any:
    """A refused item as JSON values for ``failed``: a :class:`MemoryInput` as the fields it
    was given (not its ``repr``), anything else made JSON-safe."""
    if isinstance(item, BaseModel):
        item = item.model_dump(mode="json", exclude_unset=True)
    return check.json_safe(item)


async def add_memories(
    c: Components, user_id: str, items: Iterable[MemoryInput | Mapping[str, Any]]
) -> BulkAddResult:
    """Add memories in bulk; report per-item success and failure.

    Args:
        c: the components (store, embedder).
        user_id: the partition (required).
        items: :class:`MemoryInput` objects or mappings of its fields.

    Returns:
        A :class:`BulkAddResult`; ``added`` in input order.

    Items longer than ``c.settings.max_content_chars``, with a lone surrogate, a bad scope id,
    a ``created_at`` out of range in UTC or the id of an existing record are reported in
    ``failed`` with the reason.

    Raises:
        MissingScopeError / InvalidScopeError: a bad ``user_id`` (nothing is written).
        EmbedderError / StoreError: the batch write failed (nothing is written); a
            ``ConflictError`` when another writer created one of the ids meanwhile.
    """
    user_id = require_scope(user_id)
    result = BulkAddResult()
    now = utcnow()
    ready: list[tuple[int, Fact]] = []
    seen: set[str] = set()
    items_list = list(items)
    for index, raw in enumerate(items_list):
        try:
            item = raw if isinstance(raw, MemoryInput) else MemoryInput.model_validate(raw)
            fact = _build(user_id, item, now, c.settings.max_content_chars)
            if fact.id in seen:
                raise InvalidInputError(f"id {fact.id!r} appears twice in the batch")
            seen.add(fact.id)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or "item"
            cause = err.get("ctx", {}).get("error")
            reason = str(cause) if isinstance(cause, AgentMemoryError) else f"{where}: {err['msg']}"
            result.failed.append(AddFailure(index=index, item=_echo(raw),
                                            error=check.json_safe(reason)))
            continue
        except (AgentMemoryError, TypeError, ValueError) as exc:
            result.failed.append(AddFailure(index=index, item=_echo(raw),
                                            error=check.json_safe(str(exc))))
            continue
        ready.append((index, fact))
    # ids given by the caller that already exist are reported, not overwritten (a record is
    # replaced only through a read copy with its version)
    taken = {r.id for r in await c.store.get(user_id, [f.id for _, f in ready])}
    for index, fact in [(i, f) for i, f in ready if f.id in taken]:
        result.failed.append(AddFailure(index=index, item=_echo(items_list[index]),
                                        error=f"a record with id {fact.id!r} already exists"))
    ready = [(i, f) for i, f in ready if f.id not in taken]
    result.failed.sort(key=lambda failure: failure.index)
    stored = await c.write([fact for _, fact in ready])  # in order, with their etags
    result.added = [(index, record) for (index, _), record in zip(ready, stored, strict=True)
                    if isinstance(record, Fact)]
    return result
