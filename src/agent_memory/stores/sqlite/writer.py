"""Record writes of the SQLite store and the index upkeep that goes with them.

:class:`RecordWriter` runs each write -- ``put``, ``update``, ``touch``, ``delete`` -- as one
``BEGIN IMMEDIATE`` transaction on the store's writer connection (:class:`.database.Database`),
under its lock, so SQLite's single writer makes each check-and-write atomic across threads and
processes (the row-level SQL and version checks are in :mod:`.writes`). Inside the same
transaction it keeps the indexes in step: the record's vectors, its full-text postings
(:func:`.bm25.index_documents`) and the user's write counter; after the commit it layers the
write onto the cached vector view, or drops the view when the write failed
(:class:`.snapshots.VectorSnapshots`).

The methods block; :class:`.store.SQLiteStore` runs them on its worker pool.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ...errors import InvalidInputError, RecordNotFoundError
from ...models import MemoryRecord, require_scope
from ..base import Indexed
from .bm25 import index_documents
from .database import Database
from .query import record_row, vector_blob
from .snapshots import VectorSnapshots
from .vectors import VectorRow
from .writes import (
    bump_versions,
    next_seq,
    seq_conflict,
    stamp,
    vector_rows,
    write_row,
    write_vectors,
)
from .writes import touch as touch_facts

_FILTER_COLUMNS = (
    "SELECT kind, thread_id, agent_id, seq, created_at, content_hash, category, processed, "
    "superseded_by, collection, valid_from, valid_until FROM records "
    "WHERE user_id = ? AND id = ?"
)
_UPDATE_SQL = (
    "UPDATE records SET kind = ?, thread_id = ?, agent_id = ?, seq = ?, created_at = ?, "
    "content_hash = ?, category = ?, processed = ?, superseded_by = ?, doc = ?, "
    "collection = ?, etag = ?, updated_at = ?, valid_from = ?, valid_until = ? "
    "WHERE user_id = ? AND id = ?"
)

Prepared = tuple[MemoryRecord, str, list[tuple[Any, ...]]]
"""A record to put, its index text and its vector rows ``(user_id, id, field, blob)``."""


class RecordWriter:
    """The write side of one store: records, their vectors and text, the write counters.

    Args:
        database: the store's file.
        snapshots: the store's cached vector views, kept in step with each write.
    """

    def __init__(self, database: Database, snapshots: VectorSnapshots) -> None:
        self.database = database
        self.snapshots = snapshots

    def prepare(self, items: Sequence[Indexed]) -> list[Prepared]:
        """Check ``items`` and encode their vectors, before anything is written.

        Raises:
            InvalidInputError: an item is not :class:`Indexed`, has a blank id, a vector
                field without a name or a vector with NaN.
            DimensionMismatchError: a vector's length is not the store's dimension.
        """
        dim = self.database.embedding.dim
        prepared = []
        for item in items:
            if not isinstance(item, Indexed) or not isinstance(item.record, MemoryRecord):
                raise InvalidInputError(f"put expects Indexed items, got {type(item).__name__}")
            record = item.record
            if not record.id or not record.id.strip():
                raise InvalidInputError("record id must not be blank")
            blobs = []
            for name, vector in item.vectors.items():
                if not isinstance(name, str) or not name:
                    raise InvalidInputError(f"record {record.id!r}: vector field must be a name")
                what = f"record {record.id!r} field {name!r}"
                blobs.append((record.user_id, record.id, name, vector_blob(vector, dim, what)))
            prepared.append((record, item.index_text, blobs))
        return prepared

    def put(self, items: Sequence[Indexed], *, overwrite: bool = False) -> list[MemoryRecord]:
        """Write records with their index text and vectors in one transaction (see
        :meth:`.store.SQLiteStore.put`)."""
        prepared = self.prepare(items)
        if not prepared:
            return []
        db = self.database
        stored: list[MemoryRecord] = []
        upserts: dict[str, dict[str, list[VectorRow]]] = {}
        with db.lock:
            conn = db.require_conn()
            versions: dict[str, int] = {}
            try:
                with db.translate("put"):
                    conn.execute("BEGIN IMMEDIATE")
                    try:
                        versions = self._put_rows(conn, prepared, overwrite, stored, upserts)
                        conn.execute("COMMIT")
                    except sqlite3.IntegrityError as exc:
                        conn.execute("ROLLBACK")
                        conflict = seq_conflict(exc, [r.id for r, _, _ in prepared])
                        if conflict is not None:
                            raise conflict from exc
                        raise
                    except BaseException:
                        conn.execute("ROLLBACK")
                        raise
            finally:
                if versions:
                    for user, rows in upserts.items():
                        self.snapshots.after_write(user, versions.get(user), rows, ())
                else:
                    for user in {r.user_id for r, _, _ in prepared}:
                        self.snapshots.invalidate(user)
        return stored

    @staticmethod
    def _put_rows(conn: sqlite3.Connection, prepared: list[Prepared], overwrite: bool,
                  stored: list[MemoryRecord], upserts: dict[str, dict[str, list[VectorRow]]]
                  ) -> dict[str, int]:
        """The statements of one put, inside its transaction: rows, vectors, text, counters.
        Fills ``stored`` and ``upserts``; returns the users' counters after the write."""
        texts: dict[str, list[tuple[int, str]]] = {}
        vectors: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
        for record, text, blobs in prepared:
            record = stamp(conn, record, overwrite=overwrite)
            row = record_row(record)
            rid = write_row(conn, row, pending=not blobs)
            texts.setdefault(row[0], []).append((rid, text))
            vectors[row[0], row[1]] = blobs  # a record given twice: its last
            stored.append(record)
            upserts.setdefault(row[0], {})[row[1]] = [
                VectorRow(row[1], name, blob, *row[2:5], row[6], row[5],
                          *row[7:11], row[12], *row[15:17])
                for _, _, name, blob in blobs
            ]
        write_vectors(conn, vectors)
        for user, docs in texts.items():
            index_documents(conn, user, docs)
        return bump_versions(conn, set(upserts))

    def update(self, records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
        """Replace the documents (and filter columns) of existing records in one transaction
        (see :meth:`.store.SQLiteStore.update`); a changed filter column moves the user's
        counter and refreshes the cached vector rows."""
        for record in records:
            if not isinstance(record, MemoryRecord):
                raise InvalidInputError(f"update expects records, got {type(record).__name__}")
            if record.etag is None:
                raise InvalidInputError(
                    f"update of record {record.id!r} needs its etag: write back a copy of a "
                    "record read from the store")
        if not records:
            return []
        db = self.database
        changed: dict[str, set[str]] = {}
        written: list[MemoryRecord] = []
        with db.lock:
            conn = db.require_conn()
            versions: dict[str, int] = {}
            upserts: dict[str, dict[str, list[VectorRow]]] = {}
            with db.translate("update"):
                conn.execute("BEGIN IMMEDIATE")
                try:
                    for record in records:
                        old = conn.execute(_FILTER_COLUMNS, (record.user_id, record.id)
                                           ).fetchone()
                        if old is None:  # deleted since it was read: nothing is written
                            raise RecordNotFoundError(
                                f"record {record.id!r} of user {record.user_id!r} no longer "
                                "exists (deleted since it was read); nothing was updated")
                        record = stamp(conn, record)
                        row = record_row(record)
                        conn.execute(_UPDATE_SQL, (*row[2:], *row[:2]))
                        written.append(record)
                        if tuple(old) != (*row[2:11], row[12], *row[15:17]):
                            changed.setdefault(row[0], set()).add(row[1])
                    if changed:
                        versions = bump_versions(conn, set(changed))
                        for user, ids in changed.items():
                            upserts[user] = vector_rows(conn, user, ids)
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    for user in changed:
                        self.snapshots.invalidate(user)
                    raise
            for user, by_id in upserts.items():
                self.snapshots.after_write(user, versions.get(user), by_id, ())
        return written

    def touch(self, user_id: str, ids: Sequence[str], at: datetime) -> int:
        """Count one access on each fact/insight in ``ids`` in place; returns how many."""
        user_id = require_scope(user_id)
        with self.database.write("touch") as conn:
            done = touch_facts(conn, user_id, list(ids), at)
        return len(done)

    def delete(self, user_id: str, ids: Sequence[str]) -> int:
        """Hard-delete the user's records with these ids, their vectors and full-text entries
        (the text postings go with the rows); returns how many were deleted."""
        user_id = require_scope(user_id)
        wanted = json.dumps(sorted(set(ids)))
        db = self.database
        with db.lock:
            conn = db.require_conn()
            version = None
            with db.translate("delete"):
                conn.execute("BEGIN IMMEDIATE")
                try:
                    rids = conn.execute(
                        "SELECT rid, id FROM records WHERE user_id = ? "
                        "AND id IN (SELECT value FROM json_each(?))",
                        (user_id, wanted),
                    ).fetchall()
                    if rids:
                        conn.execute(
                            "DELETE FROM vectors WHERE user_id = ? "
                            "AND record_id IN (SELECT value FROM json_each(?))",
                            (user_id, wanted),
                        )
                        conn.executemany("DELETE FROM records WHERE rid = ?",
                                         [(rid,) for rid, _ in rids])
                        version = bump_versions(conn, {user_id})[user_id]
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    self.snapshots.invalidate(user_id)
                    raise
            if version is not None:
                self.snapshots.after_write(user_id, version, {},
                                           [record_id for _, record_id in rids])
            return len(rids)

    def next_seq(self, user_id: str, thread_id: str) -> int:
        """The thread's next ``seq`` (one seek in the ``turns_by_seq`` index)."""
        user_id = require_scope(user_id)
        with self.database.lock:
            conn = self.database.require_conn()
            with self.database.translate("next seq"):
                return next_seq(conn, user_id, thread_id)
