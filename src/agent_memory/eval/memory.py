"""Memory quality on LoCoMo: derived facts, summaries and profiles against the references.

LoCoMo ships annotations made by another system (:mod:`agent_memory.datasets.locomo_references`):
per session and speaker, ``observation`` facts with their evidence turns, and a
``session_summary``. After the pipeline has run over a conversation (``user_id = sample_id``,
one thread per session), :func:`evaluate_memory` reads what it derived from the store and
scores it with :mod:`agent_memory.eval.memory_metrics`:

- facts: the user's active facts and insights against the observations (observation recall,
  precision, matched precision, facts per observation, attribution accuracy), facts per
  session, and readability counts (:mod:`agent_memory.eval.readability`);
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

or, ingesting with any reasoner first (:func:`evaluate_locomo_memory`)::

    settings = Settings.load(reasoner="compatible:qwen15",
                             reasoner_base_url="http://127.0.0.1:8765/v1")
    report = await evaluate_locomo_memory(samples[:1], settings)
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

from pydantic import BaseModel

from ..client import AsyncMemory
from ..config import Settings
from ..datasets.locomo import LocomoSample, turn_id
from ..ingest import IngestReport, ThreadBatch, ingest_threads
from ..ingest import Progress as IngestProgress
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
from .readability import ReadabilityCounts, count_readability

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
        readability: readability failures of the facts (:class:`ReadabilityCounts`).
        summaries: scores of the sessions that have both a derived and a reference summary.
        missing_summaries: sessions without a derived summary.
        profile: the speakers' profile counts added up, ``None`` when none has a profile.
    """

    sample_id: str
    sessions: int
    facts: FactCounts
    readability: ReadabilityCounts = ReadabilityCounts()
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


def _fact_figures(counts: FactCounts, sessions: int,
                  readability: ReadabilityCounts) -> dict[str, Any]:
    return {
        **counts.model_dump(),
        "per_observation": _rate(counts.per_observation),
        "recall": _rate(counts.recall),
        "precision": _rate(counts.precision),
        "matched_precision": _rate(counts.matched_precision),
        "readability": readability.model_dump(),
        "unreadable_share": _rate(readability.unreadable / counts.facts if counts.facts
                                  else None),
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
            "facts": _fact_figures(facts, sessions,
                                   sum((r.readability for r in reports), ReadabilityCounts())),
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
    readability = count_readability([f.text for f in extracted], names)

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
                              readability=readability, summaries=summaries, missing_summaries=missing,
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


async def ingest_samples(memory: AsyncMemory, samples: Sequence[LocomoSample],
                         progress: IngestProgress | None = None) -> IngestReport | None:
    """Ingest, with the whole pipeline, the samples ``memory`` does not hold yet (a sample
    whose profile exists was ingested before and is reused); ``None`` when none was new."""
    todo = [s for s in samples if await memory.get_profile(s.sample_id) is None]
    if not todo:
        return None
    batches = [ThreadBatch(s.sample_id, sess.thread_id, sess.turns)
               for s in todo for sess in s.sessions]
    return await ingest_threads(memory, batches, pipeline=True, progress=progress)


async def evaluate_locomo_memory(
    samples: Sequence[LocomoSample],
    settings: Settings | None = None,
    *,
    store: str | Path | None = None,
    ingest_progress: IngestProgress | None = None,
    progress: Progress | None = None,
    **parts: Any,
) -> MemoryReport:
    """Ingest LoCoMo samples with any reasoner, then score what it derived: the whole
    ``agent-memory eval locomo-memory`` evaluation as one call.

    Each sample becomes one user (``user_id = sample_id``) with one thread per session; the
    pipeline of :func:`~agent_memory.ingest.ingest_threads` (summaries, facts, profile) runs
    over every session with the reasoner of ``settings`` (or the ready ``reasoner`` object
    given in ``parts``); then :func:`evaluate_memory` scores the facts, summaries and
    profiles. Reconciliation does not run: the observations note what held in each session,
    so a fact that a later session retires would count as lost (on the dev set, one
    ``reconcile_memories`` pass per conversation over all its facts merges 38 and retires 73
    of 1,221, and observation recall falls from 0.568 to 0.534). Samples already in
    ``store`` (their profile exists) are not ingested again.

    Args:
        samples: from :func:`~agent_memory.datasets.locomo.load_locomo`, e.g. ``[:1]`` for a
            subset (a slow local LLM takes minutes per session).
        settings: the memory's settings; the reasoner is selected here, e.g.
            ``Settings.load(reasoner="compatible:qwen15",
            reasoner_base_url="http://127.0.0.1:8765/v1")``; default the offline
            ``extractive`` reasoner. Its ``store`` is replaced by ``store``.
        store: SQLite file to ingest into and keep; default a fresh temporary file, removed
            afterwards.
        ingest_progress: optional hooks for the ingest (:class:`agent_memory.ingest.Progress`).
        progress: optional ``progress(done, total)`` per scored conversation.
        **parts: ready objects passed to :meth:`AsyncMemory.open` (``reasoner=...``,
            ``embedder=...``).

    Returns:
        The :class:`MemoryReport`: ``report.to_dict()["overall"]["facts"]`` holds
        ``per_observation`` (facts per reference observation), ``matched_precision``,
        ``recall`` (observation recall), ``precision``, ``attribution``, ``readability``
        (counts per flag) and ``unreadable_share``; ``report.rows()`` gives the same per
        conversation.

    Raises:
        ConfigError: ``rouge-score`` is not installed, or the reasoner is misconfigured.
        InvalidInputError: a sample's turns are invalid (nothing is stored).
        ReasonerError: the reasoner failed (e.g. its server timed out). Store and embedder
            errors propagate.
    """
    settings = settings or Settings.load()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(store) if store is not None else Path(tmp) / "locomo.db"
        async with AsyncMemory.open(settings.merged(store=str(path)), **parts) as memory:
            await ingest_samples(memory, samples, ingest_progress)
            return await evaluate_memory(memory, samples, progress)
