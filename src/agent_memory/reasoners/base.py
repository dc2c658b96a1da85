"""The reasoner contract: every LLM-shaped task of the pipeline, with typed outputs.

Implementations: ``extractive`` (offline default, no LLM; :mod:`.extractive`) and ``openai``
(OpenAI, Azure OpenAI or any OpenAI-compatible endpoint; :mod:`.openai`). Both return the same
pydantic models, so the pipeline never sees a loose dict. A reasoner never touches a store.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..models import Fact, Turn
from ..profile_schema import SchemaField
from .reconcile_models import ReconcileDecision
from .sessions_models import (
    FactRetrieval,
    InsightNote,
    InteractionDraft,
    SessionReflection,
    ToolRunner,
)


class SummaryDraft(BaseModel):
    """A summary produced by a reasoner.

    Attributes:
        text: the summary, within the requested token budget.
        key_topics: up to 5 short topic phrases.
        evidence: ids of the turns whose content the summary keeps.
    """

    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1)
    key_topics: list[str] = Field(default_factory=list, max_length=10)
    evidence: list[str] = Field(default_factory=list)


class FieldAssignment(BaseModel):
    """Where one fact goes in a profile (:meth:`Reasoner.assign_profile_fields`).

    Attributes:
        field: the schema field's name, or ``None`` when the fact belongs in none.
        score: 0-1, how clearly it belongs there (ranks the statements of a field when the
            budget is short).
    """

    model_config = ConfigDict(extra="forbid")

    field: str | None = None
    score: float = Field(default=0.5, ge=0.0, le=1.0)


class FactDraft(BaseModel):
    """One fact extracted from turns, before it is stored.

    Attributes:
        text: a self-contained sentence naming its subject, with absolute dates.
        subject: whom the fact is about (the speaker's name for self-disclosures).
        category: a short label (``preference``, ``event``, ``plan``, ...).
        confidence: 0-1.
        importance: 1-10, or ``None`` when not scored.
        evidence: ids of the turns the fact came from (at least one). A single string, as
            small models sometimes write (``"[s1:0]"`` or ``"s1:0, s1:2"``), is read as the
            list of its comma-separated ids.
        occurred_at: ISO date (``YYYY-MM-DD``) the fact refers to, when known.
    """

    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1)
    subject: str | None = None
    category: str | None = None
    confidence: float = Field(default=0.8, ge=0.0, le=1.0)
    importance: int | None = Field(default=None, ge=1, le=10)
    evidence: list[str] = Field(min_length=1)
    occurred_at: str | None = None

    @field_validator("evidence", mode="before")
    @classmethod
    def _ids_in_one_string(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        ids = (part.strip().strip("'\"").strip() for part in value.strip().strip("[]").split(","))
        return [part for part in ids if part]


class FactExtraction(BaseModel):
    """The facts a reasoner found in a batch of turns (possibly none)."""

    model_config = ConfigDict(extra="forbid")

    facts: list[FactDraft] = Field(default_factory=list)


class Reasoner(ABC):
    """Summarizes and distils conversation text.

    Conversation text given to a reasoner is data: implementations never follow instructions
    found inside it.
    """

    name: str
    quotes_source: bool = False
    """True when every sentence the reasoner outputs is copied (mechanically rewritten) from the
    turns; grounding then skips its embedding check (:mod:`agent_memory.grounding`)."""

    @abstractmethod
    async def summarize_thread(
        self, previous: str | None, turns: Sequence[Turn], max_tokens: int
    ) -> SummaryDraft:
        """Fold ``turns`` (oldest first) into the ``previous`` thread summary.

        Args:
            previous: the existing summary text, or ``None`` for a new thread.
            turns: only the turns newer than the summary's watermark.
            max_tokens: budget for the returned text (tokens as counted by
                :func:`agent_memory.tokens.count_tokens`).

        Raises:
            ReasonerError: the step failed (MalformedOutputError for invalid LLM output).
        """

    @abstractmethod
    async def extract_facts(self, turns: Sequence[Turn], context: Sequence[Turn] = ()
                            ) -> FactExtraction:
        """Extract self-contained facts from ``turns``; each cites its source turn ids.

        Relative dates ("yesterday", "last week") are resolved to absolute ones from the
        turn's ``created_at``; facts are attributed to the named speaker. ``context`` holds
        the turns of the thread just before ``turns`` (when the thread is read in windows):
        they are read for what ``turns`` refer to (a question a short reply answers, a pet
        named earlier) and may be cited beside a turn of ``turns``, but no fact comes from
        them alone.
        """

    @abstractmethod
    async def summarize_user(
        self, previous: str | None, items: Sequence[str], max_tokens: int
    ) -> SummaryDraft:
        """Merge new material (thread summaries, facts; oldest first) into the ``previous``
        cross-thread user profile; newer information wins contradictions."""

    @abstractmethod
    async def assign_profile_fields(
        self, subject: str | None, facts: Sequence[str], fields: Sequence[SchemaField]
    ) -> list[FieldAssignment]:
        """The profile field of each of ``facts`` (current facts about ``subject``, oldest
        first): one :class:`FieldAssignment` per fact, in order. The caller renders the
        profile (:func:`agent_memory.profile_schema.render_profile`)."""

    # -- sessions (seed 001): models in :mod:`.sessions_models` ---------------------------

    @abstractmethod
    async def describe_interaction(self, turns: Sequence[Turn]) -> InteractionDraft:
        """Summary, topics and entities of one interaction (a chunk of k turns)."""

    @abstractmethod
    async def reflect_on_session(
        self, turns: Sequence[Turn], categories: Sequence[str]
    ) -> SessionReflection:
        """Insights about the user in ``turns`` (categories from ``categories``), or the
        ``no-insight`` flag. Confidence filtering is the caller's."""

    @abstractmethod
    async def fill_profile(
        self,
        model: type[BaseModel],
        previous: Mapping[str, Any] | None,
        notes: Sequence[InsightNote],
    ) -> dict[str, Any]:
        """The structured profile shaped as ``model``, updated with ``notes`` (oldest first;
        newer wins). The caller validates it against ``model``."""

    @abstractmethod
    async def retrieve_facts(
        self, query: str, run_tool: ToolRunner, *, categories: Sequence[str], top_k: int,
        max_rounds: int,
    ) -> FactRetrieval:
        """Contextual fact retrieval: decide which of the three search tools to run through
        ``run_tool`` and compile the facts found, citing record ids and dates."""

    # -- reconciliation (seed 000): models in :mod:`.reconcile_models` ----------------------

    @abstractmethod
    async def reconcile(
        self, facts: Sequence[Fact], vectors: np.ndarray | None = None
    ) -> ReconcileDecision:
        """Find duplicate groups and contradicting pairs among ``facts`` in one pass.

        Args:
            facts: the pool (active facts of one user, newest first).
            vectors: the facts' embeddings, shape ``(len(facts), dim)``, L2-normalised rows,
                when the caller has them (the offline reasoner clusters by them).

        Returns:
            Only ids from ``facts``; the caller picks contradiction winners.
        """

    # -- recall (seed 004): the SUMMARY strategy's map and reduce step ----------------------

    @abstractmethod
    async def summarize_memories(
        self, context: str, memories: Sequence[str], max_tokens: int
    ) -> SummaryDraft:
        """Condense recalled ``memories`` (best first) into one note for ``context``, within
        ``max_tokens`` tokens (:func:`agent_memory.tokens.count_tokens`). Used as both the map
        and the reduce step of the SUMMARY recall strategy.

        Raises:
            InvalidInputError: ``max_tokens`` < 1 or no memories.
            ReasonerError: the step failed.
        """
