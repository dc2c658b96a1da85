"""Conditional writes of the SQLite store: versions, turn order, atomic access counters.

Every function runs on a connection inside the caller's write transaction (``BEGIN
IMMEDIATE``), so SQLite's single writer makes each check-and-write atomic across threads and
processes; no value read before the transaction decides anything.

- :func:`stamp` checks a write's precondition (the record's ``etag`` equals the stored one, or
  the record does not exist yet) and gives the record its new ``etag`` and, for a turn without
  a position, the next ``seq`` of its thread (``max(seq) + 1``, one seek in ``turns_by_seq``).
- :func:`touch` counts an access on facts in place (``access_count + 1``), without reading
  the document first, so concurrent recalls never lose an increment.
- :func:`write_row`, :func:`write_vectors` and :func:`bump_versions` write a record's row, its
  vectors and its user's write counter; :func:`vector_rows` reads vectors back with their
  records' filter columns for the cached views (:mod:`.snapshots`).
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ...errors import ConflictError
from ...models import MemoryRecord, Turn, as_utc
from .vectors import VectorRow


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



def write_row(conn: sqlite3.Connection, row: tuple[Any, ...], *, pending: bool = False) -> int:
    """Upsert one record's row (:func:`.query.record_row`); returns its ``rid`` (the caller
    writes its vectors and indexes its text, a whole batch at a time). ``pending``: the
    record has no vectors yet."""
    (rid,) = conn.execute(
        """
        INSERT INTO records (user_id, id, kind, thread_id, agent_id, seq, created_at,
                             content_hash, category, processed, superseded_by, doc,
                             collection, etag, updated_at, valid_from, valid_until,
                             pending)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (user_id, id) DO UPDATE SET
            kind = excluded.kind, thread_id = excluded.thread_id,
            agent_id = excluded.agent_id, seq = excluded.seq,
            created_at = excluded.created_at, content_hash = excluded.content_hash,
            category = excluded.category, processed = excluded.processed,
            superseded_by = excluded.superseded_by, doc = excluded.doc,
            collection = excluded.collection, etag = excluded.etag,
            updated_at = excluded.updated_at, valid_from = excluded.valid_from,
            valid_until = excluded.valid_until, pending = excluded.pending
        RETURNING rid
        """,
        (*row, 1 if pending else None),
    ).fetchone()
    return int(rid)


def write_vectors(
    conn: sqlite3.Connection, vectors: dict[tuple[str, str], list[tuple[Any, ...]]]
) -> None:
    """Replace the vectors of records ``(user_id, id) -> [(user_id, id, field, blob)]``:
    one delete per user and one insert for them all."""
    ids: dict[str, list[str]] = {}
    for user_id, record_id in vectors:
        ids.setdefault(user_id, []).append(record_id)
    for user_id, record_ids in ids.items():
        conn.execute(
            "DELETE FROM vectors WHERE user_id = ? "
            "AND record_id IN (SELECT value FROM json_each(?))",
            (user_id, json.dumps(record_ids)),
        )
    conn.executemany(
        "INSERT INTO vectors (user_id, record_id, field, vec) VALUES (?, ?, ?, ?)",
        [blob for blobs in vectors.values() for blob in blobs],
    )


def bump_versions(conn: sqlite3.Connection, users: set[str]) -> dict[str, int]:
    """Advance each user's version counter (so every connection's cache notices).

    Returns:
        user id -> its counter after the bump.
    """
    return {
        user: conn.execute(
            "INSERT INTO user_versions (user_id, version) VALUES (?, 1) "
            "ON CONFLICT (user_id) DO UPDATE SET version = version + 1 RETURNING version",
            (user,),
        ).fetchone()[0]
        for user in sorted(users)
    }


def vector_rows(conn: sqlite3.Connection, user_id: str, ids: set[str]
                ) -> dict[str, list[VectorRow]]:
    """Record id -> its stored vectors with the record's current filter columns."""
    out: dict[str, list[VectorRow]] = {record_id: [] for record_id in ids}
    for row in conn.execute(
        """
        SELECT v.record_id, v.field, v.vec, r.kind, r.thread_id, r.agent_id,
               r.created_at, r.seq, r.content_hash, r.category, r.processed,
               r.superseded_by, r.collection, r.valid_from, r.valid_until
        FROM vectors v JOIN records r ON r.user_id = v.user_id AND r.id = v.record_id
        WHERE v.user_id = ? AND v.record_id IN (SELECT value FROM json_each(?))
        """,
        (user_id, json.dumps(sorted(ids))),
    ):
        out[row[0]].append(VectorRow(*row))
    return out
