"""The default store: one SQLite file (WAL), BM25 full text, cosine KNN in numpy.

:class:`SQLiteStore` is the :class:`~agent_memory.stores.base.MemoryStore` facade over parts
with one job each: the file, connections and error translation (:mod:`.database`); writes
with their index upkeep (:mod:`.writer`, row SQL in :mod:`.writes`); reads and searches
(:mod:`.reads`); cached vector views (:mod:`.snapshots`, exact or projected search in
:mod:`.vectors` / :mod:`.projection`); per-user BM25 (:mod:`.bm25`, budget in :mod:`.terms`);
schema and file checks (:mod:`.migrations`); SQL building (:mod:`.query`).
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

``sqlite3`` errors are translated into :class:`~agent_memory.errors.StoreError` subclasses
(:meth:`.database.Database.translate`), with the original kept as ``__cause__``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import ConfigError
from ...models import MemoryRecord, require_scope
from ..base import CONTENT, Capability, EmbeddingSpec, Indexed, MemoryStore, RecordQuery, Scored
from ..paging import Page
from .bm25 import TextIndex
from .connections import ConnectionPool, default_threads, off_loop
from .database import Database
from .reads import MAX_SPEAKERS, RecordReader
from .snapshots import VectorSnapshots
from .writer import RecordWriter

_DEFAULT_CACHE_BYTES = 1 << 30
_ANN_MIN_ROWS = 50_000
"""Default ``ann_min_rows``: below it the exact product takes about 3 ms or less."""
VECTOR_INDEXES = ("exact", "pca", "hnsw")
"""Accepted ``vector_index`` values."""
TEXT_MATCH_BUDGET = 2_000
"""Default ``text_match_budget``: rows one full-text query may match before its most frequent
terms are left out (:mod:`.terms`; chosen in BENCHMARKS.md, "Search at scale")."""

__all__ = ["MAX_SPEAKERS", "TEXT_MATCH_BUDGET", "VECTOR_INDEXES", "SQLiteStore"]

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

    Attributes:
        database: the file, its connections and lock (:class:`.database.Database`).
        snapshots: the cached vector views (:class:`.snapshots.VectorSnapshots`).
        text_index: BM25 over per-user postings (:class:`.bm25.TextIndex`).

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
        self.threads = threads or default_threads()
        self.database = Database(self.path, self.threads)
        self.snapshots = VectorSnapshots(self.database, cache_bytes, vector_index, ann_min_rows)
        self.text_index = TextIndex(text_match_budget)
        self._reads = RecordReader(self.database, self.text_index, self.snapshots)
        self._writes = RecordWriter(self.database, self.snapshots)

    @classmethod
    def from_path(cls, path: str | Path) -> SQLiteStore:
        """Build an (unopened) store on ``path``."""
        return cls(path)

    @property
    def vector_index(self) -> str:
        """``"exact"``, ``"pca"`` or ``"hnsw"`` (see the class)."""
        return self.snapshots.vector_index

    @property
    def ann_min_rows(self) -> int:
        """Smallest partition (vector rows) searched approximately."""
        return self.snapshots.ann_min_rows

    @property
    def pool(self) -> ConnectionPool | None:
        """The store's worker pool (``None`` while it is not open); :func:`.off_loop` runs
        the store's methods there."""
        return self.database.pool

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
        await self.database.open(embedding)

    def job_queue(self) -> SQLiteJobQueue:
        """The durable job queue in the same file (:class:`.jobs.SQLiteJobQueue`)."""
        from .jobs import SQLiteJobQueue

        return SQLiteJobQueue(self)

    async def close(self) -> None:
        """Stop the thread pool (after the calls under way finish), close the connections and
        drop the vector cache. Safe to call twice."""
        await asyncio.to_thread(self._close)

    def _close(self) -> None:
        self.database.stop_pool()
        with self.database.lock:
            self.snapshots.clear()
            self.database.close_connection()

    @property
    def embedding(self) -> EmbeddingSpec:
        """The embedding model and dimension recorded in the file.

        Raises:
            StoreError: the store is not open.
        """
        return self.database.embedding

    # -- writes (:mod:`.writer`) -----------------------------------------------------------

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
        return self._writes.put(items, overwrite=overwrite)

    @off_loop
    def update(self, records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
        """Replace the documents (and filter columns) of existing records in one transaction,
        each only if its stored version is still the record's ``etag``; full-text entries
        and vectors stay as they are.

        When a filter column changes (kind, thread, agent, created_at, seq, content_hash,
        category, processed, superseded_by, collection, valid_from, valid_until), the user's
        version counter moves and cached vector views learn the new values; a document-only
        change (access statistics) moves nothing.

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
        return self._writes.update(records)

    @off_loop
    def touch(self, user_id: str, ids: Sequence[str], at: datetime) -> int:
        """Count one access on each fact/insight in ``ids`` in place (see
        :meth:`MemoryStore.touch`)."""
        return self._writes.touch(user_id, ids, at)

    @off_loop
    def delete(self, user_id: str, ids: Sequence[str]) -> int:
        """Hard-delete the user's records with these ids, their vectors and full-text entries.

        Returns:
            How many records were deleted (ids of other users or unknown ids count 0).
        """
        return self._writes.delete(user_id, ids)

    @off_loop
    def next_seq(self, user_id: str, thread_id: str) -> int:
        """The thread's next ``seq`` (one seek in the ``turns_by_seq`` index)."""
        return self._writes.next_seq(user_id, thread_id)

    # -- reads (:mod:`.reads`) -------------------------------------------------------------

    @off_loop
    def get(self, user_id: str, ids: Sequence[str]) -> list[MemoryRecord]:
        """The user's records with these ids, in the order of ``ids`` (missing and repeated
        ids skipped)."""
        return self._reads.get(user_id, ids)

    @off_loop
    def list(self, user_id: str, query: RecordQuery) -> list[MemoryRecord]:
        """The user's records matching ``query``, by ``created_at``, then ``seq``, then id."""
        return self._reads.list(user_id, query)

    @off_loop
    def page(self, user_id: str, query: RecordQuery, cursor: str | None = None) -> Page:
        """Keyset paging over :meth:`list` order: the next ``query.limit`` (default 100)
        records strictly after ``cursor``, one indexed range read per page.

        Raises:
            InvalidInputError: a malformed cursor.
        """
        return self._reads.page(user_id, query, cursor)

    @off_loop
    def count(self, user_id: str, query: RecordQuery) -> int:
        """Number of the user's records matching ``query`` (``limit`` ignored)."""
        return self._reads.count(user_id, query)

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
        return self._reads.text_search(user_id, text, query, k)

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
        return self._reads.vector_search(user_id, vector, query, k, fields)

    @off_loop
    def speakers(self, user_id: str) -> list[str]:
        """The distinct speaker names of the user's turns, sorted (at most
        :data:`MAX_SPEAKERS`): one index seek per name (migration 4), well under a millisecond
        for a few dozen names at any partition size."""
        return self._reads.speakers(user_id)

    # -- reading back what was written (Capability.EXPORT; SQL in :mod:`.export`) --------

    async def recorded_embedding(self) -> EmbeddingSpec | None:
        """The embedding spec recorded in the file, read without writing (callable before
        :meth:`open`); ``None`` when the file does not exist or holds no store yet.

        Raises:
            NotAStoreError: the path is a directory, not SQLite, or another program's database.
            StoreError: the file cannot be read.
        """
        return await self.database.recorded_embedding()

    @off_loop
    def users(self) -> list[str]:
        """Every user id with a record, sorted (see :meth:`MemoryStore.users`)."""
        from . import export

        with self.database.reader() as conn, self.database.translate("list users"):
            return export.users(conn)

    @off_loop
    def indexed(self, user_id: str, ids: Sequence[str]) -> list[Indexed]:
        """The records with their index text and vectors, bit for bit, from one snapshot of
        the file (see :meth:`MemoryStore.indexed`)."""
        from . import export

        user_id = require_scope(user_id)
        db = self.database
        with db.reader(snapshot=True) as conn, db.translate("read indexed"):
            return export.indexed(conn, user_id, ids, db.parse)

    # -- collections bound to agents (SQL in :mod:`.collections`) ----------------

    def _bindings(self, action: str, fn: Callable[..., Any], user_id: str, agent_id: str,
                  *args: Any) -> Any:
        user_id = require_scope(user_id)
        agent_id = require_scope(agent_id, "agent_id")
        with self.database.write(action) as conn:
            return fn(conn, user_id, agent_id, *args)

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
