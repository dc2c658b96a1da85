"""The default store: one SQLite file (WAL), BM25 full text, cosine KNN in numpy.

Schema and file checks are in :mod:`.migrations`, SQL building in :mod:`.query`, the in-memory
vector search in :mod:`.vectors` (exact, or in partitions of 50k+ vectors a projected scan
re-scored exactly, :mod:`.projection`), BM25 over per-user postings with each user's own
statistics in :mod:`.bm25` (FTS5's ``bm25()`` counts every user's rows), the bound on
full-text work in :mod:`.terms`.
Every statement that reads records names ``user_id = ?``: there is no query across users.

Concurrency: no coroutine of the store blocks the event loop. Each runs its body on the
store's own bounded thread pool (:mod:`.connections`; ``threads`` workers, closed by
:meth:`SQLiteStore.close`): sqlite3 calls, numpy products and projection builds all happen
there. Reads (``get``, ``list``, ``count``, full-text and vector search, ``speakers``) use the
worker's own read connection, so several run at once (WAL lets readers run beside the writer;
sqlite3 and numpy release the GIL, so two cores serve two searches). Writes use the one writer
connection under a lock, as do vector-snapshot rebuilds, so a write is layered onto the cached
vectors only when nothing came in between. A task cancelled while its call runs does not stop
the call: a write still commits or rolls back whole. Several processes (or store objects) may
open the same file: ``busy_timeout`` (5 s) waits for the write lock, and each write bumps the
user's counter in ``user_versions`` so every connection's vector cache notices. Measured in
``bench/loop_lag.py`` (BENCHMARKS.md, "Event-loop lag").

``sqlite3`` errors are translated here into :class:`~agent_memory.errors.StoreError` subclasses,
with the original kept as ``__cause__``.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import ValidationError

from ...errors import (
    ConfigError,
    InvalidInputError,
    NotAStoreError,
    RecordNotFoundError,
    StoreError,
)
from ...models import RECORD_ADAPTER, MemoryRecord, require_scope
from ..base import CONTENT, Capability, EmbeddingSpec, Indexed, MemoryStore, RecordQuery, Scored
from ..paging import DEFAULT_PAGE_SIZE, Page, decode_cursor, encode_cursor, sort_key
from .bm25 import TextIndex, index_documents
from .connections import ConnectionPool, check_integrity, default_threads, off_loop
from .migrations import SPEAKER, check_embedding, ensure_ours, migrate, record_embedding
from .query import query_terms, record_row, vector_blob, where_clause
from .vectors import UserVectors, VectorCache, VectorIndex, VectorRow
from .writes import next_seq, seq_conflict, stamp
from .writes import touch as touch_facts

_SQLITE_HEADER = b"SQLite format 3\x00"
_BUSY_TIMEOUT_S = 5.0
_DEFAULT_CACHE_BYTES = 1 << 30
_ANN_MIN_ROWS = 50_000
"""Default ``ann_min_rows``: below it the exact product takes about 3 ms or less."""
VECTOR_INDEXES = ("exact", "pca", "hnsw")
"""Accepted ``vector_index`` values."""
TEXT_MATCH_BUDGET = 2_000
"""Default ``text_match_budget``: rows one full-text query may match before its most frequent
terms are left out (:mod:`.terms`; chosen in BENCHMARKS.md, "Search at scale")."""
MAX_SPEAKERS = 1_000
"""Most distinct speaker names :meth:`SQLiteStore.speakers` returns (alphabetical order)."""


if TYPE_CHECKING:
    from .jobs import SQLiteJobQueue


class SQLiteStore(MemoryStore):
    """A :class:`MemoryStore` in one SQLite file.

    Args:
        path: the database file (created with its parent directory on :meth:`open`).
        cache_bytes: budget of the in-memory vector snapshots, all users together (bytes).
        vector_index: ``"pca"`` (default: partitions of at least ``ann_min_rows`` vectors are
            scanned on their 64 leading principal components and the best rows re-scored
            exactly, see :mod:`.projection`; smaller ones exactly), ``"exact"`` (always the
            exact product) or
            ``"hnsw"`` (an approximate graph from the optional ``usearch`` library; results
            re-scored and filtered exactly, see :mod:`.ann`).
        ann_min_rows: smallest partition (vector rows) searched approximately.
        text_match_budget: rows one full-text query may match (summed document frequencies of
            its terms in the user's records) before its most frequent terms are left out
            (:mod:`.terms`); 0 never leaves a term out. Only users with more records than the
            budget are affected.
        threads: worker threads of the store's pool, each with its own read connection
            (default :func:`.connections.default_threads`: one per core, 2 to 8); 1 runs every
            call in turn, still off the event loop.

    Raises:
        ConfigError: ``vector_index`` is unknown, or ``"hnsw"`` without usearch installed, or
            ``text_match_budget`` is negative, or ``threads`` < 1.

    Example::

        store = SQLiteStore.from_path("memory.db")
        await store.open(EmbeddingSpec(model="local:all-MiniLM-L6-v2", dim=384))
    """

    capabilities = frozenset({Capability.VECTOR_SEARCH, Capability.FULL_TEXT_SEARCH,
                              Capability.PERSISTENT, Capability.COLLECTIONS,
                              Capability.JOB_QUEUE, Capability.EXPORT})

    def __init__(
        self,
        path: str | Path,
        *,
        cache_bytes: int = _DEFAULT_CACHE_BYTES,
        vector_index: str = "pca",
        ann_min_rows: int = _ANN_MIN_ROWS,
        text_match_budget: int = TEXT_MATCH_BUDGET,
        threads: int | None = None,
    ) -> None:
        if threads is not None and threads < 1:
            raise ConfigError(f"threads must be >= 1, not {threads}")
        if text_match_budget < 0:
            raise ConfigError(f"text_match_budget must be >= 0, not {text_match_budget}")
        if vector_index not in VECTOR_INDEXES:
            raise ConfigError(
                f"vector_index must be one of {', '.join(VECTOR_INDEXES)}, not {vector_index!r}"
            )
        if vector_index == "hnsw":
            from .ann import require_usearch

            require_usearch()
        self.path = Path(path)
        self.vector_index = vector_index
        self.ann_min_rows = ann_min_rows
        self._text = TextIndex(text_match_budget)
        self._conn: sqlite3.Connection | None = None
        self._spec: EmbeddingSpec | None = None
        self._lock = threading.RLock()
        self._cache = VectorCache(cache_bytes)
        self._graphs: dict[str, Any] = {}
        self.threads = threads or default_threads()
        self._pool: ConnectionPool | None = None

    @classmethod
    def from_path(cls, path: str | Path) -> SQLiteStore:
        """Build an (unopened) store on ``path``."""
        return cls(path)

    # -- lifecycle -------------------------------------------------------------------------

    async def open(self, embedding: EmbeddingSpec) -> None:
        """Open the file, migrate it and record or check the embedding model; start the
        store's thread pool.

        Raises:
            NotAStoreError: the file is not SQLite, or an SQLite database of another program
                (the file is left untouched).
            CorruptStoreError: the file fails ``PRAGMA quick_check`` (left untouched).
            EmbeddingMismatchError: the store was built with another model or dimension.
            SchemaVersionError: the store was written by a newer library.
            StoreError: the file cannot be created or opened.
        """
        pool, fresh = self._pool, self._pool is None or self._pool.closed
        if fresh:  # set before the first await: a concurrent open() shares this pool
            pool = self._pool = ConnectionPool(self.path, self.threads, _BUSY_TIMEOUT_S)
        assert pool is not None
        try:
            await pool.run(self._open, embedding)
        except BaseException:
            if fresh and self._conn is None:
                self._pool = None
                await asyncio.to_thread(pool.close)
            raise

    def _open(self, embedding: EmbeddingSpec) -> None:
        with self._lock:
            if self._conn is not None:
                check_embedding(self._spec, embedding, self.path)
                return
            conn = self._connect()
            try:
                with self._translate("open"):
                    conn.execute("BEGIN IMMEDIATE")
                    try:
                        migrate(conn, self.path)
                        self._spec = record_embedding(conn, embedding, self.path)
                        conn.execute("COMMIT")
                    except BaseException:
                        conn.execute("ROLLBACK")
                        raise
            except BaseException:
                conn.close()
                raise
            self._conn = conn

    def _connect(self) -> sqlite3.Connection:
        """Connect, refuse files that are not ours, then set the pragmas (which write)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.is_dir():
                raise NotAStoreError(f"{self.path} is a directory, not an agent-memory store")
            if self.path.exists() and self.path.stat().st_size > 0:
                with self.path.open("rb") as fh:
                    if fh.read(len(_SQLITE_HEADER)) != _SQLITE_HEADER:
                        raise NotAStoreError(f"{self.path} is not an SQLite database")
        except OSError as exc:
            raise StoreError(f"cannot open {self.path}: {exc}") from exc
        with self._translate("open"):
            conn = sqlite3.connect(
                self.path,
                timeout=_BUSY_TIMEOUT_S,
                isolation_level=None,
                check_same_thread=False,
            )
        try:
            with self._translate("open"):
                conn.execute(f"PRAGMA busy_timeout = {int(_BUSY_TIMEOUT_S * 1000)}")
                check_integrity(conn, self.path)  # before the first write (the pragmas below)
                ensure_ours(conn, self.path)
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
                conn.execute("PRAGMA foreign_keys = ON")
        except BaseException:
            conn.close()
            raise
        return conn

    def job_queue(self) -> SQLiteJobQueue:
        """The durable job queue in the same file (:class:`.jobs.SQLiteJobQueue`)."""
        from .jobs import SQLiteJobQueue

        return SQLiteJobQueue(self)

    async def close(self) -> None:
        """Stop the thread pool (after the calls under way finish), close the connections and
        drop the vector cache. Safe to call twice."""
        await asyncio.to_thread(self._close)

    def _close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
        with self._lock:
            conn, self._conn = self._conn, None
            self._cache.clear()
            self._graphs.clear()
            if conn is not None:
                try:
                    conn.execute("PRAGMA optimize")
                except sqlite3.Error:
                    pass  # only a planner hint; closing matters more
                conn.close()

    @property
    def embedding(self) -> EmbeddingSpec:
        """The embedding model and dimension recorded in the file.

        Raises:
            StoreError: the store is not open.
        """
        self._require_conn()
        assert self._spec is not None
        return self._spec

    def _require_conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"store {self.path} is not open; call `await store.open(spec)`")
        return self._conn

    @contextmanager
    def _reader(self, snapshot: bool = False) -> Iterator[sqlite3.Connection]:
        """A connection to read with: the pool worker's own (no lock needed), or the writer
        connection under the lock on any other thread. ``snapshot``: the statements inside
        see one state of the file (one read transaction).

        Raises:
            StoreError: the store is not open.
        """
        self._require_conn()
        pool = self._pool
        reader = pool.reader() if pool is not None else None
        if reader is None:
            with self._lock:
                yield self._require_conn()
            return
        if not snapshot:
            yield reader
            return
        with self._translate("read"):
            reader.execute("BEGIN")
        try:
            yield reader
        finally:
            if reader.in_transaction:
                reader.execute("COMMIT")

    @contextmanager
    def _translate(self, action: str) -> Iterator[None]:
        """Turn ``sqlite3`` errors raised inside into :class:`StoreError` subclasses."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            text = str(exc)
            if "not a database" in text or "malformed" in text:
                raise NotAStoreError(f"{self.path} is not a store or is corrupt: {text}") from exc
            raise StoreError(f"{action} failed on {self.path}: {text}") from exc
        except sqlite3.Error as exc:
            raise StoreError(f"{action} failed on {self.path}: {exc}") from exc
        except UnicodeEncodeError as exc:
            raise InvalidInputError(f"{action}: text cannot be encoded as UTF-8: {exc}") from exc

    # -- writes ----------------------------------------------------------------------------

    @off_loop
    def put(self, items: Sequence[Indexed], *, overwrite: bool = False
            ) -> list[MemoryRecord]:
        """Write records with their index text and vectors in one transaction.

        A record with an ``etag`` replaces the stored one only if that is still the version
        read; a record without one is created (see :meth:`MemoryStore.put`). A turn with
        ``seq < 0`` gets its thread's next ``seq`` inside the transaction. A write replaces
        the record's document, its full-text entry and all its vectors.

        Returns:
            The records as stored (new ``etag``, assigned ``seq``), in the order of ``items``.

        Raises:
            ConflictError: a version differs, a record to create exists, or a turn's explicit
                ``seq`` is taken; nothing is written.
            DimensionMismatchError: a vector's length is not the store's dimension.
            InvalidInputError: an item is not :class:`Indexed`, has a blank id, a vector with
                NaN, or text that cannot be stored; nothing is written.
            StoreError: the database failed; nothing is written.
        """
        dim = self.embedding.dim
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
        if not prepared:
            return []
        stored: list[MemoryRecord] = []
        upserts: dict[str, dict[str, list[VectorRow]]] = {}
        with self._lock:
            conn = self._require_conn()
            versions: dict[str, int] = {}
            try:
                with self._translate("put"):
                    conn.execute("BEGIN IMMEDIATE")
                    try:
                        texts: dict[str, list[tuple[int, str]]] = {}
                        vectors: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
                        for record, text, blobs in prepared:
                            record = stamp(conn, record, overwrite=overwrite)
                            row = record_row(record)
                            rid = self._write_row(conn, row, pending=not blobs)
                            texts.setdefault(row[0], []).append((rid, text))
                            vectors[row[0], row[1]] = blobs  # a record given twice: its last
                            stored.append(record)
                            upserts.setdefault(row[0], {})[row[1]] = [
                                VectorRow(row[1], name, blob, *row[2:5], row[6], row[5],
                                          *row[7:11], row[12], *row[15:17])
                                for _, _, name, blob in blobs
                            ]
                        self._write_vectors(conn, vectors)
                        for user, docs in texts.items():
                            index_documents(conn, user, docs)
                        versions = self._bump(conn, set(upserts))
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
                        self._after_write(user, versions.get(user), rows, ())
                else:
                    for user in {r.user_id for r, _, _ in prepared}:
                        self._cache.invalidate(user)
        return stored

    @staticmethod
    def _write_row(conn: sqlite3.Connection, row: tuple[Any, ...], *, pending: bool = False
                   ) -> int:
        """Upsert one record's row; returns its ``rid`` (the caller writes its vectors and
        indexes its text, a whole batch at a time)."""
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

    @staticmethod
    def _write_vectors(
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

    @staticmethod
    def _bump(conn: sqlite3.Connection, users: set[str]) -> dict[str, int]:
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

    def _after_write(
        self,
        user_id: str,
        version: int | None,
        upserts: dict[str, list[VectorRow]],
        deleted: Sequence[str],
    ) -> None:
        """Layer a committed write onto the user's cached vectors, or drop them.

        The cached view can absorb the write only if it was current just before it (counter
        ``version - 1``): the write transaction held the lock, so nothing came in between.
        """
        cached = None if version is None else self._cache.get(user_id, version - 1)
        if cached is None:
            self._cache.invalidate(user_id)
        else:
            self._cache.put(user_id, cached.after_write(version, upserts, deleted))

    @off_loop
    def update(self, records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
        """Replace the documents (and filter columns) of existing records in one transaction,
        each only if its stored version is still the record's ``etag``; full-text entries
        and vectors stay as they are.

        When a filter column changes (kind, thread, agent, created_at, seq, content_hash,
        category, processed, superseded_by, collection, valid_from, valid_until), the user's version counter moves and cached vector
        views learn the new values; a document-only change (access statistics) moves nothing.

        Returns:
            The records as stored (new ``etag``).

        Raises:
            ConflictError: a stored version differs from the record's ``etag``; nothing is
                written.
            RecordNotFoundError: a record no longer exists (deleted since it was read);
                nothing is written.
            InvalidInputError: an item is not a record or has no ``etag`` (it was never read
                from a store); nothing is written.
            StoreError: the database failed; nothing is written.
        """
        for record in records:
            if not isinstance(record, MemoryRecord):
                raise InvalidInputError(f"update expects records, got {type(record).__name__}")
            if record.etag is None:
                raise InvalidInputError(
                    f"update of record {record.id!r} needs its etag: write back a copy of a "
                    "record read from the store")
        if not records:
            return []
        changed: dict[str, set[str]] = {}
        written: list[MemoryRecord] = []
        with self._lock:
            conn = self._require_conn()
            versions: dict[str, int] = {}
            upserts: dict[str, dict[str, list[VectorRow]]] = {}
            with self._translate("update"):
                conn.execute("BEGIN IMMEDIATE")
                try:
                    for record in records:
                        old = conn.execute(
                            "SELECT kind, thread_id, agent_id, seq, created_at, content_hash, "
                            "category, processed, superseded_by, collection, valid_from, "
                            "valid_until FROM records "
                            "WHERE user_id = ? AND id = ?",
                            (record.user_id, record.id),
                        ).fetchone()
                        if old is None:  # deleted since it was read: nothing is written
                            raise RecordNotFoundError(
                                f"record {record.id!r} of user {record.user_id!r} no longer "
                                "exists (deleted since it was read); nothing was updated")
                        record = stamp(conn, record)
                        row = record_row(record)
                        conn.execute(
                            "UPDATE records SET kind = ?, thread_id = ?, agent_id = ?, seq = ?, "
                            "created_at = ?, content_hash = ?, category = ?, processed = ?, "
                            "superseded_by = ?, doc = ?, collection = ?, etag = ?, "
                            "updated_at = ?, valid_from = ?, valid_until = ? "
                            "WHERE user_id = ? AND id = ?",
                            (*row[2:], *row[:2]),
                        )
                        written.append(record)
                        if tuple(old) != (*row[2:11], row[12], *row[15:17]):
                            changed.setdefault(row[0], set()).add(row[1])
                    if changed:
                        versions = self._bump(conn, set(changed))
                        for user, ids in changed.items():
                            upserts[user] = self._vector_rows(conn, user, ids)
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    for user in changed:
                        self._cache.invalidate(user)
                    raise
            for user, by_id in upserts.items():
                self._after_write(user, versions.get(user), by_id, ())
        return written

    @off_loop
    def touch(self, user_id: str, ids: Sequence[str], at: datetime) -> int:
        """Count one access on each fact/insight in ``ids`` in place (see
        :meth:`MemoryStore.touch`)."""
        user_id = require_scope(user_id)
        with self._lock:
            conn = self._require_conn()
            with self._translate("touch"):
                conn.execute("BEGIN IMMEDIATE")
                try:
                    done = touch_facts(conn, user_id, list(ids), at)
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
        return len(done)

    @staticmethod
    def _vector_rows(
        conn: sqlite3.Connection, user_id: str, ids: set[str]
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

    @off_loop
    def delete(self, user_id: str, ids: Sequence[str]) -> int:
        """Hard-delete the user's records with these ids, their vectors and full-text entries.

        Returns:
            How many records were deleted (ids of other users or unknown ids count 0).
        """
        user_id = require_scope(user_id)
        wanted = json.dumps(sorted(set(ids)))
        with self._lock:
            conn = self._require_conn()
            version = None
            with self._translate("delete"):
                conn.execute("BEGIN IMMEDIATE")
                try:
                    rids = conn.execute(
                        "SELECT rid, id FROM records WHERE user_id = ? "
                        "AND id IN (SELECT value FROM json_each(?))",
                        (user_id, wanted),
                    ).fetchall()
                    if rids:
                        by_rid = [(rid,) for rid, _ in rids]
                        conn.execute(
                            "DELETE FROM vectors WHERE user_id = ? "
                            "AND record_id IN (SELECT value FROM json_each(?))",
                            (user_id, wanted),
                        )
                        conn.executemany("DELETE FROM records WHERE rid = ?", by_rid)
                        version = self._bump(conn, {user_id})[user_id]
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    self._cache.invalidate(user_id)
                    raise
            if version is not None:
                self._after_write(user_id, version, {}, [record_id for _, record_id in rids])
            return len(rids)

    # -- reads -----------------------------------------------------------------------------

    def _parse(self, doc: str) -> MemoryRecord:
        try:
            return RECORD_ADAPTER.validate_json(doc)
        except ValidationError as exc:
            raise StoreError(f"{self.path}: a stored record no longer validates: {exc}") from exc

    def _docs(self, user_id: str, ids: Sequence[str]) -> dict[str, MemoryRecord]:
        with self._reader() as conn, self._translate("get"):
            rows = conn.execute(
                "SELECT id, doc FROM records WHERE user_id = ? "
                "AND id IN (SELECT value FROM json_each(?))",
                (user_id, json.dumps(list(dict.fromkeys(ids)))),
            ).fetchall()
        return {rid: self._parse(doc) for rid, doc in rows}

    @off_loop
    def get(self, user_id: str, ids: Sequence[str]) -> list[MemoryRecord]:
        """The user's records with these ids, in the order of ``ids`` (missing and repeated
        ids skipped)."""
        user_id = require_scope(user_id)
        found = self._docs(user_id, ids)
        return [found[i] for i in dict.fromkeys(ids) if i in found]

    @off_loop
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
        with self._reader() as conn, self._translate("list"):
            docs = conn.execute(sql, params).fetchall()
        return [self._parse(doc) for (doc,) in docs]

    @off_loop
    def page(self, user_id: str, query: RecordQuery, cursor: str | None = None) -> Page:
        """Keyset paging over :meth:`list` order: the next ``query.limit`` (default 100)
        records strictly after ``cursor``, one indexed range read per page.

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
        with self._reader() as conn, self._translate("page"):
            docs = conn.execute(sql, [*params, size + 1]).fetchall()
        records = [self._parse(doc) for (doc,) in docs[:size]]
        more = len(docs) > size
        return Page(records, encode_cursor(sort_key(records[-1])) if more else None)

    @off_loop
    def count(self, user_id: str, query: RecordQuery) -> int:
        """Number of the user's records matching ``query`` (``limit`` ignored)."""
        where, params = where_clause(require_scope(user_id), query)
        with self._reader() as conn, self._translate("count"):
            return conn.execute(
                f"SELECT count(*) FROM records r WHERE {where}", params
            ).fetchone()[0]

    @off_loop
    def text_search(
        self, user_id: str, text: str, query: RecordQuery, k: int
    ) -> list[Scored]:
        """BM25 over the user's matching records, with the user's own statistics (document
        count, mean length, document frequencies: :mod:`.bm25`), so no other user's data moves
        a score.

        The query ORs the distinct non-stop words of ``text`` (:func:`.query.query_terms`); in a
        partition larger than ``text_match_budget`` documents, its most frequent words are left
        out when all of them together would match more of the user's rows than that
        (:mod:`.terms`). ``query.limit`` and ordering are ignored (``k`` bounds the hits).
        Returns ``[]`` when no searchable word remains.
        """
        user_id = require_scope(user_id)
        terms = query_terms(text)
        if not terms or k <= 0:
            return []
        where, params = where_clause(user_id, query)
        with self._reader(snapshot=True) as conn, self._translate("text search"):
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
            top = self._text.search(conn, user_id, terms, where, params, k)
            docs = dict(
                conn.execute(
                    "SELECT rid, doc FROM records WHERE rid IN "
                    "(SELECT value FROM json_each(?))",
                    (json.dumps([rid for rid, _ in top]),),
                ).fetchall()
            ) if top else {}
        return [Scored(self._parse(docs[rid]), float(score)) for rid, score in top]

    @off_loop
    def next_seq(self, user_id: str, thread_id: str) -> int:
        """The thread's next ``seq`` (one seek in the ``turns_by_seq`` index)."""
        user_id = require_scope(user_id)
        with self._lock:
            conn = self._require_conn()
            with self._translate("next seq"):
                return next_seq(conn, user_id, thread_id)

    @off_loop
    def speakers(self, user_id: str) -> list[str]:
        """The distinct speaker names of the user's turns, sorted (at most
        :data:`MAX_SPEAKERS`): one index seek per name (migration 4), well under a millisecond
        for a few dozen names at any partition size."""
        user_id = require_scope(user_id)
        turn = "FROM records WHERE user_id = ?1 AND kind = 'turn'"
        sql = (
            f"WITH RECURSIVE s(name, n) AS (SELECT (SELECT min({SPEAKER}) {turn}), 1 "
            f"UNION ALL SELECT (SELECT min({SPEAKER}) {turn} AND {SPEAKER} > s.name), n + 1 "
            "FROM s WHERE s.name IS NOT NULL AND n < ?2) "
            "SELECT name FROM s WHERE name IS NOT NULL"
        )
        with self._reader() as conn, self._translate("speakers"):
            rows = conn.execute(sql, (user_id, MAX_SPEAKERS)).fetchall()
        return [name for (name,) in rows if isinstance(name, str) and name.strip()]

    # -- reading back what was written (Capability.EXPORT; SQL in :mod:`.export`) --------

    async def recorded_embedding(self) -> EmbeddingSpec | None:
        """The embedding spec recorded in the file, read without writing (callable before
        :meth:`open`); ``None`` when the file does not exist or holds no store yet.

        Raises:
            NotAStoreError: the path is a directory, not SQLite, or another program's database.
            StoreError: the file cannot be read.
        """
        if self._spec is not None and self._conn is not None:
            return self._spec
        if self.path.is_dir():
            raise NotAStoreError(f"{self.path} is a directory, not an agent-memory store")
        from .export import recorded_embedding

        def read() -> EmbeddingSpec | None:
            with self._translate("read embedding"):
                return recorded_embedding(self.path)

        return await asyncio.to_thread(read)

    @off_loop
    def users(self) -> list[str]:
        """Every user id with a record, sorted (see :meth:`MemoryStore.users`)."""
        from . import export

        with self._reader() as conn, self._translate("list users"):
            return export.users(conn)

    @off_loop
    def indexed(self, user_id: str, ids: Sequence[str]) -> list[Indexed]:
        """The records with their index text and vectors, bit for bit, from one snapshot of
        the file (see :meth:`MemoryStore.indexed`)."""
        from . import export

        user_id = require_scope(user_id)
        with self._reader(snapshot=True) as conn, self._translate("read indexed"):
            return export.indexed(conn, user_id, ids, self._parse)

    @off_loop
    def vector_search(
        self,
        user_id: str,
        vector: np.ndarray,
        query: RecordQuery,
        k: int,
        fields: Sequence[str] = (CONTENT,),
    ) -> list[Scored]:
        """Exact cosine KNN over the user's matching records, each at most once (best field).

        ``query.limit`` and ordering are ignored (``k`` bounds the hits).

        Raises:
            DimensionMismatchError: ``vector`` is not of shape ``(dim,)``.
        """
        user_id = require_scope(user_id)
        dim = self.embedding.dim
        q = np.frombuffer(vector_blob(vector, dim, "query"), dtype="<f4").astype(np.float32)
        if isinstance(fields, str):
            fields = (fields,)
        hits = self._index(user_id).search(q, query, k, fields)
        if not hits:
            return []
        found = self._docs(user_id, [record_id for record_id, _, _ in hits])
        # A record deleted by another connection since the snapshot is skipped.
        return [
            Scored(found[record_id], score, name)
            for record_id, score, name in hits
            if record_id in found
        ]

    def _index(self, user_id: str) -> UserVectors:
        """The user's vectors, re-read when the stored counter has moved past the cached view
        (another connection wrote) or the layered writes have grown large.

        A current view is found on the worker's read connection; a rebuild holds the writer
        lock, so no write of this store lands between the snapshot and caching it (which
        :meth:`_after_write` relies on), and concurrent searches build it once.
        """
        with self._reader() as conn, self._translate("vector search"):
            cached = self._cache.get(user_id, self._version(conn, user_id))
            if cached is not None and not cached.stale:
                return cached
        with self._lock:
            conn = self._require_conn()
            dim = self.embedding.dim
            with self._translate("vector search"):
                version = self._version(conn, user_id)
                cached = self._cache.get(user_id, version)
                if cached is not None and not cached.stale:
                    return cached
                conn.execute("BEGIN")  # one snapshot for the counter and the rows
                try:
                    version = self._version(conn, user_id)
                    rows = conn.execute(
                        """
                        SELECT v.record_id, v.field, v.vec, r.kind, r.thread_id, r.agent_id,
                               r.created_at, r.seq, r.content_hash, r.category, r.processed,
                               r.superseded_by, r.collection, r.valid_from,
                               r.valid_until, v.rowid
                        FROM vectors v JOIN records r
                          ON r.user_id = v.user_id AND r.id = v.record_id
                        WHERE v.user_id = ?
                        """,
                        (user_id,),
                    ).fetchall()
                finally:
                    conn.execute("COMMIT")
            base = VectorIndex(version, dim, rows)
            del rows
            if self.vector_index == "hnsw" and base.matrix.shape[0] >= self.ann_min_rows:
                base.ann = self._graph(user_id, dim)
                base.ann.sync(base.keys, base.matrix)
            elif self.vector_index == "pca" and base.matrix.shape[0] >= self.ann_min_rows:
                from .projection import Projection

                base.projection = Projection(base.matrix)
            view = UserVectors(version, base)
            self._cache.put(user_id, view)
            return view

    def _graph(self, user_id: str, dim: int) -> Any:
        """The user's approximate graph (restored from its sidecar file, or empty)."""
        graph = self._graphs.get(user_id)
        if graph is None:
            from .ann import HnswGraph, sidecar

            graph = HnswGraph(dim, sidecar(self.path, user_id))
            self._graphs[user_id] = graph
        return graph

    @staticmethod
    def _version(conn: sqlite3.Connection, user_id: str) -> int:
        row = conn.execute(
            "SELECT version FROM user_versions WHERE user_id = ?", (user_id,)
        ).fetchone()
        return 0 if row is None else int(row[0])

    # -- collections bound to agents (SQL in :mod:`.collections`) ----------------

    def _bindings(self, action: str, fn: Any, user_id: str, agent_id: str, *args: Any) -> Any:
        user_id = require_scope(user_id)
        agent_id = require_scope(agent_id, "agent_id")
        with self._lock:
            conn = self._require_conn()
            with self._translate(action):
                conn.execute("BEGIN IMMEDIATE")
                try:
                    out = fn(conn, user_id, agent_id, *args)
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
        return out

    @off_loop
    def bind_collections(
        self, user_id: str, agent_id: str, collections: Sequence[str]
    ) -> int:
        """See :meth:`MemoryStore.bind_collections`."""
        from . import collections as _c

        return self._bindings("bind collections", _c.bind, user_id, agent_id, list(collections))

    @off_loop
    def unbind_collections(
        self, user_id: str, agent_id: str, collections: Sequence[str]
    ) -> int:
        """See :meth:`MemoryStore.unbind_collections`."""
        from . import collections as _c

        return self._bindings("unbind collections", _c.unbind, user_id, agent_id,
                              list(collections))

    @off_loop
    def agent_collections(self, user_id: str, agent_id: str) -> list[str]:
        """See :meth:`MemoryStore.agent_collections`."""
        from . import collections as _c

        return self._bindings("list collections", _c.bound, user_id, agent_id)
