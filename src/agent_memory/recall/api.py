"""Recall (seed 004 ``get_memories``): the client mixin :class:`RecallAPI`.

A recall searches the memories an agent may use (its bound collections, or the user's records
when none are bound), scores every candidate by relevance, importance and recency
(:mod:`.scoring`), drops those under ``min_score``, keeps ``max_memories`` by a strategy
(:mod:`.strategies`) and, unless ``update_access=False``, records the access on the recalled
facts and insights (``access_count`` + 1, ``last_accessed_at`` = now, through
``store.update``: nothing is re-embedded). Other kinds carry no access statistics.

Candidates: the context is cut into chunks of :data:`CHUNK_TOKENS` tokens; each chunk is
searched in each collection for ``top_k_vectors`` hits (seed 004: 2 chunks x 3 collections x
10 = up to 60 candidates); a memory found several times keeps its best relevance. With fused
relevance, each chunk is searched once over all the collections for ``top_k_vectors`` x
collections hits, so the RRF scores compared come from one ranking.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from .. import validation as check
from ..errors import EmptyContentError, InvalidInputError
from ..models import AnyRecord, Fact, RecordKind, require_scope, utcnow
from ..retrieval.hits import Hit, SearchMode
from ..retrieval.search import SearchFilters, SearchRequest, search
from ..tokens import count_tokens
from .collections import BulkAddResult, MemoryInput, add_memories
from .scoring import RelevanceSource, ScoreExplanation, Weights, explain
from .strategies import Strategy, collection_limit, hard_limit, map_reduce_summary

if TYPE_CHECKING:
    from ..pipeline.context import Components

CHUNK_TOKENS = 200
"""Longest context chunk embedded at once (estimated tokens; all-MiniLM-L6-v2 reads 256 word
pieces)."""


class RecalledMemory(BaseModel):
    """One recalled memory with its score explained.

    Attributes:
        record: the memory.
        score: in [0, 1]; equals ``explanation.score``.
        explanation: each signal's raw value, rescaled value, alpha and share.
        collection: the collection it was recalled from (``None`` outside collections).
    """

    record: AnyRecord
    score: float
    explanation: ScoreExplanation
    collection: str | None = None


class RecallResult(BaseModel):
    """What :meth:`RecallAPI.recall` returns.

    Attributes:
        memories: the kept memories, best first (SUMMARY: every memory summarized).
        summary: the map-reduce summary (SUMMARY strategy only).
        strategy: the strategy applied.
        candidates: memories scored before ``min_score`` and the limit.
        collections: the collections searched (empty: the user's records, no collection filter).
        reasoner_calls: map and reduce calls made (SUMMARY only).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memories: list[RecalledMemory] = Field(default_factory=list)
    summary: str | None = None
    strategy: Strategy
    candidates: int = 0
    collections: list[str] = Field(default_factory=list)
    reasoner_calls: int = 0


def chunk_context(context: str, max_tokens: int = CHUNK_TOKENS) -> list[str]:
    """Cut ``context`` into whitespace-separated pieces of at most ``max_tokens`` tokens each."""
    chunks: list[str] = []
    words: list[str] = []
    used = 0
    for word in context.split():
        cost = count_tokens(word)
        if words and used + cost > max_tokens:
            chunks.append(" ".join(words))
            words, used = [], 0
        words.append(word)
        used += cost
    if words:
        chunks.append(" ".join(words))
    return chunks


class RecallAPI:
    """Client mixin: recall scoring, strategies, collections bound to agents, bulk add."""

    # Provided by AsyncMemory: ``components`` and ``async connect()``.
    if TYPE_CHECKING:
        @property
        def components(self) -> Components: ...

    async def add_memories(
        self, user_id: str, items: Iterable[MemoryInput | Mapping[str, Any]]
    ) -> BulkAddResult:
        """Add memories (facts or insights) in bulk, each optionally in a collection; see
        :func:`.collections.add_memories` (per-item success and failure: an item longer than
        ``Settings.max_content_chars``, with a lone surrogate or a bad time is reported in
        ``failed``, not written).

        Returns:
            A :class:`~agent_memory.recall.collections.BulkAddResult`: ``added`` holds
            ``(index, record)`` with each record as stored (its ``etag`` set, ready for a
            conditional ``store.update``), ``failed`` the items refused.

        Raises:
            MissingScopeError / InvalidScopeError: a bad ``user_id`` (nothing is written).
            InvalidInputError: ``items`` is a string or bytes, not a collection of items
                (nothing is written).
        """
        require_scope(user_id)
        if isinstance(items, (str, bytes)):  # would be read as one item per character
            raise InvalidInputError("items must be a list of memories (a dict or MemoryInput "
                                    "each), not a string")
        await self.connect()  # type: ignore[attr-defined]
        return await add_memories(self.components, user_id, items)

    async def bind_collections(self, user_id: str, agent_id: str, collections: Sequence[str]) -> int:
        """Bind an agent to collections (idempotent); returns how many bindings are new.

        Raises:
            InvalidInputError: a blank collection name.
        """
        user_id, agent_id = require_scope(user_id), require_scope(agent_id, "agent_id")
        names = _names(collections)
        await self.connect()  # type: ignore[attr-defined]
        return await self.components.store.bind_collections(user_id, agent_id, names)

    async def unbind_collections(
        self, user_id: str, agent_id: str, collections: Sequence[str]
    ) -> int:
        """Remove bindings; returns how many existed."""
        user_id, agent_id = require_scope(user_id), require_scope(agent_id, "agent_id")
        names = _names(collections)
        await self.connect()  # type: ignore[attr-defined]
        return await self.components.store.unbind_collections(user_id, agent_id, names)

    async def agent_collections(self, user_id: str, agent_id: str) -> list[str]:
        """The collections the agent is bound to."""
        user_id, agent_id = require_scope(user_id), require_scope(agent_id, "agent_id")
        await self.connect()  # type: ignore[attr-defined]
        return await self.components.store.agent_collections(user_id, agent_id)

    async def recall(
        self,
        user_id: str,
        context: str,
        *,
        agent_id: str | None = None,
        collections: Sequence[str] | None = None,
        kinds: Sequence[RecordKind | str] | None = None,
        top_k_vectors: int = 10,
        relevance_alpha: float = 1.0,
        importance_alpha: float = 1.0,
        recency_alpha: float = 1.0,
        min_score: float = 0.0,
        max_memories: int = 10,
        strategy: Strategy | str = Strategy.HARD_LIMIT,
        relevance: RelevanceSource | str = RelevanceSource.COSINE,
        default_importance: int = 5,
        update_access: bool = True,
        reduce_batch_size: int = 10,
        summary_max_tokens: int = 300,
    ) -> RecallResult:
        """Recall memories for ``context`` (seed 004 ``get_memories_for_agent``).

        Args:
            agent_id: recall for this agent: its bound collections, or, when it has none, its
                own and shared records.
            collections: search these collections (overrides the agent's bindings).
            kinds: record kinds to consider (default: every kind).
            top_k_vectors: hits per context chunk per collection.
            relevance_alpha / importance_alpha / recency_alpha: signal weights (>= 0, not all 0).
            min_score: drop memories scoring below this (0-1).
            max_memories: most memories kept (HARD_LIMIT, COLLECTION_LIMIT).
            strategy: HARD_LIMIT, COLLECTION_LIMIT or SUMMARY.
            relevance: ``cosine`` (default, seed 004: one vector search per collection,
                ``(cos + 1) / 2``) or ``fused`` (one hybrid search over all the collections,
                its RRF score divided by the best candidate's).
            default_importance: importance (1-10) of records without one.
            update_access: record the access on recalled facts/insights.
            reduce_batch_size / summary_max_tokens: SUMMARY map-reduce batch and budget.

        Returns:
            A :class:`RecallResult`.

        Raises:
            MissingScopeError / EmptyContentError / InvalidInputError: bad arguments (nothing
                changes); among them UnknownOptionError (strategy, relevance, kind),
                InvalidNumberError (a NaN, infinite or negative alpha, ``min_score`` outside
                0-1, a count outside 1-1,000) and InvalidTextError (a lone surrogate).
            ReasonerError: SUMMARY failed (access is then not updated).
        """
        user_id = require_scope(user_id)
        check.text(context, "recall context")
        if not context or not context.strip():
            raise EmptyContentError("recall context must not be empty")
        agent_id = check.optional_scope(agent_id, "agent_id")
        strategy = check.option(Strategy, strategy, "strategy")
        source = check.option(RelevanceSource, relevance, "relevance source")
        kind_set = check.options(RecordKind, kinds, "kind") if kinds else None
        weights = Weights(
            relevance=check.number(relevance_alpha, "relevance_alpha", minimum=0.0),
            importance=check.number(importance_alpha, "importance_alpha", minimum=0.0),
            recency=check.number(recency_alpha, "recency_alpha", minimum=0.0)).check()
        check.count(top_k_vectors, "top_k_vectors")
        check.count(max_memories, "max_memories")
        check.number(min_score, "min_score", minimum=0.0, maximum=1.0)
        check.count(default_importance, "default_importance", maximum=10)
        check.count(reduce_batch_size, "reduce_batch_size", minimum=2)
        check.count(summary_max_tokens, "summary_max_tokens", maximum=100_000)
        names = _names(collections) if collections is not None else None
        await self.connect()  # type: ignore[attr-defined]
        await self.flush_session_embeddings(user_id)  # type: ignore[attr-defined]
        c = self.components
        if names is None:
            names = await c.store.agent_collections(user_id, agent_id) if agent_id else []
        mode = SearchMode.VECTOR if source == RelevanceSource.COSINE else SearchMode.HYBRID
        found: dict[str, tuple[Hit, float, str | None]] = {}
        groups: list[str | None] = list(names) or [None]
        # Cosine relevance is comparable across searches: one vector search per collection
        # (seed 004). Fused (RRF) scores are only comparable within one ranking: one hybrid
        # search over all the collections, with as many candidates as the per-collection ones.
        plan: list[tuple[frozenset[str] | None, int]] = (
            [(frozenset({n}) if n is not None else None, top_k_vectors) for n in groups]
            if source == RelevanceSource.COSINE
            else [(frozenset(names) if names else None,
                   min(check.MAX_K, top_k_vectors * len(groups)))]
        )
        for wanted, k in plan:
            filters = SearchFilters(kinds=kind_set, agent_id=None if names else agent_id,
                                    collections=wanted)
            for chunk in chunk_context(context):
                request = SearchRequest(query=chunk, mode=mode, k=k, filters=filters)
                for hit in await search(c.store, c.embedder, user_id, request,
                                        rrf_k=c.settings.rrf_k):
                    raw = hit.signals["vector"].score if mode == SearchMode.VECTOR else hit.score
                    best = found.get(hit.record.id)
                    if best is None or raw > best[1]:
                        found[hit.record.id] = (hit, raw, hit.record.collection)
        entries = list(found.values())
        explanations = explain(
            [h.record for h, _, _ in entries], [raw for _, raw, _ in entries], weights,
            source=source, default_importance=default_importance,
        )
        scored = [
            RecalledMemory(record=h.record, score=e.score, explanation=e, collection=name)
            for (h, _, name), e in zip(entries, explanations, strict=True)
            if e.score >= min_score
        ]
        result = RecallResult(strategy=strategy, candidates=len(entries), collections=names)
        if strategy == Strategy.SUMMARY:
            kept = hard_limit(scored, lambda m: m.score, len(scored))
            if kept:
                result.summary, result.reasoner_calls = await map_reduce_summary(
                    c.reasoner, context, [m.record.content for m in kept],
                    batch_size=reduce_batch_size, max_tokens=summary_max_tokens,
                )
        elif strategy == Strategy.COLLECTION_LIMIT:
            kept = collection_limit(scored, lambda m: m.score, lambda m: m.collection,
                                    max_memories, collections=groups)
        else:
            kept = hard_limit(scored, lambda m: m.score, max_memories)
        result.memories = kept
        if update_access and kept:
            await _touch(c, kept)
        return result


async def _touch(c: Components, memories: Sequence[RecalledMemory]) -> None:
    """Record an access on the recalled facts and insights: an atomic increment in the store
    (:meth:`MemoryStore.touch`), never a write-back of the copies read for scoring, so a fact
    retired meanwhile stays retired and concurrent recalls lose no count."""
    now = utcnow()
    facts = [m for m in memories if isinstance(m.record, Fact)]
    if not facts:
        return
    await c.store.touch(facts[0].record.user_id, [m.record.id for m in facts], now)
    for memory in facts:
        record = memory.record
        assert isinstance(record, Fact)
        memory.record = record.model_copy(
            update={"access_count": record.access_count + 1, "last_accessed_at": now})


def _names(collections: Sequence[str]) -> list[str]:
    if isinstance(collections, str):
        collections = [collections]
    names = [n.strip() for n in collections if isinstance(n, str)]
    if len(names) != len(collections) or any(not n for n in names):
        raise InvalidInputError("collection names must be non-blank strings")
    for name in names:
        check.text(name, "collection name")
    return list(dict.fromkeys(names))
