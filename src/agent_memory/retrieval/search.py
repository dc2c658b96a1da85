"""Vector, full-text and hybrid search over one user's records.

Hybrid search takes the top ``candidates`` of each signal (cosine KNN over the embeddings, BM25
over the index text) and fuses them with reciprocal rank fusion (:mod:`.fusion`, k = 60 by
default). Each hit keeps every signal's score and rank and its provenance.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from ..embedders.base import Embedder
from ..errors import EmptyContentError
from ..models import RecordKind, as_utc, require_scope
from ..stores.base import CONTENT, MemoryStore, RecordQuery, Scored
from .fusion import DEFAULT_RRF_K, rrf
from .hits import Hit, Provenance, SearchMode, Signal


class SearchFilters(BaseModel):
    """Filters of a search (all optional).

    Attributes:
        kinds: record kinds to search (default: every kind).
        thread_id: only this thread.
        agent_id: only this agent's records and shared ones.
        since / until: ``created_at`` range, inclusive / exclusive.
        categories: only facts/insights in these categories.
        include_superseded: also search facts retired by reconciliation.
    """

    model_config = ConfigDict(frozen=True)

    kinds: frozenset[RecordKind] | None = None
    thread_id: str | None = None
    agent_id: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    categories: frozenset[str] | None = None
    include_superseded: bool = False

    def to_query(self) -> RecordQuery:
        """The equivalent store :class:`RecordQuery`."""
        return RecordQuery(
            kinds=self.kinds,
            thread_id=self.thread_id,
            agent_id=self.agent_id,
            since=as_utc(self.since) if self.since else None,
            until=as_utc(self.until) if self.until else None,
            categories=self.categories,
            include_superseded=self.include_superseded,
        )


class SearchRequest(BaseModel):
    """A search: the query text, how to rank, how many, and filters.

    Attributes:
        query: natural-language query (non-empty).
        mode: vector, text or hybrid (default).
        k: number of hits to return (1-1000).
        candidates: per-signal candidate pool for hybrid fusion (default ``max(4k, 50)``).
        fields: vector fields to search (default ``("content",)``).
    """

    model_config = ConfigDict(frozen=True)

    query: str
    mode: SearchMode = SearchMode.HYBRID
    k: int = Field(default=10, ge=1, le=1000)
    candidates: int | None = Field(default=None, ge=1)
    filters: SearchFilters = SearchFilters()
    fields: tuple[str, ...] = (CONTENT,)

    @property
    def pool(self) -> int:
        """Candidates taken from each signal."""
        return self.candidates or max(4 * self.k, 50)


def _signals(results: Sequence[Scored]) -> dict[str, tuple[Scored, int]]:
    return {s.record.id: (s, rank) for rank, s in enumerate(results, start=1)}


async def search(
    store: MemoryStore,
    embedder: Embedder,
    user_id: str,
    request: SearchRequest,
    *,
    rrf_k: int = DEFAULT_RRF_K,
) -> list[Hit]:
    """Run ``request`` over ``user_id``'s records.

    Returns:
        Up to ``request.k`` hits, best first.

    Raises:
        MissingScopeError: ``user_id`` is blank.
        EmptyContentError: the query is blank.
        DimensionMismatchError: the embedder's dimension differs from the store's.
    """
    user_id = require_scope(user_id)
    if not request.query.strip():
        raise EmptyContentError("search query must not be empty")
    query = request.filters.to_query()
    vector_hits: list[Scored] = []
    text_hits: list[Scored] = []
    pool = request.k if request.mode != SearchMode.HYBRID else request.pool
    if request.mode in (SearchMode.VECTOR, SearchMode.HYBRID):
        qvec = await embedder.embed_one(request.query)
        vector_hits = await store.vector_search(user_id, qvec, query, pool, request.fields)
    if request.mode in (SearchMode.TEXT, SearchMode.HYBRID):
        text_hits = await store.text_search(user_id, request.query, query, pool)

    by_signal = {"vector": _signals(vector_hits), "text": _signals(text_hits)}
    records = {s.record.id: s.record for s in (*vector_hits, *text_hits)}
    if request.mode == SearchMode.VECTOR:
        ranked = [(s.record.id, s.score) for s in vector_hits]
    elif request.mode == SearchMode.TEXT:
        ranked = [(s.record.id, s.score) for s in text_hits]
    else:
        ranked = rrf(
            {"vector": [s.record.id for s in vector_hits], "text": [s.record.id for s in text_hits]},
            k=rrf_k,
        )
    hits = []
    for record_id, score in ranked[: request.k]:
        signals = {
            name: Signal(score=entry[0].score, rank=entry[1], field=entry[0].field)
            for name, table in by_signal.items()
            if (entry := table.get(record_id)) is not None
        }
        record = records[record_id]
        hits.append(
            Hit(record=record, score=score, signals=signals, provenance=Provenance.of(record))
        )
    return hits
