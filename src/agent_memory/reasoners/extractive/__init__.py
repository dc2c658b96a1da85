"""The offline ``extractive`` reasoner: no LLM, no network, deterministic.

Modules: :mod:`.sentences` (splitting, salience), :mod:`.summarize` (thread summaries and
profiles under a token budget), :mod:`.facts` (self-disclosure extraction, third-person
rewriting), :mod:`.dates` (relative dates made absolute).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel

from ..._threads import run_in_worker
from ...models import Fact, Turn
from ..base import FactExtraction, Reasoner, SummaryDraft
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
from .facts import extract_facts
from .summarize import summarize_items, summarize_turns

__all__ = ["ExtractiveReasoner"]


class ExtractiveReasoner(Reasoner):
    """Summaries by salient-sentence extraction and facts from self-disclosures.

    Everything runs in-process on the text alone (no embeddings), in well under a millisecond
    per turn, on a worker thread (:func:`agent_memory._threads.run_in_worker`): pure-Python work on a batch still
    adds up (summarizing or extracting facts from 100 LoCoMo turns took 40-45 ms each on the
    project's 2-core machine), and the event loop keeps serving other tasks meanwhile.
    Conversation text is only ever scored and copied, never interpreted as instructions.
    """

    name = "extractive"
    quotes_source = True

    async def summarize_thread(
        self, previous: str | None, turns: Sequence[Turn], max_tokens: int
    ) -> SummaryDraft:
        """See :func:`.summarize.summarize_turns` (raises ``InvalidInputError`` for a budget < 1
        or nothing to summarize)."""
        return await run_in_worker(summarize_turns, previous, list(turns), max_tokens)

    async def extract_facts(self, turns: Sequence[Turn]) -> FactExtraction:
        """See :func:`.facts.extract_facts`."""
        return await run_in_worker(extract_facts, list(turns))

    async def summarize_user(
        self, previous: str | None, items: Sequence[str], max_tokens: int
    ) -> SummaryDraft:
        """See :func:`.summarize.summarize_items` (newer near-duplicates win)."""
        return await run_in_worker(summarize_items, previous, list(items), max_tokens)

    # -- sessions (seed 001): see :mod:`.reflection` and :mod:`.planner` ------------------

    async def describe_interaction(self, turns: Sequence[Turn]) -> InteractionDraft:
        """See :func:`.reflection.describe_interaction`."""
        return await run_in_worker(_reflection.describe_interaction, list(turns))

    async def reflect_on_session(
        self, turns: Sequence[Turn], categories: Sequence[str]
    ) -> SessionReflection:
        """See :func:`.reflection.reflect_session`."""
        return await run_in_worker(_reflection.reflect_session, list(turns),
                                       list(categories))

    async def fill_profile(
        self,
        model: type[BaseModel],
        previous: Mapping[str, Any] | None,
        notes: Sequence[InsightNote],
    ) -> dict[str, Any]:
        """See :func:`.reflection.fill_profile`."""
        return await run_in_worker(_reflection.fill_profile, model, previous, list(notes))

    async def retrieve_facts(
        self, query: str, run_tool: ToolRunner, *, categories: Sequence[str], top_k: int,
        max_rounds: int,
    ) -> FactRetrieval:
        """See :func:`.planner.retrieve_facts` (a fixed plan; ``max_rounds`` is not used)."""
        return await _planner.retrieve_facts(query, run_tool, categories, top_k)

    # -- reconciliation (seed 000): see :mod:`.reconcile` and :mod:`.slots` -------------------

    async def reconcile(
        self, facts: Sequence[Fact], vectors: np.ndarray | None = None
    ) -> ReconcileDecision:
        """See :func:`.reconcile.reconcile_facts` (duplicates by embedding clusters and slots,
        contradictions by slots only)."""
        return await run_in_worker(_reconcile.reconcile_facts, list(facts), vectors)

    # -- recall (seed 004): see :mod:`.recall` ------------------------------------------------

    async def summarize_memories(
        self, context: str, memories: Sequence[str], max_tokens: int
    ) -> SummaryDraft:
        """See :func:`.recall.summarize_memories` (context-overlap sentence selection)."""
        from .recall import summarize_memories

        return await run_in_worker(summarize_memories, context, list(memories), max_tokens)
