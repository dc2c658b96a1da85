"""The store contract: the few operations every backend (SQLite, Azure Cosmos DB) implements.

Everything shared (validation, embedding, ranking fusion, pipeline logic) lives above this
seam; a store only persists records with their vectors and answers scoped queries. Every
method takes the ``user_id`` partition first and never reads outside it.

Concurrency, in terms a server-side store (Azure Cosmos DB for NoSQL, PostgreSQL) implements
natively:

- **Versions.** Every record a store returns carries its version in ``etag`` (Cosmos DB's
  ``_etag``; a version column elsewhere). Writing back a read copy is conditional on it
  (``If-Match``); a stale write raises :class:`~agent_memory.errors.ConflictError` and changes
  nothing. A record without an ``etag`` is created, and creating an existing id is a conflict
  too, so a read-then-create race has one winner.
- **Turn order.** A turn written with ``seq < 0`` gets its thread's next ``seq`` where the
  write commits; ``(user_id, thread_id, seq)`` is unique.
- **Atomicity** is promised within one user's partition only (as Cosmos DB transactional
  batches are): a batch is applied whole or not at all per user.

Vectors are L2-normalised float32 arrays of the store's dimension; a record may carry several,
one per *field* (``"content"`` for everything, ``"summary"`` for interactions, ...). The
full-text index holds one text per record (``Indexed.text``, BM25-ranked).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..errors import StoreError
from ..models import EmbeddingSpec, MemoryRecord, RecordKind, require_scope
from .paging import Page
from .search import SearchHit, StoreSearch

if TYPE_CHECKING:
    from ..jobqueue.base import JobQueue

CONTENT = "content"
"""The vector field every embedded record has: the embedding of its index text."""


class Capability(StrEnum):
    """Optional behaviour a store declares in :attr:`MemoryStore.capabilities`.

    The conformance suite (:mod:`agent_memory.testing`) skips a test that needs a capability
    the store does not declare and names it in the skip reason. Every store answers
    ``vector_search`` and ``text_search`` with the shared filters applied; the two search
    capabilities declare the ranking guarantees checked on top of that.
    """

    VECTOR_SEARCH = "vector_search"
    """``vector_search`` returns the top ``k`` records by cosine similarity, the cosine as
    score, each record once by its best field (exact on small sets: an approximate index
    re-scores its candidates)."""
    FULL_TEXT_SEARCH = "full_text_search"
    """``text_search`` ranks by term relevance: a rare query term outweighs a common one
    (BM25 in SQLite FTS5, ``FullTextScore`` in Azure Cosmos DB)."""
    NATIVE_HYBRID_SEARCH = "native_hybrid_search"
    """The store fuses the vector and full-text rankings itself (Cosmos DB
    ``ORDER BY RANK RRF(...)``) instead of leaving the fusion to the shared code."""
    COLLECTIONS = "collections"
    """Agents bound to memory collections (``bind_collections`` and the methods beside it)."""
    PERSISTENT = "persistent"
    """Records outlive the store object: a new store on the same target (file, container)
    reads them back after ``close()``."""
    JOB_QUEUE = "job_queue"
    """A durable job queue lives beside the records (:meth:`MemoryStore.job_queue`)."""
    EXPORT = "export"
    """The store gives back what was written to it, for copies between stores
    (:mod:`agent_memory.copy`): :meth:`MemoryStore.users`, :meth:`MemoryStore.indexed`
    (records with their index text and vectors) and, before ``open``,
    :meth:`MemoryStore.recorded_embedding`."""


class RecordQuery(BaseModel):
    """Filters shared by every read path (all optional; ``None`` means no filter).

    Attributes:
        kinds: record kinds to include.
        ids: only these record ids.
        thread_id: only this thread.
        agent_id: only records of this agent *or* shared ones (``agent_id`` null).
        since / until: ``created_at`` bounds, inclusive / exclusive.
        after_seq: turns with ``seq`` greater than this (incremental steps).
        updated_after: records whose ``updated_at`` is later than this (incremental steps;
            not a vector-search filter).
        embedded: ``False``: only records stored without vectors (a session's turns whose
            embedding is deferred); ``True``: only records with vectors.
        content_hash: only facts with this hash.
        content_hashes: only facts with one of these hashes (exact dedup of a batch in one
            indexed look-up).
        categories: only facts/insights in these categories.
        include_superseded: include facts retired by reconciliation (default False).
        as_of: a valid-time cut (bi-temporal reads): facts and insights only when
            ``valid_from <= as_of < valid_until`` (``valid_until`` null: still valid), and then
            a fact retired by a contradiction (one with ``valid_until``) counts as valid in
            its window; facts merged into a duplicate stay hidden (their merged fact stands
            for them) unless ``include_superseded``. Other kinds are not filtered by it.
        processed: only facts/insights with this ``processed`` flag.
        newest_first: order by ``created_at`` (then ``seq``) descending instead of ascending.
        limit: at most this many records.
        collections: only records in one of these collections (seed 004).
    """

    model_config = ConfigDict(frozen=True)

    kinds: frozenset[RecordKind] | None = None
    ids: frozenset[str] | None = None
    thread_id: str | None = None
    agent_id: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    after_seq: int | None = None
    updated_after: datetime | None = None
    embedded: bool | None = None
    content_hash: str | None = None
    content_hashes: frozenset[str] | None = None
    categories: frozenset[str] | None = None
    include_superseded: bool = False
    as_of: datetime | None = None
    processed: bool | None = None
    newest_first: bool = False
    limit: int | None = Field(default=None, gt=0)
    collections: frozenset[str] | None = None


@dataclass(frozen=True)
class Indexed:
    """A record as written to a store: the record, its index text and its vectors.

    Attributes:
        record: the record to upsert.
        text: what the full-text index holds for it (defaults to ``record.content``).
        vectors: field name -> float32 array of shape ``(dim,)``, L2-normalised.
    """

    record: MemoryRecord
    text: str = ""
    vectors: Mapping[str, np.ndarray] = field(default_factory=dict)

    @property
    def index_text(self) -> str:
        """The text for the full-text index."""
        return self.text or self.record.content


@dataclass(frozen=True)
class Scored:
    """A record returned by a ranked search, with the backend's raw score.

    Attributes:
        record: the record.
        score: the signal's raw score, higher is better: cosine similarity in [-1, 1] for
            vector search; for full-text search the backend's relevance (SQLite: BM25 from the
            user's own statistics; Cosmos DB: ``FullTextScore``), comparable within one result
            list only.
        field: the vector field that matched (vector search), else ``None``.
    """

    record: MemoryRecord
    score: float
    field: str | None = None


class MemoryStore(ABC):
    """The backend contract. Implementations: :class:`~agent_memory.stores.sqlite.SQLiteStore`.

    Lifecycle: ``await store.open(spec)`` once (creates or migrates the schema, checks the
    embedding model), then the operations, then ``await store.close()``. Writes are atomic
    per user (a batch is stored whole or not at all within each user's partition) and
    conditional on versions (see the module docstring). Every read is scoped to one
    ``user_id``.

    Capabilities (``capabilities``, :class:`Capability` members) name optional behaviour a
    backend supports, so the conformance suite can skip what a backend declares it lacks.
    """

    capabilities: frozenset[Capability] = frozenset()

    @abstractmethod
    async def open(self, embedding: EmbeddingSpec) -> None:
        """Create or migrate the schema and record/check the embedding model.

        Raises:
            NotAStoreError: the target exists but is not a store (or is corrupt).
            EmbeddingMismatchError: the store was built with another model or dimension.
            SchemaVersionError: the store was written by a newer library.
        """

    @abstractmethod
    async def close(self) -> None:
        """Release connections. Safe to call twice."""

    @property
    @abstractmethod
    def embedding(self) -> EmbeddingSpec:
        """The embedding model and dimension this store was built with."""

    @abstractmethod
    async def put(self, items: Sequence[Indexed], *, overwrite: bool = False
                  ) -> list[MemoryRecord]:
        """Write records (by ``(user_id, id)``) with their index text and vectors, atomically
        per user.

        A record with an ``etag`` replaces the stored one only if the stored version is still
        that ``etag``; a record without one is created and must not exist yet, unless
        ``overwrite`` (bulk copies between stores). A turn with ``seq < 0`` gets its thread's
        next ``seq`` where the write commits.

        Returns:
            The records as stored, with their new ``etag`` and assigned ``seq``, in order.

        Raises:
            ConflictError: a version differs, a record to create exists, or a turn's explicit
                ``seq`` is taken; nothing is written.
            DimensionMismatchError: a vector's length is not the store's dimension.
        """

    @abstractmethod
    async def update(self, records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
        """Replace the stored documents of existing records, keeping their index text and
        vectors (for flags, supersede fields, status: nothing is re-embedded), each only if
        its stored version is still the record's ``etag``. Atomic per user.

        Returns:
            The records as stored, with their new ``etag``.

        Raises:
            ConflictError: a stored version differs; nothing is written.
            RecordNotFoundError: a record no longer exists (by ``(user_id, id)``: deleted since
                it was read, or another user's); nothing is written.
            InvalidInputError: a record has no ``etag`` (it was not read from a store).
        """

    async def touch(self, user_id: str, ids: Sequence[str], at: datetime) -> int:
        """Count one access on each fact or insight in ``ids``: ``access_count + 1`` and
        ``last_accessed_at = at``, as an atomic increment (concurrent recalls never lose one;
        Cosmos DB: a patch ``incr`` operation).

        This default re-reads and writes each record conditionally, retrying on conflicts;
        stores override it with an in-place increment.

        Returns:
            How many records were touched (other kinds and unknown ids are skipped).
        """
        from ..errors import RecordNotFoundError
        from ..models import Fact
        from .conditional import modify

        user_id = require_scope(user_id)
        done = 0
        for record_id in dict.fromkeys(ids):
            try:
                await modify(self, user_id, record_id, lambda f: f.model_copy(update={
                    "access_count": f.access_count + 1, "last_accessed_at": at}), kind=Fact)
            except RecordNotFoundError:  # unknown id, or not a fact/insight
                continue
            done += 1
        return done

    def job_queue(self) -> JobQueue:
        """The durable job queue kept beside the records (stores declaring
        :attr:`Capability.JOB_QUEUE`); automatic processing and workers use it.

        Raises:
            ConfigError: this store keeps no job queue.
        """
        from ..errors import ConfigError

        raise ConfigError(f"{type(self).__name__} has no job queue; automatic processing needs one")

    @abstractmethod
    async def get(self, user_id: str, ids: Sequence[str]) -> list[MemoryRecord]:
        """Return the records with these ids in the user's partition (missing ids are skipped),
        in the order of ``ids``."""

    @abstractmethod
    async def list(self, user_id: str, query: RecordQuery) -> list[MemoryRecord]:
        """Return the user's records matching ``query``, ordered by ``created_at`` then ``seq``."""

    @abstractmethod
    async def count(self, user_id: str, query: RecordQuery) -> int:
        """Number of the user's records matching ``query`` (``limit`` ignored)."""

    @abstractmethod
    async def vector_search(
        self,
        user_id: str,
        vector: np.ndarray,
        query: RecordQuery,
        k: int,
        fields: Sequence[str] = (CONTENT,),
    ) -> list[Scored]:
        """Exact (or the backend's) cosine KNN over the user's records matching ``query``.

        Args:
            vector: float32 query vector, shape ``(dim,)``, L2-normalised.
            k: number of records to return (each record at most once, by its best field).
            fields: vector fields to search.

        Returns:
            Up to ``k`` hits, best first, with cosine similarity as score.

        Raises:
            DimensionMismatchError: ``vector`` has the wrong length.
        """

    @abstractmethod
    async def text_search(
        self, user_id: str, text: str, query: RecordQuery, k: int
    ) -> list[Scored]:
        """Full-text search over the user's records matching ``query``; best first.

        ``text`` is plain text: punctuation and query syntax in it are never operators. How
        words are matched and ranked is the backend's (SQLite: BM25 over the query's words;
        Cosmos DB: ``FullTextScore`` over the same words); scores are comparable within one
        result list only. Scores and order depend on the user's own records only: statistics
        spanning users (document counts, lengths, term frequencies) would let one user's
        writes move another's scores.
        """

    async def search(self, user_id: str, request: StoreSearch) -> list[SearchHit]:
        """One search pushed down: vector, full-text or hybrid over the user's records
        matching ``request.query``; best first, each hit with every signal's rank and raw
        score (see :mod:`.search`).

        This default runs :meth:`text_search` and :meth:`vector_search` and fuses them with
        RRF above the store; a store with native hybrid search overrides it and declares
        :attr:`Capability.NATIVE_HYBRID_SEARCH`.

        Raises:
            DimensionMismatchError: the vector has the wrong length.
        """
        from .search import fused_search

        return await fused_search(self, require_scope(user_id), request)

    async def page(self, user_id: str, query: RecordQuery, cursor: str | None = None
                   ) -> Page:
        """One page of :meth:`list` (``query.limit`` records, default 100) after ``cursor``.

        Returns:
            The records and the cursor of the next page (``None`` on the last page).

        Raises:
            InvalidInputError: a malformed cursor.

        This default lists every match; stores override it with keyset paging.
        """
        from .paging import page_by_listing

        return await page_by_listing(self, require_scope(user_id), query, cursor)

    async def next_seq(self, user_id: str, thread_id: str) -> int:
        """The ``seq`` the thread's next turn gets: one past its largest (0 when it has none).

        With ``seq`` assigned where writes commit, this is the number of turns the thread has
        held (turn counters read it). This default reads the thread's turns; stores override
        it with an index look-up.
        """
        turns = await self.list(require_scope(user_id), RecordQuery(
            kinds=frozenset({RecordKind.TURN}), thread_id=thread_id))
        return max((getattr(t, "seq", -1) for t in turns), default=-1) + 1

    async def speakers(self, user_id: str) -> list[str]:
        """The distinct ``speaker`` names of the user's turns, sorted.

        This default reads every turn; stores override it with an index look-up (hybrid
        search calls it on every query that may name a person).
        """
        turn_query = RecordQuery(kinds=frozenset({RecordKind.TURN}))
        turns = await self.list(require_scope(user_id), turn_query)
        return sorted({s for t in turns if (s := getattr(t, "speaker", None))})

    # -- reading back what was written (copies between stores; Capability.EXPORT) --------

    async def recorded_embedding(self) -> EmbeddingSpec | None:
        """The embedding spec the target (file, database) was built with, read without
        creating, migrating or changing anything; callable before :meth:`open`.

        Returns:
            The recorded spec, or ``None`` when the target holds no store yet.

        Raises:
            NotAStoreError: the target exists but is not a store.
            StoreError: the backend lacks :attr:`Capability.EXPORT`.
        """
        raise StoreError(f"{type(self).__name__} cannot read its embedding model before open "
                         "(it lacks Capability.EXPORT)")

    async def users(self) -> list[str]:
        """The ids of every user with at least one record, sorted.

        The one read that spans partitions (Cosmos DB: a cross-partition query of the
        distinct partition keys); only copies between stores use it.

        Raises:
            StoreError: the backend lacks :attr:`Capability.EXPORT`.
        """
        raise StoreError(f"{type(self).__name__} cannot list its users "
                         "(it lacks Capability.EXPORT)")

    async def indexed(self, user_id: str, ids: Sequence[str]) -> list[Indexed]:
        """The user's records with these ids as they were written: each with its index text
        and every vector field, bit for bit (float32 arrays of shape ``(dim,)``; a record
        stored without vectors has none). Missing and repeated ids are skipped; order of
        ``ids``.

        Raises:
            StoreError: the backend lacks :attr:`Capability.EXPORT`.
        """
        raise StoreError(f"{type(self).__name__} cannot read back index text and vectors "
                         "(it lacks Capability.EXPORT)")

    @abstractmethod
    async def delete(self, user_id: str, ids: Sequence[str]) -> int:
        """Hard-delete records (and their vectors and index entries); returns how many."""

    async def purge(
        self,
        user_id: str,
        *,
        thread_id: str | None = None,
        kinds: frozenset[RecordKind] | None = None,
        before: datetime | None = None,
    ) -> dict[str, int]:
        """Hard-delete the user's records matching the filters, superseded ones included
        (forgetting a thread, a user, or raw turns past a time-to-live).

        Args:
            thread_id: only this thread's records.
            kinds: only these kinds (default: every kind).
            before: only records created before this time (exclusive).

        Returns:
            Records removed per kind, e.g. ``{"turn": 12, "fact": 3}`` (kinds with none are
            left out).

        The default implementation lists then deletes through the contract, in batches of
        500 ids (each batch atomic); a backend may override it with one bulk operation.
        """
        query = RecordQuery(kinds=kinds, thread_id=thread_id, until=before,
                            include_superseded=True)
        found = await self.list(user_id, query)
        counts: dict[str, int] = {}
        for start in range(0, len(found), 500):
            chunk = found[start : start + 500]
            await self.delete(user_id, [r.id for r in chunk])
            for record in chunk:
                counts[record.kind.value] = counts.get(record.kind.value, 0) + 1
        return counts

    # -- collections bound to agents (seed 004; Capability.COLLECTIONS) -----------------

    async def bind_collections(
        self, user_id: str, agent_id: str, collections: Sequence[str]
    ) -> int:
        """Bind an agent of the user to memory collections (idempotent); returns how many
        bindings are new.

        Raises:
            StoreError: the backend lacks :attr:`Capability.COLLECTIONS`.
        """
        raise StoreError(f"{type(self).__name__} does not support collections")

    async def unbind_collections(
        self, user_id: str, agent_id: str, collections: Sequence[str]
    ) -> int:
        """Remove bindings; returns how many existed. Raises StoreError like
        :meth:`bind_collections`."""
        raise StoreError(f"{type(self).__name__} does not support collections")

    async def agent_collections(self, user_id: str, agent_id: str) -> list[str]:
        """The collections the agent is bound to, in binding order. Raises StoreError like
        :meth:`bind_collections`."""
        raise StoreError(f"{type(self).__name__} does not support collections")
