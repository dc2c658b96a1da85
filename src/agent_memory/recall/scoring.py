"""Recall scoring (seed 004): relevance, importance and recency, each in [0, 1], weighted.

For a candidate memory ``m`` among the candidates ``C`` of one recall::

    relevance(m)  = (cos(q, m) + 1) / 2                 cosine source: [-1, 1] -> [0, 1]
                  = fused(m) / max(fused(c) for c in C) fused source: hybrid RRF score, best = 1
    importance(m) = (importance(m) - 1) / 9             1-10 -> [0, 1]; unscored: the default
    recency(m)    = (t(m) - min t) / (max t - min t)    t = last_accessed_at, else created_at
                                                        (seconds); 1.0 when all are equal
    score(m)      = (a_rel * relevance + a_imp * importance + a_rec * recency)
                    / (a_rel + a_imp + a_rec)

The division by the sum of the alphas keeps the score in [0, 1] whatever the weights (seed 004
states the overall score ranges over [0, 1]); with one alpha non-zero the score is that signal.
Every scored memory carries a :class:`ScoreExplanation` giving each signal's raw value, its
rescaled value, its alpha and its weighted share of the score.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from ..errors import InvalidInputError
from ..models import MemoryRecord

IMPORTANCE_MIN, IMPORTANCE_MAX = 1, 10
"""The importance scale of seed 004."""


class RelevanceSource(StrEnum):
    """Where relevance comes from: the cosine of a vector search, or the fused hybrid score."""

    COSINE = "cosine"
    FUSED = "fused"


class Weights(BaseModel):
    """The alphas of the three signals (seed 004 defaults: 1.0 each).

    Raises:
        InvalidInputError (via :meth:`check`): a negative alpha, or all three zero.
    """

    model_config = ConfigDict(frozen=True)

    relevance: float = Field(default=1.0, ge=0.0)
    importance: float = Field(default=1.0, ge=0.0)
    recency: float = Field(default=1.0, ge=0.0)

    @property
    def total(self) -> float:
        """Sum of the alphas (the score's denominator)."""
        return self.relevance + self.importance + self.recency

    def check(self) -> Weights:
        """Return self, or raise :class:`InvalidInputError` when every alpha is zero."""
        if self.total <= 0:
            raise InvalidInputError("at least one of the relevance/importance/recency alphas "
                                    "must be positive")
        return self


class SignalScore(BaseModel):
    """One signal's part of a score.

    Attributes:
        raw: the input value (cosine in [-1, 1] or fused RRF score; importance 1-10; POSIX
            seconds of the access time).
        scaled: the value rescaled to [0, 1].
        alpha: the signal's weight.
        weighted: ``alpha * scaled / sum(alphas)``: its share of the final score.
        note: how ``raw`` was obtained (e.g. ``"last_accessed_at"``, ``"default importance"``).
    """

    model_config = ConfigDict(frozen=True)

    raw: float
    scaled: float
    alpha: float
    weighted: float
    note: str = ""


class ScoreExplanation(BaseModel):
    """Why a memory scored what it did, signal by signal; ``score`` is the sum of the
    ``weighted`` parts."""

    model_config = ConfigDict(frozen=True)

    relevance: SignalScore
    importance: SignalScore
    recency: SignalScore
    score: float

    def describe(self, precision: int = 3) -> str:
        """One line, e.g. ``score 0.712 = relevance 0.81*1.0 + importance 0.67*1.0 + ...``."""
        parts = [
            f"{name} {getattr(self, name).scaled:.{precision}f}*{getattr(self, name).alpha:g}"
            for name in ("relevance", "importance", "recency")
        ]
        return f"score {self.score:.{precision}f} = (" + " + ".join(parts) + ") / sum(alphas)"


def rescale_cosine(cosine: float) -> float:
    """``(cosine + 1) / 2``, clamped to [0, 1]."""
    return min(1.0, max(0.0, (cosine + 1.0) / 2.0))


def rescale_importance(importance: float) -> float:
    """Importance 1-10 to [0, 1]: ``(importance - 1) / 9``, clamped."""
    span = IMPORTANCE_MAX - IMPORTANCE_MIN
    return min(1.0, max(0.0, (float(importance) - IMPORTANCE_MIN) / span))


def min_max(values: Sequence[float]) -> list[float]:
    """Rescale ``values`` to [0, 1] by min-max; all 1.0 when they are all equal.

    Raises:
        InvalidInputError: ``values`` is empty.
    """
    if not values:
        raise InvalidInputError("cannot rescale an empty list")
    low, high = min(values), max(values)
    if high == low:
        return [1.0] * len(values)
    return [(v - low) / (high - low) for v in values]


def access_time(record: MemoryRecord) -> tuple[datetime, str]:
    """The time recency is measured from: ``last_accessed_at`` when set, else ``created_at``."""
    last = getattr(record, "last_accessed_at", None)
    if last is not None:
        return last, "last_accessed_at"
    return record.created_at, "created_at"


def explain(
    records: Sequence[MemoryRecord],
    relevance: Sequence[float],
    weights: Weights,
    *,
    source: RelevanceSource,
    default_importance: int = 5,
) -> list[ScoreExplanation]:
    """Score every candidate of one recall.

    Args:
        records: the candidates (recency is min-max over exactly these).
        relevance: one raw relevance per record: cosine (``source`` cosine) or fused score.
        weights: the alphas.
        source: how to rescale ``relevance``.
        default_importance: importance (1-10) of records that carry none (turns, summaries).

    Returns:
        One explanation per record, in order.

    Raises:
        InvalidInputError: lengths differ, all alphas are zero, or default_importance is
            outside 1-10.
    """
    weights.check()
    if len(records) != len(relevance):
        raise InvalidInputError("one relevance value per record is required")
    if not IMPORTANCE_MIN <= default_importance <= IMPORTANCE_MAX:
        raise InvalidInputError("default_importance must be within 1-10")
    if not records:
        return []
    if source == RelevanceSource.COSINE:
        rel = [rescale_cosine(x) for x in relevance]
    else:
        best = max(relevance)
        rel = [max(0.0, x) / best if best > 0 else 0.0 for x in relevance]
    times = [access_time(r) for r in records]
    recency = min_max([t.timestamp() for t, _ in times])
    total = weights.total
    out = []
    for record, raw_rel, scaled_rel, (when, when_note), scaled_rec in zip(
        records, relevance, rel, times, recency, strict=True
    ):
        stored = getattr(record, "importance", None)
        imp = stored if stored is not None else default_importance
        parts = {
            "relevance": SignalScore(
                raw=raw_rel, scaled=scaled_rel, alpha=weights.relevance,
                weighted=weights.relevance * scaled_rel / total, note=source.value),
            "importance": SignalScore(
                raw=imp, scaled=rescale_importance(imp), alpha=weights.importance,
                weighted=weights.importance * rescale_importance(imp) / total,
                note="stored" if stored is not None else "default importance"),
            "recency": SignalScore(
                raw=when.timestamp(), scaled=scaled_rec, alpha=weights.recency,
                weighted=weights.recency * scaled_rec / total, note=when_note),
        }
        score = sum(p.weighted for p in parts.values())
        out.append(ScoreExplanation(**parts, score=score))
    return out
