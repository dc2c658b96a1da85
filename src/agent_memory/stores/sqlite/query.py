"""How records and filters map to SQL, and how user text becomes a safe FTS5 query.

No I/O here: the functions build rows, conditions and MATCH expressions for :mod:`.store`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic_core import PydanticSerializationError

from ... import validation as check
from ...errors import InvalidInputError
from ...models import Fact, MemoryRecord, Turn, as_utc
from ...text.terms import STOP_WORDS, query_terms  # noqa: F401 (re-exported here)
from ..base import RecordQuery


def match_expression(terms: Sequence[str]) -> str | None:
    """An FTS5 MATCH expression OR-ing ``terms``, each quoted (so never an operator).

    Returns:
        The expression, or ``None`` for no terms.
    """
    return " OR ".join(f'"{w}"' for w in terms) if terms else None


def fts_query(text: str) -> str | None:
    """Turn user text into a safe FTS5 query: its distinct non-stop words, quoted, OR-ed.

    Quoting makes every word a plain term, so punctuation and FTS5 syntax in ``text``
    (``"``, ``*``, ``-``, ``AND``, ``NEAR``, ``col:``) are never operators.

    Returns:
        The MATCH expression, or ``None`` when no searchable word remains.
    """
    return match_expression(query_terms(text))


def where_clause(user_id: str, query: RecordQuery) -> tuple[str, list[Any]]:
    """SQL condition over ``records r`` for the user's partition and ``query``'s filters.

    Keep in step with :meth:`VectorIndex.record_mask` (same semantics in numpy).
    """
    clauses = ["r.user_id = ?"]
    params: list[Any] = [user_id]

    def among(column: str, values: frozenset[Any]) -> None:
        clauses.append(f"r.{column} IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(sorted(str(v) for v in values)))

    if query.kinds is not None:
        among("kind", query.kinds)
    if query.ids is not None:
        among("id", query.ids)
    if query.thread_id is not None:
        clauses.append("r.thread_id = ?")
        params.append(query.thread_id)
    if query.agent_id is not None:
        clauses.append("(r.agent_id = ? OR r.agent_id IS NULL)")
        params.append(query.agent_id)
    if query.since is not None:
        clauses.append("r.created_at >= ?")
        params.append(as_utc(query.since).timestamp())
    if query.until is not None:
        clauses.append("r.created_at < ?")
        params.append(as_utc(query.until).timestamp())
    if query.updated_after is not None:
        clauses.append("r.updated_at > ?")
        params.append(as_utc(query.updated_after).timestamp())
    if query.embedded is not None:
        clauses.append("r.pending IS NULL" if query.embedded else "r.pending = 1")
    if query.after_seq is not None:
        clauses.append("r.seq > ?")
        params.append(query.after_seq)
    if query.content_hash is not None:
        clauses.append("r.content_hash = ?")
        params.append(query.content_hash)
    if query.content_hashes is not None:
        among("content_hash", query.content_hashes)
    if query.categories is not None:
        among("category", query.categories)
    if query.as_of is not None:
        moment = as_utc(query.as_of).timestamp()
        clauses.append("(r.valid_from IS NULL OR (r.valid_from <= ? AND "
                       "(r.valid_until IS NULL OR r.valid_until > ?)))")
        params += [moment, moment]
        if not query.include_superseded:  # contradicted facts count in their window
            clauses.append("(r.superseded_by IS NULL OR r.valid_until IS NOT NULL)")
    elif not query.include_superseded:
        clauses.append("r.superseded_by IS NULL")
    if query.processed is not None:
        clauses.append("r.processed = ?")
        params.append(int(query.processed))
    if query.collections is not None:
        among("collection", query.collections)
    return " AND ".join(clauses), params


def record_row(record: MemoryRecord) -> tuple[Any, ...]:
    """The ``records`` columns of a record: ``doc`` at index 11, then ``collection``
    (migration 2), ``etag`` and ``updated_at`` (migration 5), ``valid_from`` and
    ``valid_until`` (migration 8; facts and insights only)."""
    fact = record if isinstance(record, Fact) else None
    try:
        doc = record.model_dump_json()
    except PydanticSerializationError as exc:
        raise InvalidInputError(f"record {record.id!r} cannot be serialised: {exc}") from exc
    return (
        record.user_id,
        record.id,
        str(record.kind),
        record.thread_id,
        record.agent_id,
        record.seq if isinstance(record, Turn) else None,
        record.created_at.timestamp(),
        fact.content_hash if fact else None,
        fact.category if fact else None,
        int(fact.processed) if fact else None,
        fact.superseded_by if fact else None,
        doc,
        record.collection,
        record.etag,
        record.updated_at.timestamp(),
        _epoch(fact.valid_from or fact.created_at) if fact else None,
        _epoch(fact.valid_until) if fact else None,
    )


def _epoch(value: Any) -> float | None:
    return None if value is None else as_utc(value).timestamp()


def vector_blob(vector: Any, dim: int, what: str) -> bytes:
    """Validate one vector (:func:`agent_memory.validation.vector`) and return it as
    little-endian float32 bytes."""
    return check.vector(vector, dim, what).astype("<f4", copy=False).tobytes()
