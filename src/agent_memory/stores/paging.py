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


def decode_cursor(cursor: str) -> tuple[float, int, str]:
    """The position a cursor names.

    Raises:
        InvalidInputError: the cursor was not made by :func:`encode_cursor`.
    """
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        created, seq, rid = json.loads(raw)
        return float(created), int(seq), str(rid)
    except (binascii.Error, ValueError, TypeError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"not a page cursor: {cursor[:40]!r}") from exc


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
