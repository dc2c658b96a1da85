"""Conditional writes of the SQLite store: versions, turn order, atomic access counters.

Every function runs on a connection inside the caller's write transaction (``BEGIN
IMMEDIATE``), so SQLite's single writer makes each check-and-write atomic across threads and
processes; no value read before the transaction decides anything.

- :func:`stamp` checks a write's precondition (the record's ``etag`` equals the stored one, or
  the record does not exist yet) and gives the record its new ``etag`` and, for a turn without
  a position, the next ``seq`` of its thread (``max(seq) + 1``, one seek in ``turns_by_seq``).
- :func:`touch` counts an access on facts in place (``access_count + 1``), without reading
  the document first, so concurrent recalls never lose an increment.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Sequence
from datetime import datetime

from ...errors import ConflictError
from ...models import MemoryRecord, Turn, as_utc


def new_etag() -> str:
    """A fresh version token: 16 random hex characters."""
    return secrets.token_hex(8)


def next_seq(conn: sqlite3.Connection, user_id: str, thread_id: str | None) -> int:
    """The ``seq`` the next turn of the thread gets: one past the largest stored (0 for the
    first)."""
    (top,) = conn.execute(
        "SELECT max(seq) FROM records WHERE user_id = ? AND thread_id IS ? AND kind = 'turn'",
        (user_id, thread_id),
    ).fetchone()
    return 0 if top is None else int(top) + 1


def stamp(conn: sqlite3.Connection, record: MemoryRecord, *, overwrite: bool = False
          ) -> MemoryRecord:
    """Check the precondition of writing ``record`` and return it as it will be stored.

    Args:
        conn: a connection inside a write transaction.
        record: the record to write. With an ``etag``, the stored record must carry the same
            one; without, no record with its id may exist (unless ``overwrite``).
        overwrite: let a record without an ``etag`` replace a stored one (bulk copies).

    Returns:
        A copy with a new ``etag`` (and, for a turn with ``seq < 0``, its thread's next seq).

    Raises:
        ConflictError: the stored version differs, the record is gone, or it already exists.
    """
    row = conn.execute(
        "SELECT etag FROM records WHERE user_id = ? AND id = ?", (record.user_id, record.id)
    ).fetchone()
    if record.etag is not None:
        if row is None:
            raise ConflictError(f"record {record.id!r} was deleted since it was read",
                                [record.id])
        if row[0] != record.etag:
            raise ConflictError(
                f"record {record.id!r} changed since it was read (version {record.etag}, "
                f"stored {row[0]}); read it again and re-apply the change", [record.id])
    elif row is not None and not overwrite:
        raise ConflictError(
            f"record {record.id!r} of user {record.user_id!r} already exists; read it and "
            "write the read copy back to replace it", [record.id])
    update: dict[str, object] = {"etag": new_etag()}
    if isinstance(record, Turn) and record.seq < 0:
        update["seq"] = next_seq(conn, record.user_id, record.thread_id)
    return record.model_copy(update=update)


def seq_conflict(exc: sqlite3.IntegrityError, ids: Sequence[str]) -> ConflictError | None:
    """The :class:`ConflictError` for a turn position already taken, else ``None``."""
    if "records.seq" in str(exc):
        return ConflictError(
            "a turn with the same seq already exists in its thread (omit seq to have the "
            "store assign the next one)", list(ids))
    return None


def touch(conn: sqlite3.Connection, user_id: str, ids: Sequence[str], at: datetime) -> list[str]:
    """Count one access on each fact or insight in ``ids`` (in place, new version each).

    Returns:
        The ids of the records touched (other kinds and unknown ids are skipped).
    """
    when = as_utc(at).isoformat().replace("+00:00", "Z")
    touched = []
    for record_id in dict.fromkeys(ids):
        etag = new_etag()
        row = conn.execute(
            "UPDATE records SET etag = ?, doc = json_set(doc, "
            "'$.access_count', coalesce(json_extract(doc, '$.access_count'), 0) + 1, "
            "'$.last_accessed_at', ?, '$.etag', ?) "
            "WHERE user_id = ? AND id = ? AND kind IN ('fact', 'insight') RETURNING id",
            (etag, when, etag, user_id, record_id),
        ).fetchone()
        if row is not None:
            touched.append(row[0])
    return touched

