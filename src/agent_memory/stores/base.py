"""The store contract: the few operations every backend (SQLite, Azure Cosmos DB) implements.

Everything shared (validation, embedding, ranking fusion, pipeline logic) lives above this
seam; a store only persists records with their vectors and answers scoped queries. Every
method takes the ``user_id`` partition first and never reads outside it.

Vectors are L2-normalised float32 arrays of the store's dimension; a record may carry several,
one per *field* (``"content"`` for everything, ``"summary"`` for interactions, ...). The
full-text index holds one text per record (``Indexed.text``, BM25-ranked).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..errors import StoreError
from ..models import MemoryRecord, RecordKind, require_scope

CONTENT = "content"
"""The vector field every embedded record has: the embedding of its index text."""


class EmbeddingSpec(BaseModel):
    """Which embedding model a store's vectors come from.

    Attributes:
        model: the embedder's name, e.g. ``local:all-MiniLM-L6-v2``.
        dim: vector length (dimensions).
    """

    model_config = ConfigDict(frozen=True)

    model: str
    dim: int = Field(gt=0)


class RecordQuery(BaseModel):
    """Filters shared by every read path (all optional; ``None`` means no filter).

    Attributes:
        kinds: record kinds to include.
        ids: only these record ids.
        thread_id: only this thread.
        agent_id: only records of this agent *or* shared ones (``agent_id`` null).
        since / until: ``created_at`` bounds, inclusive / exclusive.
        after_seq: turns with ``seq`` greater than this (incremental steps).
        content_hash: only facts with this hash.
        categories: only facts/insights in these categories.
        include_superseded: include facts retired by reconciliation (default False).
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
    content_hash: str | None = None
    categories: frozenset[str] | None = None
    include_superseded: bool = False
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
        score: cosine similarity in [-1, 1] (vector search) or BM25 relevance, higher is better
            (full-text search; computed from the user's own statistics, so no other user's
            data moves it).
        field: the vector field that matched (vector search), else ``None``.
    """

    record: MemoryRecord
    score: float
    field: str | None = None


class MemoryStore(ABC):
    """The backend contract. Implementations: :class:`~agent_memory.stores.sqlite.SQLiteStore`.

    Lifecycle: ``await store.open(spec)`` once (creates or migrates the schema, checks the
    embedding model), then the operations, then ``await store.close()``. Every write is
    atomic: a batch is stored whole or not at all. Every read is scoped to one ``user_id``.

    Capabilities (``capabilities``) name optional behaviour a backend supports, so the
    conformance suite can skip what a backend declares it lacks.
    """

    capabilities: frozenset[str] = frozenset()

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
    async def put(self, items: Sequence[Indexed]) -> None:
        """Upsert records (by ``(user_id, id)``) with their index text and vectors, atomically.

        Raises:
            DimensionMismatchError: a vector's length is not the store's dimension.
        """

    @abstractmethod
    async def update(self, records: Sequence[MemoryRecord]) -> int:
        """Replace the stored documents of existing records, keeping their index text and
        vectors (for flags, access statistics, supersede fields: nothing is re-embedded).

        Records that do not exist (by ``(user_id, id)``) are skipped. Atomic.

        Returns:
            How many records were updated.
        """

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
        """BM25 full-text search over the user's records matching ``query``; best first.

        Any word of ``text`` may match (terms are OR-ed); punctuation and query syntax in
        ``text`` are treated as plain words, never as operators. Scores and order depend on
        the user's own records only: statistics spanning users (document counts, lengths,
        term frequencies) would let one user's writes move another's scores.
        """

    async def speakers(self, user_id: str) -> list[str]:
        """The distinct ``speaker`` names of the user's turns, sorted.

        This default reads every turn; stores override it with an index look-up (hybrid
        search calls it on every query that may name a person).
        """
        turn_query = RecordQuery(kinds=frozenset({RecordKind.TURN}))
        turns = await self.list(require_scope(user_id), turn_query)
        return sorted({s for t in turns if (s := getattr(t, "speaker", None))})

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

    # -- collections bound to agents (seed 004; capability "collections") -----------------

    async def bind_collections(
        self, user_id: str, agent_id: str, collections: Sequence[str]
    ) -> int:
        """Bind an agent of the user to memory collections (idempotent); returns how many
        bindings are new.

        Raises:
            StoreError: the backend lacks the ``collections`` capability.
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
