"""The offline ``extractive`` reasoner: no LLM, no network, deterministic.

Modules: :mod:`.sentences` (splitting, salience), :mod:`.summarize` (thread summaries and
profiles under a token budget), :mod:`.facts` (self-disclosure extraction, third-person
rewriting), :mod:`.dates` (relative dates made absolute).
"""

from __future__ import annotations

from collections.abc import Sequence

from ...models import Turn
from ..base import FactExtraction, Reasoner, SummaryDraft
from .facts import extract_facts
from .summarize import summarize_items, summarize_turns

__all__ = ["ExtractiveReasoner"]


class ExtractiveReasoner(Reasoner):
    """Summaries by salient-sentence extraction and facts from self-disclosures.

    Everything runs in-process on the text alone (no embeddings), in well under a millisecond
    per turn; the async methods do no I/O and return at once. Conversation text is only ever
    scored and copied, never interpreted as instructions.
    """

    name = "extractive"

    async def summarize_thread(
        self, previous: str | None, turns: Sequence[Turn], max_tokens: int
    ) -> SummaryDraft:
        """See :func:`.summarize.summarize_turns` (raises ``InvalidInputError`` for a budget < 1
        or nothing to summarize)."""
        return summarize_turns(previous, turns, max_tokens)

    async def extract_facts(self, turns: Sequence[Turn]) -> FactExtraction:
        """See :func:`.facts.extract_facts`."""
        return extract_facts(turns)

    async def summarize_user(
        self, previous: str | None, items: Sequence[str], max_tokens: int
    ) -> SummaryDraft:
        """See :func:`.summarize.summarize_items` (newer near-duplicates win)."""
        return summarize_items(previous, items, max_tokens)
