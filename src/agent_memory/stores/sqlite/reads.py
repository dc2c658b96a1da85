"""Reads of the SQLite store: records by id, filtered lists, keyset pages, counts, BM25 and
vector search, speakers.

Every read uses a pool worker's own read connection (:meth:`.database.Database.reader`), so
several run at once beside the writer (WAL); every statement names ``user_id = ?``. Filters
become SQL in :mod:`.query`; BM25 scoring is in :mod:`.bm25`, the vector views in
:mod:`.snapshots`. The methods block; :class:`.store.SQLiteStore` runs them on its pool.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from ...models import MemoryRecord, require_scope
from ..base import RecordQuery, Scored
from ..paging import DEFAULT_PAGE_SIZE, Page, decode_cursor, encode_cursor, sort_key
from .bm25 import TextIndex
from .database import Database
from .migrations import SPEAKER
from .query import query_terms, vector_blob, where_clause
from .snapshots import VectorSnapshots

MAX_SPEAKERS = 1_000
"""Most distinct speaker names :meth:`RecordReader.speakers` returns (alphabetical order)."""


class RecordReader:
    """The read side of one store.

    Args:
        database: the store's file.
        text_index: BM25 over the user's postings (:class:`.bm25.TextIndex`).
        snapshots: the cached vector views searched by :meth:`vector_search`.
    """

    def __init__(self, database: Database, text_index: TextIndex,
                 snapshots: VectorSnapshots) -> None:
        self.database = database
        self.text_index = text_index
        self.snapshots = snapshots

    def docs(self, user_id: str, ids: Sequence[str]) -> dict[str, MemoryRecord]:
        """Record id -> record, for the ids of ``ids`` the user has (one query)."""
        db = self.database
        with db.reader() as conn, db.translate("get"):
            rows = conn.execute(
                "SELECT id, doc FROM records WHERE user_id = ? "
                "AND id IN (SELECT value FROM json_each(?))",
                (user_id, json.dumps(list(dict.fromkeys(ids)))),
            ).fetchall()
        return {rid: db.parse(doc) for rid, doc in rows}

    def get(self, user_id: str, ids: Sequence[str]) -> list[MemoryRecord]:
        """The user's records with these ids, in the order of ``ids`` (missing and repeated
        ids skipped)."""
        user_id = require_scope(user_id)
        found = self.docs(user_id, ids)
        return [found[i] for i in dict.fromkeys(ids) if i in found]

    def list(self, user_id: str, query: RecordQuery) -> list[MemoryRecord]:
        """The user's records matching ``query``, by ``created_at``, then ``seq``, then id."""
        where, params = where_clause(require_scope(user_id), query)
        order = "DESC" if query.newest_first else "ASC"
        sql = (
            f"SELECT r.doc FROM records r WHERE {where} "
            f"ORDER BY r.created_at {order}, r.seq {order}, r.id {order}"
        )
        if query.limit is not None:
            sql += " LIMIT ?"
            params.append(query.limit)
        db = self.database
        with db.reader() as conn, db.translate("list"):
            docs = conn.execute(sql, params).fetchall()
        return [db.parse(doc) for (doc,) in docs]

    def page(self, user_id: str, query: RecordQuery, cursor: str | None = None) -> Page:
        """The next ``query.limit`` (default 100) records in :meth:`list` order strictly
        after ``cursor``: one indexed range read.

        Raises:
            InvalidInputError: a malformed cursor.
        """
        size = query.limit or DEFAULT_PAGE_SIZE
        where, params = where_clause(require_scope(user_id), query)
        if cursor:
            where += (" AND (r.created_at, coalesce(r.seq, -1), r.id) "
                      f"{'<' if query.newest_first else '>'} (?, ?, ?)")
            params.extend(decode_cursor(cursor))
        order = "DESC" if query.newest_first else "ASC"
        sql = (f"SELECT r.doc FROM records r WHERE {where} "
               f"ORDER BY r.created_at {order}, r.seq {order}, r.id {order} LIMIT ?")
        db = self.database
        with db.reader() as conn, db.translate("page"):
            docs = conn.execute(sql, [*params, size + 1]).fetchall()
        records = [db.parse(doc) for (doc,) in docs[:size]]
        more = len(docs) > size
        return Page(records, encode_cursor(sort_key(records[-1])) if more else None)

    def count(self, user_id: str, query: RecordQuery) -> int:
        """Number of the user's records matching ``query`` (``limit`` ignored)."""
        where, params = where_clause(require_scope(user_id), query)
        db = self.database
        with db.reader() as conn, db.translate("count"):
            return int(conn.execute(
                f"SELECT count(*) FROM records r WHERE {where}", params
            ).fetchone()[0])

    def text_search(self, user_id: str, text: str, query: RecordQuery, k: int
                    ) -> list[Scored]:
        """BM25 over the user's matching records with the user's own statistics (see
        :meth:`.store.SQLiteStore.text_search`); ``[]`` when no searchable word remains."""
        user_id = require_scope(user_id)
        terms = query_terms(text)
        if not terms or k <= 0:
            return []
        where, params = where_clause(user_id, query)
        db = self.database
        with db.reader(snapshot=True) as conn, db.translate("text search"):
            if query.kinds is not None and not conn.execute(
                "SELECT EXISTS (SELECT 1 FROM records INDEXED BY records_by_kind "
                "WHERE user_id = ? AND kind IN (SELECT value FROM json_each(?)))",
                (user_id, json.dumps(sorted(str(k) for k in query.kinds))),
            ).fetchone()[0]:
                # The user has no record of these kinds: skip scoring every match. The
                # kinds index answers in microseconds; named, because with statistics of
                # a partition of one kind the planner would scan the table instead.
                return []
            # Only the top k carry their documents: the sort over every match (thousands
            # of rows at 100k records) moves row ids, not JSON.
            top = self.text_index.search(conn, user_id, terms, where, params, k)
            docs = dict(
                conn.execute(
                    "SELECT rid, doc FROM records WHERE rid IN "
                    "(SELECT value FROM json_each(?))",
                    (json.dumps([rid for rid, _ in top]),),
                ).fetchall()
            ) if top else {}
        return [Scored(db.parse(docs[rid]), float(score)) for rid, score in top]

    def vector_search(self, user_id: str, vector: np.ndarray, query: RecordQuery, k: int,
                      fields: Sequence[str]) -> list[Scored]:
        """Cosine KNN over the user's matching records, each at most once (best field).

        Raises:
            DimensionMismatchError: ``vector`` is not of shape ``(dim,)``.
        """
        user_id = require_scope(user_id)
        dim = self.database.embedding.dim
        q = np.frombuffer(vector_blob(vector, dim, "query"), dtype="<f4").astype(np.float32)
        if isinstance(fields, str):
            fields = (fields,)
        hits = self.snapshots.view(user_id).search(q, query, k, fields)
        if not hits:
            return []
        found = self.docs(user_id, [record_id for record_id, _, _ in hits])
        # A record deleted by another connection since the snapshot is skipped.
        return [
            Scored(found[record_id], score, name)
            for record_id, score, name in hits
            if record_id in found
        ]

    def speakers(self, user_id: str) -> list[str]:
        """The distinct speaker names of the user's turns, sorted (at most
        :data:`MAX_SPEAKERS`): one index seek per name (migration 4)."""
        user_id = require_scope(user_id)
        turn = "FROM records WHERE user_id = ?1 AND kind = 'turn'"
        sql = (
            f"WITH RECURSIVE s(name, n) AS (SELECT (SELECT min({SPEAKER}) {turn}), 1 "
            f"UNION ALL SELECT (SELECT min({SPEAKER}) {turn} AND {SPEAKER} > s.name), n + 1 "
            "FROM s WHERE s.name IS NOT NULL AND n < ?2) "
            "SELECT name FROM s WHERE name IS NOT NULL"
        )
        db = self.database
        with db.reader() as conn, db.translate("speakers"):
            rows = conn.execute(sql, (user_id, MAX_SPEAKERS)).fetchall()
        return [name for (name,) in rows if isinstance(name, str) and name.strip()]
