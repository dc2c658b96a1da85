"""One search request pushed down to a store, and the hits it returns with every signal.

A store answers :class:`StoreSearch` through :meth:`MemoryStore.search
<agent_memory.stores.base.MemoryStore.search>`: the query text (full-text signal), the query
vector (vector signal), the filters, how many candidates, and the fusion constant. A store
with native hybrid search (Azure Cosmos DB: ``ORDER BY RANK RRF(VectorDistance(...),
FullTextScore(...))``) fuses on the server and declares
:attr:`~agent_memory.stores.base.Capability.NATIVE_HYBRID_SEARCH`; any other store inherits
:func:`fused_search`, which runs its vector and full-text searches and fuses them here with
reciprocal rank fusion (:mod:`agent_memory.text.fusion`; Cormack, Clarke & Buettcher,
SIGIR 2009: score = sum of ``1 / (rrf_k + rank)`` over the signals that found the record).

Every hit keeps each signal's rank and raw score, so the layers above (evidence-level fusion,
subject priors, recall scoring) and the user see why it ranked where it did.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..models import MemoryRecord
from ..text.fusion import DEFAULT_RRF_K, rrf

if TYPE_CHECKING:
    from .base import MemoryStore, RecordQuery, Scored

VECTOR = "vector"
"""Name of the vector signal."""

TEXT = "text"
"""Name of the full-text signal."""


@dataclass(frozen=True)
class StoreSearch:
    """One search over one user's records.

    Attributes:
        query: the filters (``limit`` and ordering are ignored).
        k: candidates wanted from each signal (a fused result may hold up to ``2 k`` hits;
            a store fusing natively returns at least ``k`` when that many match).
        text: the query text for the full-text signal; ``None`` leaves the signal out.
        vector: the query embedding, float32 of shape ``(dim,)`` and L2-normalised, or an
            awaitable that resolves to it (a store may start its full-text work while the
            embedding is computed); ``None`` leaves the vector signal out.
        fields: vector fields searched (each record counts once, by its best field).
        rrf_k: the reciprocal-rank-fusion constant (> 0), when both signals are present.
    """

    query: RecordQuery
    k: int
    text: str | None = None
    vector: np.ndarray | Awaitable[np.ndarray] | None = None
    fields: Sequence[str] = ("content",)
    rrf_k: int = DEFAULT_RRF_K


@dataclass(frozen=True)
class SignalHit:
    """One signal's view of a hit.

    Attributes:
        rank: 1-based rank within that signal's candidates.
        score: the signal's raw score, higher is better (cosine similarity for ``vector``;
            the backend's full-text relevance for ``text``, comparable within one list only).
        field: the vector field that matched (``vector`` only).
    """

    rank: int
    score: float
    field: str | None = None


@dataclass(frozen=True)
class SearchHit:
    """A ranked record.

    Attributes:
        record: the record.
        score: the fused RRF score when both signals ran, else the one signal's raw score.
        signals: signal name (``vector``, ``text``) -> its rank and raw score, for each signal
            that found the record.
    """

    record: MemoryRecord
    score: float
    signals: Mapping[str, SignalHit] = field(default_factory=dict)


def fuse(lists: Mapping[str, Sequence[Scored]], rrf_k: int) -> list[SearchHit]:
    """Fuse per-signal ranked lists into hits, best first.

    With one list, its order and raw scores are kept; with several, reciprocal rank fusion
    (:func:`agent_memory.text.fusion.rrf`: ties keep the order of first appearance, lists
    taken in the order given).

    Raises:
        ValueError: ``rrf_k`` is not positive.
    """
    if rrf_k <= 0:
        raise ValueError("rrf_k must be positive")
    records: dict[str, MemoryRecord] = {}
    signals: dict[str, dict[str, SignalHit]] = {}
    for name, found in lists.items():
        for rank, scored in enumerate(found, start=1):
            rid = scored.record.id
            records.setdefault(rid, scored.record)
            signals.setdefault(rid, {})[name] = SignalHit(rank, scored.score, scored.field)
    if len(lists) == 1:
        (found,) = lists.values()
        ranked = [(s.record.id, s.score) for s in found]
    else:
        ranked = rrf({name: [s.record.id for s in found] for name, found in lists.items()},
                     k=rrf_k)
    return [SearchHit(records[rid], score, signals[rid]) for rid, score in ranked]


async def fused_search(store: MemoryStore, user_id: str, request: StoreSearch
                       ) -> list[SearchHit]:
    """:meth:`MemoryStore.search` for stores without native hybrid search: the full-text
    search runs while the query embedding (an awaitable ``vector``) is computed, then the
    vector search, then :func:`fuse`.

    Raises:
        DimensionMismatchError: the vector has the wrong length.
    """
    vector = request.vector
    pending: asyncio.Future[np.ndarray] | None = None
    if vector is not None and inspect.isawaitable(vector):
        pending = asyncio.ensure_future(vector)
        await asyncio.sleep(0)  # let it start before the full-text search
    lists: dict[str, Sequence[Scored]] = {}
    try:
        text_hits = (await store.text_search(user_id, request.text, request.query, request.k)
                     if request.text is not None else None)
        if pending is not None:
            vector = await pending
    except BaseException:
        if pending is not None:
            pending.cancel()
            await asyncio.gather(pending, return_exceptions=True)
        raise
    if vector is not None:
        lists[VECTOR] = await store.vector_search(user_id, vector,  # type: ignore[arg-type]
                                                  request.query, request.k, request.fields)
    if text_hits is not None:
        lists[TEXT] = text_hits
    return fuse(lists, request.rrf_k)
