"""The offline ``extractive`` reasoner: no LLM, no network, deterministic.

Each task is one module of this package (:mod:`.summarize`, :mod:`.facts`, :mod:`.reconcile`,
:mod:`.profile`, :mod:`.reflection`, :mod:`.recall`); each module's docstring says how.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel

from ..._threads import run_in_worker
from ...embedders.base import Embedder
from ...errors import ModelUnavailableError
from ...models import Fact, Turn
from ...profile_schema import SchemaField, schema_fields
from ..base import FactExtraction, FieldAssignment, Reasoner, SummaryDraft
from ..reconcile_models import ReconcileDecision
from ..sessions_models import (
    FactRetrieval,
    InsightNote,
    InteractionDraft,
    SessionReflection,
    ToolRunner,
)
from . import planner as _planner
from . import reconcile as _reconcile
from . import reflection as _reflection
from .attributes import AttributeIndex
from .facts import extract_facts
from .lexical import open_lexicon
from .profile import FieldIndex, summarize_items
from .select import shared_embedder
from .summarize import summarize_turns

__all__ = ["ExtractiveReasoner"]

class ExtractiveReasoner(Reasoner):
    """Summaries by salient-sentence extraction, facts from parsed clauses, reconciliation by
    a learned pair decision: in-process with local models, on a worker thread
    (:func:`agent_memory._threads.run_in_worker`) so the event loop keeps serving. Conversation
    text is only ever scored and copied, never interpreted as instructions.
    """

    name = "extractive"
    quotes_source = True

    def __init__(self, embedder: Embedder | None = None, wordnet: str | None = None) -> None:
        """Args:
            embedder: embeds fact predicates for reconciliation (:mod:`.attributes`); default
                the local all-MiniLM-L6-v2 the thresholds were chosen with, loaded on the first
                reconciliation. When it cannot load, reconciliation decides by terms alone.
            wordnet: folder of the WordNet database whose word relations reconciliation
                reads (:mod:`.lexical`); default ``AGENT_MEMORY_WORDNET``, then the usual
                folders (:func:`.wordnet.find_wordnet`); ``"none"`` decides without them.

        Raises:
            ConfigError: ``wordnet`` names a folder that holds no WordNet database.
        """
        self.lexicon = open_lexicon(wordnet)
        self._embedder = embedder
        self._indexes: dict[object, Any] = {}
        self._lock = threading.Lock()

    def _index(self, key: object, build: Any) -> Any:
        """``build(embed)`` once per ``key`` (it embeds: call on a worker thread).

        Raises:
            ModelUnavailableError: the local embedder cannot load.
        """
        with self._lock:
            if key not in self._indexes:
                self._indexes[key] = build((self._embedder or shared_embedder()).embed_sync)
            return self._indexes[key]

    def _attribute_index(self) -> AttributeIndex | None:
        """The attribute prototypes, or ``None`` when the embedder cannot load."""
        try:
            return self._index("attributes", AttributeIndex)
        except ModelUnavailableError:
            with self._lock:
                self._indexes["attributes"] = None  # decide by terms alone from now on
            return None

    async def summarize_thread(self, previous: str | None, turns: Sequence[Turn],
                               max_tokens: int) -> SummaryDraft:
        """See :func:`.summarize.summarize_turns` (raises ``InvalidInputError`` for a budget < 1
        or nothing to summarize)."""
        return await run_in_worker(summarize_turns, previous, list(turns), max_tokens)

    async def extract_facts(self, turns: Sequence[Turn], context: Sequence[Turn] = ()
                            ) -> FactExtraction:
        """See :func:`.facts.extract_facts` (the parse and the clause embeddings, always the
        local all-MiniLM-L6-v2 the selector was trained on, run on a worker thread; spaCy
        loads there on first use)."""
        return await run_in_worker(extract_facts, list(turns), None, list(context))

    def _field_index(self, fields: Sequence[SchemaField]) -> FieldIndex:
        """The schema's field prototypes, and the learned field model on the local
        all-MiniLM-L6-v2 (raises ``ModelUnavailableError`` like :meth:`_index`)."""
        return self._index(tuple(fields), lambda embed: FieldIndex(
            embed, tuple(fields), learned=lambda texts: shared_embedder().embed_sync(texts)))

    async def summarize_user(self, previous: str | None, items: Sequence[str],
                             max_tokens: int) -> SummaryDraft:
        """See :func:`.profile.summarize_items` (the default schema's fields, newer
        near-duplicates win)."""
        return await run_in_worker(lambda: summarize_items(
            previous, list(items), max_tokens, self._field_index(schema_fields())))

    async def assign_profile_fields(self, subject: str | None, facts: Sequence[str],
                                    fields: Sequence[SchemaField]) -> list[FieldAssignment]:
        """See :meth:`.profile.FieldIndex.assign` (the learned field model for the default
        schema's fields, else the nearest field prototype)."""
        return await run_in_worker(lambda: self._field_index(fields).assign(
            list(facts), [subject] * len(facts)))

    # -- sessions (seed 001): see :mod:`.reflection` and :mod:`.planner` ------------------

    async def describe_interaction(self, turns: Sequence[Turn]) -> InteractionDraft:
        """See :func:`.reflection.describe_interaction`."""
        return await run_in_worker(_reflection.describe_interaction, list(turns))

    async def reflect_on_session(self, turns: Sequence[Turn],
                                 categories: Sequence[str]) -> SessionReflection:
        """See :func:`.reflection.reflect_session`."""
        return await run_in_worker(_reflection.reflect_session, list(turns), list(categories))

    async def fill_profile(self, model: type[BaseModel], previous: Mapping[str, Any] | None,
                           notes: Sequence[InsightNote]) -> dict[str, Any]:
        """See :func:`.reflection.fill_profile`."""
        return await run_in_worker(_reflection.fill_profile, model, previous, list(notes))

    async def retrieve_facts(self, query: str, run_tool: ToolRunner, *,
                             categories: Sequence[str], top_k: int,
                             max_rounds: int) -> FactRetrieval:
        """See :func:`.planner.retrieve_facts` (a fixed plan; ``max_rounds`` is not used)."""
        return await _planner.retrieve_facts(query, run_tool, categories, top_k)

    # -- reconciliation (seed 000): see :mod:`.reconcile` --------------------------------------

    async def reconcile(self, facts: Sequence[Fact],
                        vectors: np.ndarray | None = None) -> ReconcileDecision:
        """See :func:`.reconcile.reconcile_facts` (a decision learned from features of each
        pair: embeddings, claim structure and, with WordNet, word relations)."""

        def decide() -> ReconcileDecision:
            return _reconcile.reconcile_facts(list(facts), vectors,
                                              attributes=self._attribute_index(),
                                              lexicon=self.lexicon)

        return await run_in_worker(decide)

    # -- recall (seed 004): see :mod:`.recall` ------------------------------------------------

    async def summarize_memories(self, context: str, memories: Sequence[str],
                                 max_tokens: int) -> SummaryDraft:
        """See :func:`.recall.summarize_memories` (context-overlap sentence selection)."""
        from .recall import summarize_memories

        return await run_in_worker(summarize_memories, context, list(memories), max_tokens)
