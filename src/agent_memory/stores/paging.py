"""Paging through list calls with an opaque cursor (keyset paging).

A page holds records in the order of :meth:`MemoryStore.list
<agent_memory.stores.base.MemoryStore.list>` (``created_at``, then ``seq``, then id) and a
cursor naming the last record's position; the next page starts strictly after it, so records
written or deleted meanwhile never shift a page (as an ``OFFSET`` would). The cursor is
URL-safe base64 of a small JSON array; a store that pages natively (Cosmos DB continuation
tokens) may put its own token in it.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInputError
from ..models import MemoryRecord

if TYPE_CHECKING:
    from .base import MemoryStore, RecordQuery

DEFAULT_PAGE_SIZE = 100
"""Records per page when the query sets no ``limit``."""


@dataclass(frozen=True)
class Page:
    """One page of a list call.

    Attributes:
        records: the records, in list order.
        cursor: pass it back to get the next page; ``None`` on the last page.
    """

    records: list[MemoryRecord]
    cursor: str | None = None


def sort_key(record: MemoryRecord) -> tuple[float, int, str]:
    """A record's position in list order: ``(created_at seconds, seq or -1, id)``."""
    return (record.created_at.timestamp(), int(getattr(record, "seq", -1)), record.id)


def encode_cursor(key: Sequence[Any]) -> str:
    """The cursor of a position (see :func:`sort_key`)."""
    return base64.urlsafe_b64encode(json.dumps(list(key)).encode()).decode().rstrip("=")


MAX_CURSOR_CHARS = 1_024
"""Longest cursor accepted: a real one is well under 200 characters (three short values)."""

MAX_SEQ = 2**63 - 1
"""Largest ``seq`` SQLite can bind (a signed 64-bit integer)."""


def load_cursor(cursor: Any) -> list[Any]:
    """The JSON array a cursor encodes, checked only for being a short flat 3-item array.

    Raises:
        InvalidInputError: not a string, longer than :data:`MAX_CURSOR_CHARS`, not base64 of
            JSON, deeply nested, or not an array of three values.
    """
    shown = repr(cursor[:40]) if isinstance(cursor, str) else type(cursor).__name__
    if not isinstance(cursor, str) or len(cursor) > MAX_CURSOR_CHARS:
        raise InvalidInputError(f"not a page cursor: {shown}")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        values = json.loads(raw)
    except (binascii.Error, ValueError, TypeError, UnicodeDecodeError, RecursionError) as exc:
        raise InvalidInputError(f"not a page cursor: {shown}") from exc
    if not isinstance(values, list) or len(values) != 3:
        raise InvalidInputError(f"not a page cursor: {shown}")
    return values


def decode_cursor(cursor: str) -> tuple[float, int, str]:
    """The position a cursor names: ``(created_at seconds, seq, id)``.

    Raises:
        InvalidInputError: the cursor was not made by :func:`encode_cursor` (wrong types, a
            time outside ``datetime``'s range, a ``seq`` SQLite cannot bind, ...).
    """
    created, seq, rid = load_cursor(cursor)
    fine = (isinstance(created, int | float) and not isinstance(created, bool)
            and isinstance(seq, int) and not isinstance(seq, bool) and -1 <= seq <= MAX_SEQ
            and isinstance(rid, str))
    try:
        if fine:
            datetime.fromtimestamp(float(created), UTC)
            rid.encode("utf-8")
    except (OverflowError, ValueError, OSError, UnicodeEncodeError):
        fine = False
    if not fine:
        raise InvalidInputError(f"not a page cursor: {cursor[:40]!r}")
    return float(created), int(seq), rid


async def page_by_listing(store: MemoryStore, user_id: str, query: RecordQuery,
                          cursor: str | None) -> Page:
    """:meth:`MemoryStore.page` for stores without native paging: lists every match and keeps
    the page after the cursor (correct, but reads the whole result each time).

    Raises:
        InvalidInputError: a malformed cursor.
    """
    size = query.limit or DEFAULT_PAGE_SIZE
    after = decode_cursor(cursor) if cursor else None
    everything = await store.list(user_id, query.model_copy(update={"limit": None}))
    if query.newest_first:
        rest = [r for r in everything if after is None or sort_key(r) < after]
    else:
        rest = [r for r in everything if after is None or sort_key(r) > after]
    records = rest[:size]
    more = len(rest) > size
    return Page(records, encode_cursor(sort_key(records[-1])) if more else None)
