"""Memory quality on LoCoMo: derived facts, summaries and profiles against the references.

LoCoMo ships annotations made by another system (:mod:`agent_memory.datasets.locomo_references`):
per session and speaker, ``observation`` facts with their evidence turns, and a
``session_summary``. After the pipeline has run over a conversation (``user_id = sample_id``,
one thread per session), :func:`evaluate_memory` reads what it derived from the store and
scores it with :mod:`agent_memory.eval.memory_metrics`:

- facts: the user's active facts and insights against the observations (recall, precision,
  attribution accuracy), and facts per session;
- summaries: each session's thread summary against its turns (compression) and against the
  reference summary (ROUGE-1 / ROUGE-L recall);
- profiles: one per speaker (``get_profile(sample_id, subject=speaker)``): tokens, the share
  of sentences traced to that speaker's own turns, duplicate sentences, and statements per
  profile field.

The references are read only here, to measure; nothing passes them to the pipeline.
Embeddings come from the memory's own embedder (the local all-MiniLM-L6-v2 by default), so
thresholds such as the covering cosine 0.6 refer to that model.

Example::

    samples = load_locomo("../shared/datasets/locomo/locomo_dev.json")
    async with AsyncMemory.open(store="locomo.db") as memory:   # already ingested
        report = await evaluate_memory(memory, samples)
    print(report.to_dict()["overall"])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from statistics import fmean
from typing import Any

from pydantic import BaseModel

from ..client import AsyncMemory
from ..datasets.locomo import LocomoSample, turn_id
from ..models import Fact, RecordKind
from .memory_metrics import (
    ExtractedFact,
    FactCounts,
    ProfileCounts,
    ReferenceFact,
    SourceSentence,
    SummaryScore,
    score_facts,
    score_profile,
    score_summary,
    split_sentences,
    tracing_text,
)

TARGET_COMPRESSION = 5.0
"""Compression every summary should reach (thread tokens per summary token)."""

Progress = Callable[[int, int], None]
"""``progress(done, total)``, called after each conversation."""


class SessionSummaryScore(SummaryScore):
    """:class:`SummaryScore` of one session, with the session number."""

    session: int


class ConversationReport(BaseModel):
    """The figures of one conversation.

    Attributes:
        sample_id: the conversation (and user id).
        sessions: number of sessions (threads).
        facts: fact counts (:class:`FactCounts`).
        summaries: scores of the sessions that have both a derived and a reference summary.
        missing_summaries: sessions without a derived summary.
        profile: the speakers' profile counts added up, ``None`` when none has a profile.
    """

    sample_id: str
    sessions: int
    facts: FactCounts
    summaries: list[SessionSummaryScore]
    missing_summaries: int
    profile: ProfileCounts | None


def _rate(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _summary_figures(scores: Sequence[SummaryScore], missing: int) -> dict[str, Any]:
    if not scores:
        return {"n": 0, "missing": missing}
    ratios = [s.compression for s in scores]
    return {
        "n": len(scores),
        "missing": missing,
        "compression_mean": round(fmean(ratios), 3),
        "compression_min": round(min(ratios), 3),
        "at_target": round(sum(r >= TARGET_COMPRESSION for r in ratios) / len(ratios), 4),
        "rouge1_recall": round(fmean(s.rouge1_recall for s in scores), 4),
        "rougeL_recall": round(fmean(s.rougeL_recall for s in scores), 4),
    }


def _fact_figures(counts: FactCounts, sessions: int) -> dict[str, Any]:
    return {
        **counts.model_dump(),
        "recall": _rate(counts.recall),
        "precision": _rate(counts.precision),
        "attribution": _rate(counts.attribution),
        "per_session": round(counts.facts / sessions, 3) if sessions else None,
    }


def _profile_figures(counts: ProfileCounts) -> dict[str, Any]:
    return {
        **counts.model_dump(),
        "tokens_mean": round(counts.tokens / counts.profiles, 1) if counts.profiles else None,
        "own_share": _rate(counts.own_share),
    }


class MemoryReport(BaseModel):
    """The outcome of :func:`evaluate_memory`: per conversation and overall.

    Overall figures pool the counts (fact recall = all covered / all observations, and so on);
    summary figures are means over every scored session; ``at_target`` is the share of
    summaries at >= :data:`TARGET_COMPRESSION`.
    """

    conversations: list[ConversationReport]

    def _figures(self, reports: Sequence[ConversationReport]) -> dict[str, Any]:
        facts = sum((r.facts for r in reports), FactCounts())
        profiles = [r.profile for r in reports if r.profile is not None]
        sessions = sum(r.sessions for r in reports)
        return {
            "sessions": sessions,
            "facts": _fact_figures(facts, sessions),
            "summaries": _summary_figures([s for r in reports for s in r.summaries],
                                          sum(r.missing_summaries for r in reports)),
            "profile": _profile_figures(sum(profiles, ProfileCounts())),
        }

    def to_dict(self) -> dict[str, Any]:
        """``{"overall": {...}, "conversations": {sample_id: {... , "summaries": {...,
        "sessions": [per-session scores]}}}}`` (what ``eval locomo-memory --json`` writes)."""
        conversations: dict[str, Any] = {}
        for report in self.conversations:
            figures = self._figures([report])
            figures["summaries"]["sessions"] = [s.model_dump() for s in report.summaries]
            conversations[report.sample_id] = figures
        return {"overall": self._figures(self.conversations), "conversations": conversations}

    def rows(self) -> list[tuple[str, dict[str, Any]]]:
        """``(label, figures)`` per conversation, then ``("overall", figures)``."""
        rows = [(r.sample_id, self._figures([r])) for r in self.conversations]
        return rows + [("overall", self._figures(self.conversations))]


async def _facts(memory: AsyncMemory, user_id: str) -> list[Fact]:
    facts: list[Fact] = []
    cursor = None
    while True:
        page = await memory.get_memories_page(
            user_id, kinds=[RecordKind.FACT, RecordKind.INSIGHT], limit=500, cursor=cursor)
        facts.extend(r for r in page.records if isinstance(r, Fact))
        if page.cursor is None:
            return facts
        cursor = page.cursor


async def evaluate_conversation(memory: AsyncMemory, sample: LocomoSample) -> ConversationReport:
    """Score what the memory derived for one LoCoMo conversation (already ingested).

    Raises:
        ConfigError: ``rouge-score`` is not installed. Store and embedder errors propagate.
    """
    user, names = sample.sample_id, list(sample.speakers)
    embed = memory.embedder.embed
    references = [ReferenceFact(text=o.text, speaker=o.speaker,
                                evidence=[turn_id(user, d) for d in o.evidence])
                  for o in sample.observations]
    extracted = [ExtractedFact(text=f.content, subject=f.subject, evidence=f.evidence)
                 for f in await _facts(memory, user)]
    facts = score_facts(references, await embed([r.text for r in references]),
                        extracted, await embed([f.text for f in extracted]), names)

    summaries: list[SessionSummaryScore] = []
    missing = 0
    for session in sample.sessions:
        derived = await memory.get_summary(user, session.thread_id)
        reference = sample.session_summaries.get(session.number)
        if derived is None:
            missing += 1
        elif reference is not None:
            score = score_summary([t.content for t in session.turns], derived.content, reference)
            summaries.append(SessionSummaryScore(session=session.number, **score.model_dump()))

    profile_counts = None
    profiles = [p for p in [await memory.get_profile(user, subject=n) for n in names] if p]
    if profiles:
        sources = [SourceSentence(text=text, speaker=t.author, role=t.role.value)
                   for t in sample.turns() for text in split_sentences(t.content)]
        source_vectors = await embed([tracing_text(s.text, names) for s in sources])
        profile_counts = ProfileCounts()
        for profile in profiles:  # one per speaker
            counts = score_profile(
                profile.content,
                await embed([tracing_text(s, names) for s in split_sentences(profile.content)]),
                sources, source_vectors, names, subject=profile.subject)
            counts.fields = {f.name: len(f.facts) for f in profile.fields}
            profile_counts += counts
    return ConversationReport(sample_id=user, sessions=len(sample.sessions), facts=facts,
                              summaries=summaries, missing_summaries=missing,
                              profile=profile_counts)


async def evaluate_memory(
    memory: AsyncMemory, samples: Sequence[LocomoSample], progress: Progress | None = None
) -> MemoryReport:
    """Score derived facts, summaries and profiles of every sample (already ingested).

    Args:
        memory: an open memory whose store holds the samples' turns and derived records
            (``user_id = sample_id``).
        samples: from :func:`~agent_memory.datasets.locomo.load_locomo`.
        progress: optional ``progress(done, total)`` callback.

    Returns:
        The :class:`MemoryReport`.

    Raises:
        ConfigError: ``rouge-score`` is not installed. Store and embedder errors propagate.
    """
    reports = []
    for done, sample in enumerate(samples, start=1):
        reports.append(await evaluate_conversation(memory, sample))
        if progress is not None:
            progress(done, len(samples))
    return MemoryReport(conversations=reports)
