"""Typed outputs of the session tasks of a reasoner (seed 001): interaction metadata, session
reflection, structured profile notes and contextual fact retrieval (CFR).

The three CFR search tools are described here once, as chat-completions function tools
(:data:`CFR_TOOLS`), so the LLM reasoner can offer them and the offline planner can name them;
the tools themselves run in :mod:`agent_memory.sessions.cfr` (a reasoner never touches a store:
it gets a :data:`ToolRunner` callback).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

IMPORTANCE_LEVELS = {"high": 8, "medium": 5, "low": 2}
"""Seed 001 grades importance high/medium/low; we store 1-10 (seed 004): high 8, medium 5, low 2."""


class InteractionDraft(BaseModel):
    """Metadata of one interaction (k turns): seed 001 section 8.1.

    Attributes:
        summary: one or two sentences.
        topics: up to 5 short topic phrases (``mentioned_topics`` in the seed).
        entities: specific things named (products, accounts, amounts, places, people).
    """

    model_config = ConfigDict(extra="forbid")

    summary: str = Field(min_length=1)
    topics: list[str] = Field(default_factory=list, max_length=10)
    entities: list[str] = Field(default_factory=list, max_length=20)


class InsightDraft(BaseModel):
    """One insight about the user found by session reflection.

    Attributes:
        category: one of the configured insight categories.
        insight_text: a self-contained sentence.
        confidence: 0-1.
        importance: 1-10; ``"high"``/``"medium"``/``"low"`` are accepted (see
            :data:`IMPORTANCE_LEVELS`).
        evidence: ids of the turns it rests on.
    """

    model_config = ConfigDict(extra="forbid")

    category: str = Field(min_length=1)
    insight_text: str = Field(min_length=1)
    confidence: float = Field(ge=0.0, le=1.0)
    importance: int = Field(default=5, ge=1, le=10)
    evidence: list[str] = Field(default_factory=list)

    @field_validator("importance", mode="before")
    @classmethod
    def _grade(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().lower() in IMPORTANCE_LEVELS:
            return IMPORTANCE_LEVELS[value.strip().lower()]
        return value


class SessionReflection(BaseModel):
    """What session reflection found: insights, or the ``no-insight`` flag (seed 001 8.2)."""

    model_config = ConfigDict(extra="forbid")

    reflection_flag: Literal["insight", "no-insight"]
    insights: list[InsightDraft] = Field(default_factory=list)


class InsightNote(BaseModel):
    """An insight as given to profile building (oldest first): id, category, text, date."""

    model_config = ConfigDict(frozen=True)

    id: str
    category: str | None = None
    text: str
    created_at: datetime


class RetrievedItem(BaseModel):
    """One record returned by a CFR search tool, with its provenance.

    Attributes:
        id: the record id.
        kind: ``interaction``, ``insight``, ``profile`` or ``session_summary``.
        session_id: the session (thread) it belongs to, if any.
        date: when it was said / written (UTC).
        text: what the record says (an interaction's summary plus its matching lines).
        category: an insight's category.
        score: the search's ranking score.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    kind: str
    session_id: str | None = None
    date: datetime | None = None
    text: str
    category: str | None = None
    score: float = 0.0


class ToolCall(BaseModel):
    """One search tool call made while retrieving facts."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    result_ids: list[str] = Field(default_factory=list)
    error: str | None = None


class FactRetrieval(BaseModel):
    """The outcome of contextual fact retrieval.

    Attributes:
        answer: the compiled facts (cites record ids in square brackets).
        items: every distinct record the searches returned, first seen first.
        calls: the tool calls, in order.
        rounds: model rounds used (0 for the offline planner).
    """

    answer: str
    items: list[RetrievedItem] = Field(default_factory=list)
    calls: list[ToolCall] = Field(default_factory=list)
    rounds: int = 0


ToolRunner = Callable[[str, dict[str, Any]], Awaitable[list[RetrievedItem]]]
"""Runs one CFR tool by name with its arguments; raises ``InvalidInputError`` for bad ones."""

SEARCH_INTERACTIONS = "search_interactions"
SEARCH_INSIGHTS = "search_insights"
SEARCH_SESSION_SUMMARIES = "search_session_summaries"


def _tool(name: str, description: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": ["query"],
                "additionalProperties": False,
            },
        },
    }


_QUERY = {"type": "string", "description": "What to look for, in plain words."}
_TOP_K = {"type": "integer", "minimum": 1, "maximum": 20, "description": "How many results."}

CFR_TOOLS: list[dict[str, Any]] = [
    _tool(
        SEARCH_INTERACTIONS,
        "Hybrid (vector + keyword) search over past conversation chunks of this user: their "
        "text, summaries, topics and entities. Best for what exactly was said and when.",
        {"query": _QUERY, "top_k": _TOP_K},
    ),
    _tool(
        SEARCH_INSIGHTS,
        "Search insights distilled about the user (goals, risk profile, concerns, "
        "preferences, ...) and their long-term profile.",
        {
            "query": _QUERY,
            "insight_type": {"type": "string", "enum": ["session", "long_term"],
                             "description": "session: per-session insights; long_term: the "
                                            "profile. Omit for both."},
            "category": {"type": "string", "description": "Only insights of this category."},
            "top_k": _TOP_K,
        },
    ),
    _tool(
        SEARCH_SESSION_SUMMARIES,
        "Search the summaries of past sessions (with their dates). Best for when something "
        "was discussed and the overall arc of past sessions.",
        {"query": _QUERY, "top_k": _TOP_K},
    ),
]
"""The three CFR tools as chat-completions function tools (seed 001 section 4.3)."""
