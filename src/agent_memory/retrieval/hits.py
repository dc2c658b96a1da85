"""What a search returns: hits that carry their score per signal and their provenance."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from ..models import AnyRecord, MemoryRecord, RecordKind


class SearchMode(StrEnum):
    """How candidates are ranked: by embedding, by BM25, or by both fused with RRF."""

    VECTOR = "vector"
    TEXT = "text"
    HYBRID = "hybrid"


class Signal(BaseModel):
    """One ranking signal's view of a hit.

    Attributes:
        score: the raw score (cosine similarity in [-1, 1] for ``vector``; BM25 relevance,
            higher is better, for ``text``).
        rank: 1-based rank of the hit within that signal's candidate list.
        field: the vector field that matched (``vector`` only).
    """

    model_config = ConfigDict(frozen=True)

    score: float
    rank: int = Field(ge=1)
    field: str | None = None


class Provenance(BaseModel):
    """Where a hit comes from.

    Attributes:
        kind / id / thread_id / agent_id / created_at: of the record itself.
        speaker: the speaker of a turn, or the subject of a fact.
        evidence: turn ids the record stands for (a turn stands for itself).
    """

    model_config = ConfigDict(frozen=True)

    kind: RecordKind
    id: str
    thread_id: str | None
    agent_id: str | None
    created_at: datetime
    speaker: str | None = None
    evidence: list[str]

    @classmethod
    def of(cls, record: MemoryRecord) -> Provenance:
        """Provenance of ``record``."""
        speaker = getattr(record, "speaker", None) or getattr(record, "subject", None)
        evidence = [record.id] if record.kind == RecordKind.TURN else list(record.evidence)
        return cls(
            kind=record.kind,
            id=record.id,
            thread_id=record.thread_id,
            agent_id=record.agent_id,
            created_at=record.created_at,
            speaker=speaker,
            evidence=evidence,
        )


class Hit(BaseModel):
    """One search result.

    Attributes:
        record: the matching record.
        score: the ranking score: cosine (vector mode), BM25 (text mode) or the RRF sum
            ``sum(1 / (rrf_k + rank))`` over signals (hybrid mode), plus, for a turn, the
            contributions folded onto it from the derived records citing it (``support``),
            times ``prior``.
        signals: ``"vector"`` and/or ``"text"`` -> :class:`Signal` (empty for a turn found
            only through the records citing it).
        provenance: see :class:`Provenance`.
        support: for a turn in hybrid mode, derived record id -> the part of ``score`` it
            contributed (evidence-level fusion, :func:`~.fusion.fold_evidence`).
        prior: the factor ``score`` was multiplied by because the query names the turn's
            speaker or the fact's subject (:mod:`.subjects`); 1.0 when none applied.
    """

    record: AnyRecord
    score: float
    signals: dict[str, Signal]
    provenance: Provenance
    support: dict[str, float] = Field(default_factory=dict)
    prior: float = 1.0
