"""The SQLite store's in-memory vector snapshots: building, caching and layering writes.

Each user's vectors are read once into a :class:`~.vectors.VectorIndex` (with, in partitions of
at least ``ann_min_rows`` rows, a PCA projection (:mod:`.projection`) or an HNSW graph
(:mod:`.ann`)) and cached by the user's counter in ``user_versions``. Every write bumps that
counter in its transaction; a write of this store is layered onto the cached view
(:meth:`VectorSnapshots.after_write`) when the view was current just before it, and any other
change (another connection or process wrote) makes the next search re-read the rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from .database import Database
from .vectors import UserVectors, VectorCache, VectorIndex, VectorRow

_SNAPSHOT_SQL = """
    SELECT v.record_id, v.field, v.vec, r.kind, r.thread_id, r.agent_id,
           r.created_at, r.seq, r.content_hash, r.category, r.processed,
           r.superseded_by, r.collection, r.valid_from,
           r.valid_until, v.rowid
    FROM vectors v JOIN records r
      ON r.user_id = v.user_id AND r.id = v.record_id
    WHERE v.user_id = ?
"""


def user_version(conn: sqlite3.Connection, user_id: str) -> int:
    """The user's write counter (``user_versions.version``; 0 before the first write)."""
    row = conn.execute(
        "SELECT version FROM user_versions WHERE user_id = ?", (user_id,)
    ).fetchone()
    return 0 if row is None else int(row[0])


class VectorSnapshots:
    """The cached vector views of one store's users.

    Args:
        database: the store's file.
        cache_bytes: budget of the snapshots, all users together (bytes).
        vector_index: ``"exact"``, ``"pca"`` or ``"hnsw"`` (see :class:`.store.SQLiteStore`).
        ann_min_rows: smallest partition (vector rows) searched approximately.
    """

    def __init__(self, database: Database, cache_bytes: int, vector_index: str,
                 ann_min_rows: int) -> None:
        self.database = database
        self.vector_index = vector_index
        self.ann_min_rows = ann_min_rows
        self.cache = VectorCache(cache_bytes)
        self.graphs: dict[str, Any] = {}

    def view(self, user_id: str) -> UserVectors:
        """The user's vectors, re-read when the stored counter has moved past the cached view
        (another connection wrote) or the layered writes have grown large.

        A current view is found on the worker's read connection; a rebuild holds the writer
        lock, so no write of this store lands between the snapshot and caching it (which
        :meth:`after_write` relies on), and concurrent searches build it once.

        Raises:
            StoreError: the store is not open or the database failed.
        """
        db = self.database
        with db.reader() as conn, db.translate("vector search"):
            cached = self.cache.get(user_id, user_version(conn, user_id))
            if cached is not None and not cached.stale:
                return cached
        with db.lock:
            conn = db.require_conn()
            dim = db.embedding.dim
            with db.translate("vector search"):
                version = user_version(conn, user_id)
                cached = self.cache.get(user_id, version)
                if cached is not None and not cached.stale:
                    return cached
                conn.execute("BEGIN")  # one snapshot for the counter and the rows
                try:
                    version = user_version(conn, user_id)
                    rows = conn.execute(_SNAPSHOT_SQL, (user_id,)).fetchall()
                finally:
                    conn.execute("COMMIT")
            base = VectorIndex(version, dim, rows)
            del rows
            if self.vector_index == "hnsw" and base.matrix.shape[0] >= self.ann_min_rows:
                base.ann = self.graph(user_id, dim)
                base.ann.sync(base.keys, base.matrix)
            elif self.vector_index == "pca" and base.matrix.shape[0] >= self.ann_min_rows:
                from .projection import Projection

                base.projection = Projection(base.matrix)
            view = UserVectors(version, base)
            self.cache.put(user_id, view)
            return view

    def graph(self, user_id: str, dim: int) -> Any:
        """The user's approximate graph (restored from its sidecar file, or empty)."""
        graph = self.graphs.get(user_id)
        if graph is None:
            from .ann import HnswGraph, sidecar

            graph = HnswGraph(dim, sidecar(self.database.path, user_id))
            self.graphs[user_id] = graph
        return graph

    def after_write(
        self,
        user_id: str,
        version: int | None,
        upserts: dict[str, list[VectorRow]],
        deleted: Sequence[str],
    ) -> None:
        """Layer a committed write onto the user's cached vectors, or drop them.

        The cached view can absorb the write only if it was current just before it (counter
        ``version - 1``): the write transaction held the lock, so nothing came in between.

        Args:
            user_id: the user written.
            version: the user's counter after the write, ``None`` to drop the view.
            upserts: record id -> its vector rows as stored now.
            deleted: ids of the records deleted.
        """
        cached = None if version is None else self.cache.get(user_id, version - 1)
        if cached is None or version is None:
            self.cache.invalidate(user_id)
        else:
            self.cache.put(user_id, cached.after_write(version, upserts, deleted))

    def invalidate(self, user_id: str) -> None:
        """Drop the user's cached view (the next search re-reads it)."""
        self.cache.invalidate(user_id)

    def clear(self) -> None:
        """Drop every view and graph (the store is closing)."""
        self.cache.clear()
        self.graphs.clear()
