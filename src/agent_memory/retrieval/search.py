"""Vector, full-text and hybrid search over one user's records.

Hybrid search takes the top ``candidates`` of each signal (cosine KNN over the embeddings, BM25
over the index text) and fuses them with reciprocal rank fusion (:mod:`.fusion`, k = 10 by
default). When turns are among the kinds searched, hybrid search does two more things:

* turns and derived records (facts, summaries, ...) are ranked in separate candidate lists
  (four lists: vector and text for each), so a turn and the fact that restates it do not push
  each other down one shared list; each list's top hit weighs the same in the fusion;
* evidence-level fusion (:func:`.fusion.fold_evidence`) then adds every derived record's fused
  score onto the turns it cites: a turn found by its own text, by a fact extracted from it and
  by its session's summary ranks above a turn found once. A fact adds
  :data:`~.fusion.FACT_FOLD_WEIGHT` (0.4) of its score, since it restates part of its turn;
  a summary shares its score out over its turns. Derived records keep their own score and
  stay in the results;
* a person the query names (a speaker of the user's turns) is taken out of the text embedded
  and matched, and becomes a prior on the fused scores of that person's turns and facts
  (:mod:`.subjects`).

Both were measured on the LoCoMo dev set (BENCHMARKS.md, "Recall on LoCoMo"). Each hit
keeps every signal's score and rank, the support folded onto it and its provenance.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..embedders.base import Embedder
from ..errors import EmptyContentError
from ..models import DERIVED_KINDS, MemoryRecord, RecordKind, as_utc, require_scope
from ..stores.base import CONTENT, MemoryStore, RecordQuery
from ..stores.search import SearchHit, SignalHit, StoreSearch
from .fusion import DEFAULT_RRF_K, FACT_FOLD_WEIGHT, fold_evidence
from .hits import Hit, Provenance, SearchMode, Signal
from .subjects import SUBJECT_WEIGHT, apply_prior, named_speakers, strip_names


class SearchFilters(BaseModel):
    """Filters of a search (all optional).

    Attributes:
        kinds: record kinds to search (default: every kind).
        thread_id: only this thread.
        agent_id: only this agent's records and shared ones.
        since / until: ``created_at`` range, inclusive / exclusive.
        categories: only facts/insights in these categories.
        include_superseded: also search facts retired by reconciliation.
        as_of: search the facts valid at this time (:attr:`RecordQuery.as_of`).
        collections: only records in these collections (seed 004).
    """

    model_config = ConfigDict(frozen=True)

    kinds: frozenset[RecordKind] | None = None
    thread_id: str | None = None
    agent_id: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    categories: frozenset[str] | None = None
    include_superseded: bool = False
    as_of: datetime | None = None
    collections: frozenset[str] | None = None

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
            as_of=as_utc(self.as_of) if self.as_of else None,
            collections=self.collections,
        )


class SearchRequest(BaseModel):
    """A search: the query text, how to rank, how many, and filters.

    Attributes:
        query: natural-language query (non-empty).
        mode: vector, text or hybrid (default).
        k: number of hits to return (1-1000).
        candidates: per-list candidate pool for hybrid fusion (default ``max(k, 50)``).
        fields: vector fields to search (default ``("content",)``).
        evidence_fusion: in hybrid mode, rank turns and derived records in separate lists and
            fold derived records' scores onto the turns they cite (default True; only when
            turns are among the kinds searched).
        subject_prior: with evidence fusion, the weight of the named-subject prior
            (:mod:`.subjects`): names of speakers the query mentions are stripped from the
            searched text and their turns' and facts' scores multiplied by ``1 + weight``;
            0 turns the mechanism off.
        fact_fold: with evidence fusion, the share of a fact's or insight's fused score added
            onto each turn it cites (:data:`~.fusion.FACT_FOLD_WEIGHT`).
    """

    model_config = ConfigDict(frozen=True)

    query: str
    mode: SearchMode = SearchMode.HYBRID
    k: int = Field(default=10, ge=1, le=1000)
    candidates: int | None = Field(default=None, ge=1)
    filters: SearchFilters = SearchFilters()
    fields: tuple[str, ...] = (CONTENT,)
    evidence_fusion: bool = True
    subject_prior: float = Field(default=SUBJECT_WEIGHT, ge=0.0)
    fact_fold: float = Field(default=FACT_FOLD_WEIGHT, ge=0.0)

    @property
    def pool(self) -> int:
        """Candidates taken from each signal."""
        return self.candidates or max(self.k, 50)

    @property
    def folds_evidence(self) -> bool:
        """Whether evidence-level fusion applies to this request."""
        kinds = self.filters.kinds
        return (
            self.evidence_fusion
            and self.mode == SearchMode.HYBRID
            and (kinds is None or RecordKind.TURN in kinds)
        )


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
    groups = _groups(query, request)
    pool = request.k if request.mode != SearchMode.HYBRID else request.pool
    names: list[str] = []
    text = request.query
    if request.folds_evidence and request.subject_prior > 0:
        names = named_speakers(request.query, await store.speakers(user_id))
        if names:
            text = strip_names(request.query, names)
    found = await _search_groups(store, embedder, user_id, text, request, groups, pool, rrf_k)
    # Each record belongs to one group: its group's fused score is its score over all lists.
    by_signal: dict[str, dict[str, SignalHit]] = {"vector": {}, "text": {}}
    records: dict[str, MemoryRecord] = {}
    fused: list[tuple[str, float]] = []
    for hits in found:
        for hit in hits:
            records[hit.record.id] = hit.record
            fused.append((hit.record.id, hit.score))
            for name, signal in hit.signals.items():
                by_signal[name][hit.record.id] = signal
    support: dict[str, dict[str, float]] = {}
    factors: dict[str, float] = {}
    order = {rid: i for i, (rid, _) in enumerate(fused)}
    ranked = sorted(fused, key=lambda pair: (-pair[1], order[pair[0]]))
    if request.mode == SearchMode.HYBRID:
        if request.folds_evidence:
            ranked, support = await _fold(store, user_id, query, ranked, records,
                                          request.fact_fold)
        if names:
            ranked, factors = apply_prior(dict(ranked), records, names, request.subject_prior)
    hits = []
    for record_id, score in ranked[: request.k]:
        signals = {
            name: Signal(score=entry.score, rank=entry.rank, field=entry.field)
            for name, table in by_signal.items()
            if (entry := table.get(record_id)) is not None
        }
        record = records[record_id]
        hits.append(
            Hit(record=record, score=score, signals=signals, provenance=Provenance.of(record),
                support=support.get(record_id, {}), prior=factors.get(record_id, 1.0))
        )
    return hits


async def _search_groups(
    store: MemoryStore,
    embedder: Embedder,
    user_id: str,
    text: str,
    request: SearchRequest,
    groups: dict[str, RecordQuery],
    pool: int,
    rrf_k: int,
) -> list[list[SearchHit]]:
    """Each group's hits from one pushed-down search (:meth:`MemoryStore.search`).

    The query embedding runs in the embedder's worker thread while the store starts on the
    first group's full-text search (both release the GIL: onnxruntime, sqlite3): at 100k
    records this took hybrid search from about 17 to 12-15 ms at p50 (BENCHMARKS.md, "Search
    at scale"). One embedding serves every group.
    """
    embedding: asyncio.Future[np.ndarray] | None = None
    if request.mode in (SearchMode.VECTOR, SearchMode.HYBRID):
        embedding = asyncio.ensure_future(embedder.embed_query(text))
        await asyncio.sleep(0)  # let it start before the full-text searches are queued
    with_text = request.mode in (SearchMode.TEXT, SearchMode.HYBRID)
    try:
        return [
            await store.search(user_id, StoreSearch(
                query=group_query, k=pool, text=text if with_text else None,
                vector=embedding, fields=request.fields, rrf_k=rrf_k))
            for group_query in groups.values()
        ]
    except BaseException:
        if embedding is not None:
            embedding.cancel()
            await asyncio.gather(embedding, return_exceptions=True)
        raise


def _groups(query: RecordQuery, request: SearchRequest) -> dict[str, RecordQuery]:
    """The candidate lists of a request: one (suffix ``""``) or, with evidence fusion, turns
    (``":turn"``) and derived records (``":derived"``) ranked apart (see the module doc)."""
    if not request.folds_evidence:
        return {"": query}
    wanted = query.kinds if query.kinds is not None else frozenset(RecordKind)
    derived = frozenset(wanted - {RecordKind.TURN})
    groups = {":turn": query.model_copy(update={"kinds": frozenset({RecordKind.TURN})})}
    if derived:
        groups[":derived"] = query.model_copy(update={"kinds": derived})
    return groups


async def _fold(
    store: MemoryStore,
    user_id: str,
    query: RecordQuery,
    ranked: list[tuple[str, float]],
    records: dict[str, MemoryRecord],
    fact_fold: float = FACT_FOLD_WEIGHT,
) -> tuple[list[tuple[str, float]], dict[str, dict[str, float]]]:
    """Evidence-level fusion over fused ``ranked`` scores (a fact or insight adds ``fact_fold``
    of its score to each turn it cites); fetches the cited turns not yet among the candidates
    (through ``query``, so they pass the same filters) into ``records``."""
    scores = dict(ranked)
    evidence = {
        rid: list(r.evidence) for rid, r in records.items()
        if r.kind in DERIVED_KINDS and r.evidence
    }
    per_turn = {rid: records[rid].kind in _WHOLE_KINDS for rid in evidence}
    folded, support = fold_evidence(scores, evidence, per_turn=per_turn,
                                    whole_weight=fact_fold)
    missing = [t for t in folded if t not in records]
    if missing:
        turns_query = query.model_copy(
            update={"ids": frozenset(missing), "kinds": frozenset({RecordKind.TURN})}
        )
        for record in await store.list(user_id, turns_query):
            records[record.id] = record
    for turn_id, extra in folded.items():
        record = records.get(turn_id)
        if record is None or record.kind != RecordKind.TURN:
            support.pop(turn_id, None)
            continue
        scores[turn_id] = scores.get(turn_id, 0.0) + extra
    order = {rid: i for i, rid in enumerate(scores)}
    return sorted(scores.items(), key=lambda p: (-p[1], order[p[0]])), support


_WHOLE_KINDS = frozenset({RecordKind.FACT, RecordKind.INSIGHT})
"""Derived kinds whose score (times ``fact_fold``) goes to each turn they cite (a fact restates
its turn); other kinds (summaries, interactions, profiles) share theirs out over their
evidence."""
