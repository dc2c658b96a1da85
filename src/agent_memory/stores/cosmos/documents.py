"""Records as Cosmos DB documents, and back.

A document holds the record's fields (``model_dump(mode="json")``) plus what the queries need:

- ``text``: the full-text indexed text (:attr:`Indexed.index_text`);
- ``embedding`` / ``embedding_<field>``: the float32 vectors as JSON numbers;
- ``embedded``: whether the record was stored with vectors (a session's turns may be written
  first and embedded later);
- ``order_seq``: the turn's ``seq``, -1 for other kinds (every document has the three
  fields of the list order, ``created_at``, ``order_seq``, ``id``, so the composite ORDER BY
  never meets an undefined value);
- ``position``: a turn's ``[thread_id, seq]`` as JSON, any other document's
  ``id:<id>`` (the container's unique key: a turn position is taken once per user);
- ``ttl``: seconds a turn lives, when turns expire.

- ``valid_start`` / ``valid_end`` / ``valid_hidden``: the valid time of a fact or insight
  (``valid_from``; ``valid_until``, or :data:`OPEN_END` while it holds) and whether ``as_of``
  reads hide it (merged into a duplicate: superseded without ``valid_until``); other kinds
  get ``""`` / :data:`OPEN_END` / false, so an ``as_of`` filter is three flat comparisons.

``created_at`` and ``updated_at`` (and the valid-time fields) are written as ``%Y-%m-%dT%H:%M:%S.%fZ`` (UTC, always six
fractional digits) so that string order is time order for ORDER BY and range filters.
The record's ``etag`` is the document's ``_etag``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from ... import validation as check
from ...errors import InvalidInputError, StoreError
from ...models import RECORD_ADAPTER, Fact, MemoryRecord, RecordKind, Turn, as_utc
from ..base import CONTENT, Indexed

SEQUENCE_KIND = "sequence"
"""``kind`` of a thread's sequence document (never a record)."""

RECORD_KINDS = tuple(k.value for k in RecordKind)
"""Every record kind: queries name them, so sequence and meta documents never match."""

SEARCH_FIELDS = frozenset({"text", "embedded", "order_seq", "position", "ttl", "valid_start",
                           "valid_end", "valid_hidden"})
"""Document fields that are not record fields."""

OPEN_END = "9999-12-31T23:59:59.999999Z"
"""``valid_end`` of a fact still valid (and of every other kind): after any timestamp."""

SYSTEM_FIELDS = frozenset({"_rid", "_self", "_ts", "_attachments", "_etag", "_lsn"})


def timestamp(value: datetime) -> str:
    """A datetime as stored: UTC, fixed width, so string order is time order."""
    return as_utc(value).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def vector_field(name: str) -> str:
    """The document field of a vector field (``embedding`` for ``content``)."""
    return "embedding" if name == CONTENT else f"embedding_{name}"


def position(record: MemoryRecord) -> str:
    """The unique ``position`` of a record's document."""
    if isinstance(record, Turn):
        return json.dumps([record.thread_id, record.seq])
    return f"id:{record.id}"


def check_vector(vector: Any, dim: int, what: str) -> list[float]:
    """Validate one vector (shape ``(dim,)``, finite) and return it as float32 JSON numbers.

    Raises:
        DimensionMismatchError: wrong shape.
        InvalidInputError: NaN or infinity.
    """
    return [float(x) for x in check.vector(vector, dim, what)]


def check_text(text: str, what: str) -> None:
    """Refuse text that cannot travel as UTF-8 (a lone surrogate).

    Raises:
        InvalidInputError: the text cannot be encoded.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(f"{what}: text cannot be encoded as UTF-8: {exc}") from None


def to_document(item: Indexed, dim: int, ttl: int | None = None) -> dict[str, Any]:
    """The document of an item: record fields, index text, vectors and query fields.

    Args:
        item: the record with its index text and vectors.
        dim: the store's vector dimension.
        ttl: seconds a turn lives (``None``: no expiry); other kinds never expire.

    Raises:
        DimensionMismatchError: a vector has the wrong length.
        InvalidInputError: a vector holds NaN, a vector field is not a name, or text cannot be
            encoded.
    """
    record = item.record
    try:
        doc: dict[str, Any] = record.model_dump(mode="json", exclude={"etag"})
    except PydanticSerializationError as exc:
        raise InvalidInputError(f"record {record.id!r} cannot be serialised: {exc}") from exc
    check_text(json.dumps(doc, ensure_ascii=False), f"record {record.id!r}")
    doc["created_at"] = timestamp(record.created_at)
    doc["updated_at"] = timestamp(record.updated_at)
    fact = record if isinstance(record, Fact) else None
    doc["valid_start"] = timestamp(fact.valid_from or fact.created_at) if fact else ""
    doc["valid_end"] = timestamp(fact.valid_until) if fact and fact.valid_until else OPEN_END
    doc["valid_hidden"] = bool(fact and fact.superseded_by and fact.valid_until is None)
    text = item.index_text
    check_text(text, f"record {record.id!r}")
    doc["text"] = text
    for name, vector in item.vectors.items():
        if not isinstance(name, str) or not name or not name.replace("_", "").isalnum():
            raise InvalidInputError(f"record {record.id!r}: vector field {name!r} must be a "
                                    "name of letters, digits and underscores")
        doc[vector_field(name)] = check_vector(vector, dim, f"record {record.id!r}")
    doc["embedded"] = bool(item.vectors)
    doc["order_seq"] = record.seq if isinstance(record, Turn) else -1
    doc["position"] = position(record)
    if ttl is not None and isinstance(record, Turn):
        doc["ttl"] = ttl
    return doc


def is_private(name: str) -> bool:
    """Whether a document field is not a record field (system, search or vector field)."""
    return (name in SYSTEM_FIELDS or name in SEARCH_FIELDS or name == "embedding"
            or name.startswith("embedding_"))


def to_record(doc: Mapping[str, Any]) -> MemoryRecord:
    """The record a document holds, with the document's ``_etag`` as ``etag``.

    Raises:
        StoreError: the document is not a valid record.
    """
    fields = {k: v for k, v in doc.items() if not is_private(k)}
    fields["etag"] = doc.get("_etag")
    try:
        return RECORD_ADAPTER.validate_python(fields)
    except ValidationError as exc:
        raise StoreError(f"a stored document ({doc.get('id')!r}) is not a valid record: "
                         f"{exc.errors(include_input=False)[:1]}") from exc


def vectors_of(doc: Mapping[str, Any]) -> dict[str, list[float]]:
    """The vector fields a document carries: field name -> numbers."""
    out = {}
    for key, value in doc.items():
        if key == "embedding":
            out[CONTENT] = value
        elif key.startswith("embedding_"):
            out[key.removeprefix("embedding_")] = value
    return out
